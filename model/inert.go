package model

import "fmt"

// The inert-message reduction (docs/correctness.md, "The inert-message
// reduction"). A message in a fetcher's slot is inert when every way the
// spec has of handling it ends in an empty slot and leaves every other
// variable as it was, in every state reachable while it waits there:
//
//   - a response its handler drops: not accepted (AcceptsResponse fails, or
//     the fetcher is not in the state the response is for, or a fetch
//     response is not at the follower's LEO), or accepted with an error the
//     handler ignores. Once dropped-unchanged, always: the follower's epoch
//     only grows while it is up, its role, leader, LEO and fetch state change
//     only with a new epoch or by handling this very slot, and a crash of
//     either end empties the slot;
//   - with Fencing, a request whose addressee is up in a later leader epoch
//     than the request carries: it is answered FENCED_LEADER_EPOCH or
//     NOT_LEADER_OR_FOLLOWER (a replica never leads an epoch it has passed),
//     and that error response is inert (an orphan's answer is no message).
//
// An explorer state with inert messages in it is replaced by the same state
// with those slots empty (Collapse). That state is reachable (the handler
// steps that empty the slots touch nothing else), satisfies the same
// invariants (none reads a fetcher's slot but TypeOK, and Collapse keeps an
// ill-typed message), and every step of the original has a step of the
// collapsed state with the same collapsed result, or none is needed: so a
// search of collapsed states reaches exactly the collapsed images of the
// reachable states, and finds every violation the full search finds.

// Inert reports whether follower f's slot holds an inert message.
func Inert(cfg *Config, s *State, f int) bool {
	m := &s.Inflight[f]
	switch m.Type {
	case MsgFetchResponse, MsgOffsetsForLeaderEpochResponse:
		if m.Dst != cfg.Replicas[f] || cfg.Index(m.Src) < 0 || m.Error > ErrOffsetOutOfRange {
			return false // TypeOK's clause for the slot fails: keep it for TypeOK to see
		}
		return !responseApplies(cfg, s, f, *m)
	case MsgFetch, MsgOffsetsForLeaderEpoch:
		if !cfg.Fencing || m.Src != cfg.Replicas[f] {
			return false
		}
		l := cfg.Index(m.Dst)
		return inertRequest != nil && inertRequest(s, l, m.CurrentEpoch)
	}
	return false
}

// inertRequest is the request half of Inert: l is up in a leader epoch past
// the request's. A variable so that a test can seed a wrong rule and see the
// reduced search lose states (TestCollapseMutantsAreCaught).
var inertRequest = func(s *State, l, currentEpoch int) bool {
	return l >= 0 && s.Up(l) && s.LeaderEpoch[l] > currentEpoch
}

// responseApplies is whether the handler of f's response m changes anything
// besides emptying the slot's message: the conditions under which
// HandleFetchResponse and HandleOffsetsForLeaderEpochResponse act. A
// variable, as inertRequest is.
var responseApplies = func(cfg *Config, s *State, f int, m Msg) bool {
	if !AcceptsResponse(s, f, m) {
		return false
	}
	if m.Type == MsgOffsetsForLeaderEpochResponse {
		return s.FetchState[f] == Truncating && m.Error == ErrNone
	}
	if !FetchesIn(cfg, s.FetchState[f]) || m.Offset != s.LEO(f) {
		return false
	}
	return m.Error == ErrNone || m.Error == ErrOffsetOutOfRange && m.Leo < s.LEO(f)
}

// Collapse empties every slot of s that holds an inert message, and reports
// whether it emptied any. It changes s in place (a copy of the Inflight
// slice when it changes one: States share slices).
func Collapse(cfg *Config, s *State) bool {
	changed := false
	for f := range s.Inflight {
		if !Inert(cfg, s, f) {
			continue
		}
		if !changed {
			s.Inflight = append([]Msg(nil), s.Inflight...)
			changed = true
		}
		s.Inflight[f] = NoMsg
	}
	return changed
}

// DrainSteps are the spec's steps that take s to Collapse's result: for each
// inert slot in replica order, the leader's answer to an inert request (when
// it leaves a response) and the follower's handling of the response. A trace
// of the reduced search, with these steps after each of its own, is a
// behaviour of the spec. It fails when a step is not enabled or does not
// end where Collapse does (a bug of Inert).
func DrainSteps(cfg *Config, s State) ([]Action, []State, error) {
	var acts []Action
	var states []State
	want := s
	Collapse(cfg, &want)
	for f := range s.Inflight {
		if !Inert(cfg, &s, f) {
			continue
		}
		var seq []ActionKind
		switch s.Inflight[f].Type {
		case MsgFetch:
			seq = []ActionKind{HandleFetch, HandleFetchResponse}
		case MsgOffsetsForLeaderEpoch:
			seq = []ActionKind{HandleOffsetsForLeaderEpoch, HandleOffsetsForLeaderEpochResponse}
		case MsgFetchResponse:
			seq = []ActionKind{HandleFetchResponse}
		case MsgOffsetsForLeaderEpochResponse:
			seq = []ActionKind{HandleOffsetsForLeaderEpochResponse}
		}
		for _, k := range seq {
			if s.Inflight[f].Type == MsgNone {
				break // an orphan's request is answered with no message
			}
			a := Action{Kind: k, F: cfg.Replicas[f]}
			if k == HandleFetch || k == HandleOffsetsForLeaderEpoch {
				a.L = s.Inflight[f].Dst
			}
			t, err := Apply(cfg, s, a)
			if err != nil {
				return nil, nil, fmt.Errorf("draining %s's inert message: %w", cfg.Replicas[f], err)
			}
			acts, states = append(acts, a), append(states, t)
			s = t
		}
	}
	if !s.Equal(want) {
		return nil, nil, fmt.Errorf("draining the inert messages did not end where Collapse does")
	}
	return acts, states, nil
}

// SeedInertBug (for mutation tests: nothing else calls it) replaces the inert-message rule with a wrong one for a
// mutation test and returns the function that restores it: "request" takes
// a request as inert when its addressee's epoch is only at (not past) the
// request's, which it can still serve; "response" takes a divergingEpoch
// answer, which truncates, as one the handler drops.
func SeedInertBug(which string) (restore func()) {
	req, resp := inertRequest, responseApplies
	switch which {
	case "request":
		inertRequest = func(s *State, l, currentEpoch int) bool {
			return l >= 0 && s.Up(l) && s.LeaderEpoch[l] >= currentEpoch
		}
	case "response":
		responseApplies = func(cfg *Config, s *State, f int, m Msg) bool {
			return !m.Diverging && resp(cfg, s, f, m)
		}
	default:
		panic("SeedInertBug: " + which)
	}
	return func() { inertRequest, responseApplies = req, resp }
}
