// Package lemmas checks, over every reachable state of a configuration,
// the lemmas that the correctness argument for LeaderEpoch truncation
// (docs/correctness.md) rests on but that the spec does not state as
// invariants. They are written in Go only: spec/ and model/ are unchanged,
// and the states are the model's (model.Next from model.Init, breadth first,
// deduplicated as the explorer and TLC do, so the number of distinct states
// is TLC's).
//
// A lemma is a state predicate or a step predicate. Each also reports
// whether its premise was met, so that a report can say how often the
// lemma had something to say (a lemma whose premise never holds is
// vacuous).
package lemmas

import (
	"fmt"
	"slices"

	"github.com/hwepoch/hwepoch/model"
)

// Lemma is one checked statement. Exactly one of State and Step is set.
type Lemma struct {
	Name string // L1a, L2b, ...
	Doc  string // the statement, in a sentence
	// State judges a reachable state: premise says the lemma applies to
	// something in s; ok is false when it is violated.
	State func(cfg *model.Config, s *model.State) (premise, ok bool)
	// Step judges a step s -a-> t of the state graph.
	Step func(cfg *model.Config, s *model.State, a model.Action, t *model.State) (premise, ok bool)
}

// All are the lemmas of docs/correctness.md, in its order.
var All = []Lemma{
	{Name: "L1", Doc: "two live replicas that both have an epoch-cache entry for an epoch give it the same start offset",
		State: cachesAgree},
	{Name: "L2a", Doc: "the truncation offset a live follower would reach against the current leader now (the KIP-279 loop of OffsetsForLeaderEpoch answers) is a prefix the two logs share",
		State: truncationFindsSharedPrefix},
	{Name: "L2b", Doc: "a follower that has finished truncating and fetches from a leader of its own epoch holds a prefix of that leader's log",
		State: fetchingFollowerIsPrefix},
	{Name: "L2c", Doc: "log matching: two live replicas that hold the same record at an offset hold the same records below it",
		State: logMatching},
	{Name: "L3", Doc: "a Fetch or OffsetsForLeaderEpoch request is served (answered without error) only by a replica that leads the epoch the request carries",
		Step: servedByLeaderOfRequestEpoch},
	{Name: "L4a", Doc: "a replica that becomes a new leader (it was not leading) starts with every follower's LEO unknown (-1); a leader re-elected without a break keeps its views (Partition.makeLeader, isNewLeader)",
		Step: viewsResetOnBecomingLeader},
	{Name: "L4b", Doc: "a leader's view of a follower's LEO changes only when it updates the follower's fetch state for a read it made of that follower's fetch, to that fetch's offset (or by the reset of L4a); the read may be of an earlier leadership, as in Kafka (2.1 looks the Replica up at the update, 3.9 updates the one it read for, and makeLeader keeps both)",
		Step: viewsSetByCurrentEpochFetch},
	{Name: "L4c", Doc: "a leader's view v >= 0 of a follower in its epoch is backed: the follower holds the leader's records below v",
		State: viewsBacked},
	{Name: "L4d", Doc: "a fetch in flight, or a leader's read of one, never asks from beyond its live sender's log end: a follower does not truncate below a fetch it has outstanding (an orphan, whose sender crashed since, may: the KIP-903 case, which 3.9 refuses)",
		State: fetchWithinLog},
	{Name: "L4e", Doc: "a read the leader will count is backed: a leader's read for a live follower of its own epoch, made in that epoch, is from an offset below which the follower holds the leader's records; under DivergingEpoch a fetch whose lastFetchedEpoch does not check out is answered with divergingEpoch and never read, so never counted (Partition.fetchRecords, 3.9.0)",
		State: countedReadBacked},
}

// Find returns the named lemma.
func Find(name string) (Lemma, bool) {
	i := slices.IndexFunc(All, func(l Lemma) bool { return l.Name == name })
	if i < 0 {
		return Lemma{}, false
	}
	return All[i], true
}

// sharePrefix reports whether a and b hold the same records below n.
func sharePrefix(a, b []model.Record, n int) bool {
	if n > len(a) || n > len(b) {
		return false
	}
	return slices.Equal(a[:n], b[:n])
}

// L1. For live replicas: a crashed replica's cache can hold entries past
// the log it kept (a crash that loses the unflushed tail), which the
// restart truncates before the replica does anything.
func cachesAgree(cfg *model.Config, s *model.State) (premise, ok bool) {
	for r := range cfg.Replicas {
		for q := r + 1; q < cfg.N(); q++ {
			if !s.Up(r) || !s.Up(q) {
				continue
			}
			for _, x := range s.EpochCache[r] {
				for _, y := range s.EpochCache[q] {
					if x.Epoch == y.Epoch {
						premise = true
						if x.Start != y.Start {
							return true, false
						}
					}
				}
			}
		}
	}
	return premise, true
}

