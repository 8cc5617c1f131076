package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/hwepoch/hwepoch/impl/broker"
	"github.com/hwepoch/hwepoch/impl/cluster"
	"github.com/hwepoch/hwepoch/impl/protocol"
	"github.com/hwepoch/hwepoch/impl/release"
	"github.com/hwepoch/hwepoch/impl/storage"
	"github.com/hwepoch/hwepoch/internal/inputfile"
	"github.com/hwepoch/hwepoch/internal/viewer"
	"github.com/hwepoch/hwepoch/refine/sim"
)

func init() {
	register("chaos", "run seeded chaos on the implementation (deterministic simulation, or free with -free) and check for lost or divergent records", runChaos)
}

// settingsFlag collects repeated -set key=value flags.
type settingsFlag []string

func (s *settingsFlag) String() string     { return strings.Join(*s, ",") }
func (s *settingsFlag) Set(v string) error { *s = append(*s, v); return nil }

const chaosUsage = `usage: hwepoch chaos [flags]

Runs the implementation under seeded chaos and checks that no acknowledged
or consumer-visible record is lost and no replica diverges.

By default each seed is a deterministic simulation: the real brokers,
controller, fetchers, producer and storage, driven by one seeded scheduler
over simulated time (message delivery in any order, the brokers' and the
controller's timers, crashes (losing the unflushed tail with -unflushed),
restarts, partitions, lost requests, elections by the controller's own
algorithms and by an administrator). Every decision is
validated against the model: each event must be a step the model takes, the
cluster's state (acknowledgements and committed records included) must equal
the model's after it, and every consumer read must stay below the leader's
HW. After the fault phase the network heals, every broker restarts, and the
cluster must take a write and converge. A seed is a function of its number
and the settings alone: the same seed gives the same event log.

The liveness check (-live, on by default): after the heal the cluster runs
for -live of simulated time with no fault at all (no crash, restart,
partition, lost request, administrator's election, nor a shrink of a live
follower: spec/ReplicationLiveness.tla's FaultsStop), its fetchers, leaders
and controller going on as Kafka's threads do; then the liveness properties
are judged on the model's state with the model's predicates. A property
still waiting for its progress then (a follower truncating in its leader's
epoch, a live ISR member missing a committed record or the HW below the
LEO, an acks=all record waiting, an AlterPartition pending, no leader
though one is eligible) makes the seed a failure of its own kind:
"stalled: PROPERTY (INSTANCE)", counted apart in the summary, written to
-out as seed-N-POLICY.sim and shrunk (the same seed with the shortest fault
phase found that still stalls on the same property, written as
seed-N-POLICY.shrunk.sim); both replay with -replay. -live 0 turns the
check off (the heal phase then ends at convergence). -mutant seeds known
bugs (hwepoch mutants lists them), to see a check bite.

A failing seed prints its fault schedule and writes to -out:
  seed-N-POLICY.sim           the run: replay it with -replay FILE, which
                              simulates the seed again (the event-log hash
                              must match) and replays its steps on the model
                              and on a stepped cluster;
  seed-N-POLICY.itf.json      the run shrunk to a minimal trace that still
                              loses or diverges (delta debugging over its
                              events, faults included), replayed on model and
                              implementation; hwepoch replay FILE replays it,
                              hwepoch render FILE -svg OUT draws it;
  seed-N-POLICY.svg           that trace drawn;
  seed-N-POLICY.html          that trace as an interactive page (hwepoch view).
(-shrink N shrinks and draws only the first N seeds that lose or diverge:
a campaign expected to find many spends most of its time shrinking.)

-out is tried before the first seed runs: it is created if missing
(and removed again at the end if no seed wrote into it) and a file is
written into it and removed; a directory that cannot be written is a usage
error. A failing seed whose files cannot be written fails the campaign.

-free runs the concurrent implementation free instead (goroutines, real
timers, a lossy network): what only real concurrency finds, not
reproducible from its seed; its failing seeds' events are written as steps
that -replay replays where the stepped cluster can follow them. -duration,
-interval, -drop, -delay and -max-delay apply only with -free; -events
(at most %d), -parallel, -log, -live and -mutant only without it.

Exit status: 0 when the verdicts are as -expect says (holds: no loss or
divergence; violated: at least one; any: either), 1 otherwise or when a
run errs, does not converge or departs from the model; 2 on bad use.
-expect auto is holds where the spec promises it (LeaderEpoch with
fencing, acks=all or 0, clean elections, no unflushed loss), violated for
HighWatermark, Kip101 and acks=1, any otherwise (a violation is possible
but rare).

-replay FILE takes no other flag but -log: the file says how to run.
A .sim file must carry its '# seed', '# events' (1 to %d) and '# hash'
lines, and when its seed reproduces the hash, its steps must be the ones
the seed gives (an edited file is refused). With -replay the exit status
is 0 when the replayed run reproduces and neither loses nor diverges, 1
when it loses, diverges or does not reproduce, 2 when the file cannot be
replayed (the reason is printed).

flags:`

