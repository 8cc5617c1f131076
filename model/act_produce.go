package model

// produce mirrors Produce(l): a producer writes one record to leader l, whose
// cache assigns its epoch at the record.
func produce(cfg *Config, s *State, l int, t *State) bool {
	if s.Role[l] != Leader || s.NextId > cfg.MaxRecords {
		return false
	}
	if cfg.Acks == "all" && len(s.Isr[l]) < cfg.MinInsyncReplicas {
		return false
	}
	old := s.Log[l]
	lg := make([]Record, len(old)+1)
	copy(lg, old)
	lg[len(old)] = Record{ID: s.NextId, Epoch: s.LeaderEpoch[l]}
	maximal := MaximalIsr(s, l)
	nw := NewHW(cfg, l, lg, maximal, s.Isr[l], s.FollowerLeo[l], s.Hw[l])
	*t = *s
	t.Log = with(s.Log, l, lg)
	if c := Assign(cfg, s.EpochCache[l], s.LeaderEpoch[l], len(old)); !sameEntries(c, s.EpochCache[l]) {
		t.EpochCache = with(s.EpochCache, l, c)
	}
	if nw != s.Hw[l] {
		t.Hw = with(s.Hw, l, nw)
	}
	t.Committed = Union(s.Committed, NewlyCommitted(lg, s.Hw[l], nw))
	acked := NewlyAcked(cfg, lg, s.Hw[l], nw, s.ProduceEpoch[l], s.LeaderEpoch[l], maximal)
	if cfg.Acks == "1" {
		acked = append(acked, OffsetID{Offset: len(old), ID: s.NextId})
	}
	t.Acked = Union(s.Acked, acked)
	t.NextId = s.NextId + 1
	return true
}

// sameEntries reports whether Assign returned its input unchanged (it returns
// the same slice then), so that an unchanged cache stays shared.
func sameEntries(a, b []Entry) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}
