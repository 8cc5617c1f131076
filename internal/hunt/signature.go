package hunt

import (
	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/trace"
)

// A Signature says whether a counterexample shows a particular bug: not
// only that the searched invariant fails in its last state, but that the
// bug's mechanism is what led there. A search for an invariant stops at
// the first violation of it, whichever mechanism made it (under Kafka
// 0.11.0.3, NoDivergence fails through KIP-279's answer, through a zombie
// fetch or through KAFKA-7128), so each row of the table says whether its
// counterexample carries the bug's signature.
//
// Each signature names the replica the mechanism acted on and requires
// that replica to take part in the final violation (culprits): a
// mechanism that happened somewhere in the trace, on a replica that has
// nothing to do with the violation, does not count.
type Signature func(cfg *model.Config, tr trace.Trace, property string) bool

// culprits are the replicas taking part in the violation of property in s:
// for NoDivergence and CommittedPrefixesAgree the replicas of a pair whose
// logs differ below both HWs; for NoAckedLoss and NoVisibleLoss the
// controller's leader, which lacks the record; for StrongIsr the members of
// the controller's ISR that lack a committed record.
func culprits(cfg *model.Config, s *model.State, property string) []bool {
	in := make([]bool, cfg.N())
	switch property {
	case "NoDivergence", "CommittedPrefixesAgree":
		for r := range cfg.Replicas {
			for q := range cfg.Replicas {
				pair := s.Up(r) && s.Up(q)
				if property == "NoDivergence" {
					pair = model.Reconciled(s, r) && model.Reconciled(s, q) && s.LeaderEpoch[r] == s.LeaderEpoch[q]
				}
				if pair && !prefixesAgree(s, r, q) {
					in[r], in[q] = true, true
				}
			}
		}
	case "NoAckedLoss", "NoVisibleLoss":
		if s.CtrlLeader != model.None {
			in[cfg.Index(s.CtrlLeader)] = true
		}
	case "StrongIsr":
		for _, c := range s.Committed {
			for _, r := range s.CtrlIsr {
				if i := cfg.Index(r); !model.HasRecord(s, i, c) {
					in[i] = true
				}
			}
		}
	}
	return in
}

// prefixesAgree is the spec's: the logs of r and q agree below both HWs.
func prefixesAgree(s *model.State, r, q int) bool {
	for o := range min(s.Hw[r], s.Hw[q]) {
		if s.Log[r][o] != s.Log[q][o] {
			return false
		}
	}
	return true
}

// violated says whether the last state of tr violates the invariant.
func violated(cfg *model.Config, tr trace.Trace, property string) (*model.State, bool) {
	inv, ok := model.Invariants[property]
	if !ok || len(tr.Steps) == 0 {
		return nil, false
	}
	last := &tr.Steps[len(tr.Steps)-1].State
	return last, !inv(cfg, *last)
}

// steps calls f for every step i > 0 with the state before and after it.
func steps(tr trace.Trace, f func(a model.Action, s, t *model.State)) {
	for i := 1; i < len(tr.Steps); i++ {
		f(tr.Steps[i].Action, &tr.Steps[i-1].State, &tr.Steps[i].State)
	}
}

// HWTruncationLoss is KIP-101 scenario 1's signature: the controller's
// leader lacks an acknowledged record it once held, and it lost that record
// by truncating its log (to its HW, as a follower or on restart), not in a
// crash: the leader was elected over a record its own truncation dropped.
func HWTruncationLoss(cfg *model.Config, tr trace.Trace, property string) bool {
	last, bad := violated(cfg, tr, property)
	if !bad || property != "NoAckedLoss" || last.CtrlLeader == model.None {
		return false
	}
	l := cfg.Index(last.CtrlLeader)
	for _, x := range last.Acked {
		if model.HasRecord(last, l, x) {
			continue
		}
		truncated := false
		steps(tr, func(a model.Action, s, t *model.State) {
			if a.Kind != model.Crash && model.HasRecord(s, l, x) && !model.HasRecord(t, l, x) && t.LEO(l) < s.LEO(l) {
				truncated = true
			}
		})
		if truncated {
			return true
		}
	}
	return false
}

