package sim

import (
	"bytes"
	"strings"
	"testing"

	"github.com/hwepoch/hwepoch/impl/broker"
	"github.com/hwepoch/hwepoch/impl/cluster"
	"github.com/hwepoch/hwepoch/model"
)

// Each liveness mutant, run unvalidated (the liveness check alone: three
// of the four also depart from the model, which the validator would
// report first), stalls on the property it breaks within a few seeds, a
// property the same seed without it does not stall on. Without the mutant
// a seed may stall only after a loss (0.10.2 and 0.11 lose committed
// records, which no replica then holds: Replicated fails for good).
func TestLivenessMutantsStall(t *testing.T) {
	for _, tc := range []struct {
		mutant   broker.Mutant
		policy   string
		property string
	}{
		// A lost request stops the fetcher: a follower left in the ISR
		// never catches up (the fault-free tail shrinks no live follower);
		// more often the stopped follower is caught truncating
		// (TruncationEnds) or was shrunk out of the ISR during the faults.
		{broker.MutantFetcherStopsAfterLoss, model.LeaderEpoch, "ReplicasCatchUp"},
		{broker.MutantHWNotAdvancedOnFetch, model.LeaderEpoch, "ProduceCompletes"},
		{broker.MutantControllerDropsAlterPartition, model.DivergingEpoch, "AlterPartitionResolves"},
		{broker.MutantTruncationLoopStuck, model.LeaderEpoch, "TruncationEnds"},
		{broker.MutantTruncationLoopStuck, model.Kip101, "TruncationEnds"},
	} {
		t.Run(string(tc.mutant)+"/"+tc.policy, func(t *testing.T) {
			t.Parallel()
			const seeds = 12
			for seed := uint64(1); seed <= seeds; seed++ {
				opt := Options{Seed: seed, Settings: []string{"Truncation=" + tc.policy}, LiveFor: DefaultLiveFor, Unvalidated: true}
				clean := Run(opt)
				if clean.Stalled() {
					t.Fatalf("seed %d stalls without the mutant (and not only as its loss explains): %s", seed, clean.Status())
				}
				opt.Mutants = []broker.Mutant{tc.mutant}
				r := Run(opt)
				if r.Err != nil || r.Invalid != nil {
					t.Fatalf("seed %d: %s", seed, r.Status())
				}
				if strings.Contains(r.Status(), "stalled: ") && hasStall(r.Stalls, tc.property) && !hasStall(clean.Stalls, tc.property) {
					t.Logf("seed %d: %s", seed, r.Status())
					return
				}
			}
			t.Fatalf("no seed of 1..%d stalled on %s", seeds, tc.property)
		})
	}
}

func hasStall(st []Stall, property string) bool {
	for _, s := range st {
		if s.Property == property {
			return true
		}
	}
	return false
}

// The correct releases, validated, do not stall: every property holds at
// the end of the default budget, and the cluster converged.
func TestCorrectReleasesDoNotStall(t *testing.T) {
	for _, policy := range []string{model.HighWatermark, model.Kip101, model.LeaderEpoch, model.DivergingEpoch} {
		t.Run(policy, func(t *testing.T) {
			t.Parallel()
			for seed := uint64(11); seed <= 13; seed++ {
				r := Run(Options{Seed: seed, Settings: []string{"Truncation=" + policy}, LiveFor: DefaultLiveFor})
				if r.Broken() || r.Stalled() {
					t.Fatalf("seed %d: %s", seed, r.Status())
				}
				if r.LiveRan < DefaultLiveFor || r.TailDecisions == 0 {
					t.Fatalf("seed %d: the tail ran %v in %d decisions, want at least %v", seed, r.LiveRan, r.TailDecisions, DefaultLiveFor)
				}
			}
		})
	}
}

// The budget's boundary, on one correct seed: the tail's properties
// settle at some decision (ClearAt; the decision before it, StalledAt,
// still had one stalled). A budget that ends the tail at StalledAt is too
// short and stalls; one that ends it at ClearAt, exactly where the run
// becomes quiescent, does not; and both are the same run up to there.
func TestLivenessBudgetBoundary(t *testing.T) {
	for seed := uint64(1); seed <= 10; seed++ {
		opt := Options{Seed: seed, LiveFor: DefaultLiveFor}
		full := Run(opt)
		if full.Failed() {
			t.Fatalf("seed %d: %s", seed, full.Status())
		}
		if full.StalledAt < 0 || full.ClearAt <= full.StalledAt {
			continue // settled at the tail's first decision, or two decisions at one instant: no boundary to test
		}
		opt.LiveFor = full.ClearAt
		exact := Run(opt)
		if exact.Stalled() || exact.LiveRan != full.ClearAt {
			t.Fatalf("seed %d with a budget of %v (where it settles): %s, tail ran %v", seed, full.ClearAt, exact.Status(), exact.LiveRan)
		}
		opt.LiveFor = full.StalledAt
		short := Run(opt)
		if !short.Stalled() || short.LiveRan != full.StalledAt {
			t.Fatalf("seed %d with a budget of %v (one decision short): %s, tail ran %v", seed, full.StalledAt, short.Status(), short.LiveRan)
		}
		if short.Decisions+1 != exact.Decisions {
			t.Fatalf("seed %d: the short run ended at decision %d, the exact one at %d: not one decision apart", seed, short.Decisions, exact.Decisions)
		}
		t.Logf("seed %d: settles %v into the tail; %s with %v", seed, full.ClearAt, short.Status(), full.StalledAt)
		return
	}
	t.Fatal("no seed of 1..10 settles after its tail's first decision")
}

