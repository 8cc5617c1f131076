package sim

import (
	"errors"
	"flag"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hwepoch/hwepoch/impl/broker"
	"github.com/hwepoch/hwepoch/impl/controller"
	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/refine"
)

var seeds = flag.Int("sim.seeds", 20, "simulation seeds per policy")

// Simulated runs of every policy hold to the model decision by decision:
// every event a step the model enables, the abstraction (acked and
// committed included) equal to the model's state after every decision,
// every consumer read below the leader's HW; and after the heal the
// cluster takes a write again and converges.
func TestSimulatedRunsHoldToTheModel(t *testing.T) {
	for _, p := range model.Policies {
		t.Run(p, func(t *testing.T) {
			var reads, records, acked, steps, decided, applied int
			for seed := uint64(1); seed <= uint64(*seeds); seed++ {
				r := Run(Options{Seed: seed, Settings: []string{"Truncation=" + p}})
				if r.Err != nil || r.Invalid != nil || !r.Converged {
					t.Fatalf("%s", r)
				}
				reads += r.Validator.Reads
				records += r.Validator.Records
				acked += r.Acked
				steps += len(r.Validator.Steps)
				decided += r.Validator.Kinds[model.HandleAlterPartition]
				applied += r.Validator.Kinds[model.HandleAlterPartitionResponse]
			}
			t.Logf("%d seeds: %d model steps, %d acknowledgements, %d consumer reads of %d records checked; %d AlterPartitions decided, %d answers applied",
				*seeds, steps, acked, reads, records, decided, applied)
			if reads == 0 || records == 0 || acked == 0 {
				t.Fatalf("the runs checked too little: %d reads, %d records, %d acknowledgements", reads, records, acked)
			}
			if model.Releases[p].AsyncIsr && (decided == 0 || applied == 0) {
				// Asynchronous AlterPartition: the controller's decision and
				// the leader's applying of it are model steps of their own.
				t.Fatalf("no asynchronous ISR change ran: %d AlterPartitions decided, %d answers applied", decided, applied)
			}
		})
	}
}

// The other configurations hold to the model too: unclean elections,
// unflushed loss, acks=1, no fencing, two and five brokers (their losses
// and divergences, where the spec allows them, are the model's too).
func TestSimulatedVariantsHoldToTheModel(t *testing.T) {
	for _, settings := range [][]string{
		{"unclean.leader.election.enable=true"},
		{"UnflushedLoss=true"},
		{"acks=1", "min.insync.replicas=1"},
		{"Fencing=false"},
		{"brokers=2", "min.insync.replicas=1"},
		{"brokers=5", "min.insync.replicas=3"},
		{"Truncation=Kip101", "unclean.leader.election.enable=true", "UnflushedLoss=true"},
	} {
		for seed := uint64(1); seed <= 5; seed++ {
			r := Run(Options{Seed: seed, Settings: settings})
			if r.Err != nil || r.Invalid != nil || !r.Converged {
				t.Errorf("%v seed %d: %s", settings, seed, r)
			}
		}
	}
}

// Each seeded bug is caught, at the decision it shows: a broker serving a
// consumer past the HW (the broker's consumer path, not the client's
// filter), acks=all answered at the append (the acknowledgement checked at
// its event), a follower truncating to its HW under LeaderEpoch.
func TestSimulationCatchesSeededBugs(t *testing.T) {
	for _, c := range []struct {
		m    broker.Mutant
		want string
	}{
		{broker.MutantConsumerPastHW, "at or above the leader's HW"},
		{broker.MutantAckOnAppend, "after produce Produce"},
		{broker.MutantTruncateToHW, "differs from the model's"},
	} {
		t.Run(string(c.m), func(t *testing.T) {
			for seed := uint64(1); seed <= 10; seed++ {
				r := Run(Options{Seed: seed, Mutants: []broker.Mutant{c.m}})
				if r.Invalid != nil {
					if !strings.Contains(r.Invalid.Error(), c.want) {
						t.Fatalf("seed %d caught it, but not as expected (%q): %v", seed, c.want, r.Invalid)
					}
					return
				}
			}
			t.Fatalf("10 seeds did not catch %s", c.m)
		})
	}
}

// The simulation runs the controller's own election algorithms — offline
// elections when brokers fail and start, preferred elections from the auto
// leader rebalance timer, the reassignment algorithm for an administrator's
// election — and ISR changes from the brokers' own decisions (expansion on
// a fetch, shrinking by lag on the isr-expiration timer), each validated
// as the spec step it is.
func TestSimulationRunsTheControllersAlgorithms(t *testing.T) {
	elections := map[string]int{}
	kinds := map[model.ActionKind]int{}
	for seed := uint64(1); seed <= 20; seed++ {
		r := Run(Options{Seed: seed})
		if r.Failed() {
			t.Fatalf("%s", r)
		}
		for k, n := range r.Validator.Elections {
			elections[k] += n
		}
		for k, n := range r.Validator.Kinds {
			kinds[k] += n
		}
	}
	t.Logf("elections %v; ShrinkIsr %d, ExpandIsr %d", elections, kinds[model.ShrinkIsr], kinds[model.ExpandIsr])
	for _, s := range []controller.ElectionStrategy{controller.OfflinePartitionLeaderElectionStrategy,
		controller.PreferredReplicaPartitionLeaderElectionStrategy, controller.ReassignPartitionLeaderElectionStrategy} {
		if elections[s.String()] == 0 {
			t.Errorf("20 seeds made no %s election", s)
		}
	}
	if kinds[model.ShrinkIsr] == 0 || kinds[model.ExpandIsr] == 0 {
		t.Errorf("20 seeds changed no ISR on their own: %d shrinks, %d expansions", kinds[model.ShrinkIsr], kinds[model.ExpandIsr])
	}
	// A controller whose offline election ignores the ISR is caught.
	for seed := uint64(1); seed <= 20; seed++ {
		r := Run(Options{Seed: seed, ControllerMutants: []controller.Mutant{controller.MutantOfflineElectionIgnoresIsr}})
		if r.Invalid != nil {
			t.Logf("offline-election-ignores-isr caught at seed %d: %.200s", seed, r.Invalid)
			return
		}
	}
	t.Errorf("20 seeds did not catch a controller whose offline election ignores the ISR")
}

