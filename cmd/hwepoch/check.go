package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"text/tabwriter"
	"time"

	"github.com/hwepoch/hwepoch/internal/verify"
	"github.com/hwepoch/hwepoch/model/explore"
	"github.com/hwepoch/hwepoch/model/tlccfg"
	"github.com/hwepoch/hwepoch/trace"
	"github.com/hwepoch/hwepoch/trace/itf"
)

func init() {
	register("check", "explore the spec's configurations with the Go model and compare verdicts with the manifest and TLC", runCheck)
}

func runCheck(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("check", flag.ContinueOnError)
	fl.SetOutput(stderr)
	workers := fl.Int("workers", runtime.GOMAXPROCS(0), "explorer worker goroutines")
	specFlag := fl.String("spec", "", "directory of the .cfg files and manifest.json (default: spec/ of the enclosing repository)")
	runsFlag := fl.String("runs", "", "TLC's recorded runs to compare with (default: traces/tlc/runs.json beside the spec)")
	itfDir := fl.String("itf", "", "also write each counterexample as ITF JSON into this directory")
	quiet := fl.Bool("q", false, "no progress lines on stderr")
	simulate := fl.Int("simulate", 0, "instead of exploring exhaustively, take this many random walks per configuration")
	seed := fl.Uint64("seed", 1, "seed of the random walks (-simulate)")
	steps := fl.Int("steps", 100, "steps per random walk at most (-simulate)")
	fl.Usage = func() {
		fmt.Fprint(stderr, `usage: hwepoch check [flags] [config ...]

Explores every configuration of spec/manifest.json (or the ones named)
with the Go model, breadth first and exhaustively like TLC, checking the
invariants and properties each .cfg names. Prints a table of verdicts --
expected (manifest), found, distinct states, states generated, depth, wall
time -- and, where traces/tlc/runs.json records TLC's run of the same
configuration, TLC's distinct states and depth and how they compare: "="
(a configuration that holds: the same distinct states and depth), "same
violation" (a violated one: the same property, by a counterexample no
longer than TLC's; the states counted are not compared, as they depend on
when each checker stops), "cfg changed" (the .cfg was edited after TLC's
run: nothing compared) or "MISMATCH". Every counterexample is printed step
by step, one line per replica per step (hwepoch help notation).

With -simulate N it instead takes N random walks of each configuration
(seeded by -seed), checking the same properties; a walk can find a
violation but never prove a property, so only a violation of a property
the manifest expects to hold fails the run.

Exit status: 0 when every verdict is the manifest's and nothing disagrees
with TLC's recorded runs; 1 otherwise; 2 on a usage or input error.

flags:
`)
		fl.PrintDefaults()
	}
	if code, done := parseFlags(fl, args, positive("workers"), atLeast("simulate", 0), positive("steps"),
		needs("steps", "simulate"), needs("seed", "simulate")); done {
		return code
	}
	fail := usageError(stderr, "check")
	specDir := *specFlag
	if specDir == "" {
		d, err := tlccfg.FindSpecDir(".")
		if err != nil {
			return fail("%v, or give -spec DIR", err)
		}
		specDir = d
	}
	man, err := tlccfg.LoadManifest(specDir)
	if err != nil {
		return fail("%v (is -spec the directory with manifest.json?)", err)
	}
	entries := man.Configs
	if fl.NArg() > 0 {
		entries = nil
		for _, name := range fl.Args() {
			e, ok := man.Lookup(name)
			if !ok {
				names := make([]string, len(man.Configs))
				for i, c := range man.Configs {
					names[i] = c.Name
				}
				return fail("no configuration %q in %s; the manifest has %v", name, filepath.Join(specDir, "manifest.json"), names)
			}
			entries = append(entries, e)
		}
	}
	runsPath := verify.RunsFile(specDir)
	if *runsFlag != "" {
		runsPath = *runsFlag // the file named, whatever its name
	}
	runs, note, err := verify.LoadRuns(man, runsPath)
	if err != nil {
		return fail("%v", err)
	}
	if note != "" {
		fmt.Fprintf(stderr, "hwepoch check: %s\n", note)
	}
	if *itfDir != "" {
		if err := os.MkdirAll(*itfDir, 0o755); err != nil {
			return fail("%v", err)
		}
	}

	if *simulate > 0 {
		return simulateConfigs(man, entries, *simulate, *seed, *steps, *itfDir, stdout, stderr)
	}
	var progress io.Writer = stderr
	if *quiet {
		progress = nil
	}
	var rows []verify.ConfigResult
	for _, e := range entries {
		row, err := verify.ExploreConfig(context.Background(), man, e, runs, verify.ExploreOptions{
			Workers: *workers, Progress: progress, ProgressPrefix: "hwepoch check: ", Announce: true,
		})
		if err != nil {
			return fail("%v", err)
		}
		rows = append(rows, row)
		if *itfDir != "" && row.Res.Violation != nil {
			path := filepath.Join(*itfDir, e.Name+".itf.json")
			if err := itf.WriteFile(path, &row.Check.Config, row.Res.Violation.Trace); err != nil {
				return fail("%v", err)
			}
		}
	}
	printTable(stdout, rows)
	for _, r := range rows {
		if r.TLC != nil {
			fmt.Fprintln(stdout, verify.VsTLCLegend)
			break
		}
	}
	status := 0
	for _, r := range rows {
		if r.Res.Violation != nil {
			fmt.Fprintf(stdout, "\n%s: %s\n", r.Entry.Name, r.Res.Violation)
			trace.Render(stdout, &r.Check.Config, r.Res.Violation.Trace)
		}
		if !r.Good() {
			status = 1
		}
	}
	fmt.Fprintln(stdout)
	for _, r := range rows {
		if !r.OK {
			fmt.Fprintf(stdout, "WRONG VERDICT %s: expected %s, found %s\n", r.Entry.Name, verify.Expectation(r.Entry), r.FoundString())
		}
		switch r.VsTLC {
		case verify.VsMismatch:
			fmt.Fprintf(stdout, "MISMATCH WITH TLC %s: %s\n", r.Entry.Name, r.Why)
		case verify.VsCfgChanged:
			fmt.Fprintf(stdout, "NOT COMPARED WITH TLC %s: %s\n", r.Entry.Name, r.Why)
		}
	}
	if status == 0 {
		fmt.Fprintf(stdout, "all %d verdicts as expected\n", len(rows))
	}
	return status
}

