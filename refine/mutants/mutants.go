// Package mutants is the mutation check: it seeds one known bug at a time
// into the implementation (impl/broker's Mutant switches) and runs the
// checker's checks against it, to show that each check can fail and which
// bugs each one catches. A mutant no check catches is a hole in the
// checker.
package mutants

import (
	"errors"
	"fmt"
	"math/rand"
	"path/filepath"
	"strings"
	"time"

	"github.com/hwepoch/hwepoch/impl/broker"
	"github.com/hwepoch/hwepoch/impl/cluster"
	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/refine"
	"github.com/hwepoch/hwepoch/refine/freerun"
	"github.com/hwepoch/hwepoch/refine/random"
	"github.com/hwepoch/hwepoch/refine/sim"
)

// Check names one of the checker's checks.
type Check string

const (
	TLCReplay      Check = "TLC-trace replay"
	ScenarioReplay Check = "scenario replay"
	// RegressionReplay replays traces/regressions: shrunk random failures
	// and hand-written cases (refine's TestKnownRegressions).
	RegressionReplay Check = "regression replay"
	Random           Check = "random traces"
	FreeRun          Check = "free-run validation"
	// Invariant is random traces judged by the spec's invariants on the
	// implementation's own state, without the model: what a property-based
	// test without a refinement mapping would catch.
	Invariant Check = "invariant"
	// Liveness is the deterministic simulation's liveness check alone
	// (refine/sim, unvalidated): after the faults heal, the cluster runs
	// fault-free for sim.DefaultLiveFor of simulated time and must not
	// stall on any property of spec/ReplicationLiveness.tla.
	Liveness Check = "simulation liveness"
)

// Checks lists the checks in the order they run and reports show them.
var Checks = []Check{TLCReplay, ScenarioReplay, RegressionReplay, Random, FreeRun, Invariant, Liveness}

// shortNames are the checks' names on a command line (hwepoch mutants
// -checks), in Checks' order.
var shortNames = map[Check]string{TLCReplay: "tlc", ScenarioReplay: "scenario", RegressionReplay: "regression",
	Random: "random", FreeRun: "free", Invariant: "invariant", Liveness: "liveness"}

// ShortName is c's name on a command line.
func (c Check) ShortName() string { return shortNames[c] }

// ParseChecks reads a comma-separated list of checks by their short names
// (tlc, scenario, regression, random, free, invariant, liveness) and returns them in
// Checks' order, each once. An unknown or empty name is an error.
func ParseChecks(s string) ([]Check, error) {
	if strings.TrimSpace(s) == "" {
		return nil, errors.New("give at least one check (known: " + strings.Join(ShortNames(), ", ") + ")")
	}
	want := map[Check]bool{}
	for _, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		found := false
		for c, short := range shortNames {
			if name == short {
				want[c], found = true, true
			}
		}
		if !found {
			return nil, fmt.Errorf("unknown check %q (known: %s)", name, strings.Join(ShortNames(), ", "))
		}
	}
	var out []Check
	for _, c := range Checks {
		if want[c] {
			out = append(out, c)
		}
	}
	return out, nil
}

// ShortNames lists the checks' short names in Checks' order.
func ShortNames() []string {
	out := make([]string, len(Checks))
	for i, c := range Checks {
		out[i] = shortNames[c]
	}
	return out
}

// Budget sizes a run of the checks.
type Budget struct {
	TracesDir    string // traces/ (TLC's traces in tlc/, scenarios in scenarios/)
	RandomTraces int    // per policy, for Random and for Invariant
	FreeRuns     int
	// FreeRunsToCatch, with FirstCatch, lets a mutant's free runs go on
	// past FreeRuns, up to this many, until one catches it: a free run
	// exposes a mutant only when the scheduling and the faults line up
	// (stale-leader-and-isr: about one run in three), and stopping at the
	// first catch keeps the cost near that. The baseline runs FreeRuns
	// here; that a free-run catch is the mutant's and not a false alarm of
	// the validator rests also on the unmutated implementation passing
	// many more (TestFreeRunsValidate: 100 in every go test, and the
	// recorded runs of TestRecordedRuns).
	FreeRunsToCatch int
	// LiveSeeds is the liveness check's seeds per release (0: 10).
	LiveSeeds int
	Seed      int64
	// FirstCatch stops a mutant's checks at the first that catches it (CI);
	// otherwise every check runs, for the full table.
	FirstCatch bool
	// Checks are the checks to run, in Checks' order (nil: every check).
	// A check left out is neither run on the baseline nor on a mutant, so
	// a report says "not run" for it, never "not caught".
	Checks []Check
}

