package model

// The truncation phase of OffsetsForLeaderEpoch: Kip101 and LeaderEpoch.

// sendOffsetsForLeaderEpoch mirrors SendOffsetsForLeaderEpoch(f).
func sendOffsetsForLeaderEpoch(cfg *Config, s *State, f int, t *State) bool {
	if cfg.Rel().Reconcile == "DivergingEpoch" || s.Role[f] != Follower || s.FetchState[f] != Truncating || s.Inflight[f].Type != MsgNone {
		return false
	}
	*t = *s
	t.Inflight = with(s.Inflight, f, OffsetsReq(cfg.Replicas[f], s.Leader[f], LatestEpoch(s.EpochCache[f]), s.LeaderEpoch[f]))
	return true
}

// handleOffsetsForLeaderEpoch mirrors HandleOffsetsForLeaderEpoch(l, f):
// leader l answers f's request in f's slot.
func handleOffsetsForLeaderEpoch(cfg *Config, s *State, l, f int, t *State) bool {
	if !RequestAt(cfg, s, f, l, MsgOffsetsForLeaderEpoch) || !s.Up(l) {
		return false
	}
	m := s.Inflight[f]
	err := RequestError(cfg, s, l, m)
	var ans EpochOffset
	switch {
	case err != ErrNone:
		ans = EpochOffset{-1, -1}
	case cfg.Rel().Reconcile == "OffsetsForLeaderEpochV0":
		ans = EpochOffset{-1, Kip101EndOffset(s.EpochCache[l], s.LEO(l), m.Epoch)}
	default:
		ans = EndOffsetFor(s.EpochCache[l], s.LEO(l), m.Epoch)
	}
	*t = *s
	t.Inflight = with(s.Inflight, f, OffsetsResp(cfg.Replicas[l], cfg.Replicas[f], err, ans.Epoch, ans.Offset, m.CurrentEpoch))
	return true
}

// handleOffsetsForLeaderEpochResponse mirrors HandleOffsetsForLeaderEpochResponse(f):
// the response is always consumed; it truncates only if f still expects it.
//
// choice is the restored behaviour's choice (restoreChoices): 0 is the
// spec's successor; under RestoreUndefinedToFetchOffset, 1 takes the
// follower's LEO as its fetch offset for an UNDEFINED answer.
func handleOffsetsForLeaderEpochResponse(cfg *Config, s *State, f int, t *State, choice int) bool {
	m := s.Inflight[f]
	if m.Type != MsgOffsetsForLeaderEpochResponse {
		return false
	}
	accepted := AcceptsResponse(s, f, m) && s.FetchState[f] == Truncating && m.Error == ErrNone
	// A truncating fetcher's fetch offset is its HW (see the spec).
	fo := s.Hw[f]
	if choice > 0 { // restore hook (undefined-to-fetch-offset)
		if choice != 1 || !accepted || m.Offset != -1 || s.LEO(f) == s.Hw[f] {
			return false
		}
		fo = s.LEO(f)
	}
	*t = *s
	t.Inflight = with(s.Inflight, f, NoMsg)
	if accepted {
		tg := TruncationTarget(cfg, s, f, EpochOffset{m.Epoch, m.Offset}, fo)
		t.Log = with(s.Log, f, TruncLog(s, f, tg.To))
		t.EpochCache = with(s.EpochCache, f, TruncCache(s, f, tg.To))
		t.Hw = with(s.Hw, f, truncHW(cfg, s, f, tg.To))
		fs := Truncating
		if tg.Done && cfg.Mutant != MutantTruncationLoopStuck { // mutant hook
			fs = Fetching
		}
		t.FetchState = with(s.FetchState, f, fs)
	}
	return true
}
