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
		// KIP-903's two checks and 4.1's Eligible Leader Replicas: the
		// replay of their hand-written regressions (refine/known_test.go),
		// which the refine stage replays with every other trace.
		{string(broker.MutantExpandStaleBrokerEpoch), func() []Row { return refineWith(broker.MutantExpandStaleBrokerEpoch) },
			"regressions/kip903-no-expand-of-earlier-incarnation.itf.json [DivergingEpoch]: implementation differs at step 13"},
		{string(broker.MutantIgnoresBrokerEpochs), func() []Row { return refineWith(broker.MutantIgnoresBrokerEpochs) },
			"regressions/kip903-controller-refuses-earlier-incarnation.itf.json [DivergingEpoch]: implementation differs at step 14"},
		{string(broker.MutantElrKeepsRestarted), func() []Row { return refineWith(broker.MutantElrKeepsRestarted) },
			"regressions/elr-election-order.itf.json [EligibleLeader]: implementation differs at step 10"},
		{string(broker.MutantElrNotFilled), func() []Row { return refineWith(broker.MutantElrNotFilled) },
			"regressions/elr-election-order.itf.json [EligibleLeader]: implementation differs at step 5"},
		{string(broker.MutantElrIgnoredInElection), func() []Row { return refineWith(broker.MutantElrIgnoredInElection) },
			"regressions/elr-election-order.itf.json [EligibleLeader]: implementation differs at step 8"},
		{string(broker.MutantNoLastKnownLeader), func() []Row { return refineWith(broker.MutantNoLastKnownLeader) },
			"regressions/elr-election-order.itf.json [EligibleLeader]: implementation differs at step 15"},
		{string(broker.MutantElrLeaderWithIsr), func() []Row { return refineWith(broker.MutantElrLeaderWithIsr) },
			"regressions/elr-no-election-while-isr.itf.json [EligibleLeader]: implementation differs at step 7"},
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