func runChaos(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("chaos", flag.ContinueOnError)
	fs.SetOutput(stderr)
	seeds := fs.Int("seeds", 100, "number of seeds to run")
	first := fs.Uint64("seed", 1, "first seed")
	policy := fs.String("policy", "LeaderEpoch", "truncation policy (a Kafka release): HighWatermark (0.10.2), Kip101 (0.11.0), LeaderEpoch (2.1.0), DivergingEpoch (3.9.0) or EligibleLeader (4.1.0 with ELR)")
	brokers := fs.Int("brokers", 3, "brokers (= replication factor)")
	acks := fs.String("acks", "all", "producer acks: 0, 1 or all")
	minIsr := fs.Int("min-insync", 2, "min.insync.replicas")
	unclean := fs.Bool("unclean", false, "unclean.leader.election.enable")
	unflushed := fs.Bool("unflushed", false, "a crash loses the log's unflushed tail")
	fencing := fs.Bool("fencing", true, "KIP-320 leader epoch fencing")
	events := fs.Int("events", 400, fmt.Sprintf("simulation: decisions of each seed's fault phase (at most %d)", sim.MaxEvents))
	live := fs.Duration("live", sim.DefaultLiveFor, fmt.Sprintf("simulation: the liveness check's budget of fault-free simulated time after the heal (at most %v; 0: no liveness check)", sim.MaxLive))
	mutant := fs.String("mutant", "", "simulation: seed these known bugs, comma-separated (hwepoch mutants lists them)")
	parallel := fs.Int("parallel", min(2, runtime.NumCPU()), "simulation: seeds run at a time")
	free := fs.Bool("free", false, "run the implementation free (goroutines, real time) instead of simulating it")
	duration := fs.Duration("duration", time.Second, "-free: chaos phase of each seed")
	interval := fs.Duration("interval", 10*time.Millisecond, "-free: mean time between chaos actions")
	drop := fs.Float64("drop", 0.01, "-free: network drop rate, in [0, 1]")
	delay := fs.Float64("delay", 0.3, "-free: network delay rate, in [0, 1]")
	maxDelay := fs.Duration("max-delay", 2*time.Millisecond, "-free: largest network delay (keep well below request.timeout.ms)")
	expect := fs.String("expect", "auto", "holds | violated | any | auto (see above)")
	out := fs.String("out", "chaos-failures", "directory for failing seeds' runs and shrunk traces")
	shrinkMax := fs.Int("shrink", -1, "simulation: shrink (and draw) the runs of at most this many seeds that lose or diverge, the first ones; the others' runs are written unshrunk (-1: every one)")
	replay := fs.String("replay", "", "instead, replay a run written to -out (a .sim file or a -free run's .steps file)")
	verbose := fs.Bool("v", false, "print every seed, and failing seeds' whole fault schedules")
	printLog := fs.Bool("log", false, "simulation: print each seed's event log (every decision, the events it caused, a status line per broker); with -replay, the replayed seed's")
	var settings settingsFlag
	fs.Var(&settings, "set", "extra setting key=value (Kafka names, e.g. replica.lag.time.max.ms=60); repeatable")
	fs.Usage = func() {
		fmt.Fprintf(stderr, chaosUsage+"\n", sim.MaxEvents, sim.MaxEvents)
		printDefaults(fs)
	}
	if code, done := parseFlags(fs, args, onlyWith("replay", "log"), between("events", 1, sim.MaxEvents),
		between("live", 0, float64(sim.MaxLive)),
		needs("duration", "free"), needs("interval", "free"), needs("drop", "free"), needs("delay", "free"),
		needs("max-delay", "free"), excludes("free", "events", "parallel", "log", "live", "mutant")); done {
		return code
	}
	bad := usageError(stderr, "chaos")
	if fs.NArg() > 0 {
		return bad("unexpected argument %q", fs.Arg(0))
	}
	if *replay != "" {
		return replayRun(*replay, *printLog, stdout, stderr)
	}
	p, err := storage.ParsePolicy(*policy)
	if err != nil {
		return bad("-policy: %v", err)
	}
	a, err := protocol.ParseAcks(*acks)
	if err != nil {
		return bad("-acks: %v", err)
	}
	rate := func(v float64) bool { return v >= 0 && v <= 1 && !math.IsNaN(v) }
	switch {
	case *seeds < 1:
		return bad("-seeds must be at least 1, got %d", *seeds)
	case *brokers < 1 || *brokers > 9:
		return bad("-brokers must be in 1..9, got %d", *brokers)
	case *minIsr < 1 || *minIsr > *brokers:
		return bad("-min-insync must be in 1..%d (the broker count), got %d", *brokers, *minIsr)
	case *parallel < 1:
		return bad("-parallel must be at least 1, got %d", *parallel)
	case *duration <= 0:
		return bad("-duration must be positive, got %v", *duration)
	case *interval <= 0:
		return bad("-interval must be positive, got %v", *interval)
	case !rate(*drop):
		return bad("-drop must be in [0, 1], got %v", *drop)
	case !rate(*delay):
		return bad("-delay must be in [0, 1], got %v", *delay)
	case *maxDelay < 0 || (*delay > 0 && *maxDelay == 0):
		return bad("-max-delay must be positive when -delay is, got %v", *maxDelay)
	case *out == "":
		return bad("-out must name a directory")
	case *shrinkMax < -1:
		return bad("-shrink must be -1 (every failing seed) or at least 0, got %d", *shrinkMax)
	}
	var mutants []broker.Mutant
	for _, name := range strings.Split(*mutant, ",") {
		if name = strings.TrimSpace(name); name == "" {
			continue
		}
		m := broker.Mutant(name)
		if !slices.Contains(broker.Mutants, m) && !slices.Contains(broker.SimMutants, m) {
			return bad("-mutant: unknown seeded bug %q (hwepoch mutants lists them)", name)
		}
		mutants = append(mutants, m)
	}
	for _, kv := range settings {
		cc := cluster.DefaultConfig("x")
		if err := cc.SetAll([]string{kv}); err != nil {
			return bad("-set: %v", err)
		}
	}
	want := *expect
	if want == "auto" {
		want = autoExpectation(p, a, *fencing, *unclean, *unflushed)
	}
	if want != "holds" && want != "violated" && want != "any" {
		return bad("-expect must be holds, violated, any or auto, got %q", *expect)
	}
	cleanup, err := usableDir(*out)
	if err != nil {
		return bad("-out %s: %v", *out, err)
	}
	defer cleanup()
	if *free {
		base := cluster.DefaultChaos("", 0)
		base.Brokers, base.Policy, base.Acks, base.MinInsyncReplicas = *brokers, p, a, *minIsr
		base.UncleanLeaderElectionEnable, base.UnflushedLoss, base.Fencing = *unclean, *unflushed, *fencing
		rel, _ := release.Of(p)                // ParsePolicy checked it
		base.MinIsrGatesHW = rel.MinIsrGatesHW // the release's own (3.7+)
		base.Duration, base.Interval = *duration, *interval
		base.Faults.DropRate, base.Faults.DelayRate, base.Faults.MaxDelay = *drop, *delay, *maxDelay
		base.Settings = append(base.Settings, settings...)
		return freeChaos(base, *first, *seeds, want, *out, *verbose, stdout, stderr)
	}
	simSettings := append([]string{
		fmt.Sprintf("brokers=%d", *brokers), "Truncation=" + string(p), fmt.Sprintf("Fencing=%t", *fencing),
		"acks=" + a.String(), fmt.Sprintf("min.insync.replicas=%d", *minIsr),
		fmt.Sprintf("unclean.leader.election.enable=%t", *unclean), fmt.Sprintf("UnflushedLoss=%t", *unflushed),
		fmt.Sprintf("MinIsrGatesHW=%t", minIsrGatesHW(p)),
	}, settings...)
	liveness := "no liveness check"
	if *live > 0 {
		liveness = fmt.Sprintf("liveness judged after %v fault-free", *live)
	}
	if len(mutants) > 0 {
		liveness += fmt.Sprintf(", seeded bugs %v", mutants)
	}
	printWrapped(stdout, "chaos: %d simulated seeds from %d, %s, %d brokers, acks=%s, min.insync.replicas=%d, unclean=%t, unflushed=%t, fencing=%t, %d decisions of faults each, %s, %d at a time; expect %s\n",
		*seeds, *first, p, *brokers, a, *minIsr, *unclean, *unflushed, *fencing, *events, liveness, *parallel, want)
	return simChaos(sim.CampaignOptions{First: *first, Seeds: *seeds, Settings: simSettings, Events: *events, Parallel: *parallel,
		LiveFor: *live, Mutants: mutants},
		string(p), want, *out, *shrinkMax, *verbose, *printLog, stdout, stderr)
}

