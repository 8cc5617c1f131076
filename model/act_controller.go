package model

import "slices"

// elect mirrors Elect(r): the controller elects r and bumps the leader epoch
// and the partition epoch; the ELR follows the election (see the spec) and
// the last known leader is forgotten.
func elect(cfg *Config, s *State, r int, t *State) bool {
	name := cfg.Replicas[r]
	if !s.Up(r) || s.CtrlEpoch >= cfg.MaxEpoch {
		return false
	}
	if !Electable(cfg, s, name) && !UncleanElectable(cfg, s) {
		return false
	}
	var newIsr, newElr []Replica
	switch {
	case Contains(s.CtrlIsr, name):
		newIsr = make([]Replica, 0, len(s.CtrlIsr))
		for _, x := range s.CtrlIsr {
			if s.Up(cfg.Index(x)) {
				newIsr = append(newIsr, x)
			}
		}
		newElr = ElrAfter(cfg, s.CtrlIsr, newIsr, s.CtrlElr)
	case ElrElectable(cfg, s, name):
		newIsr = []Replica{name}
		if rest := Remove(s.CtrlElr, name); len(rest) > 0 {
			newElr = rest
		}
	default:
		newIsr = []Replica{name}
	}
	e, pe := s.CtrlEpoch+1, s.CtrlPartitionEpoch+1
	*t = *s
	t.CtrlLeader = name
	t.CtrlEpoch = e
	t.CtrlIsr = newIsr
	t.CtrlPartitionEpoch = pe
	t.CtrlElr = newElr
	t.CtrlLastKnownElr = nil
	t.ControllerQueue = sendToLive(s, LeaderAndIsrMsg(name, e, newIsr, pe), -1)
	return true
}

// sendToLive appends m to the controller queue of every live broker but
// skip, copy-on-write.
func sendToLive(s *State, m Msg, skip int) [][]Msg {
	q := slices.Clone(s.ControllerQueue)
	for x := range q {
		if x != skip && s.Up(x) {
			q[x] = append(slices.Clip(s.ControllerQueue[x]), m)
		}
	}
	return q
}

// handleLeaderAndIsr mirrors HandleLeaderAndIsr(r): r consumes the head of
// its controller queue and applies it if its epoch is newer (as follower even
// when the named leader has died since), or if it only brings the leader a
// newer partition epoch.
func handleLeaderAndIsr(cfg *Config, s *State, r int, t *State) bool {
	q := s.ControllerQueue[r]
	if len(q) == 0 || (cfg.Restore == RestoreStaleControllerRequests && !s.Up(r)) { // restore hook: Up(r)
		return false
	}
	m := q[0]
	*t = *s
	t.ControllerQueue = with(s.ControllerQueue, r, q[1:len(q):len(q)])
	self := cfg.Replicas[r]
	switch {
	case m.Epoch > s.LeaderEpoch[r] && m.Leader == self:
		BecomeLeader(cfg, s, t, r, m)
	case m.Epoch > s.LeaderEpoch[r]: // even when m.Leader has died since (see the spec)
		BecomeFollower(cfg, s, t, r, m)
	case m.Epoch == s.LeaderEpoch[r] && m.Leader == self && s.Role[r] == Leader &&
		m.PartitionEpoch > s.PartitionEpoch[r]:
		UpdateIsr(cfg, s, t, r, m)
	}
	return true
}

