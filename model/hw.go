package model

// The leader's high watermark (Partition.maybeIncrementLeaderHW).

// CandidateHW mirrors CandidateHW(l, lg, s, views): the least LEO over the
// ISR s, using len(lg) for the leader l and views for the followers; 0 while
// a view is unknown (-1) or, with MinIsrGatesHW, while |s| < MinInsyncReplicas.
// l is an index into cfg.Replicas; views is indexed likewise.
func CandidateHW(cfg *Config, l int, lg []Record, s []Replica, views []int) int {
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
	if unknown || (cfg.MinIsrGatesHW && len(s) < cfg.MinInsyncReplicas) {
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

// NewHW mirrors NewHW(l, lg, s, views, old) == Max(old, CandidateHW(...)).
func NewHW(cfg *Config, l int, lg []Record, s []Replica, views []int, old int) int {
	return max(old, CandidateHW(cfg, l, lg, s, views))
}

// NewlyCommitted mirrors NewlyCommitted(lg, old, new).
func NewlyCommitted(lg []Record, old, new int) []OffsetID {
	var out []OffsetID
	for o := old; o <= new-1; o++ {
		out = append(out, OffsetID{Offset: o, ID: lg[o].ID})
	}
	return out
}

// NewlyAcked mirrors NewlyAcked(lg, old, new, e, s): with acks=all, the
// records of epoch e that the HW passes, while |s| >= MinInsyncReplicas.
func NewlyAcked(cfg *Config, lg []Record, old, new, e int, s []Replica) []OffsetID {
	if cfg.Acks != "all" || len(s) < cfg.MinInsyncReplicas {
		return nil
	}
	var out []OffsetID
	for o := old; o <= new-1; o++ {
		if lg[o].Epoch == e {
			out = append(out, OffsetID{Offset: o, ID: lg[o].ID})
		}
	}
	return out
}

// AdvanceHW mirrors AdvanceHW(l, lg, s, views, ackEpoch): it sets hw',
// committed' and acked' in t, where s0 is the unprimed state. ackEpoch is
// the epoch whose produce requests l holds: its leader epoch, or -1 for a
// replica just made leader (nobody waits on it for records it fetched).
func AdvanceHW(cfg *Config, s0 *State, t *State, l int, lg []Record, isr []Replica, views []int, ackEpoch int) {
	old := s0.Hw[l]
	nw := NewHW(cfg, l, lg, isr, views, old)
	if nw != old {
		t.Hw = with(s0.Hw, l, nw)
	}
	t.Committed = Union(s0.Committed, NewlyCommitted(lg, old, nw))
	t.Acked = Union(s0.Acked, NewlyAcked(cfg, lg, old, nw, ackEpoch, isr))
}

// Min and Max mirror the spec's Min(a, b) and Max(a, b).
func Min(a, b int) int { return min(a, b) }

// Max mirrors Max(a, b).
func Max(a, b int) int { return max(a, b) }