// BenchmarkSimulation: one validated simulation run per op (the default
// 400 decisions of faults, then the heal phase), seeds 1, 2, ... in turn;
// runs/s is what hwepoch chaos does per core (at a campaign's GOGC).
func BenchmarkSimulation(b *testing.B) {
	defer lessGC()()
	decisions := 0
	for i := 0; b.Loop(); i++ {
		r := Run(Options{Seed: uint64(1 + i)})
		if r.Err != nil || r.Invalid != nil {
			b.Fatalf("%s", r)
		}
		decisions += r.Decisions
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "runs/s")
	b.ReportMetric(float64(decisions)/b.Elapsed().Seconds(), "decisions/s")
}

// A HighWatermark run that loses records shrinks to a trace a fraction of
// its length that still violates the same invariant, replays on model and
// implementation, and writes and reads back as a regression.
func TestShrinkAFailingRun(t *testing.T) {
	for seed := uint64(1); seed <= 30; seed++ {
		r := Run(Options{Seed: seed, Settings: []string{"Truncation=" + model.HighWatermark}})
		if !r.Failed() {
			continue
		}
		s, err := Shrink(r.Config, r.Validator.Actions)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		n := s.Trace.Len() - 1
		t.Logf("seed %d: %d model steps shrunk to %d violating %s (%d candidates)", seed, s.From, n, s.Invariant, s.Tests)
		if n*4 > s.From {
			t.Errorf("shrunk only to %d of %d steps", n, s.From)
		}
		last := s.Trace.Steps[n].State
		if bad := refine.Violated(s.Config, last, []string{s.Invariant}); len(bad) == 0 {
			t.Errorf("the shrunk trace does not violate %s", s.Invariant)
		}
		if err := ReplayShrunk(s); err != nil {
			t.Errorf("the shrunk trace does not replay: %v", err)
		}
		path := filepath.Join(t.TempDir(), "x.itf.json")
		if err := WriteShrunk(path, s, "test"); err != nil {
			t.Fatal(err)
		}
		cases, err := refine.Load(path)
		if err != nil || len(cases) != 1 || cases[0].Trace.Len() != s.Trace.Len() {
			t.Fatalf("reading the regression back: %v", err)
		}
		return
	}
	t.Fatal("30 HighWatermark seeds lost nothing")
}

// Seeds that once left the model: a restarted broker whose fetch of
// before the crash (the spec's orphan) was still in flight sent another
// (LeaderEpoch seed 39: the spec's one fetcher slot was taken), and the
// loss of an orphan was no event, so the model kept it (seeds 59 and 83).
func TestSimulatedOrphanRegressions(t *testing.T) {
	for _, seed := range []uint64{39, 59, 83} {
		r := Run(Options{Seed: seed, Settings: []string{"Truncation=" + model.LeaderEpoch}})
		if r.Failed() {
			t.Errorf("LeaderEpoch %s", r)
		}
	}
}

// A model state that breaks a promised loss invariant is a loss, not a
// departure: counted as lost, shrunk to a trace that still violates it.
// HighWatermark promises no such thing; held to Safety anyway, its
// simulated runs break the promise where 0.10.2 loses records, with model
// and implementation agreeing at every step.
func TestBrokenPromiseOfSafetyIsALoss(t *testing.T) {
	promise := func(*model.Config) []string { return append([]string{"TypeOK"}, Safety...) }
	for seed := uint64(1); seed <= 200; seed++ {
		r := run(Options{Seed: seed, Settings: []string{"Truncation=" + model.HighWatermark}}, promise)
		var pe *PromiseError
		if !errors.As(r.Invalid, &pe) {
			continue
		}
		if !r.Lost() || r.Broken() {
			t.Fatalf("seed %d broke a promise of %v but Lost()=%v Broken()=%v", seed, pe.Invariants, r.Lost(), r.Broken())
		}
		s, err := Shrink(r.Config, r.Validator.Actions)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if !slices.Contains(pe.Invariants, s.Invariant) {
			t.Fatalf("seed %d broke %v, shrunk to a trace violating %s", seed, pe.Invariants, s.Invariant)
		}
		if err := ReplayShrunk(s); err != nil {
			t.Fatalf("seed %d: the shrunk trace does not replay: %v", seed, err)
		}
		// A broken promise that is not a loss stays a departure.
		other := &PromiseError{Invariants: []string{"HWBelowLEO"}}
		if other.Loss() {
			t.Fatal("HWBelowLEO counted as a loss")
		}
		return
	}
	t.Fatal("no HighWatermark seed in 1..200 broke a Safety invariant in the model: the check cannot be shown")
}
