package model

// Replication: Fetch and its response.

// sendFetch mirrors SendFetch(f).
func sendFetch(cfg *Config, s *State, f int) (State, bool) {
	if s.Role[f] != Follower || s.FetchState[f] != Fetching || s.Inflight[f].Type != MsgNone {
		return State{}, false
	}
	t := *s
	t.Inflight = with(s.Inflight, f, FetchReq(cfg.Replicas[f], s.Leader[f], s.LEO(f), s.LeaderEpoch[f]))
	return t, true
}

// handleFetch mirrors HandleFetch(l, f): leader l serves f's fetch, learning
// f's fetch offset (which may move its HW) and answering with the records from
// that offset and its new HW.
func handleFetch(cfg *Config, s *State, l, f int) (State, bool) {
	if !RequestAt(cfg, s, f, l, MsgFetch) || !s.Up(l) {
		return State{}, false
	}
	m := s.Inflight[f]
	err := RequestError(cfg, s, l, m)
	if err == ErrNone && m.Offset > s.LEO(l) {
		err = ErrOffsetOutOfRange
	}
	t := *s
	lname, fname := cfg.Replicas[l], cfg.Replicas[f]
	if err != ErrNone {
		t.Inflight = with(s.Inflight, f, FetchResp(lname, fname, err, m.Offset, nil, -1, s.LEO(l), m.CurrentEpoch))
		return t, true
	}
	views := with(s.FollowerLeo[l], f, m.Offset)
	nw := NewHW(cfg, l, s.Log[l], s.Isr[l], views, s.Hw[l])
	t.FollowerLeo = with(s.FollowerLeo, l, views)
	AdvanceHW(cfg, s, &t, l, s.Log[l], s.Isr[l], views, s.LeaderEpoch[l])
	lg := s.Log[l]
	recs := lg[m.Offset:len(lg):len(lg)] // SubSeq(log[l], m.offset + 1, LEO(l)), shared read-only
	if len(recs) == 0 {
		recs = nil
	}
	t.Inflight = with(s.Inflight, f, FetchResp(lname, fname, ErrNone, m.Offset, recs, nw, s.LEO(l), m.CurrentEpoch))
	return t, true
}

// handleFetchResponse mirrors HandleFetchResponse(f): the response is always
// consumed; it is applied only for f's current fetch (from its leader, in its
// epoch, at its LEO).
func handleFetchResponse(cfg *Config, s *State, f int) (State, bool) {
	m := s.Inflight[f]
	if m.Type != MsgFetchResponse {
		return State{}, false
	}
	t := *s
	t.Inflight = with(s.Inflight, f, NoMsg)
	if !AcceptsResponse(s, f, m) || s.FetchState[f] != Fetching || m.Offset != s.LEO(f) {
		return t, true
	}
	switch {
	case m.Error == ErrNone:
		old := s.Log[f]
		lg := make([]Record, len(old)+len(m.Records))
		copy(lg, old)
		copy(lg[len(old):], m.Records)
		t.Log = with(s.Log, f, lg)
		t.EpochCache = with(s.EpochCache, f, AppendToCache(s.EpochCache[f], m.Records, len(old)))
		t.Hw = with(s.Hw, f, min(m.Hw, len(lg)))
	case m.Error == ErrOffsetOutOfRange && m.Leo < s.LEO(f):
		t.Log = with(s.Log, f, TruncLog(s, f, m.Leo))
		t.EpochCache = with(s.EpochCache, f, TruncCache(s, f, m.Leo))
		t.Hw = with(s.Hw, f, TruncHW(s, f, m.Leo))
	}
	return t, true
}