// UnflushedTailDivergence is KIP-101 scenario 2's signature: a crash lost
// the unflushed tail of a replica's log (Crash(r, keep) with keep below
// r's LEO), r was elected leader afterwards, and r takes part in the
// divergence.
func UnflushedTailDivergence(cfg *model.Config, tr trace.Trace, property string) bool {
	last, bad := violated(cfg, tr, property)
	if !bad {
		return false
	}
	in := culprits(cfg, last, property)
	lost := make([]bool, cfg.N())
	hit := false
	steps(tr, func(a model.Action, s, t *model.State) {
		switch a.Kind {
		case model.Crash:
			r := cfg.Index(a.R)
			if t.LEO(r) < s.LEO(r) {
				lost[r] = true
			}
		case model.Elect:
			r := cfg.Index(a.R)
			if lost[r] && in[r] {
				hit = true
			}
		}
	})
	return hit
}

// EpochAnswerDivergence is KIP-279's signature under Kafka 0.11.0: a
// follower asked its leader where its latest epoch ends, the leader did
// not have that epoch and answered with the start of the next epoch it
// knows (what KIP-279 changed: it answers with the largest epoch it has
// below, and the follower truncates to its own end of that one), the
// follower truncated by that answer, and it takes part in the divergence.
func EpochAnswerDivergence(cfg *model.Config, tr trace.Trace, property string) bool {
	last, bad := violated(cfg, tr, property)
	if !bad || cfg.Rel().Reconcile != "OffsetsForLeaderEpochV0" {
		return false
	}
	in := culprits(cfg, last, property)
	blind := make([]bool, cfg.N()) // the answer in flight to f was about an epoch its leader lacked
	hit := false
	steps(tr, func(a model.Action, s, t *model.State) {
		switch a.Kind {
		case model.HandleOffsetsForLeaderEpoch:
			l, f := cfg.Index(a.L), cfg.Index(a.F)
			e := s.Inflight[f].Epoch
			blind[f] = e != -1 && e != model.LatestEpoch(s.EpochCache[l]) && !hasEpoch(s.EpochCache[l], e)
		case model.HandleOffsetsForLeaderEpochResponse:
			f := cfg.Index(a.F)
			if blind[f] && s.FetchState[f] == model.Truncating && t.FetchState[f] == model.Fetching && in[f] {
				hit = true
			}
			blind[f] = false
		}
	})
	return hit
}

func hasEpoch(c []model.Entry, e int) bool {
	for _, x := range c {
		if x.Epoch == e {
			return true
		}
	}
	return false
}

// ZombieFetch is the KIP-320 zombie follower's signature: a leader served
// a fetch sent in an older leader epoch than its own (fencing would have
// answered FENCED_LEADER_EPOCH), the follower appended the records it
// brought, and that follower takes part in the violation.
func ZombieFetch(cfg *model.Config, tr trace.Trace, property string) bool {
	last, bad := violated(cfg, tr, property)
	if !bad {
		return false
	}
	in := culprits(cfg, last, property)
	stale := make([]bool, cfg.N()) // f's fetch in flight was served by a leader of a newer epoch
	hit := false
	steps(tr, func(a model.Action, s, t *model.State) {
		switch a.Kind {
		case model.HandleFetch:
			l, f := cfg.Index(a.L), cfg.Index(a.F)
			stale[f] = t.Inflight[f].Type == model.MsgFetchRead && s.Inflight[f].CurrentEpoch < s.LeaderEpoch[l] && len(t.Inflight[f].Records) > 0
		case model.HandleFetchResponse:
			f := cfg.Index(a.F)
			if stale[f] && t.LEO(f) > s.LEO(f) && in[f] {
				hit = true
			}
			stale[f] = false
		}
	})
	return hit
}

// ExpandBelowEpochStart is KAFKA-7128's signature: a leader added a
// follower to the ISR whose LEO (the leader's view of it) had reached the
// HW but not the start of the leader's epoch (releases before 2.1 do not
// check the latter), and that follower takes part in the violation.
func ExpandBelowEpochStart(cfg *model.Config, tr trace.Trace, property string) bool {
	last, bad := violated(cfg, tr, property)
	if !bad {
		return false
	}
	in := culprits(cfg, last, property)
	hit := false
	steps(tr, func(a model.Action, s, t *model.State) {
		if a.Kind != model.ExpandIsr {
			return
		}
		l, f := cfg.Index(a.L), cfg.Index(a.F)
		if s.FollowerLeo[l][f] < model.EpochStart(s, l) && in[f] {
			hit = true
		}
	})
	return hit
}
