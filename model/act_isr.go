package model

// ISR changes: AlterPartition from the current leader, a compare-and-set on
// the controller's ISR.

// shrinkIsr mirrors ShrinkIsr(l, f).
func shrinkIsr(cfg *Config, s *State, l, f int) (State, bool) {
	fname := cfg.Replicas[f]
	if !CurrentLeader(cfg, s, l) || f == l || !Contains(s.Isr[l], fname) {
		return State{}, false
	}
	isr := Remove(s.Isr[l], fname)
	t := *s
	t.Isr = with(s.Isr, l, isr)
	t.CtrlIsr = isr
	AdvanceHW(cfg, s, &t, l, s.Log[l], isr, s.FollowerLeo[l], s.LeaderEpoch[l])
	return t, true
}

// expandIsr mirrors ExpandIsr(l, f): f is caught up to the HW and to the
// start of the leader's epoch (KAFKA-7128).
func expandIsr(cfg *Config, s *State, l, f int) (State, bool) {
	fname := cfg.Replicas[f]
	if !CurrentLeader(cfg, s, l) || Contains(s.Isr[l], fname) {
		return State{}, false
	}
	view := s.FollowerLeo[l][f]
	if view < s.Hw[l] || view < EpochStart(s, l) {
		return State{}, false
	}
	isr := Insert(s.Isr[l], fname)
	t := *s
	t.Isr = with(s.Isr, l, isr)
	t.CtrlIsr = isr
	AdvanceHW(cfg, s, &t, l, s.Log[l], isr, s.FollowerLeo[l], s.LeaderEpoch[l])
	return t, true
}
