package explore

import (
	"context"
	"testing"

	"github.com/hwepoch/hwepoch/model"
)

// benchConfig is le-fenced-2 with one record, about 156k distinct states
// (the same state space as testdata/tlc-small.json's x2-le-e2, whose
// MinIsrGatesHW has no effect with MinInsyncReplicas = 1).
var benchConfig = model.Config{Replicas: []model.Replica{"r1", "r2"}, Truncation: "LeaderEpoch", Fencing: true,
	Acks: "all", MinInsyncReplicas: 1, MaxRecords: 1, MaxEpoch: 2, MaxCrashes: 1}

var benchInvariants = []string{"TypeOK", "HWBelowLEO", "LeaderInIsr", "EpochCacheWellFormed", "EpochCacheMatchesLog",
	"RecordIdentity", "CommittedPrefixesAgree", "NoDivergence", "NoAckedLoss", "NoVisibleLoss"}

// BenchmarkExplore reports the explorer's distinct states per second
// (GOMAXPROCS workers) with every safety invariant checked.
func BenchmarkExplore(b *testing.B) {
	var distinct int64
	var secs float64
	for b.Loop() {
		res, err := Run(context.Background(), &benchConfig, Options{Invariants: benchInvariants})
		if err != nil {
			b.Fatal(err)
		}
		if res.Violation != nil || res.Distinct < 100_000 {
			b.Fatalf("unexpected result: %d distinct, %v", res.Distinct, res.Violation)
		}
		distinct += res.Distinct
		secs += res.Duration.Seconds()
	}
	b.ReportMetric(float64(distinct)/secs, "states/s")
}

// BenchmarkNext measures successor generation alone on one state per level
// of a short walk.
func BenchmarkNext(b *testing.B) {
	cfg := benchConfig
	s := model.Init(&cfg)
	var states []model.State
	for range 12 {
		states = append(states, s)
		succ := model.Enabled(&cfg, s)
		next, err := model.Apply(&cfg, s, succ[len(succ)/2])
		if err != nil {
			b.Fatal(err)
		}
		s = next
	}
	n := 0
	for b.Loop() {
		for i := range states {
			_ = model.NextPtr(&cfg, &states[i], func(model.Action, *model.State) bool { n++; return true })
		}
	}
}

// BenchmarkSymmetry compares fingerprinting by the key-sorted renamings
// (the default) with trying all six renamings of three replicas (TLC's
// way) on a three-replica LeaderEpoch configuration (56,653 classes).
func BenchmarkSymmetry(b *testing.B) {
	for _, mode := range []struct {
		name string
		full bool
	}{{"sorted", false}, {"all-permutations", true}} {
		b.Run(mode.name, func(b *testing.B) {
			cfg := symmetricConfigs[1]
			var distinct int64
			var secs float64
			for b.Loop() {
				res, err := Run(context.Background(), &cfg, Options{Invariants: benchInvariants, Symmetry: true, FullSymmetry: mode.full})
				if err != nil {
					b.Fatal(err)
				}
				distinct += res.Distinct
				secs += res.Duration.Seconds()
			}
			b.ReportMetric(float64(distinct)/secs, "states/s")
		})
	}
}