// TruncationOffset is where follower f's truncation against leader l ends
// if it ran now, with no other step in between, under the configuration's
// policy: HighWatermark truncates to f's HW; Kip101 and LeaderEpoch ask
// for the end of f's latest epoch, l answers as HandleOffsetsForLeaderEpoch
// does, f truncates per model.TruncationTarget and, under LeaderEpoch,
// while it does not know the answered epoch, asks again about its latest
// epoch after that truncation (the KIP-279 loop, as SendOffsetsForLeaderEpoch
// does in the spec). done is false if the loop does not settle within the
// number of cache entries (it always does on reachable states).
func TruncationOffset(cfg *model.Config, s *model.State, l, f int) (to int, done bool) {
	if cfg.Rel().Reconcile == "TruncateToHW" {
		return min(s.Hw[f], s.LEO(f)), true
	}
	view := *s
	view.Log = slices.Clone(s.Log)
	view.EpochCache = slices.Clone(s.EpochCache)
	view.Hw = slices.Clone(s.Hw)
	for range len(s.EpochCache[f]) + len(s.EpochCache[l]) + 2 {
		ask := model.LatestEpoch(view.EpochCache[f])
		ans := model.EndOffsetFor(s.EpochCache[l], s.LEO(l), ask)
		if cfg.Rel().Reconcile == "OffsetsForLeaderEpochV0" {
			ans = model.EpochOffset{Epoch: -1, Offset: model.Kip101EndOffset(s.EpochCache[l], s.LEO(l), ask)}
		}
		// The fetch offset: the HW for a truncating fetcher, the LEO for a
		// fetcher that sends lastFetchedEpoch (DivergingEpoch).
		fo := view.Hw[f]
		if cfg.Rel().Reconcile == "DivergingEpoch" {
			fo = view.LEO(f)
		}
		tg := model.TruncationTarget(cfg, &view, f, ans, fo)
		to = min(tg.To, view.LEO(f))
		view.Log[f] = view.Log[f][:to]
		view.EpochCache[f] = model.TruncateFromEnd(view.EpochCache[f], to)
		view.Hw[f] = min(view.Hw[f], to)
		if tg.Done {
			return to, true
		}
	}
	return view.LEO(f), false
}

// L2a. The leader is the controller's current leader, live and applied
// (model.CurrentLeader); the follower any other live replica.
func truncationFindsSharedPrefix(cfg *model.Config, s *model.State) (premise, ok bool) {
	for l := range cfg.Replicas {
		if !model.CurrentLeader(cfg, s, l) {
			continue
		}
		for f := range cfg.Replicas {
			if f == l || !s.Up(f) {
				continue
			}
			premise = true
			to, done := TruncationOffset(cfg, s, l, f)
			if !done || !sharePrefix(s.Log[f], s.Log[l], to) {
				return true, false
			}
		}
	}
	return premise, true
}

// leaderOf is f's leader's index when f is a follower done truncating
// (Fetching) and that leader leads f's epoch; else -1.
func leaderOf(cfg *model.Config, s *model.State, f int) int {
	if s.Role[f] != model.Follower || s.FetchState[f] != model.Fetching || s.Leader[f] == model.None {
		return -1
	}
	l := cfg.Index(s.Leader[f])
	if s.Role[l] != model.Leader || s.LeaderEpoch[l] != s.LeaderEpoch[f] {
		return -1
	}
	return l
}

// L2b.
func fetchingFollowerIsPrefix(cfg *model.Config, s *model.State) (premise, ok bool) {
	for f := range cfg.Replicas {
		l := leaderOf(cfg, s, f)
		if l < 0 {
			continue
		}
		premise = true
		if !sharePrefix(s.Log[f], s.Log[l], s.LEO(f)) {
			return true, false
		}
	}
	return premise, true
}

// L2c.
func logMatching(cfg *model.Config, s *model.State) (premise, ok bool) {
	for r := range cfg.Replicas {
		for q := r + 1; q < cfg.N(); q++ {
			if !s.Up(r) || !s.Up(q) {
				continue
			}
			// The highest offset where both hold the same record.
			for o := min(s.LEO(r), s.LEO(q)) - 1; o >= 0; o-- {
				if s.Log[r][o] == s.Log[q][o] {
					premise = true
					if !sharePrefix(s.Log[r], s.Log[q], o) {
						return true, false
					}
					break
				}
			}
		}
	}
	return premise, true
}