// simChaos runs the simulated campaign.
// At most shrinkMax failing seeds (-1: all) are shrunk.
func simChaos(opt sim.CampaignOptions, policy, want, out string, shrinkMax int, verbose, printLog bool, stdout, stderr io.Writer) int {
	start := time.Now()
	lastReport := start
	var lost, broken, stalled, acked, reads, done, unwritten int
	var settle time.Duration // the latest a seed's properties settled in its tail
	var settleSeed uint64
	sim.Campaign(opt, func(r sim.Result) {
		done++
		acked += r.Acked
		if r.Validator != nil {
			reads += r.Validator.Reads
		}
		if printLog {
			fmt.Fprintf(stdout, "seed %d event log (sha256 %s):\n%s\n", r.Seed, r.Hash(), strings.Join(r.Log, "\n"))
		}
		if verbose || r.Failed() {
			printWrapped(stdout, "[%d/%d] %s\n", done, opt.Seeds, r)
		} else if time.Since(lastReport) > 2*time.Second || done == opt.Seeds {
			lastReport = time.Now()
			el := time.Since(start)
			eta := time.Duration(float64(el) / float64(done) * float64(opt.Seeds-done))
			fmt.Fprintf(stdout, "[%d/%d] %.1f runs/s, %d with loss or divergence, %d stalled, %d broken so far, eta %v\n",
				done, opt.Seeds, float64(done)/el.Seconds(), lost, stalled, broken, eta.Round(time.Second))
		}
		if opt.LiveFor > 0 && !r.Stalled() && r.ClearAt > settle {
			settle, settleSeed = r.ClearAt, r.Seed
		}
		if !r.Failed() {
			return
		}
		switch {
		case r.Broken():
			broken++
		case r.Stalled(): // a stall a loss does not explain (sim.Result.Excused)
			stalled++
		default:
			lost++
		}
		sched := r.Faults
		if !verbose && len(sched) > 12 {
			sched = append(append([]string(nil), sched[:12]...), fmt.Sprintf("... %d more (-v shows all)", len(r.Faults)-12))
		}
		fmt.Fprintf(stdout, "    fault schedule:\n      %s\n", strings.Join(sched, "\n      "))
		shrink := shrinkMax < 0 || lost+stalled <= shrinkMax
		if writeSimFailure(out, policy, r, shrink, stdout, stderr) != nil {
			unwritten++
		}
		if r.StalledOnly() && shrink && writeStallShrunk(out, policy, opt, r, stdout, stderr) != nil {
			unwritten++
		}
	})
	el := time.Since(start)
	liveness := "no liveness check"
	if opt.LiveFor > 0 {
		liveness = fmt.Sprintf("%d stalled after %v fault-free", stalled, opt.LiveFor)
		if settleSeed != 0 {
			liveness += fmt.Sprintf(" (in the others every property held from %v into the tail on, at the latest: seed %d)",
				settle.Round(time.Microsecond), settleSeed)
		}
	}
	printWrapped(stdout, "chaos: %d simulated seeds, %d with loss or divergence, %s, %d errors, model departures or no convergence; %d records acknowledged, %d consumer reads checked; %v, %.1f runs/s\n",
		done, lost, liveness, broken, acked, reads, el.Round(time.Millisecond), float64(done)/el.Seconds())
	code := verdictCode(want, lost, broken, stdout)
	if stalled > 0 {
		code = 1 // no release may stall: the spec claims every property for every release
	}
	return unwrittenCode(unwritten, out, code, stderr)
}

