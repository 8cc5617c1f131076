package model

// Replication: Fetch, the leader's read, its update of the follower's fetch
// state, and the response.

// sendFetch mirrors SendFetch(f): a fetch from f's LEO, with lastFetchedEpoch
// under DivergingEpoch.
func sendFetch(cfg *Config, s *State, f int, t *State) bool {
	if s.Role[f] != Follower || !FetchesIn(cfg, s.FetchState[f]) || s.Inflight[f].Type != MsgNone {
		return false
	}
	lfe := -1
	if cfg.Rel().Reconcile == "DivergingEpoch" {
		lfe = LatestEpoch(s.EpochCache[f])
	}
	*t = *s
	t.Inflight = with(s.Inflight, f, FetchReq(cfg.Replicas[f], s.Leader[f], s.LEO(f), lfe, s.LeaderEpoch[f], false))
	return true
}

// handleFetch mirrors HandleFetch(l, f): leader l reads for f's fetch (records
// from its offset and l's HW before this fetch's update), or answers at once
// with an error or a divergingEpoch.
func handleFetch(cfg *Config, s *State, l, f int, t *State) bool {
	if !RequestAt(cfg, s, f, l, MsgFetch) || !s.Up(l) {
		return false
	}
	m := s.Inflight[f]
	err := RequestError(cfg, s, l, m)
	eo := EndOffsetFor(s.EpochCache[l], s.LEO(l), m.LastFetchedEpoch)
	div := err == ErrNone && m.LastFetchedEpoch != -1 &&
		(eo.Epoch < m.LastFetchedEpoch || eo.Offset < m.Offset)
	if err == ErrNone && !div && m.Offset > s.LEO(l) {
		err = ErrOffsetOutOfRange
	}
	*t = *s
	lname, fname := cfg.Replicas[l], cfg.Replicas[f]
	switch {
	case err == ErrNone && !div:
		lg := s.Log[l]
		recs := lg[m.Offset:len(lg):len(lg)] // SubSeq(log[l], m.offset + 1, LEO(l)), shared read-only
		if len(recs) == 0 {
			recs = nil
		}
		t.Inflight = with(s.Inflight, f, FetchRead(lname, fname, m.Offset, recs, s.Hw[l], s.LEO(l), m.CurrentEpoch, m.Orphan))
	case m.Orphan:
		t.Inflight = with(s.Inflight, f, NoMsg)
	default:
		dv := NoDivergence0
		if div {
			dv = eo
		}
		t.Inflight = with(s.Inflight, f, FetchResp(lname, fname, err, m.Offset, nil, -1, s.LEO(l), div, dv, m.CurrentEpoch))
	}
	return true
}

// updateFollowerFetchState mirrors UpdateFollowerFetchState(l, f): leader l
// records f's fetch offset as its LEO (its HW may advance), then the response
// goes out with what was read; nowhere for an orphan.
func updateFollowerFetchState(cfg *Config, s *State, l, f int, t *State) bool {
	m := s.Inflight[f]
	if m.Type != MsgFetchRead || m.Src != cfg.Replicas[l] {
		return false
	}
	*t = *s
	if s.Role[l] == Leader {
		views := with(s.FollowerLeo[l], f, m.Offset)
		t.FollowerLeo = with(s.FollowerLeo, l, views)
		be := -1
		if cfg.Rel().IsrBrokerEpochs {
			be = s.BrokerEpoch[f]
		}
		t.FollowerBrokerEpoch = with(s.FollowerBrokerEpoch, l, with(s.FollowerBrokerEpoch[l], f, be))
		if cfg.Mutant != MutantHWNotAdvancedOnFetch { // mutant hook
			AdvanceHW(cfg, s, t, l, s.Log[l], s.Isr[l], MaximalIsr(s, l), views, s.ProduceEpoch[l], s.LeaderEpoch[l])
		}
	}
	if m.Orphan {
		t.Inflight = with(s.Inflight, f, NoMsg)
	} else {
		t.Inflight = with(s.Inflight, f, FetchResp(m.Src, m.Dst, ErrNone, m.Offset, m.Records, m.Hw, m.Leo, false, NoDivergence0, m.CurrentEpoch))
	}
	return true
}

