package model

// State-dependent helpers of the spec. Replica arguments are indices into
// cfg.Replicas (the Go side of a TLA+ function application f[r]).

// TruncLog mirrors TruncLog(r, o) == SubSeq(log[r], 1, Min(o, LEO(r))).
func TruncLog(s *State, r, o int) []Record {
	n := min(o, s.LEO(r))
	if n == len(s.Log[r]) {
		return s.Log[r]
	}
	return s.Log[r][:n:n] // capped so nobody can append into the shared array
}

// TruncCache mirrors TruncCache(r, o) == TruncateFromEnd(epochCache[r], Min(o, LEO(r))).
func TruncCache(s *State, r, o int) []Entry {
	return TruncateFromEnd(s.EpochCache[r], min(o, s.LEO(r)))
}

// TruncHW mirrors TruncHW(r, o) == Min(hw[r], Min(o, LEO(r))).
func TruncHW(s *State, r, o int) int {
	return min(s.Hw[r], min(o, s.LEO(r)))
}

// RequestAt mirrors RequestAt(f, l, type): follower f's slot holds a request
// of that type addressed to l.
func RequestAt(cfg *Config, s *State, f, l int, typ MsgType) bool {
	return s.Inflight[f].Type == typ && s.Inflight[f].Dst == cfg.Replicas[l]
}

// RequestError mirrors RequestError(l, m): the error leader l answers m with.
func RequestError(cfg *Config, s *State, l int, m Msg) ErrorCode {
	switch {
	case s.Role[l] != Leader:
		return ErrNotLeaderOrFollower
	case cfg.Fencing && m.CurrentEpoch < s.LeaderEpoch[l]:
		return ErrFencedLeaderEpoch
	case cfg.Fencing && m.CurrentEpoch > s.LeaderEpoch[l]:
		return ErrUnknownLeaderEpoch
	}
	return ErrNone
}

// Target mirrors the [to, done] record TruncationTarget returns.
type Target struct {
	To   int
	Done bool
}

// TruncationTarget mirrors TruncationTarget(f, a, fo): where follower f
// truncates on the leader's answer a (an OffsetsForLeaderEpoch response's or a
// divergingEpoch's [epoch, offset]) when it would fetch from fo, and whether
// truncation is complete.
func TruncationTarget(cfg *Config, s *State, f int, a EpochOffset, fo int) Target {
	leo := s.LEO(f)
	rel := cfg.Rel()
	if a.Offset == -1 {
		if rel.UndefinedTo == "HW" {
			return Target{To: s.Hw[f], Done: true}
		}
		return Target{To: fo, Done: true}
	}
	if rel.Reconcile == "OffsetsForLeaderEpochV0" {
		return Target{To: min(a.Offset, leo), Done: true}
	}
	own := EndOffsetFor(s.EpochCache[f], leo, a.Epoch)
	switch {
	case own.Offset == -1:
		return Target{To: min(a.Offset, leo), Done: true}
	case own.Epoch != a.Epoch: // KIP-279: ask again
		return Target{To: min(own.Offset, leo), Done: false}
	}
	return Target{To: min(min(own.Offset, a.Offset), leo), Done: true}
}

// AcceptsResponse mirrors AcceptsResponse(f, m): f is a follower, m comes from
// its leader and echoes its current leader epoch.
func AcceptsResponse(s *State, f int, m Msg) bool {
	return s.Role[f] == Follower && m.Src == s.Leader[f] && m.CurrentEpoch == s.LeaderEpoch[f]
}

// CurrentLeader mirrors CurrentLeader(l): l leads in the controller's epoch.
func CurrentLeader(cfg *Config, s *State, l int) bool {
	return s.Role[l] == Leader && s.CtrlLeader == cfg.Replicas[l] && s.LeaderEpoch[l] == s.CtrlEpoch
}

// MayChangeIsr mirrors MayChangeIsr(l): whether leader l may propose (or,
// synchronously, make) an ISR change.
func MayChangeIsr(cfg *Config, s *State, l int) bool {
	if cfg.Rel().AsyncIsr {
		return s.Role[l] == Leader && len(s.PendingIsr[l]) == 0 &&
			s.AlterPartition[l].Type == MsgNone && s.PartitionEpoch[l] < cfg.MaxPartitionEpoch
	}
	return CurrentLeader(cfg, s, l)
}

// EpochStart mirrors EpochStart(l): the start offset of l's epoch in its
// cache, else its LEO. CHOOSE i \in es : TRUE over a set of integers is the
// least one in TLC (it enumerates integer sets in order).
func EpochStart(s *State, l int) int {
	for _, x := range s.EpochCache[l] {
		if x.Epoch == s.LeaderEpoch[l] {
			return x.Start
		}
	}
	return s.LEO(l)
}
