package packed

import "github.com/hwepoch/hwepoch/model"

// The controller's elections and the brokers' handling of LeaderAndIsr
// (model/act_controller.go).

// elect mirrors Elect(r) (model's elect): the controller elects r and bumps
// the leader epoch and the partition epoch; the ELR follows the election
// and the last known leader is forgotten.
func (s *Succ) elect(p *State, r int, t *State) bool {
	if !p.up(r) || int(p.CtrlEpoch) >= s.maxEpoch {
		return false
	}
	if !s.electable(p).Has(r) && !s.uncleanElectable(p) {
		return false
	}
	var newIsr, newElr Set
	switch {
	case p.CtrlIsr.Has(r):
		newIsr = p.CtrlIsr & s.live(p)
		newElr = s.elrAfter(p.CtrlIsr, newIsr, p.CtrlElr)
	case s.elrElectable(p, r):
		newIsr = bit(r)
		newElr = p.CtrlElr &^ bit(r)
		if s.bug == bugElrElectionKeepsElr {
			newElr = p.CtrlElr
		}
	default:
		newIsr = bit(r)
	}
	e, pe := p.CtrlEpoch+1, p.CtrlPartitionEpoch+1
	*t = *p
	t.CtrlLeader = int8(r)
	t.CtrlEpoch = e
	t.CtrlIsr = newIsr
	t.CtrlPartitionEpoch = pe
	if s.bug == bugElectKeepsPartitionEpoch {
		t.CtrlPartitionEpoch = p.CtrlPartitionEpoch
	}
	t.CtrlElr = newElr
	t.CtrlLastKnownElr = 0
	m := leaderAndIsr(int8(r), e, newIsr, pe)
	s.sendToLive(p, t, &m, -1)
	return true
}

// sendToLive mirrors the controller's send of m to every live broker but
// skip (model's sendToLive): m joins the end of their queues in t; liveness
// is read in p.
func (s *Succ) sendToLive(p, t *State, m *Msg, skip int) {
	for x := range s.n {
		if x != skip && p.up(x) {
			t.R[x].pushQueue(m)
		}
	}
}

// handleLeaderAndIsr mirrors HandleLeaderAndIsr(r): r consumes the head of
// its controller queue and applies it if its epoch is newer (as follower even
// when the named leader has died since), or if it only brings the leader a
// newer partition epoch.
func (s *Succ) handleLeaderAndIsr(p *State, r int, t *State) bool {
	pr := &p.R[r]
	if pr.QueueLen == 0 {
		return false
	}
	m := &pr.Queue[0] // p is not written
	*t = *p
	t.R[r].popQueue()
	self := int8(r)
	switch {
	case m.Epoch > pr.LeaderEpoch && m.Leader == self:
		s.becomeLeader(p, t, r, m)
	case m.Epoch > pr.LeaderEpoch: // even when m.Leader has died since (see the spec)
		s.becomeFollower(p, t, r, m)
	case m.Epoch == pr.LeaderEpoch && m.Leader == self && pr.Role == model.Leader &&
		m.PartitionEpoch > pr.PartEpoch:
		s.updateIsr(p, t, r, m)
	}
	return true
}

// becomeLeader mirrors BecomeLeader(r, m) (model.BecomeLeader), writing the
// primed variables into t. A leader re-elected without a break (isNewLeader
// false) keeps its views of its followers and its waiting produce requests.
func (s *Succ) becomeLeader(p, t *State, r int, m *Msg) {
	pr, tr := &p.R[r], &t.R[r]
	isNewLeader := pr.Role != model.Leader
	if s.leaderEntryOnBecome {
		s.assign(tr, m.Epoch, pr.LogLen)
	}
	from := pr.ProduceEpoch
	if isNewLeader {
		s.noViews(&tr.FollowerLeo)
		s.noViews(&tr.FollowerBrokerEpoch)
		from = m.Epoch
	}
	tr.Role = model.Leader
	tr.LeaderEpoch = m.Epoch
	tr.Leader = int8(r)
	tr.Isr = m.Isr
	tr.FetchState = model.FetchNone
	tr.ProduceEpoch = from
	tr.PartEpoch = m.PartitionEpoch
	tr.PendingIsr = 0
	s.advanceHW(p, t, r, m.Isr, m.Isr, &tr.FollowerLeo, from, m.Epoch)
}

// becomeFollower mirrors BecomeFollower(r, m) (model.BecomeFollower),
// writing the primed variables into t. Partition.makeFollower restarts the
// fetcher for a new leader or, per release, for any new epoch; a restarted
// fetcher reconciles per release.
func (s *Succ) becomeFollower(p, t *State, r int, m *Msg) {
	pr, tr := &p.R[r], &t.R[r]
	restart := s.restartOnEpoch || pr.Leader != m.Leader
	tr.Role = model.Follower
	tr.LeaderEpoch = m.Epoch
	tr.Leader = m.Leader
	tr.Isr = 0
	s.noViews(&tr.FollowerLeo)
	s.noViews(&tr.FollowerBrokerEpoch)
	tr.ProduceEpoch = -1
	tr.PartEpoch = -1
	tr.PendingIsr = 0
	switch {
	case restart && s.reconcile == truncateToHW:
		// Kafka 0.10.2: truncate to the local HW, then fetch from there.
		truncate(p, t, r, pr.Hw, false)
		tr.FetchState = model.Fetching
	case !restart:
		// the fetcher goes on as it was
	default: // under 3.9: no fetch answered without divergence yet
		tr.FetchState = model.Truncating
	}
}

// updateIsr mirrors UpdateIsr(r, m) (model.UpdateIsr): a LeaderAndIsr in the
// leader's epoch with a newer partition epoch (the controller fenced a
// follower).
func (s *Succ) updateIsr(p, t *State, r int, m *Msg) {
	pr, tr := &p.R[r], &t.R[r]
	tr.Isr = m.Isr
	tr.PartEpoch = m.PartitionEpoch
	tr.PendingIsr = 0
	s.advanceHW(p, t, r, m.Isr, m.Isr, &pr.FollowerLeo, pr.ProduceEpoch, pr.LeaderEpoch)
}