// writeStallShrunk shrinks a stalled seed (sim.ShrinkStall: the shortest
// fault phase found that still stalls on the same property) and writes
// that run as seed-N-POLICY.shrunk.sim, which chaos -replay replays.
func writeStallShrunk(dir, policy string, opt sim.CampaignOptions, r sim.Result, stdout, stderr io.Writer) error {
	s := sim.ShrinkStall(sim.Options{Seed: r.Seed, Settings: opt.Settings, Events: opt.Events, Dir: opt.Dir,
		Mutants: opt.Mutants, ControllerMutants: opt.ControllerMutants, LiveFor: opt.LiveFor}, r)
	path := filepath.Join(dir, fmt.Sprintf("seed-%d-%s.shrunk.sim", r.Seed, policy))
	if err := writeFile(path, func(w io.Writer) error { return sim.WriteRun(w, s.Result) }); err != nil {
		fmt.Fprintf(stderr, "hwepoch chaos: seed %d: could not write its shrunk run: %v\n", r.Seed, err)
		return err
	}
	printWrapped(stdout, "    shrunk from %d to %d fault decisions (%d runs tried), %d steps: %s\n    written to %s; replay: hwepoch chaos -replay %s\n",
		s.From, s.Result.SimResult.Events, s.Runs, len(s.Result.Steps), s.Result.Status(), path, path)
	return nil
}