// checks returns the checks b runs.
func (b Budget) checks() []Check {
	if b.Checks == nil {
		return Checks
	}
	return b.Checks
}

// CI is the budget `go test` runs the mutation check with. Its liveness
// check runs 3 seeds per release (the command's 10): the baseline's share
// of the package's time, and the liveness mutants are caught sooner by
// the refinement checks at the first catch; refine/sim's and
// internal/verify's tests hold the liveness check itself to them.
func CI(tracesDir string) Budget {
	return Budget{TracesDir: tracesDir, RandomTraces: 200, FreeRuns: 8, FreeRunsToCatch: 60, LiveSeeds: 3, Seed: 1, FirstCatch: true}
}

// Detection is one check's outcome against one mutant.
type Detection struct {
	Check  Check
	Caught bool
	// Length is the length of the trace that exposed the mutant: the
	// failing step of a replay, the shrunk random trace's steps, the event
	// index of a free run (1-based).
	Length int
	Where  string // which trace, policy or run
	Detail string // the first line of the check's report
	Err    error  // the check could not run (not a detection)
	Took   time.Duration
}

// Result is every check's outcome against one mutant (or none: the
// baseline).
type Result struct {
	Mutant     broker.Mutant // "" for the baseline
	Detections []Detection
}

// Caught reports whether any check caught the mutant.
func (r Result) Caught() bool {
	for _, d := range r.Detections {
		if d.Caught {
			return true
		}
	}
	return false
}

// First is the detection with the shortest exposing trace, if any.
func (r Result) First() (Detection, bool) {
	var best Detection
	found := false
	for _, d := range r.Detections {
		if d.Caught && (!found || d.Length < best.Length) {
			best, found = d, true
		}
	}
	return best, found
}

// Run runs every check against mutant m ("" runs them against the
// implementation as it is: the baseline, which must pass them all).
// progress, if set, hears what is running.
func Run(m broker.Mutant, b Budget, progress func(string)) Result {
	say := func(format string, args ...any) {
		if progress != nil {
			progress(fmt.Sprintf(format, args...))
		}
	}
	mod := func(c *cluster.Config) {
		if m != "" {
			c.Mutants = []broker.Mutant{m}
		}
	}
	res := Result{Mutant: m}
	name := string(m)
	if name == "" {
		name = "baseline"
	}
	for _, c := range b.checks() {
		say("%s: %s", name, c)
		start := time.Now()
		var d Detection
		switch c {
		case TLCReplay:
			d = replayDir(filepath.Join(b.TracesDir, "tlc"), mod)
		case ScenarioReplay:
			d = replayDir(filepath.Join(b.TracesDir, "scenarios"), mod)
		case RegressionReplay:
			d = replayDir(filepath.Join(b.TracesDir, "regressions"), mod)
		case Random:
			d = randomTraces(b, mod, false)
		case Invariant:
			d = randomTraces(b, mod, true)
		case FreeRun:
			n := b.FreeRuns
			if m != "" && b.FirstCatch && n > 0 {
				n = max(n, b.FreeRunsToCatch)
			}
			d = freeRuns(b, n, mod)
		case Liveness:
			d = liveness(b, m)
		}
		d.Check, d.Took = c, time.Since(start)
		res.Detections = append(res.Detections, d)
		if d.Caught && b.FirstCatch && m != "" {
			break
		}
	}
	return res
}

// replayDir replays every trace under dir with the mutant; the first
// mismatch catches it.
func replayDir(dir string, mod func(*cluster.Config)) Detection {
	files, err := refine.Discover(dir)
	if err == nil && len(files) == 0 {
		err = fmt.Errorf("no traces under %s", dir)
	}
	if err != nil {
		return Detection{Err: err}
	}
	return replayFiles(files, mod)
}

// replayFiles replays every case of the given trace files with the mutant;
// the first mismatch on the implementation's side catches it.
func replayFiles(files []string, mod func(*cluster.Config)) Detection {
	for _, f := range files {
		cases, err := refine.Load(f)
		if err != nil {
			return Detection{Err: err}
		}
		for _, c := range cases {
			err := refine.ReplayCase(c, refine.Options{Cluster: mod})
			var mm *refine.Mismatch
			switch {
			case errors.As(err, &mm) && mm.Side == "implementation":
				return Detection{Caught: true, Length: mm.Step, Where: c.Name, Detail: firstLine(mm.What)}
			case err != nil:
				return Detection{Err: fmt.Errorf("%s: %w", c.Name, err)}
			}
		}
	}
	return Detection{}
}

