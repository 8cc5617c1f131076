package packed

import "github.com/hwepoch/hwepoch/model"

// Inert mirrors model.Inert on the packed state: whether replica f's
// fetcher slot holds a message whose every handling empties the slot and
// changes nothing else (docs/correctness.md, "The inert-message reduction").
// KIP-903's broker epochs and ELR change nothing here: the only handler of
// a fetcher's message that touches them is UpdateFollowerFetchState, of a
// FetchRead, which is never inert; ELR's elections, fences and restarts
// keep leader epochs growing and a crash of either end still empties the
// slot; and no ELR invariant or property reads a fetcher's slot.
func (s *Succ) Inert(p *State, f int) bool {
	r := &p.R[f]
	m := &r.Inflight
	switch m.Type {
	case model.MsgFetchResponse, model.MsgOffsetsForLeaderEpochResponse:
		if int(m.Dst) != f || m.Src < 0 || int(m.Src) >= s.n || m.Error > model.ErrOffsetOutOfRange {
			return false // TypeOK's clause for the slot fails: keep it for TypeOK to see
		}
		return !s.responseApplies(p, f, m)
	case model.MsgFetch, model.MsgOffsetsForLeaderEpoch:
		if !s.fencing || int(m.Src) != f || m.Dst < 0 || int(m.Dst) >= s.n {
			return false
		}
		l := int(m.Dst)
		if s.bug == bugInertAtSameEpoch {
			return p.up(l) && p.R[l].LeaderEpoch >= m.CurrentEpoch
		}
		return p.up(l) && p.R[l].LeaderEpoch > m.CurrentEpoch
	}
	return false
}

// responseApplies mirrors model's: whether handling f's response m changes
// more than the slot.
func (s *Succ) responseApplies(p *State, f int, m *Msg) bool {
	r := &p.R[f]
	if !acceptsResponse(p, f, m) {
		return false
	}
	if m.Type == model.MsgOffsetsForLeaderEpochResponse {
		return r.FetchState == model.Truncating && m.Error == model.ErrNone
	}
	if !s.fetchesIn(r.FetchState) || m.Offset != r.LogLen {
		return false
	}
	return m.Error == model.ErrNone || m.Error == model.ErrOffsetOutOfRange && m.Leo < r.LogLen
}

// Collapse mirrors model.Collapse: it empties every slot of p that holds an
// inert message, in place, and reports whether it emptied any.
func (s *Succ) Collapse(p *State) bool {
	changed := false
	for f := range s.n {
		if s.Inert(p, f) {
			p.R[f].Inflight.noMsg()
			changed = true
		}
	}
	return changed
}
