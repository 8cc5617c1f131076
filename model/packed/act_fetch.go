package packed

import "github.com/hwepoch/hwepoch/model"

// Replication: Fetch, the leader's read, its update of the follower's fetch
// state, and the response (model/act_fetch.go).

// sendFetch mirrors SendFetch(f): a fetch from f's LEO, with lastFetchedEpoch
// under DivergingEpoch.
func (s *Succ) sendFetch(p *State, f int, t *State) bool {
	pf := &p.R[f]
	if pf.Role != model.Follower || !s.fetchesIn(pf.FetchState) || pf.Inflight.Type != model.MsgNone {
		return false
	}
	lfe := int8(-1)
	if s.reconcile == divergingEpoch {
		lfe = pf.latestEpoch()
	}
	*t = *p
	t.R[f].Inflight.fetchReq(int8(f), pf.Leader, pf.LogLen, lfe, pf.LeaderEpoch, false)
	return true
}

// handleFetch mirrors HandleFetch(l, f): leader l reads for f's fetch
// (records from its offset and l's HW before this fetch's update), or
// answers at once with an error or a divergingEpoch.
func (s *Succ) handleFetch(p *State, l, f int, t *State) bool {
	if !requestAt(p, f, l, model.MsgFetch) || !p.up(l) {
		return false
	}
	m := &p.R[f].Inflight
	pl := &p.R[l]
	err := s.requestError(p, l, m)
	eoEpoch, eoOffset := pl.endOffsetFor(pl.LogLen, m.LastFetchedEpoch)
	div := err == model.ErrNone && m.LastFetchedEpoch != -1 &&
		(eoEpoch < m.LastFetchedEpoch || eoOffset < m.Offset)
	if err == model.ErrNone && !div && m.Offset > pl.LogLen {
		err = model.ErrOffsetOutOfRange
	}
	*t = *p
	ti := &t.R[f].Inflight
	switch {
	case err == model.ErrNone && !div:
		hw := pl.Hw
		if s.bug == bugFetchReadHWPlusOne {
			hw++
		}
		ti.fetchRead(int8(l), int8(f), m.Offset, pl.logRecords(m.Offset), hw, pl.LogLen, m.CurrentEpoch, m.Orphan)
	case m.Orphan:
		ti.noMsg()
	default:
		dvEpoch, dvOffset := int8(-1), int8(-1) // NoDivergence0
		if div {
			dvEpoch, dvOffset = eoEpoch, eoOffset
		}
		ti.fetchResp(int8(l), int8(f), err, m.Offset, nil, -1, pl.LogLen, div, dvEpoch, dvOffset, m.CurrentEpoch)
	}
	return true
}

// updateFollowerFetchState mirrors UpdateFollowerFetchState(l, f): leader l
// records f's fetch offset as its LEO (its HW may advance), then the
// response goes out with what was read; nowhere for an orphan.
func (s *Succ) updateFollowerFetchState(p *State, l, f int, t *State) bool {
	m := &p.R[f].Inflight
	if m.Type != model.MsgFetchRead || m.Src != int8(l) {
		return false
	}
	*t = *p
	pl, tl := &p.R[l], &t.R[l]
	if pl.Role == model.Leader {
		tl.FollowerLeo[f] = m.Offset
		tl.FollowerBrokerEpoch[f] = -1
		if s.isrBrokerEpochs {
			tl.FollowerBrokerEpoch[f] = p.R[f].BrokerEpoch
		}
		if !s.mutHWNotAdvanced { // mutant hook
			s.advanceHW(p, t, l, pl.Isr, maximalIsr(p, l), &tl.FollowerLeo, pl.ProduceEpoch, pl.LeaderEpoch)
		}
	}
	ti := &t.R[f].Inflight
	if m.Orphan {
		ti.noMsg()
	} else {
		ti.fetchResp(m.Src, m.Dst, model.ErrNone, m.Offset, m.records(), m.Hw, m.Leo, false, -1, -1, m.CurrentEpoch)
	}
	return true
}

// handleFetchResponse mirrors HandleFetchResponse(f): the response is always
// consumed; it is applied only for f's current fetch (from its leader, in its
// epoch, at its LEO).
func (s *Succ) handleFetchResponse(p *State, f int, t *State) bool {
	pf := &p.R[f]
	m := &pf.Inflight
	if m.Type != model.MsgFetchResponse {
		return false
	}
	*t = *p
	tf := &t.R[f]
	tf.Inflight.noMsg()
	if !acceptsResponse(p, f, m) || !s.fetchesIn(pf.FetchState) || m.Offset != pf.LogLen {
		return true
	}
	switch {
	case m.Error == model.ErrNone && m.Diverging:
		to, _ := s.truncationTarget(p, f, m.DivEpoch, m.DivOffset, m.Offset)
		truncate(p, t, f, to, true)
	case m.Error == model.ErrNone:
		old := pf.LogLen
		for _, x := range m.records() {
			tf.appendLog(x)
		}
		s.appendToCache(tf, m.records(), old)
		tf.Hw = min(m.Hw, tf.LogLen)
		tf.FetchState = model.Fetching
	case m.Error == model.ErrOffsetOutOfRange && m.Leo < pf.LogLen:
		truncate(p, t, f, m.Leo, true)
	}
	return true
}
