package packed

import "math/bits"

// The leader's high watermark (model/hw.go; Partition.maybeIncrementLeaderHW).

// maximalIsr mirrors MaximalIsr(l) == isr[l] \cup pendingIsr[l].
func maximalIsr(p *State, l int) Set { return p.R[l].Isr | p.R[l].PendingIsr }

// candidateHW mirrors CandidateHW(l, lg, s, gate, views) (model.CandidateHW):
// the least LEO over the ISR isr, leo for the leader l and views for the
// followers; 0 while a view is unknown (-1) or, with MinIsrGatesHW, while the
// gate has fewer than MinInsyncReplicas members. An empty isr is the spec's
// CHOOSE over {}: an evaluation error.
func (s *Succ) candidateHW(l int, leo int8, isr, gate Set, views *[MaxReplicas]int8) int8 {
	low, unknown, first := int8(0), false, true
	for x := uint8(isr); x != 0; x &= x - 1 {
		i := bits.TrailingZeros8(x)
		v := leo
		if i != l {
			v = views[i]
		}
		if v == -1 {
			unknown = true
		}
		if first || v < low {
			low, first = v, false
		}
	}
	if unknown || (s.minIsrGatesHW && gate.size() < s.minIsr) {
		return 0
	}
	if first {
		panic("CandidateHW: CHOOSE over an empty ISR")
	}
	return low
}

// oid is the bit of [offset o, id] in State.Acked and State.Committed.
func oid(o, id int8) uint32 {
	if o < 0 || o >= MaxLog || id < 0 || id > MaxLog {
		overflow("MaxLog", "an [offset, id] of acked or committed")
	}
	return OffsetIDBit(int(o), int(id))
}

// record is lg[o] of r's log, an evaluation error beyond it as in the model.
func (r *Replica) record(o int8) Record {
	if o < 0 || o >= r.LogLen {
		panic("log index out of range")
	}
	return r.Log[o]
}

// newlyCommitted mirrors NewlyCommitted(lg, old, new), lg being r's log.
func newlyCommitted(r *Replica, old, nw int8) uint32 {
	var out uint32
	for o := old; o < nw; o++ {
		out |= oid(o, r.record(o).ID)
	}
	return out
}

// newlyAcked mirrors NewlyAcked(lg, old, new, from, to, s), lg being r's
// log: with acks=all, the records of epochs from..to the HW passes, while |s|
// >= MinInsyncReplicas.
func (s *Succ) newlyAcked(r *Replica, old, nw, from, to int8, isr Set) uint32 {
	if s.acks != acksAll || isr.size() < s.minIsr {
		return 0
	}
	var out uint32
	for o := old; o < nw; o++ {
		if x := r.record(o); x.Epoch >= from && x.Epoch <= to {
			out |= oid(o, x.ID)
		}
	}
	return out
}

// advanceHW mirrors AdvanceHW(l, log[l], isr, maximal, views, from, to)
// (model.AdvanceHW): hw', committed' and acked' of t, from p's l. Every
// caller passes l's unchanged log.
func (s *Succ) advanceHW(p, t *State, l int, isr, maximal Set, views *[MaxReplicas]int8, from, to int8) {
	pl := &p.R[l]
	old := pl.Hw
	nw := max(old, s.candidateHW(l, pl.LogLen, maximal, isr, views))
	t.R[l].Hw = nw
	t.Committed = p.Committed | newlyCommitted(pl, old, nw)
	t.Acked = p.Acked | s.newlyAcked(pl, old, nw, from, to, maximal)
}
