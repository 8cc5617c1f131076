package model

// The leader's high watermark (Partition.maybeIncrementLeaderHW).

// MaximalIsr mirrors MaximalIsr(l) == isr[l] \cup pendingIsr[l]: the ISR the
// HW is computed over while an AlterPartition is pending.
func MaximalIsr(s *State, l int) []Replica {
	if len(s.PendingIsr[l]) == 0 {
		return s.Isr[l]
	}
	return UnionReplicas(s.Isr[l], s.PendingIsr[l])
}

// CandidateHW mirrors CandidateHW(l, lg, s, gate, views): the least LEO over
// the ISR s, using len(lg) for the leader l and views for the followers; 0
// while a view is unknown (-1) or, with MinIsrGatesHW, while the committed ISR
// gate has fewer than MinInsyncReplicas members. l is an index into
// cfg.Replicas; views is indexed likewise.
func CandidateHW(cfg *Config, l int, lg []Record, s, gate []Replica, views []int) int {
	low, unknown := 0, false
	for k, r := range s {
		var leo int
		if i := cfg.Index(r); i == l {
			leo = len(lg)
		} else {
			leo = views[i]
		}
		if leo == -1 {
			unknown = true
		}
		if k == 0 || leo < low {
			low = leo
		}
	}
	if unknown || (cfg.MinIsrGatesHW && len(gate) < cfg.MinInsyncReplicas) {
		return 0
	}
	if len(s) == 0 {
		// CHOOSE x \in {} is an error in TLC; the spec never gets here
		// because a leader is always in its own ISR. Apply turns the panic
		// into an error, as TLC would stop with one.
		panic("CandidateHW: CHOOSE over an empty ISR")
	}
	return low
}

// NewHW mirrors NewHW(l, lg, s, gate, views, old) == Max(old, CandidateHW(...)).
func NewHW(cfg *Config, l int, lg []Record, s, gate []Replica, views []int, old int) int {
	return max(old, CandidateHW(cfg, l, lg, s, gate, views))
}

// NewlyCommitted mirrors NewlyCommitted(lg, old, new).
func NewlyCommitted(lg []Record, old, new int) []OffsetID {
	var out []OffsetID
	for o := old; o <= new-1; o++ {
		out = append(out, OffsetID{Offset: o, ID: lg[o].ID})
	}
	return out
}

// NewlyAcked mirrors NewlyAcked(lg, old, new, from, to, s): with acks=all,
// the records of epochs from..to that the HW passes, while |s| >=
// MinInsyncReplicas.
func NewlyAcked(cfg *Config, lg []Record, old, new, from, to int, s []Replica) []OffsetID {
	if cfg.Acks != "all" || len(s) < cfg.MinInsyncReplicas {
		return nil
	}
	var out []OffsetID
	for o := old; o <= new-1; o++ {
		if e := lg[o].Epoch; e >= from && e <= to {
			out = append(out, OffsetID{Offset: o, ID: lg[o].ID})
		}
	}
	return out
}

// AdvanceHW mirrors AdvanceHW(l, lg, s, m, views, from, to): it sets hw',
// committed' and acked' in t, where s0 is the unprimed state; isr is the
// committed ISR (the min.insync gate), maximal the maximal one (the HW's
// minimum and acks=all's count), from..to the epochs whose produce requests l
// holds.
func AdvanceHW(cfg *Config, s0 *State, t *State, l int, lg []Record, isr, maximal []Replica, views []int, from, to int) {
	old := s0.Hw[l]
	nw := NewHW(cfg, l, lg, maximal, isr, views, old)
	if nw != old {
		t.Hw = with(s0.Hw, l, nw)
	}
	t.Committed = Union(s0.Committed, NewlyCommitted(lg, old, nw))
	t.Acked = Union(s0.Acked, NewlyAcked(cfg, lg, old, nw, from, to, maximal))
}

// Min and Max mirror the spec's Min(a, b) and Max(a, b).
func Min(a, b int) int { return min(a, b) }

// Max mirrors Max(a, b).
func Max(a, b int) int { return max(a, b) }