// L3. The request is in f's slot before the step; the answer (a response,
// or the leader's read of a fetch it will count) after it. An orphan's
// refusal goes nowhere: the slot is empty after the step.
func servedByLeaderOfRequestEpoch(cfg *model.Config, s *model.State, a model.Action, t *model.State) (premise, ok bool) {
	if a.Kind != model.HandleFetch && a.Kind != model.HandleOffsetsForLeaderEpoch {
		return false, true
	}
	l, f := cfg.Index(a.L), cfg.Index(a.F)
	req, resp := s.Inflight[f], t.Inflight[f]
	if resp.Type == model.MsgNone || resp.Error != model.ErrNone {
		return false, true
	}
	return true, s.Role[l] == model.Leader && s.LeaderEpoch[l] == req.CurrentEpoch
}

// L4a.
func viewsResetOnBecomingLeader(cfg *model.Config, s *model.State, a model.Action, t *model.State) (premise, ok bool) {
	for l := range cfg.Replicas {
		switch {
		case t.Role[l] != model.Leader:
		case s.Role[l] != model.Leader: // a new leader
			premise = true
			for _, v := range t.FollowerLeo[l] {
				if v != -1 {
					return true, false
				}
			}
		case s.LeaderEpoch[l] != t.LeaderEpoch[l]: // re-elected without a break
			premise = true
			if !slices.Equal(s.FollowerLeo[l], t.FollowerLeo[l]) {
				return true, false
			}
		}
	}
	return premise, true
}

// L4b. The read is the FetchRead in f's slot before the step. Which epochs
// a served fetch may carry is L3's business, at the read.
func viewsSetByCurrentEpochFetch(cfg *model.Config, s *model.State, a model.Action, t *model.State) (premise, ok bool) {
	for l := range cfg.Replicas {
		if t.Role[l] != model.Leader || s.Role[l] != model.Leader || s.LeaderEpoch[l] != t.LeaderEpoch[l] {
			continue // not a leader throughout the step: L4a's case
		}
		for f := range cfg.Replicas {
			if s.FollowerLeo[l][f] == t.FollowerLeo[l][f] {
				continue
			}
			premise = true
			m := s.Inflight[f]
			if a.Kind != model.UpdateFollowerFetchState || a.L != cfg.Replicas[l] || a.F != cfg.Replicas[f] ||
				m.Type != model.MsgFetchRead || t.FollowerLeo[l][f] != m.Offset {
				return true, false
			}
		}
	}
	return premise, true
}

// L4c. Only while the follower is still in the leader's epoch; a crash
// resets its epoch, so a follower that lost records comes back outside it
// until its truncation phase is over.
func viewsBacked(cfg *model.Config, s *model.State) (premise, ok bool) {
	for l := range cfg.Replicas {
		if s.Role[l] != model.Leader {
			continue
		}
		for f, v := range s.FollowerLeo[l] {
			if f == l || v < 0 || !s.Up(f) || s.LeaderEpoch[f] != s.LeaderEpoch[l] {
				continue
			}
			premise = true
			if !sharePrefix(s.Log[f], s.Log[l], v) {
				return true, false
			}
		}
	}
	return premise, true
}

// L4d. The request, not the response: a response carries the offset too.
func fetchWithinLog(cfg *model.Config, s *model.State) (premise, ok bool) {
	for f := range cfg.Replicas {
		m := s.Inflight[f]
		if (m.Type != model.MsgFetch && m.Type != model.MsgFetchRead) || m.Orphan || !s.Up(f) {
			continue
		}
		premise = true
		if m.Offset > s.LEO(f) {
			return true, false
		}
	}
	return premise, true
}

// L4e. The read (FetchRead) is what UpdateFollowerFetchState turns into a
// view: under DivergingEpoch, where a follower fetches from its LEO before
// any truncation, this replaces L4d's argument. It holds there because a
// read happens only when the leader's cache has the follower's
// lastFetchedEpoch ending at or past the fetch offset: the records just
// below the offset then carry the same epoch on both, so they are the same
// (L0) and so is everything below them (L2c).
func countedReadBacked(cfg *model.Config, s *model.State) (premise, ok bool) {
	for f := range cfg.Replicas {
		m := s.Inflight[f]
		if m.Type != model.MsgFetchRead || m.Orphan || !s.Up(f) {
			continue
		}
		l := cfg.Index(m.Src)
		if l < 0 || s.Role[l] != model.Leader || s.LeaderEpoch[l] != m.CurrentEpoch || s.LeaderEpoch[f] != s.LeaderEpoch[l] {
			continue
		}
		premise = true
		if !sharePrefix(s.Log[f], s.Log[l], m.Offset) {
			return true, false
		}
	}
	return premise, true
}

// String names a lemma with its statement.
func (l Lemma) String() string { return fmt.Sprintf("%s: %s", l.Name, l.Doc) }
