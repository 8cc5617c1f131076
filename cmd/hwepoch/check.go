package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"text/tabwriter"
	"time"

	"github.com/hwepoch/hwepoch/model/explore"
	"github.com/hwepoch/hwepoch/model/tlccfg"
	"github.com/hwepoch/hwepoch/trace"
	"github.com/hwepoch/hwepoch/trace/itf"
	"github.com/hwepoch/hwepoch/trace/tlcjson"
)

func init() {
	register("check", "explore the spec's configurations with the Go model and compare verdicts with the manifest and TLC", runCheck)
}

// checkRow is one configuration's outcome.
type checkRow struct {
	entry tlccfg.Entry
	chk   *tlccfg.Check
	res   *explore.Result
	found string // "holds" | "violated"
	ok    bool   // found (and the property) equals the manifest's expectation
	tlc   *tlcjson.Run
	vsTLC string // "=", "MISMATCH" or "" (no recorded run)
	why   string // what the mismatch is
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
configuration, TLC's distinct states and depth with "=" when the explorer
agrees (same verdict; for holding configurations the same distinct states
and depth; for violations a counterexample no longer than TLC's) or
"MISMATCH". Every counterexample is printed step by step, one line per
replica per step.

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
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "hwepoch check: "+format+"\n", a...)
		return 2
	}
	specDir := *specFlag
	if specDir == "" {
		d, err := tlccfg.FindSpecDir(".")
		if err != nil {
			return fail("%v", err)
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
	runsDir := filepath.Join(filepath.Dir(specDir), "traces", "tlc")
	if *runsFlag != "" {
		runsDir = filepath.Dir(*runsFlag)
	}
	runs, err := tlcjson.LoadRuns(runsDir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		fmt.Fprintf(stderr, "hwepoch check: %s does not exist: not comparing with TLC (run `hwepoch tlc` to record TLC's runs)\n", filepath.Join(runsDir, "runs.json"))
		runs = nil
	case err != nil:
		return fail("%v", err)
	case runs.SpecSha256 != "":
		if sum, err := fileSha256(filepath.Join(specDir, man.Spec)); err == nil && sum != runs.SpecSha256 {
			fmt.Fprintf(stderr, "hwepoch check: %s was recorded for another version of %s: not comparing with TLC (rerun `hwepoch tlc`)\n", filepath.Join(runsDir, "runs.json"), man.Spec)
			runs = nil
		}
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
	var rows []checkRow
	for _, e := range entries {
		chk, err := tlccfg.LoadCheck(man.CfgPath(e))
		if err != nil {
			return fail("%v", err)
		}
		if progress != nil {
			fmt.Fprintf(stderr, "hwepoch check: exploring %s (%s)\n", e.Name, chk.Config.String())
		}
		res, err := explore.Run(context.Background(), &chk.Config, explore.Options{
			Workers: *workers, Invariants: chk.Invariants, Properties: chk.Properties,
			Symmetry: chk.Symmetry, ConfigName: e.Name, Progress: progress,
		})
		if err != nil {
			return fail("%s: %v", e.Name, err)
		}
		row := judge(e, chk, res, runs)
		rows = append(rows, row)
		if *itfDir != "" && res.Violation != nil {
			path := filepath.Join(*itfDir, e.Name+".itf.json")
			if err := itf.WriteFile(path, &chk.Config, res.Violation.Trace); err != nil {
				return fail("%v", err)
			}
		}
	}
	printTable(stdout, rows)
	status := 0
	for _, r := range rows {
		if r.res.Violation != nil {
			fmt.Fprintf(stdout, "\n%s: %s\n", r.entry.Name, r.res.Violation)
			trace.Render(stdout, &r.chk.Config, r.res.Violation.Trace)
		}
		if !r.ok || r.vsTLC == "MISMATCH" {
			status = 1
		}
	}
	fmt.Fprintln(stdout)
	for _, r := range rows {
		if !r.ok {
			fmt.Fprintf(stdout, "WRONG VERDICT %s: expected %s, found %s\n", r.entry.Name, expectation(r.entry), r.foundString())
		}
		if r.vsTLC == "MISMATCH" {
			fmt.Fprintf(stdout, "MISMATCH WITH TLC %s: %s\n", r.entry.Name, r.why)
		}
	}
	if status == 0 {
		fmt.Fprintf(stdout, "all %d verdicts as expected\n", len(rows))
	}
	return status
}

func expectation(e tlccfg.Entry) string {
	if e.Expect == "violated" {
		return "violated " + e.Property
	}
	return e.Expect
}

func (r checkRow) foundString() string {
	if r.res.Violation != nil {
		return "violated " + r.res.Violation.Property
	}
	return r.found
}

// judge compares the explorer's result with the manifest and TLC's run.
func judge(e tlccfg.Entry, chk *tlccfg.Check, res *explore.Result, runs *tlcjson.Runs) checkRow {
	row := checkRow{entry: e, chk: chk, res: res, found: "holds"}
	if res.Violation != nil {
		row.found = "violated"
	}
	row.ok = row.found == e.Expect && (e.Expect == "holds" || res.Violation.Property == e.Property)
	if runs == nil {
		return row
	}
	tlc, ok := runs.Exhaustive(e.Name)
	if !ok {
		return row
	}
	row.tlc = &tlc
	row.vsTLC = "="
	switch {
	case tlc.Verdict != row.found:
		row.vsTLC, row.why = "MISMATCH", fmt.Sprintf("TLC: %s, explorer: %s", tlc.Verdict, row.found)
	case tlc.Verdict == "holds" && (tlc.DistinctStates != res.Distinct || tlc.Depth != res.Depth):
		row.vsTLC, row.why = "MISMATCH", fmt.Sprintf("TLC: %d distinct states, depth %d; explorer: %d, depth %d",
			tlc.DistinctStates, tlc.Depth, res.Distinct, res.Depth)
	case tlc.Verdict == "violated" && tlc.Property != "" && tlc.Property != res.Violation.Property:
		row.vsTLC, row.why = "MISMATCH", fmt.Sprintf("TLC violated %s, explorer %s", tlc.Property, res.Violation.Property)
	case tlc.Verdict == "violated" && tlc.TraceLength > 0 && res.Violation.Trace.Len() > tlc.TraceLength:
		row.vsTLC, row.why = "MISMATCH", fmt.Sprintf("TLC's counterexample has %d states, the explorer's %d", tlc.TraceLength, res.Violation.Trace.Len())
	}
	return row
}

func printTable(w io.Writer, rows []checkRow) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "config\tpolicy\texpected\tfound\tdistinct\tgenerated\tdepth\ttime\tTLC distinct\tTLC depth\tvs TLC\t")
	for _, r := range rows {
		ok := r.foundString()
		if !r.ok {
			ok += " (WRONG)"
		}
		tlcD, tlcDepth, vs := "-", "-", "-"
		if r.tlc != nil {
			tlcD, tlcDepth, vs = fmt.Sprint(r.tlc.DistinctStates), fmt.Sprint(r.tlc.Depth), r.vsTLC
			if r.tlc.Verdict == "violated" {
				tlcDepth += fmt.Sprintf(" (trace %d)", r.tlc.TraceLength)
			}
		}
		depth := fmt.Sprint(r.res.Depth)
		if r.res.Violation != nil {
			depth += fmt.Sprintf(" (trace %d)", r.res.Violation.Trace.Len())
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t\n", r.entry.Name, r.entry.Policy,
			expectation(r.entry), ok, r.res.Distinct, r.res.Generated, depth,
			r.res.Duration.Round(time.Millisecond), tlcD, tlcDepth, vs)
	}
	tw.Flush()
}

func fileSha256(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// simulateConfigs is check -simulate: random walks instead of the exhaustive search.
func simulateConfigs(man *tlccfg.Manifest, entries []tlccfg.Entry, walks int, seed uint64, steps int, itfDir string, stdout, stderr io.Writer) int {
	status := 0
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "config\texpected\twalks\tsteps\tfound\ttime\t")
	var found []*explore.Violation
	var cfgs []*tlccfg.Check
	for _, e := range entries {
		chk, err := tlccfg.LoadCheck(man.CfgPath(e))
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
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\t\n", e.Name, expectation(e), res.Walks, res.Steps, verdict, res.Duration.Round(time.Millisecond))
	}
	tw.Flush()
	for i, v := range found {
		fmt.Fprintf(stdout, "\n%s: %s\n", v.Trace.ConfigName, v)
		trace.Render(stdout, &cfgs[i].Config, v.Trace)
	}
	return status
}
