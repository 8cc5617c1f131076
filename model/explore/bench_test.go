package explore

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/model/tlccfg"
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

// leFenced2 is spec/le-fenced-2.cfg's configuration, loaded once.
func leFenced2(b *testing.B) model.Config {
	b.Helper()
	chk, err := tlccfg.LoadCheck(filepath.Join("..", "..", "spec", "le-fenced-2.cfg"))
	if err != nil {
		b.Fatal(err)
	}
	return chk.Config
}

// BenchmarkLiveLeFenced2 and BenchmarkSafetyLeFenced2 are issue 22's cost
// measurement: the liveness check (the graph kept, every property, the
// fair-cycle search) and the safety check of le-fenced-2's invariants on
// the same graph (no symmetry: the liveness check has none), one search a
// run. Run them side by side (docs/benchmarks.md, "Liveness"); both report
// the states they searched so that a changed count shows.
func BenchmarkLiveLeFenced2(b *testing.B) {
	cfg := leFenced2(b)
	for b.Loop() {
		res, err := CheckLiveness(context.Background(), &cfg, LiveOptions{Properties: model.LivePropertyNames()})
		if err != nil {
			b.Fatal(err)
		}
		if res.Violation != nil {
			b.Fatalf("le-fenced-2: %s", res.Violation)
		}
		b.ReportMetric(float64(res.Distinct), "states")
		b.ReportMetric(float64(res.GraphBytes)/float64(res.Distinct), "graph-bytes/state")
	}
}

func BenchmarkSafetyLeFenced2(b *testing.B) {
	cfg := leFenced2(b)
	for b.Loop() {
		res, err := Run(context.Background(), &cfg, Options{Invariants: append(benchInvariants, "StrongIsr")})
		if err != nil {
			b.Fatal(err)
		}
		if res.Violation != nil {
			b.Fatalf("le-fenced-2: %s", res.Violation)
		}
		b.ReportMetric(float64(res.Distinct), "states")
	}
}

// BenchmarkSpillLeFenced2 is issue 20's cost of spilling: le-fenced-2's
// safety check in memory, then within a tenth of what that held
// (fingerprints, parent pointers and frontier), spilling the rest to a
// temporary directory. Both must find the same states. Run it with
// -benchtime=1x: each search takes tens of seconds.
func BenchmarkSpillLeFenced2(b *testing.B) {
	cfg := leFenced2(b)
	opts := Options{Invariants: append(benchInvariants, "StrongIsr")}
	var inMemory *Result
	for _, tc := range []struct {
		name  string
		tenth bool
	}{{"memory", false}, {"tenth", true}} {
		b.Run(tc.name, func(b *testing.B) {
			o := opts
			if tc.tenth {
				if inMemory == nil {
					b.Skip("needs the in-memory run first")
				}
				o.MemoryBudget = (inMemory.MemBytes + inMemory.FrontierBytes) / 10
			}
			for b.Loop() {
				res, err := Run(context.Background(), &cfg, o)
				if err != nil {
					b.Fatal(err)
				}
				if res.Violation != nil || !res.Complete {
					b.Fatalf("le-fenced-2: %v", res.Violation)
				}
				if tc.tenth && (res.Distinct != inMemory.Distinct || res.Generated != inMemory.Generated || res.Depth != inMemory.Depth) {
					b.Fatalf("spilling: %d distinct, %d generated, depth %d; in memory %d, %d, %d",
						res.Distinct, res.Generated, res.Depth, inMemory.Distinct, inMemory.Generated, inMemory.Depth)
				}
				if !tc.tenth {
					inMemory = res
				}
				b.ReportMetric(float64(res.Distinct), "states")
				b.ReportMetric(float64(o.MemoryBudget)/(1<<20), "budget-MiB")
				b.ReportMetric(float64(res.MemBytes+res.FrontierBytes)/(1<<20), "held-MiB")
				b.ReportMetric(float64(res.SpilledBytes)/(1<<20), "spilled-MiB")
				b.ReportMetric(res.Duration.Seconds(), "s")
			}
		})
	}
}
