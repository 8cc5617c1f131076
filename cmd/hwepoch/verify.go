package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/hwepoch/hwepoch/internal/explorerruns"
	"github.com/hwepoch/hwepoch/internal/lemmas"
	"github.com/hwepoch/hwepoch/internal/verify"
	"github.com/hwepoch/hwepoch/model/explore"
	"github.com/hwepoch/hwepoch/model/tlccfg"
	"github.com/hwepoch/hwepoch/trace/tlcjson"
)

func init() {
	register("verify", "the main job: every check of the project, one verdict (explorer, TLC traces, scenarios, refinement, chaos)", runVerify)
}

// verified, when a test sets it, gets a copy of verify's rows and stage
// times before the report is written: TestVerifyQuick renders them again
// as -v -traces would instead of running every check a second time.
var verified func(rows []verify.Row, took map[string]time.Duration, mode verify.Mode)

func runVerify(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("verify", flag.ContinueOnError)
	fl.SetOutput(stderr)
	quick := fl.Bool("quick", false, `about a minute: the configurations marked "ci" in the manifest, every trace on model and implementation, a tiny random, free-run and chaos campaign`)
	all := fl.Bool("all", false, "everything: every configuration whatever its size, longer random and chaos campaigns")
	budget := fl.Int64("budget", 1_500_000, "by default, skip configurations whose recorded run (TLC's, else the explorer's) counted more distinct states than this")
	workers := fl.Int("workers", runtime.GOMAXPROCS(0), "explorer worker goroutines")
	traces := fl.Bool("traces", false, "print every counterexample in full, one line per replica per step (default: one line each, naming the command that prints it)")
	verbose := fl.Bool("v", false, "list every check (not only the stages' counts and what failed), and a progress line per item")
	quiet := fl.Bool("q", false, "no progress lines on stderr")
	htmlDir := fl.String("html", "", "also write DIR/index.html (every stage and check with its verdict) and an interactive page (hwepoch view) per counterexample, witness and failure")
	fl.Usage = func() {
		fmt.Fprint(stderr, `usage: hwepoch verify [--quick | --all] [flags]

Runs every check of the project and prints, per stage, how many checks
gave the expected verdict, how many did not and how many were skipped;
then every check that did not, in full; then one line per counterexample
found -- most are expected: they show that a check bites -- with the
command that prints it in full. -v lists every check: stage, item, policy,
states or steps, depth, wall time, the expected verdict, the verdict
found, and ✓ (as expected), ✗ (not) or - (skipped, with the reason and the
command that runs it). -traces prints every counterexample in full, one
line per replica per step (the notation: hwepoch help notation). -html DIR
also writes DIR/index.html, every check with its verdict, linking a page
per counterexample, witness and failure (hwepoch view's pages). It needs
no TLC: TLC's results are read from traces/tlc/.

Stages:
  explore    every configuration of spec/manifest.json, explored
             exhaustively by the Go model (as hwepoch check), compared with
             the manifest's verdict, TLC's recorded distinct states and
             depth (traces/tlc/runs.json) and the explorer's own recorded
             run (traces/explorer/runs.json, hwepoch check -record)
  tlc-small  (--all) the explorer against TLC's numbers on every small
             configuration of model/explore/testdata/tlc-small.json, which
             together combine every switch of the spec under every release
             (go test compares a representative subset)
  deviation  the checks of docs/spec.md's deviation rows
             (traces/deviations.json, hwepoch deviations -record): each
             configuration explored with a Kafka behaviour the spec leaves
             out put back gives the manifest's verdict and the recorded
             counts (--quick: those under 50,000 states; default: under
             300,000 and -budget; --all: every one -- recording them took
             20 minutes on 2 cores)
  tlc-trace  every trace TLC exported (traces/tlc/*.json, traces/tlc/sim/)
             replayed on the model, state equal at every step; it must
             violate exactly what its run recorded, at its last state
  scenario   every case of traces/scenarios/*.scenario on the model, with
             the verdict its file expects
  lemma      the lemmas of docs/correctness.md on every reachable state and
             step of their configurations (hwepoch lemmas)
  refine     TLC's traces, regressions and every scenario case replayed on
             the implementation (stepped), its abstraction equal to the
             model's state after every step
  random     refine/random's gopter traces on model and implementation,
             per policy
  freerun    the implementation run free (refine/freerun), each run's
             events validated one by one as steps of the model
  chaos      the implementation run free under seeded chaos: LeaderEpoch
             must lose and diverge nothing; HighWatermark must be caught
  simulate   the deterministic simulation (hwepoch chaos), every decision
             validated against the model: LeaderEpoch holds on every seed
             and a seed gives the same event log twice; HighWatermark loses,
             and its first failing seed shrinks to a trace that replays;
             with unclean elections every seed validated
  liveness   the simulation's liveness check alone, per release: after the
             heal 150ms of fault-free simulated time, then no property of
             spec/ReplicationLiveness.tla may still wait for its progress
             (hwepoch chaos -live; ReplicasCatchUp excused after a loss)
  boundary   components held at boundaries no trace reaches: the ISR's lag
             rule on a simulated clock, the leader-epoch-checkpoint writer,
             the simulation validator's read check at the HW and its
             invariant check on a run that breaks a promised invariant

Counterexamples are numbered ([n]) as the rows found with -v refer to them.
Against TLC's recorded runs, "=" means the same distinct states and depth
(configurations that hold); a violation agrees when TLC's counterexample is
no shorter (its states counted are not compared: they depend on when each
checker stops).

Modes: --quick takes about a minute (the configurations the manifest marks "ci": true, TLC's traces and
the scenarios on the model, every trace on the implementation, 10 random
traces per policy, one free run, a tiny chaos campaign); the default takes a few
minutes on 2 cores and skips configurations whose recorded run (TLC's, else
the explorer's, of the .cfg and spec as they are now) counted more than
-budget distinct states, configurations not marked "ci" whose size no
such run records (a big configuration added without a record cannot make
it run for hours), and the lemma plans that take a minute or more; --all
runs everything. Whatever is skipped has a row that says so and names the
command that runs it (hwepoch check NAME).

Exit status: 0 only when every verdict is the expected one; 1 otherwise;
2 on a usage or input error.

flags:
`)
		printDefaults(fl)
	}
	if code, done := parseFlags(fl, args, positive("workers"), atLeast("budget", 0)); done {
		return code
	}
	fail := usageError(stderr, "verify")
	if fl.NArg() > 0 {
		return fail("unexpected arguments %v (verify takes flags only; hwepoch check NAME explores one configuration)", fl.Args())
	}
	if *quick && *all {
		return fail("give --quick or --all, not both")
	}
	mode := verify.Default
	switch {
	case *quick:
		mode = verify.Quick
	case *all:
		mode = verify.All
	}
	var progress io.Writer = stderr
	if *quiet {
		progress = nil
	}
	say := func(format string, a ...any) {
		if progress != nil {
			fmt.Fprintf(progress, "hwepoch verify: "+format+"\n", a...)
		}
	}
	// Per-item progress lines (each configuration, trace, seed) only with -v:
	// by default a stage says when it starts, and long searches say how far
	// they have come.
	items := progress
	if !*verbose {
		items = nil
	}

	specDir, err := tlccfg.FindSpecDir(".")
	if err != nil {
		return fail("%v", err)
	}
	man, err := tlccfg.LoadManifest(specDir)
	if err != nil {
		return fail("%v", err)
	}
	runsDir := verify.RunsDir(specDir)
	tracesDir := filepath.Dir(runsDir)
	runs, note, err := verify.LoadRuns(man, verify.RunsFile(specDir))
	if err != nil {
		return fail("%v", err)
	}
	var notes []string
	if note != "" {
		notes = append(notes, note)
	}
	exRuns, note, err := verify.LoadExplorerRuns(explorerruns.Path(specDir))
	if err != nil {
		return fail("%v", err)
	}
	if note != "" {
		notes = append(notes, note)
	}

	start := time.Now()
	var rows []verify.Row
	took := map[string]time.Duration{}
	stage := func(name string, f func() []verify.Row) {
		say("stage %s", name)
		t := time.Now()
		rs := f()
		rows = append(rows, rs...)
		took[name] = time.Since(t)
		if *verbose {
			p, fl, sk := verify.Count(rs)
			say("stage %s: %d as expected, %d not, %d skipped, %v", name, p, fl, sk, time.Since(t).Round(time.Millisecond))
		}
	}
	skip := func(st, why string) []verify.Row {
		return []verify.Row{{Stage: st, Item: "(all)", Size: why, Expected: "-", Found: "not run", Status: verify.Skipped}}
	}

	stage("explore", func() []verify.Row {
		return verify.ExploreRows(context.Background(), man, verify.Records{TLC: runs, Explorer: exRuns},
			verify.ExplorePlan{Mode: mode, Budget: *budget, Workers: *workers, Verbose: *verbose}, progress)
	})
	stage("tlc-small", func() []verify.Row {
		if mode != verify.All {
			return skip("tlc-small", "skipped (minutes; go test compares a representative subset; run hwepoch verify --all)")
		}
		sum, err := tlcjson.FileSHA256(filepath.Join(specDir, "Replication.tla"))
		if err != nil {
			return []verify.Row{{Stage: "tlc-small", Item: "spec", Expected: "readable", Found: "error: " + err.Error(), Status: verify.Fail}}
		}
		return verify.SmallRows(context.Background(), explore.SmallRunsPath(filepath.Dir(specDir)), sum, *workers, progress)
	})
	stage("deviation", func() []verify.Row {
		// Each check explores on the readable engine, twice (the spec's
		// search and Kafka's): the default keeps to the small ones.
		b := min(*budget, 300_000)
		switch mode {
		case verify.Quick:
			b = 50_000
		case verify.All:
			b = 0
		}
		return verify.DeviationRows(context.Background(), man, b, *workers, progress)
	})
	stage("tlc-trace", func() []verify.Row { return verify.TLCTraceRows(man, runsDir) })
	stage("scenario", func() []verify.Row {
		rs, _ := verify.ScenarioRows(filepath.Join(tracesDir, "scenarios"))
		return rs
	})
	if mode == verify.Quick {
		stage("lemma", func() []verify.Row { return skip("lemma", "skipped (--quick; run without it, or hwepoch lemmas)") })
	} else {
		stage("lemma", func() []verify.Row {
			var plans []lemmas.Plan
			var skipped []verify.Row
			for _, p := range lemmas.Plans {
				if mode == verify.All || !p.Big {
					plans = append(plans, p)
				} else {
					skipped = append(skipped, verify.Row{Stage: "lemma", Item: "all @ " + p.Config,
						Size: "skipped (a minute or more; run hwepoch lemmas " + p.Config + ")", Expected: "-", Found: "not run", Status: verify.Skipped})
				}
			}
			return append(verify.LemmaRowsAgainstRecording(context.Background(), man, plans, progress, "hwepoch verify: [lemma] ",
				lemmas.RecordingPath(specDir), runs), skipped...)
		})
	}
	// Every trace on model and implementation takes well under a second,
	// so even --quick holds the implementation to the model.
	stage("refine", func() []verify.Row { return verify.RefineReplayRows(tracesDir, items) })
	nRandom, nFree := 100, 2
	switch mode {
	case verify.Quick:
		nRandom, nFree = 10, 1
	case verify.All:
		nRandom, nFree = 1000, 25
	}
	stage("random", func() []verify.Row { return verify.RandomRows(verify.RandomPlan{Traces: nRandom, Seed: 1}, items) })
	stage("freerun", func() []verify.Row { return verify.FreeRunRows(nFree, items) })
	chaos := verify.ChaosPlan{LeaderEpochSeeds: 3, HWMaxSeeds: 12, Duration: time.Second}
	switch mode {
	case verify.Quick:
		chaos.LeaderEpochSeeds = 1
	case verify.All:
		chaos.LeaderEpochSeeds, chaos.HWMaxSeeds = 20, 20
	}
	stage("chaos", func() []verify.Row { return verify.ChaosRows(chaos, items) })
	simPlan := verify.SimulationPlan{LeaderEpochSeeds: 200, HighWatermarkSeeds: 50, UncleanSeeds: 50, Parallel: 2}
	switch mode {
	case verify.Quick:
		simPlan.LeaderEpochSeeds, simPlan.HighWatermarkSeeds, simPlan.UncleanSeeds = 20, 20, 10
	case verify.All:
		simPlan.LeaderEpochSeeds, simPlan.HighWatermarkSeeds, simPlan.UncleanSeeds = 2000, 200, 200
	}
	stage("simulate", func() []verify.Row { return verify.SimulationRows(simPlan, items) })
	// The liveness check alone (the simulate stage validates; this one
	// judges progress only), per release: a few seconds in --quick.
	livePlan := verify.LivenessPlan{Seeds: 25, Parallel: 2}
	switch mode {
	case verify.Quick:
		livePlan.Seeds = 10
	case verify.All:
		livePlan.Seeds = 200
	}
	stage("liveness", func() []verify.Row { return verify.LivenessRows(livePlan, items) })
	stage("boundary", func() []verify.Row { return verify.BoundaryRows(tracesDir, "", items) })

	if verified != nil {
		verified(slices.Clone(rows), maps.Clone(took), mode)
	}
	writeVerifyReport(stdout, rows, took, mode, *traces, *verbose)
	if *htmlDir != "" {
		if err := writeVerifyHTML(*htmlDir, runsDir, rows); err != nil {
			fmt.Fprintf(stderr, "hwepoch verify: -html: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "\nthe verdicts and their traces as pages: %s\n", filepath.Join(*htmlDir, "index.html"))
	}
	for _, nt := range notes {
		for _, l := range verify.Wrap(nt, verify.Width+4, "  ") {
			fmt.Fprintln(stdout, l)
		}
	}
	pass, failed, skipped := verify.Count(rows)
	fmt.Fprintf(stdout, "verify %s: %d checks as expected, %d not, %d skipped; %v\n",
		mode, pass, failed, skipped, time.Since(start).Round(100*time.Millisecond))
	if failed > 0 {
		fmt.Fprintln(stdout, "FAILED: the checks marked ✗ above did not give the expected verdict")
		return 1
	}
	return 0
}

// writeVerifyReport prints verify's result within verify.Width columns:
// the stages' counts; every check that failed, in full, with its
// counterexample; one line per other counterexample, naming the command
// that prints it (or, with traces, each in full); the skipped checks with
// how to run them. With verbose, every check instead of the failed ones.
func writeVerifyReport(w io.Writer, rows []verify.Row, took map[string]time.Duration, mode verify.Mode, traces, verbose bool) {
	n := 0
	for i := range rows {
		if rows[i].Counterexample != nil {
			n++
			rows[i].Found += fmt.Sprintf(" [%d]", n)
		}
	}
	verify.WriteSummary(w, rows, took)
	var failed, skipped []verify.Row
	for _, r := range rows {
		switch r.Status {
		case verify.Fail:
			failed = append(failed, r)
		case verify.Skipped:
			skipped = append(skipped, r)
		}
	}
	switch {
	case verbose:
		fmt.Fprintln(w, "\nevery check (✓ as expected, ✗ not, - skipped):")
		verify.WriteRecords(w, rows, verify.Width)
	case len(failed) > 0:
		fmt.Fprintln(w, "\nNOT AS EXPECTED:")
		verify.WriteRecords(w, failed, verify.Width)
	}
	if n > 0 {
		again := "hwepoch verify -traces"
		if mode != verify.Default {
			again = "hwepoch verify " + mode.String() + " -traces"
		}
		fmt.Fprintf(w, "\ncounterexamples (an expected one shows that its check bites), each with the command that prints it:\n")
		// Expected counterexamples printed by the same command go on shared
		// lines, "[k] ARGS" each (the summary above has their verdicts, -v
		// every check): a newcomer's screen holds the list.
		type group struct {
			verb   string
			tokens []string
		}
		var groups []*group
		byVerb := map[string]*group{}
		var single []string
		k := 0
		for _, r := range rows {
			c := r.Counterexample
			if c == nil {
				continue
			}
			k++
			if traces || r.Status == verify.Fail {
				fmt.Fprintf(w, "[%d] ", k)
				c.Write(w)
				fmt.Fprintln(w)
				continue
			}
			if f := strings.Fields(c.Show); len(f) > 2 && f[0] == "hwepoch" {
				verb := f[0] + " " + f[1]
				g := byVerb[verb]
				if g == nil {
					g = &group{verb: verb}
					byVerb[verb] = g
					groups = append(groups, g)
				}
				var args []string // NAME, then flags' values: NAME/POLICY/VARIANT
				for _, a := range f[2:] {
					if !strings.HasPrefix(a, "-") {
						args = append(args, a)
					}
				}
				g.tokens = append(g.tokens, fmt.Sprintf("[%d]%s", k, strings.Join(args, "/")))
				continue
			}
			single = append(single, r.OneLine(k, verify.Width, again))
		}
		for _, g := range groups {
			usage := g.verb + " NAME"
			if g.verb == "hwepoch scenario" {
				usage += " -policy POLICY [-variant V], as NAME/POLICY[/V]"
			}
			for _, l := range verify.Wrap(usage+": "+strings.Join(g.tokens, " "), verify.Width, "    ") {
				fmt.Fprintln(w, l)
			}
		}
		for _, l := range single {
			fmt.Fprintln(w, l)
		}
	}
	if len(skipped) > 0 && !verbose {
		fmt.Fprintln(w, "\nskipped:")
		for _, l := range skippedLines(skipped) {
			fmt.Fprintln(w, l)
		}
	}
	fmt.Fprintln(w)
}

// skippedLines groups skipped checks by stage and reason: "explore a b c:
// REASON", wrapped.
func skippedLines(rows []verify.Row) []string {
	type group struct{ stage, why string }
	var order []group
	items := map[group][]string{}
	for _, r := range rows {
		g := group{r.Stage, r.Size}
		if _, ok := items[g]; !ok {
			order = append(order, g)
		}
		items[g] = append(items[g], r.Item)
	}
	var out []string
	for _, g := range order {
		why := strings.TrimSuffix(strings.TrimPrefix(g.why, "skipped ("), ")")
		names := strings.Join(items[g], " ")
		if n := len(items[g]); n > 20 { // a screen, not a list: -v lists them all
			names = fmt.Sprintf("%d checks (-v lists them)", n)
		}
		out = append(out, verify.Wrap(fmt.Sprintf("%s %s: %s", g.stage, names, why), verify.Width+4, "    ")...)
	}
	return out
}