// BecomeLeader mirrors BecomeLeader(r, m), writing the primed variables into
// t. A leader re-elected without a break (isNewLeader false) keeps its views
// of its followers and its waiting produce requests.
func BecomeLeader(cfg *Config, s, t *State, r int, m Msg) {
	isNewLeader := s.Role[r] != Leader
	if cfg.Rel().LeaderEntry == "BecomeLeader" {
		t.EpochCache = with(s.EpochCache, r, Assign(cfg, s.EpochCache[r], m.Epoch, s.LEO(r)))
	}
	views, from := s.FollowerLeo[r], s.ProduceEpoch[r]
	if isNewLeader {
		views, from = NoViews(cfg), m.Epoch
	}
	t.Role = with(s.Role, r, Leader)
	t.LeaderEpoch = with(s.LeaderEpoch, r, m.Epoch)
	t.Leader = with(s.Leader, r, cfg.Replicas[r])
	t.Isr = with(s.Isr, r, m.Isr)
	t.FollowerLeo = with(s.FollowerLeo, r, views)
	if isNewLeader {
		t.FollowerBrokerEpoch = with(s.FollowerBrokerEpoch, r, NoViews(cfg))
	}
	t.FetchState = with(s.FetchState, r, FetchNone)
	t.ProduceEpoch = with(s.ProduceEpoch, r, from)
	t.PartitionEpoch = with(s.PartitionEpoch, r, m.PartitionEpoch)
	t.PendingIsr = with(s.PendingIsr, r, nil)
	if isNewLeader && cfg.Restore == RestoreHWAboveLEO && s.Hw[r] > s.LEO(r) { // restore hook
		// Replica.convertHWToLocalOffsetMetadata: an HW past the log end
		// falls back to the log start.
		s0 := *s
		s0.Hw = with(s.Hw, r, 0)
		t.Hw = s0.Hw
		s = &s0
	}
	AdvanceHW(cfg, s, t, r, s.Log[r], m.Isr, m.Isr, views, from, m.Epoch)
}

// BecomeFollower mirrors BecomeFollower(r, m), writing the primed variables
// into t. Partition.makeFollower restarts the fetcher for a new leader or,
// per release, for any new epoch; a restarted fetcher reconciles per release.
func BecomeFollower(cfg *Config, s, t *State, r int, m Msg) {
	rel := cfg.Rel()
	restart := rel.RestartFetcherOn == "EpochChange" || s.Leader[r] != m.Leader
	t.Role = with(s.Role, r, Follower)
	t.LeaderEpoch = with(s.LeaderEpoch, r, m.Epoch)
	t.Leader = with(s.Leader, r, m.Leader)
	t.Isr = with(s.Isr, r, nil)
	t.FollowerLeo = with(s.FollowerLeo, r, NoViews(cfg))
	t.FollowerBrokerEpoch = with(s.FollowerBrokerEpoch, r, NoViews(cfg))
	t.ProduceEpoch = with(s.ProduceEpoch, r, -1)
	t.PartitionEpoch = with(s.PartitionEpoch, r, -1)
	t.PendingIsr = with(s.PendingIsr, r, nil)
	switch {
	case restart && rel.Reconcile == "TruncateToHW":
		// Kafka 0.10.2: truncate to the local HW, then fetch from there.
		t.Log = with(s.Log, r, TruncLog(s, r, s.Hw[r]))
		t.EpochCache = with(s.EpochCache, r, TruncCache(s, r, s.Hw[r]))
		t.FetchState = with(s.FetchState, r, Fetching)
	case !restart:
		// the fetcher goes on as it was
	default: // under 3.9: no fetch answered without divergence yet
		t.FetchState = with(s.FetchState, r, Truncating)
	}
}

// UpdateIsr mirrors UpdateIsr(r, m): a LeaderAndIsr in the leader's epoch
// with a newer partition epoch (the controller fenced a follower).
func UpdateIsr(cfg *Config, s, t *State, r int, m Msg) {
	t.Isr = with(s.Isr, r, m.Isr)
	t.PartitionEpoch = with(s.PartitionEpoch, r, m.PartitionEpoch)
	t.PendingIsr = with(s.PendingIsr, r, nil)
	AdvanceHW(cfg, s, t, r, s.Log[r], m.Isr, m.Isr, s.FollowerLeo[r], s.ProduceEpoch[r], s.LeaderEpoch[r])
}