// handleFetchResponse mirrors HandleFetchResponse(f): the response is always
// consumed; it is applied only for f's current fetch (from its leader, in its
// epoch, at its LEO).
//
// choice is the restored behaviour's choice (restoreChoices): 0 is the
// spec's successor; under RestoreOutOfRangeLaterLEO, choice x > 0 is the
// leader's later LEO on OFFSET_OUT_OF_RANGE.
func handleFetchResponse(cfg *Config, s *State, f int, t *State, choice int) bool {
	m := s.Inflight[f]
	if m.Type != MsgFetchResponse {
		return false
	}
	*t = *s
	t.Inflight = with(s.Inflight, f, NoMsg)
	if !AcceptsResponse(s, f, m) || !FetchesIn(cfg, s.FetchState[f]) || m.Offset != s.LEO(f) {
		return choice == 0
	}
	switch {
	case m.Error == ErrNone && m.Diverging:
		tg := TruncationTarget(cfg, s, f, m.DivergingEpoch, m.Offset)
		t.Log = with(s.Log, f, TruncLog(s, f, tg.To))
		t.EpochCache = with(s.EpochCache, f, TruncCache(s, f, tg.To))
		t.Hw = with(s.Hw, f, truncHW(cfg, s, f, tg.To))
	case m.Error == ErrNone:
		old := s.Log[f]
		lg := make([]Record, len(old)+len(m.Records))
		copy(lg, old)
		copy(lg[len(old):], m.Records)
		t.Log = with(s.Log, f, lg)
		t.EpochCache = with(s.EpochCache, f, AppendToCache(cfg, s.EpochCache[f], m.Records, len(old)))
		t.Hw = with(s.Hw, f, min(m.Hw, len(lg)))
		t.FetchState = with(s.FetchState, f, Fetching)
	case m.Error == ErrOffsetOutOfRange && m.Leo < s.LEO(f):
		to := m.Leo
		if choice > 0 { // restore hook (out-of-range-later-leo): the leader's LEO asked later
			if choice == s.LEO(f) {
				return true // the leader's LEO has reached ours: no truncation
			}
			if choice <= m.Leo || choice > s.LEO(f) {
				return false
			}
			to = choice
		}
		t.Log = with(s.Log, f, TruncLog(s, f, to))
		t.EpochCache = with(s.EpochCache, f, TruncCache(s, f, to))
		t.Hw = with(s.Hw, f, truncHW(cfg, s, f, to))
		return true
	}
	return choice == 0
}

// FetchesIn mirrors FetchesIn: the fetch states in which a follower fetches
// (under 3.9 also before its first fetch answered without divergence).
func FetchesIn(cfg *Config, fs FetchState) bool {
	return fs == Fetching || (fs == Truncating && cfg.Rel().Reconcile == "DivergingEpoch")
}

// completeDelayedFetch mirrors the restored CompleteDelayedFetch(l, f)
// (RestoreDelayedFetchHW): a fetch that read nothing waited in l's purgatory
// and completes now: it is read again (DelayedFetch.onComplete), so it
// carries l's records from its offset and l's HW at this moment. Only while
// l leads the fetch's epoch and the offset is within its log (otherwise
// Kafka's second read answers an error, which the follower drops as it
// drops this response); and only when the answer changes.
func completeDelayedFetch(cfg *Config, s *State, l, f int, t *State) bool {
	m := s.Inflight[f]
	if m.Type != MsgFetchResponse || m.Src != cfg.Replicas[l] || m.Error != ErrNone || m.Diverging || len(m.Records) != 0 ||
		s.Role[l] != Leader || s.LeaderEpoch[l] != m.CurrentEpoch || m.Offset > s.LEO(l) {
		return false
	}
	if s.Hw[l] == m.Hw && s.LEO(l) == m.Offset {
		return false
	}
	lg := s.Log[l]
	recs := lg[m.Offset:len(lg):len(lg)]
	if len(recs) == 0 {
		recs = nil
	}
	*t = *s
	t.Inflight = with(s.Inflight, f, FetchResp(m.Src, m.Dst, ErrNone, m.Offset, recs, s.Hw[l], s.LEO(l), false, NoDivergence0, m.CurrentEpoch))
	return true
}