// unwrittenCode is the campaign's exit status: 1 when some failing seed's
// files could not be written to out, else code.
func unwrittenCode(unwritten int, out string, code int, stderr io.Writer) int {
	if unwritten == 0 {
		return code
	}
	fmt.Fprintf(stderr, "hwepoch chaos: the files of %d failing seeds could not be written to %s (above)\n", unwritten, out)
	return 1
}

// minIsrGatesHW is the release's own min.insync.replicas gate on the HW
// (3.7+), which a campaign takes unless -set overrides it.
func minIsrGatesHW(p storage.Policy) bool {
	rel, _ := release.Of(p) // ParsePolicy checked it
	return rel.MinIsrGatesHW
}

// autoExpectation is -expect auto: holds where the spec promises no loss
// and no divergence (LeaderEpoch, DivergingEpoch or EligibleLeader with
// fencing, acks=all or 0, clean
// elections, no unflushed loss); violated where the spec's counterexamples
// are common (HighWatermark, Kip101, acks=1); any where a violation is
// possible but rare (LeaderEpoch without fencing, with unclean elections
// or unflushed loss), so that a campaign that finds none is no failure.
func autoExpectation(p storage.Policy, a protocol.Acks, fencing, unclean, unflushed bool) string {
	switch {
	case (p != storage.LeaderEpoch && p != storage.DivergingEpoch && p != storage.EligibleLeader) || a == protocol.AcksLeader:
		return "violated"
	case !fencing || unclean || unflushed:
		return "any"
	}
	return "holds"
}

func verdictCode(want string, lost, broken int, stdout io.Writer) int {
	switch {
	case broken > 0:
		return 1
	case want == "holds" && lost > 0:
		return 1
	case want == "violated" && lost == 0:
		fmt.Fprintln(stdout, "chaos: expected at least one loss or divergence, found none")
		return 1
	}
	return 0
}

