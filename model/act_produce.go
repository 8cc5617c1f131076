package model

// produce mirrors Produce(l): a producer writes one record to leader l.
func produce(cfg *Config, s *State, l int) (State, bool) {
	if s.Role[l] != Leader || s.NextId > cfg.MaxRecords {
		return State{}, false
	}
	if cfg.Acks == "all" && len(s.Isr[l]) < cfg.MinInsyncReplicas {
		return State{}, false
	}
	old := s.Log[l]
	lg := make([]Record, len(old)+1)
	copy(lg, old)
	lg[len(old)] = Record{ID: s.NextId, Epoch: s.LeaderEpoch[l]}
	nw := NewHW(cfg, l, lg, s.Isr[l], s.FollowerLeo[l], s.Hw[l])
	t := *s
	t.Log = with(s.Log, l, lg)
	if nw != s.Hw[l] {
		t.Hw = with(s.Hw, l, nw)
	}
	t.Committed = Union(s.Committed, NewlyCommitted(lg, s.Hw[l], nw))
	acked := NewlyAcked(cfg, lg, s.Hw[l], nw, s.LeaderEpoch[l], s.Isr[l])
	if cfg.Acks == "1" {
		acked = append(acked, OffsetID{Offset: len(old), ID: s.NextId})
	}
	t.Acked = Union(s.Acked, acked)
	t.NextId = s.NextId + 1
	return t, true
}
