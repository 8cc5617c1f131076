package packed

import "github.com/hwepoch/hwepoch/model"

// The truncation phase of OffsetsForLeaderEpoch: Kip101 and LeaderEpoch
// (model/act_offsets.go).

// sendOffsetsForLeaderEpoch mirrors SendOffsetsForLeaderEpoch(f).
func (s *Succ) sendOffsetsForLeaderEpoch(p *State, f int, t *State) bool {
	pf := &p.R[f]
	if s.reconcile == divergingEpoch || pf.Role != model.Follower || pf.FetchState != model.Truncating ||
		pf.Inflight.Type != model.MsgNone {
		return false
	}
	*t = *p
	t.R[f].Inflight.offsetsReq(int8(f), pf.Leader, pf.latestEpoch(), pf.LeaderEpoch)
	return true
}

// handleOffsetsForLeaderEpoch mirrors HandleOffsetsForLeaderEpoch(l, f):
// leader l answers f's request in f's slot.
func (s *Succ) handleOffsetsForLeaderEpoch(p *State, l, f int, t *State) bool {
	if !requestAt(p, f, l, model.MsgOffsetsForLeaderEpoch) || !p.up(l) {
		return false
	}
	m := &p.R[f].Inflight
	pl := &p.R[l]
	err := s.requestError(p, l, m)
	var e, o int8
	switch {
	case err != model.ErrNone:
		e, o = -1, -1
	case s.reconcile == offsetsForLeaderEpochV0:
		e, o = -1, pl.kip101EndOffset(pl.LogLen, m.Epoch)
	default:
		e, o = pl.endOffsetFor(pl.LogLen, m.Epoch)
	}
	*t = *p
	t.R[f].Inflight.offsetsResp(int8(l), int8(f), err, e, o, m.CurrentEpoch)
	return true
}

// handleOffsetsForLeaderEpochResponse mirrors
// HandleOffsetsForLeaderEpochResponse(f): the response is always consumed;
// it truncates only if f still expects it.
func (s *Succ) handleOffsetsForLeaderEpochResponse(p *State, f int, t *State) bool {
	pf := &p.R[f]
	m := &pf.Inflight
	if m.Type != model.MsgOffsetsForLeaderEpochResponse {
		return false
	}
	*t = *p
	tf := &t.R[f]
	tf.Inflight.noMsg()
	if acceptsResponse(p, f, m) && pf.FetchState == model.Truncating && m.Error == model.ErrNone {
		// A truncating fetcher's fetch offset is its HW (see the spec).
		to, done := s.truncationTarget(p, f, m.Epoch, m.Offset, pf.Hw)
		truncate(p, t, f, to, true)
		fs := model.Truncating
		if done && !s.mutTruncationStuck { // mutant hook
			fs = model.Fetching
		}
		tf.FetchState = fs
	}
	return true
}
