package verify

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hwepoch/hwepoch/impl/broker"
	"github.com/hwepoch/hwepoch/impl/cluster"
	"github.com/hwepoch/hwepoch/impl/controller"
	"github.com/hwepoch/hwepoch/impl/storage"
	"github.com/hwepoch/hwepoch/refine"
	"github.com/hwepoch/hwepoch/refine/sim"
)

// The seeded bugs that verify --quick missed before issue 19, each with the
// check of verify --quick that now catches it: run with the bug seeded, the
// check's row fails; run without, it passes (the other tests of this
// package and verify --quick itself). Deterministic: stepped replays,
// seeded simulations and the boundary checks only.
func TestQuickChecksCatchTheSeededBugs(t *testing.T) {
	if testing.Short() {
		t.Skip("replays every trace and runs simulations, once per seeded bug")
	}
	traces := filepath.Join("..", "..", "traces")
	failed := func(rows []Row) []string {
		var out []string
		for _, r := range rows {
			if r.Status == Fail {
				out = append(out, fmt.Sprintf("%s %s [%s]: %s", r.Stage, r.Item, r.Policy, r.Found))
			}
		}
		return out
	}
	liveWith := func(m broker.Mutant) func() []Row {
		return func() []Row {
			return LivenessRows(LivenessPlan{Seeds: quickLivenessSeeds, Parallel: 2, Mutants: []broker.Mutant{m}}, nil)
		}
	}
	refineWith := func(m broker.Mutant) []Row {
		return RefineReplayRowsWith(traces, refine.Options{Cluster: func(c *cluster.Config) { c.Mutants = []broker.Mutant{m} }}, nil)
	}
	for _, tc := range []struct {
		bug  string
		run  func() []Row
		want string // a failed row's text names this
	}{
		// (a), (b): the min-isr-pending-expansion scenario's replay.
		{string(broker.MutantHWGateOverMaximalIsr), func() []Row { return refineWith(broker.MutantHWGateOverMaximalIsr) },
			"min-isr-pending-expansion.scenario [DivergingEpoch]: implementation differs at step 19"},
		{string(broker.MutantProduceGateOverMaximalIsr), func() []Row { return refineWith(broker.MutantProduceGateOverMaximalIsr) },
			"min-isr-pending-expansion.scenario [DivergingEpoch]: implementation differs at step 21 Produce(l=r1)"},
		// (c): the simulation of unclean elections, validated.
		{string(controller.MutantUncleanPrefersOutOfIsr), func() []Row {
			return SimulationRows(SimulationPlan{UncleanSeeds: 10, Parallel: 2,
				ControllerMutants: []controller.Mutant{controller.MutantUncleanPrefersOutOfIsr}}, nil)
		}, "unclean elections, validated [LeaderEpoch]: seed 5: invalid at decision"},
		// (d): every stepped replay holds the recovery point to the LEO.
		{string(broker.MutantTruncateKeepsRecoveryPoint), func() []Row { return refineWith(broker.MutantTruncateKeepsRecoveryPoint) },
			"recovery point"},
		// (e), (f), (g), (h), (i): the boundary checks.
		{string(broker.MutantLagFromLastFetch), func() []Row { return BoundaryRows(traces, string(broker.MutantLagFromLastFetch), nil) },
			"past replica.lag.time.max.ms"},
		{string(broker.MutantCaughtUpNow), func() []Row { return BoundaryRows(traces, string(broker.MutantCaughtUpNow), nil) },
			"past replica.lag.time.max.ms"},
		{string(storage.MutantCheckpointEqualStarts), func() []Row { return BoundaryRows(traces, string(storage.MutantCheckpointEqualStarts), nil) },
			"an equal start offset"},
		{string(sim.MutantSkipsInvariants), func() []Row { return BoundaryRows(traces, string(sim.MutantSkipsInvariants), nil) },
			"the validator accepted the run of kip101-scenario-1 HighWatermark"},
		{string(sim.MutantReadAtHW), func() []Row { return BoundaryRows(traces, string(sim.MutantReadAtHW), nil) },
			"the check let it through"},
		// Issue 22's liveness mutants: the liveness stage, the liveness
		// check alone, names the property each breaks.
		{string(broker.MutantFetcherStopsAfterLoss), liveWith(broker.MutantFetcherStopsAfterLoss), "stalled: ReplicasCatchUp"},
		{string(broker.MutantHWNotAdvancedOnFetch), liveWith(broker.MutantHWNotAdvancedOnFetch), "stalled: ProduceCompletes"},
		{string(broker.MutantControllerDropsAlterPartition), liveWith(broker.MutantControllerDropsAlterPartition), "stalled: AlterPartitionResolves"},
		{string(broker.MutantTruncationLoopStuck), liveWith(broker.MutantTruncationLoopStuck), "stalled: TruncationEnds"},
	} {
		t.Run(tc.bug, func(t *testing.T) {
			bad := failed(tc.run())
			if !slices.ContainsFunc(bad, func(s string) bool { return strings.Contains(s, tc.want) }) {
				t.Fatalf("no failed row says %q; failed rows:\n%s", tc.want, strings.Join(bad, "\n"))
			}
			t.Logf("caught by %d row(s), e.g. %s", len(bad), bad[0])
		})
	}
}

// Each boundary check passes without a seeded bug and fails with exactly
// the seeded bugs it lists (those of other components pass through it).
func TestBoundaryRows(t *testing.T) {
	traces := filepath.Join("..", "..", "traces")
	rows := BoundaryRows(traces, "", nil)
	if len(rows) != len(BoundaryChecks) {
		t.Fatalf("%d rows for %d checks", len(rows), len(BoundaryChecks))
	}
	for _, r := range rows {
		if r.Status != Pass {
			t.Errorf("without a seeded bug: %s: %s", r.Item, r.Found)
		}
	}
	var all []string
	for _, c := range BoundaryChecks {
		all = append(all, c.Catches...)
	}
	slices.Sort(all)
	for _, m := range slices.Compact(all) {
		for i, r := range BoundaryRows(traces, m, nil) {
			catches := slices.Contains(BoundaryChecks[i].Catches, m)
			if catches != (r.Status == Fail) {
				t.Errorf("%s seeded: %s: %s (%s), but the check lists %v", m, r.Item, r.Status.Mark(), r.Found, BoundaryChecks[i].Catches)
			}
		}
	}
}

// quickLivenessSeeds is verify --quick's liveness plan (cmd/hwepoch's
// verify): the seeds per release in which each liveness mutant must stall.
const quickLivenessSeeds = 10

// Without a seeded bug the liveness stage passes on every release.
func TestLivenessRowsPass(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the liveness check on 40 seeds")
	}
	for _, r := range LivenessRows(LivenessPlan{Seeds: quickLivenessSeeds, Parallel: 2}, nil) {
		if r.Status != Pass {
			t.Errorf("%s [%s]: %s", r.Item, r.Policy, r.Found)
		}
		t.Logf("%s [%s]: %s (%v)", r.Item, r.Policy, r.Found, r.Time.Round(time.Millisecond))
	}
}