// randomTraces runs random traces under each policy until one fails. With
// invariantsOnly, only LeaderEpoch with fencing, clean elections and no
// unflushed loss runs: the configuration that promises every invariant.
func randomTraces(b Budget, mod func(*cluster.Config), invariantsOnly bool) Detection {
	// Every policy (model.Policies), LeaderEpoch first: the invariant
	// check runs it alone.
	policies := []string{model.LeaderEpoch, model.HighWatermark, model.Kip101, model.DivergingEpoch, model.EligibleLeader}
	opt := random.Options{Traces: b.RandomTraces, Cluster: mod, InvariantsOnly: invariantsOnly}
	if invariantsOnly {
		policies = policies[:1]
		opt.Config = fullyPromising
	}
	for i, p := range policies {
		opt.Policy, opt.Seed = p, b.Seed+int64(i)
		res, err := random.Run(opt)
		if err != nil && res.Failure == nil {
			return Detection{Err: err}
		}
		if f := res.Failure; f != nil {
			return Detection{Caught: true, Length: f.Trace.Len() - 1, Where: fmt.Sprintf("%s, seed %d, after %d traces", p, opt.Seed, res.Passed),
				Detail: firstLine(f.Problem)}
		}
	}
	return Detection{}
}

// fullyPromising is random.GenConfig restricted to the configurations that
// promise every invariant.
func fullyPromising(rng *rand.Rand, policy string) *model.Config {
	cfg := &model.Config{Replicas: []model.Replica{"r1", "r2"}, Truncation: policy, Fencing: true,
		Acks: "all", MinInsyncReplicas: 1 + rng.Intn(2), MinIsrGatesHW: rng.Intn(2) == 0,
		LossyNetwork: rng.Intn(2) == 0, MaxRecords: 3, MaxEpoch: 4, MaxCrashes: 2}
	if rng.Intn(3) == 0 {
		cfg.Replicas = append(cfg.Replicas, "r3")
	}
	return cfg
}

// freeRuns validates up to n free runs with the mutant until one fails.
func freeRuns(b Budget, n int, mod func(*cluster.Config)) Detection {
	for i := range n {
		cfg := freerun.Configs[i%len(freerun.Configs)]
		opt := freerun.DefaultOptions(cfg, uint64(b.Seed)+uint64(i))
		opt.Cluster = mod
		rec := freerun.Record(opt)
		if rec.Err != nil {
			// A mutant can break the implementation outright (an internal
			// error); that is a catch too.
			return Detection{Caught: true, Length: len(rec.Events), Where: fmt.Sprintf("%s, seed %d", cfg.Truncation, opt.Seed),
				Detail: "the run failed: " + firstLine(rec.Err.Error())}
		}
		rep := freerun.Validate(rec)
		if rep.Err != nil {
			n := rep.Events
			var f *freerun.Failure
			if errors.As(rep.Err, &f) {
				n = f.Index + 1
			}
			return Detection{Caught: true, Length: n, Where: fmt.Sprintf("%s, seed %d", cfg.Truncation, opt.Seed), Detail: firstLine(rep.Err.Error())}
		}
	}
	return Detection{}
}

// liveness runs the simulation's liveness check alone on LiveSeeds seeds
// of each release, from seed 1, with mutant m ("" for none); the first
// stall catches it. ReplicasCatchUp after a loss is no catch: 0.10.2 and
// 0.11 lose committed records, which no replica holds again.
func liveness(b Budget, m broker.Mutant) Detection {
	seeds := b.LiveSeeds
	if seeds <= 0 {
		seeds = 10
	}
	var ms []broker.Mutant
	if m != "" {
		ms = []broker.Mutant{m}
	}
	for _, p := range []string{model.LeaderEpoch, model.DivergingEpoch, model.Kip101, model.HighWatermark} {
		for seed := uint64(1); seed <= uint64(seeds); seed++ {
			r := sim.Run(sim.Options{Seed: seed, Settings: []string{"Truncation=" + p}, Mutants: ms,
				LiveFor: sim.DefaultLiveFor, Unvalidated: true})
			if r.Err != nil || r.Invalid != nil {
				// The run could not go on, or its end state has no model
				// counterpart: the mutant broke the implementation outright.
				return Detection{Caught: true, Length: r.Decisions, Where: fmt.Sprintf("%s, seed %d", p, seed),
					Detail: "the run failed: " + firstLine(r.Status())}
			}
			for _, st := range r.Stalls {
				if r.Excused(st) {
					continue
				}
				return Detection{Caught: true, Length: r.Decisions, Where: fmt.Sprintf("%s, seed %d", p, seed),
					Detail: firstLine(r.Status())}
			}
		}
	}
	return Detection{}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 160 {
		s = s[:157] + "..."
	}
	return s
}