// writeSimFailure writes a failing seed's run and, with shrink, shrinks it
// and writes the shrunk trace and its picture. It returns the first file it
// could not write (the campaign then fails: a failure whose files are
// missing cannot be replayed).
func writeSimFailure(dir, policy string, r sim.Result, shrink bool, stdout, stderr io.Writer) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintf(stderr, "hwepoch chaos: seed %d: could not write its run: %v\n", r.Seed, err)
		return err
	}
	base := filepath.Join(dir, fmt.Sprintf("seed-%d-%s", r.Seed, policy))
	if err := writeFile(base+".sim", func(w io.Writer) error { return sim.WriteRun(w, r) }); err != nil {
		fmt.Fprintf(stderr, "hwepoch chaos: seed %d: could not write its run: %v\n", r.Seed, err)
		return err
	}
	printWrapped(stdout, "    run (%d steps) written to %s.sim\n    replay: hwepoch chaos -replay %s.sim\n", len(r.Steps), base, base)
	if r.Validator == nil || r.Broken() || r.StalledOnly() {
		return nil // nothing to shrink on the model: the run departed from it or erred, or stalled (writeStallShrunk)
	}
	if !shrink {
		fmt.Fprintf(stdout, "    not shrunk (-shrink)\n")
		return nil
	}
	s, err := sim.Shrink(r.Config, r.Validator.Actions)
	if err != nil {
		printWrapped(stdout, "    not shrunk: %v\n", err)
		return nil
	}
	note := fmt.Sprintf("hwepoch chaos simulation seed %d (%s), shrunk from %d to %d steps: violates %s", r.Seed, policy, s.From, s.Trace.Len()-1, s.Invariant)
	if err := sim.WriteShrunk(base+".itf.json", s, note); err != nil {
		fmt.Fprintf(stderr, "hwepoch chaos: seed %d: could not write the shrunk trace: %v\n", r.Seed, err)
		return err
	}
	if err := writeFile(base+".svg", func(w io.Writer) error { return sim.SVG(w, s, note) }); err != nil {
		fmt.Fprintf(stderr, "hwepoch chaos: seed %d: could not draw the shrunk trace: %v\n", r.Seed, err)
		return err
	}
	if err := viewer.WriteFile(base+".html", viewer.ChaosPage(s, note)); err != nil {
		fmt.Fprintf(stderr, "hwepoch chaos: seed %d: could not write the shrunk trace's page: %v\n", r.Seed, err)
		return err
	}
	verdict := "replays on the model and the implementation"
	if err := sim.ReplayShrunk(s); err != nil {
		verdict = "DOES NOT replay on the implementation: " + err.Error()
	}
	printWrapped(stdout, "    shrunk to %d steps violating %s (%d candidates tried): %s.itf.json, drawn in %s.svg, to step through in %s.html\n    the shrunk trace %s\n",
		s.Trace.Len()-1, s.Invariant, s.Tests, base, base, base, verdict)
	return nil
}

func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// freeChaos is the free-mode campaign (-free).
func freeChaos(base cluster.ChaosConfig, first uint64, seeds int, want, out string, verbose bool, stdout, stderr io.Writer) int {
	printWrapped(stdout, "chaos: %d free seeds from %d, %s, %d brokers, acks=%s, min.insync.replicas=%d, unclean=%t, unflushed=%t, fencing=%t, %v each; expect %s\n",
		seeds, first, base.Policy, base.Brokers, base.Acks, base.MinInsyncReplicas, base.UncleanLeaderElectionEnable, base.UnflushedLoss, base.Fencing, base.Duration, want)
	start := time.Now()
	var lost, broken, acked, unwritten int
	done := 0
	cluster.RunChaosSeeds(base, first, seeds, func(r cluster.ChaosResult) {
		done++
		acked += r.Acked
		eta := time.Duration(float64(time.Since(start)) / float64(done) * float64(seeds-done))
		printWrapped(stdout, "[%d/%d, eta %v] %s\n", done, seeds, eta.Round(time.Second), r)
		if verbose {
			fmt.Fprintf(stdout, "    %s\n", strings.Join(r.Actions, "\n    "))
		}
		if !r.Failed() {
			return
		}
		if r.Err != nil || !r.Converged {
			broken++
		} else {
			lost++
		}
		if !verbose {
			fmt.Fprintf(stdout, "    chaos schedule:\n      %s\n", strings.Join(r.Actions, "\n      "))
		}
		if path, err := writeFreeFailure(out, r, base); err != nil {
			fmt.Fprintf(stderr, "hwepoch chaos: seed %d: could not write its events: %v\n", r.Seed, err)
			unwritten++
		} else {
			printWrapped(stdout, "    %d events written to %s\n    replay: hwepoch chaos -replay %s\n", len(r.Steps), path, path)
		}
	})
	printWrapped(stdout, "chaos: %d free seeds, %d with loss or divergence, %d errors or no convergence, %d records acknowledged in all, %v\n",
		seeds, lost, broken, acked, time.Since(start).Round(time.Millisecond))
	return unwrittenCode(unwritten, out, verdictCode(want, lost, broken, stdout), stderr)
}

