package packed

import "github.com/hwepoch/hwepoch/model"

// produce mirrors Produce(l) (model/act_produce.go): a producer writes one
// record to leader l, whose cache assigns its epoch at the record.
func (s *Succ) produce(p *State, l int, t *State) bool {
	pl := &p.R[l]
	if pl.Role != model.Leader || int(p.NextID) > s.maxRecords {
		return false
	}
	if s.acks == acksAll && pl.Isr.size() < s.minIsr {
		return false
	}
	*t = *p
	tl := &t.R[l]
	old := pl.LogLen
	tl.appendLog(Record{ID: p.NextID, Epoch: pl.LeaderEpoch}) // lg: t's log from here on
	maximal := maximalIsr(p, l)
	nw := max(pl.Hw, s.candidateHW(l, tl.LogLen, maximal, pl.Isr, &pl.FollowerLeo))
	s.assign(tl, pl.LeaderEpoch, old)
	tl.Hw = nw
	t.Committed = p.Committed | newlyCommitted(tl, pl.Hw, nw)
	acked := s.newlyAcked(tl, pl.Hw, nw, pl.ProduceEpoch, pl.LeaderEpoch, maximal)
	if s.acks == acks1 {
		acked |= oid(old, p.NextID)
	}
	t.Acked = p.Acked | acked
	t.NextID = p.NextID + 1
	return true
}
