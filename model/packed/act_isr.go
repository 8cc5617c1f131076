package packed

import (
	"math/bits"

	"github.com/hwepoch/hwepoch/model"
)

// ISR changes (model/act_isr.go): the leader's decision (ShrinkIsr,
// ExpandIsr), taking effect at once in the synchronous releases and as an
// AlterPartition proposal in the asynchronous one; the controller's decision
// and the leader's handling of it.

// changeIsr mirrors ChangeIsr(l, isr) (model's changeIsr), writing into t.
func (s *Succ) changeIsr(p, t *State, l int, isr Set) {
	pl, tl := &p.R[l], &t.R[l]
	if s.asyncIsr {
		var be [MaxReplicas]int8 // each member's broker epoch in l's view, -1 for the others
		for x := range s.n {
			be[x] = -1
			if isr.Has(x) {
				be[x] = pl.FollowerBrokerEpoch[x]
			}
		}
		tl.PendingIsr = isr
		tl.AlterPartition.alterPartitionReq(pl.LeaderEpoch, pl.PartEpoch, isr, &be)
		return
	}
	tl.Isr = isr
	t.CtrlIsr = isr
	s.advanceHW(p, t, l, isr, isr, &pl.FollowerLeo, pl.ProduceEpoch, pl.LeaderEpoch)
}

// shrinkIsr mirrors ShrinkIsr(l, f).
func (s *Succ) shrinkIsr(p *State, l, f int, t *State) bool {
	pl := &p.R[l]
	if !s.mayChangeIsr(p, l) || f == l || !pl.Isr.Has(f) {
		return false
	}
	*t = *p
	s.changeIsr(p, t, l, pl.Isr&^bit(f))
	if s.bug == bugShrinkIsrStaleCtrl {
		t.CtrlIsr, t.R[l].PendingIsr = p.CtrlIsr, pl.PendingIsr
	}
	return true
}

// expandIsr mirrors ExpandIsr(l, f): f is caught up to the HW and, per
// release, to the start of the leader's epoch (KAFKA-7128) and alive
// (KIP-841).
func (s *Succ) expandIsr(p *State, l, f int, t *State) bool {
	pl := &p.R[l]
	if !s.mayChangeIsr(p, l) || pl.Isr.Has(f) {
		return false
	}
	if s.expandLiveOnly && !p.up(f) {
		return false
	}
	if s.isrBrokerEpochs && pl.FollowerBrokerEpoch[f] != p.R[f].BrokerEpoch && s.bug != bugExpandIgnoresBrokerEpoch {
		return false // KIP-903: the view is of an earlier incarnation
	}
	view := pl.FollowerLeo[f]
	if view < pl.Hw || (s.expandNeedsEpochStart && view < epochStart(p, l)) {
		return false
	}
	*t = *p
	s.changeIsr(p, t, l, pl.Isr|bit(f))
	return true
}

// handleAlterPartition mirrors HandleAlterPartition(l): the controller's
// decision on l's proposal.
func (s *Succ) handleAlterPartition(p *State, l int, t *State) bool {
	m := &p.R[l].AlterPartition
	if m.Type != model.MsgAlterPartition {
		return false
	}
	err := model.ErrNone
	switch {
	case p.CtrlLeader != int8(l) || m.LeaderEpoch != p.CtrlEpoch:
		err = model.ErrFencedLeaderEpoch
	case m.PartitionEpoch != p.CtrlPartitionEpoch:
		err = model.ErrInvalidUpdateVersion
	case !s.eligible(p, m):
		err = model.ErrIneligibleReplica
	}
	*t = *p
	ta := &t.R[l].AlterPartition
	if s.mutControllerDrops { // mutant hook
		ta.noMsg()
		return true
	}
	if err == model.ErrNone {
		t.CtrlIsr = m.Isr
		t.CtrlElr = s.elrAfter(p.CtrlIsr, m.Isr, p.CtrlElr)
		t.CtrlPartitionEpoch = p.CtrlPartitionEpoch + 1
		ta.alterPartitionResp(model.ErrNone, m.LeaderEpoch, p.CtrlPartitionEpoch+1, m.Isr)
	} else {
		ta.alterPartitionResp(err, 0, 0, 0)
	}
	return true
}

// eligible is whether every replica the proposal m adds to the controller's
// ISR is live and, where m gives it a broker epoch (not -1), in that
// registration (KIP-841, KIP-903).
func (s *Succ) eligible(p *State, m *Msg) bool {
	for x := uint8(m.Isr &^ p.CtrlIsr); x != 0; x &= x - 1 {
		i := bits.TrailingZeros8(x)
		if be := m.BrokerEpochs[i]; !p.up(i) || (be != -1 && be != p.R[i].BrokerEpoch) {
			return false
		}
	}
	return true
}

// handleAlterPartitionResponse mirrors HandleAlterPartitionResponse(l).
func (s *Succ) handleAlterPartitionResponse(p *State, l int, t *State) bool {
	pl := &p.R[l]
	m := &pl.AlterPartition
	if m.Type != model.MsgAlterPartitionResponse {
		return false
	}
	*t = *p
	tl := &t.R[l]
	tl.AlterPartition.noMsg()
	if pl.Role != model.Leader || pl.PendingIsr == 0 || (m.Error == model.ErrNone && m.LeaderEpoch != pl.LeaderEpoch) {
		return true
	}
	switch m.Error {
	case model.ErrNone:
		tl.Isr = m.Isr
		tl.PartEpoch = m.PartitionEpoch
		tl.PendingIsr = 0
		s.advanceHW(p, t, l, m.Isr, m.Isr, &pl.FollowerLeo, pl.ProduceEpoch, pl.LeaderEpoch)
	case model.ErrIneligibleReplica:
		tl.PendingIsr = 0
	}
	return true
}