// A stalled run shrinks to a shorter fault phase that still stalls on the
// same property, and its file replays: the seed reproduces its hash and
// its status, the mutant and the budget read back from the file.
func TestShrinkStallReplays(t *testing.T) {
	opt := Options{Seed: 1, Settings: []string{"Truncation=" + model.LeaderEpoch}, LiveFor: DefaultLiveFor,
		Mutants: []broker.Mutant{broker.MutantFetcherStopsAfterLoss}}
	r := Run(opt)
	if !r.StalledOnly() {
		t.Fatalf("seed 1: %s, want a stall", r.Status())
	}
	s := ShrinkStall(opt, r)
	if !s.Result.StalledOnly() || s.Result.Stalls[0].Property != r.Stalls[0].Property {
		t.Fatalf("shrunk: %s, want a stall on %s", s.Result.Status(), r.Stalls[0].Property)
	}
	if s.Result.SimResult.Events >= r.SimResult.Events {
		t.Fatalf("shrunk to %d fault decisions, from %d", s.Result.SimResult.Events, r.SimResult.Events)
	}
	var buf bytes.Buffer
	if err := WriteRun(&buf, s.Result); err != nil {
		t.Fatal(err)
	}
	f, err := ReadRun(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if f.Live != DefaultLiveFor || len(f.Mutants) != 1 || f.Mutants[0] != broker.MutantFetcherStopsAfterLoss {
		t.Fatalf("the file reads back live %v, mutants %v", f.Live, f.Mutants)
	}
	rep, err := Replay(f, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Reproduced || rep.Rerun.Status() != s.Result.Status() || !rep.Lost() {
		t.Fatalf("replay: reproduced %t, status %q (recorded %q)", rep.Reproduced, rep.Rerun.Status(), s.Result.Status())
	}
	t.Logf("shrunk from %d to %d fault decisions in %d runs: %s", s.From, s.Result.SimResult.Events, s.Runs, s.Result.Status())
}

// Stalls judges each property on states built by the model's own steps.
func TestStallsOnModelStates(t *testing.T) {
	cfg, err := ModelConfig(append(defaultSettings(), "brokers=2", "min.insync.replicas=1", "Truncation=LeaderEpoch"))
	if err != nil {
		t.Fatal(err)
	}
	r1, r2 := cfg.Replicas[0], cfg.Replicas[1]
	s := model.Init(cfg)
	names := func() string {
		var out []string
		for _, x := range Stalls(cfg, s) {
			out = append(out, x.String())
		}
		return strings.Join(out, ", ")
	}
	step := func(a model.Action, want string) {
		t.Helper()
		if s, err = model.Apply(cfg, s, a); err != nil {
			t.Fatalf("%v: %v", a, err)
		}
		if got := names(); got != want {
			t.Fatalf("after %v: stalls %q, want %q", a, got, want)
		}
	}
	if got := names(); got != "LeaderElected" {
		t.Fatalf("initial state: stalls %q, want LeaderElected (no leader, both replicas eligible)", got)
	}
	step(model.Action{Kind: model.Elect, R: r1}, "")
	step(model.Action{Kind: model.HandleLeaderAndIsr, R: r1}, "")
	step(model.Action{Kind: model.HandleLeaderAndIsr, R: r2}, "TruncationEnds (f=r2, e=0)")
	step(model.Action{Kind: model.Produce, L: r1}, "TruncationEnds (f=r2, e=0), ReplicasCatchUp, ProduceCompletes (l=r1, o=0)")
	step(model.Action{Kind: model.SendOffsetsForLeaderEpoch, F: r2}, "TruncationEnds (f=r2, e=0), ReplicasCatchUp, ProduceCompletes (l=r1, o=0)")
	step(model.Action{Kind: model.HandleOffsetsForLeaderEpoch, L: r1, F: r2}, "TruncationEnds (f=r2, e=0), ReplicasCatchUp, ProduceCompletes (l=r1, o=0)")
	step(model.Action{Kind: model.HandleOffsetsForLeaderEpochResponse, F: r2}, "ReplicasCatchUp, ProduceCompletes (l=r1, o=0)")
	fetch := []model.Action{{Kind: model.SendFetch, F: r2}, {Kind: model.HandleFetch, L: r1, F: r2},
		{Kind: model.UpdateFollowerFetchState, L: r1, F: r2}, {Kind: model.HandleFetchResponse, F: r2}}
	for _, a := range fetch[:2] {
		step(a, "ReplicasCatchUp, ProduceCompletes (l=r1, o=0)")
	}
	for _, a := range fetch[2:] { // the leader counts r2's LEO 0 only: the HW stays
		step(a, "ReplicasCatchUp, ProduceCompletes (l=r1, o=0)")
	}
	for _, a := range fetch[:2] {
		step(a, "ReplicasCatchUp, ProduceCompletes (l=r1, o=0)")
	}
	step(fetch[2], "") // r2 fetched from offset 1: the HW passes the record
	step(fetch[3], "")
}

func defaultSettings() []string { return cluster.DefaultSimSettings() }