func writeFreeFailure(dir string, r cluster.ChaosResult, base cluster.ChaosConfig) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, fmt.Sprintf("seed-%d-%s.steps", r.Seed, r.Policy))
	return path, writeFile(path, func(w io.Writer) error {
		fmt.Fprintf(w, "# hwepoch chaos -free seed %d: %s\n", r.Seed, r.Verdict)
		for _, a := range r.Actions {
			fmt.Fprintf(w, "# chaos %s\n", a)
		}
		return cluster.WriteSteps(w, base.ReplaySettings(), r.Steps)
	})
}

// replayRun replays a run file (-replay).
func replayRun(path string, printLog bool, stdout, stderr io.Writer) int {
	f, err := inputfile.Open(path)
	if err != nil {
		fmt.Fprintf(stderr, "hwepoch chaos: -replay: %v\n", err)
		return 2
	}
	rf, err := sim.ReadRun(f)
	f.Close()
	if err != nil {
		fmt.Fprintf(stderr, "hwepoch chaos: %s: cannot replay: %v\n", path, err)
		return 2
	}
	dir, err := os.MkdirTemp("", "hwepoch-replay-")
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	rep, err := sim.Replay(rf, dir)
	var cannot *sim.CannotReplay
	if errors.As(err, &cannot) {
		fmt.Fprintf(stderr, "hwepoch chaos: %s: %v\n", path, err)
		return 2
	}
	if err != nil {
		fmt.Fprintf(stderr, "hwepoch chaos: %s: %v\n", path, err)
		return 1
	}
	code := 0
	if rf.Simulated {
		rr := rep.Rerun
		if printLog {
			fmt.Fprintf(stdout, "%s\n", strings.Join(rr.Log, "\n"))
		}
		printWrapped(stdout, "simulated seed %d again (%d decisions): event log sha256 %s\n", rf.Seed, rr.Decisions, rr.Hash())
		if rep.Reproduced {
			fmt.Fprintf(stdout, "  reproduced exactly: the recorded hash\n")
		} else {
			fmt.Fprintf(stdout, "  NOT reproduced: the file records %s\n", rf.Hash)
			code = 1
		}
		status := oneLineStatus(rr.Status())
		printWrapped(stdout, "  status: %s\n", status)
		if rf.Status != "" && rf.Status != status {
			printWrapped(stdout, "  the file records another status: %s\n", rf.Status)
			code = 1
		}
	}
	fmt.Fprintf(stdout, "replayed %d steps on the model and on a stepped cluster\n", rep.Steps)
	if rep.Diverged != "" {
		fmt.Fprintf(stdout, "  the cluster departed from the model %s\n", rep.Diverged)
		code = 1
	} else {
		fmt.Fprintf(stdout, "  the cluster's state equalled the model's after every step\n")
	}
	if len(rep.Violated) > 0 {
		printWrapped(stdout, "  the model's end state violates %s\n", strings.Join(rep.Violated, ", "))
	}
	printWrapped(stdout, "verdict: %s\n", rep.Verdict)
	if rep.Lost() {
		code = 1
	}
	return code
}

func oneLineStatus(s string) string { return strings.Join(strings.Fields(s), " ") }