func printTable(w io.Writer, rows []verify.ConfigResult) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "config\tpolicy\texpected\tfound\tdistinct\tgenerated\tdepth\ttime\tTLC distinct\tTLC depth\tvs TLC\t")
	for _, r := range rows {
		ok := r.FoundString()
		if !r.OK {
			ok += " (WRONG)"
		}
		tlcD, tlcDepth, vs := "-", "-", "-"
		if r.TLC != nil {
			tlcD, tlcDepth, vs = fmt.Sprint(r.TLC.DistinctStates), fmt.Sprint(r.TLC.Depth), r.VsTLC
			if r.TLC.Verdict == "violated" {
				tlcDepth += fmt.Sprintf(" (trace of %d states)", r.TLC.TraceLength)
			}
		}
		depth := fmt.Sprint(r.Res.Depth)
		if r.Res.Violation != nil {
			depth += fmt.Sprintf(" (trace of %d states)", r.Res.Violation.Trace.Len())
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t\n", r.Entry.Name, r.Check.Config.Truncation,
			verify.Expectation(r.Entry), ok, r.Res.Distinct, r.Res.Generated, depth,
			r.Res.Duration.Round(time.Millisecond), tlcD, tlcDepth, vs)
	}
	tw.Flush()
}

// simulateConfigs is check -simulate: random walks instead of the exhaustive search.
func simulateConfigs(man *tlccfg.Manifest, entries []tlccfg.Entry, walks int, seed uint64, steps int, itfDir string, stdout, stderr io.Writer) int {
	status := 0
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "config\texpected\twalks\tsteps\tfound\ttime\t")
	var found []*explore.Violation
	var cfgs []*tlccfg.Check
	for _, e := range entries {
		chk, err := man.LoadCheck(e)
		if err != nil {
			fmt.Fprintf(stderr, "hwepoch check: %v\n", err)
			return 2
		}
		res, err := explore.Simulate(context.Background(), &chk.Config, explore.SimOptions{
			Options: explore.Options{Invariants: chk.Invariants, Properties: chk.Properties, ConfigName: e.Name},
			Seed:    seed, Walks: walks, MaxSteps: steps,
		})
		if err != nil {
			fmt.Fprintf(stderr, "hwepoch check: %s: %v\n", e.Name, err)
			return 2
		}
		verdict := "no violation"
		if v := res.Violation; v != nil {
			verdict = "violated " + v.Property
			found = append(found, v)
			cfgs = append(cfgs, chk)
			if e.Expect == "holds" {
				verdict += " (WRONG)"
				status = 1
			}
			if itfDir != "" {
				if err := itf.WriteFile(filepath.Join(itfDir, e.Name+".sim.itf.json"), &chk.Config, v.Trace); err != nil {
					fmt.Fprintf(stderr, "hwepoch check: %v\n", err)
					return 2
				}
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\t\n", e.Name, verify.Expectation(e), res.Walks, res.Steps, verdict, res.Duration.Round(time.Millisecond))
	}
	tw.Flush()
	for i, v := range found {
		fmt.Fprintf(stdout, "\n%s: %s\n", v.Trace.ConfigName, v)
		trace.Render(stdout, &cfgs[i].Config, v.Trace)
	}
	return status
}
