package model

// ISR changes: the leader's decision (ShrinkIsr, ExpandIsr), taking effect at
// once in the synchronous releases and as an AlterPartition proposal in the
// asynchronous one; the controller's decision and the leader's handling of it.

// changeIsr mirrors ChangeIsr(l, isr), writing into t.
func changeIsr(cfg *Config, s, t *State, l int, isr []Replica) {
	if cfg.Rel().AsyncIsr {
		t.PendingIsr = with(s.PendingIsr, l, isr)
		be := make([]int, cfg.N())
		for x := range be {
			be[x] = -1
			if Contains(isr, cfg.Replicas[x]) {
				be[x] = s.FollowerBrokerEpoch[l][x]
			}
		}
		t.AlterPartition = with(s.AlterPartition, l, AlterPartitionReq(s.LeaderEpoch[l], s.PartitionEpoch[l], isr, be))
		return
	}
	t.Isr = with(s.Isr, l, isr)
	t.CtrlIsr = isr
	AdvanceHW(cfg, s, t, l, s.Log[l], isr, isr, s.FollowerLeo[l], s.ProduceEpoch[l], s.LeaderEpoch[l])
}

// shrinkIsr mirrors ShrinkIsr(l, f).
func shrinkIsr(cfg *Config, s *State, l, f int, t *State) bool {
	fname := cfg.Replicas[f]
	if !MayChangeIsr(cfg, s, l) || f == l || !Contains(s.Isr[l], fname) {
		return false
	}
	*t = *s
	changeIsr(cfg, s, t, l, Remove(s.Isr[l], fname))
	return true
}

// expandIsr mirrors ExpandIsr(l, f): f is caught up to the HW and, per
// release, to the start of the leader's epoch (KAFKA-7128) and alive
// (KIP-841).
func expandIsr(cfg *Config, s *State, l, f int, t *State) bool {
	fname := cfg.Replicas[f]
	rel := cfg.Rel()
	if !MayChangeIsr(cfg, s, l) || Contains(s.Isr[l], fname) {
		return false
	}
	if rel.ExpandLiveOnly && !s.Up(f) {
		return false
	}
	if rel.IsrBrokerEpochs && s.FollowerBrokerEpoch[l][f] != s.BrokerEpoch[f] {
		return false // KIP-903: the view is of an earlier incarnation
	}
	view := s.FollowerLeo[l][f]
	if view < s.Hw[l] || (rel.ExpandNeedsEpochStart && view < EpochStart(s, l)) {
		return false
	}
	*t = *s
	changeIsr(cfg, s, t, l, Insert(s.Isr[l], fname))
	return true
}

// handleAlterPartition mirrors HandleAlterPartition(l): the controller's
// decision on l's proposal.
func handleAlterPartition(cfg *Config, s *State, l int, t *State) bool {
	m := s.AlterPartition[l]
	if m.Type != MsgAlterPartition {
		return false
	}
	err := ErrNone
	switch {
	case s.CtrlLeader != cfg.Replicas[l] || m.LeaderEpoch != s.CtrlEpoch:
		err = ErrFencedLeaderEpoch
	case m.PartitionEpoch != s.CtrlPartitionEpoch:
		err = ErrInvalidUpdateVersion
	default:
		for _, x := range m.Isr {
			i := cfg.Index(x)
			if Contains(s.CtrlIsr, x) && cfg.Restore != RestoreKRaftIsrRules { // restore hook: every member
				continue
			}
			if be := m.BrokerEpochs[i]; !s.Up(i) || (be != -1 && be != s.BrokerEpoch[i]) {
				err = ErrIneligibleReplica
				break
			}
		}
	}
	*t = *s
	if cfg.Mutant == MutantControllerDropsAlterPartition { // mutant hook
		t.AlterPartition = with(s.AlterPartition, l, NoMsg)
		return true
	}
	if err == ErrNone {
		t.CtrlIsr = m.Isr
		t.CtrlElr = ElrAfter(cfg, s.CtrlIsr, m.Isr, s.CtrlElr)
		t.CtrlPartitionEpoch = s.CtrlPartitionEpoch + 1
		t.AlterPartition = with(s.AlterPartition, l, AlterPartitionResp(ErrNone, m.LeaderEpoch, s.CtrlPartitionEpoch+1, m.Isr))
	} else {
		t.AlterPartition = with(s.AlterPartition, l, AlterPartitionResp(err, 0, 0, nil))
	}
	return true
}

// handleAlterPartitionResponse mirrors HandleAlterPartitionResponse(l).
func handleAlterPartitionResponse(cfg *Config, s *State, l int, t *State) bool {
	m := s.AlterPartition[l]
	if m.Type != MsgAlterPartitionResponse {
		return false
	}
	*t = *s
	t.AlterPartition = with(s.AlterPartition, l, NoMsg)
	if s.Role[l] != Leader || len(s.PendingIsr[l]) == 0 || (m.Error == ErrNone && m.LeaderEpoch != s.LeaderEpoch[l]) {
		return true
	}
	switch m.Error {
	case ErrNone:
		t.Isr = with(s.Isr, l, m.Isr)
		t.PartitionEpoch = with(s.PartitionEpoch, l, m.PartitionEpoch)
		t.PendingIsr = with(s.PendingIsr, l, nil)
		AdvanceHW(cfg, s, t, l, s.Log[l], m.Isr, m.Isr, s.FollowerLeo[l], s.ProduceEpoch[l], s.LeaderEpoch[l])
	case ErrIneligibleReplica:
		t.PendingIsr = with(s.PendingIsr, l, nil)
	}
	return true
}
