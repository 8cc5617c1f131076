package main

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/hwepoch/hwepoch/impl/broker"
	"github.com/hwepoch/hwepoch/refine/mutants"
)

func init() {
	register("mutants", "seed known bugs into the implementation one at a time and show which check catches each", runMutants)
}

const mutantsUsage = `usage: hwepoch mutants [flags]

The mutation check: for each seeded bug (impl/broker's Mutant switches),
runs the checker's checks against an implementation with that bug --
TLC-trace replay, scenario replay, regression replay, random traces,
free-run validation, "invariant" (random traces judged by the spec's
invariants on the implementation's own state, without the model) and
"simulation liveness" (the deterministic simulation's liveness check
alone: 10 seeds per release, no property of spec/ReplicationLiveness.tla
stalled after 150ms of fault-free simulated time) -- and prints which catch it and how long the exposing trace is. The
implementation without a bug is run first: it must pass every check.
-checks runs some of the checks only (on the baseline and the mutants
alike; the others show as "not run"), for when one cannot run.

Exit status 0 when the baseline passes and every mutant is caught, 1
otherwise, 2 on bad use.

flags:`

func runMutants(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mutants", flag.ContinueOnError)
	fs.SetOutput(stderr)
	nRandom := fs.Int("random", 300, "random traces per policy, for the random and invariant checks")
	nFree := fs.Int("free", 10, "free runs for the free-run validation")
	seed := fs.Int64("seed", 1, "seed of the random traces and free runs")
	only := fs.String("only", "", "comma-separated mutants to run (default: all)")
	first := fs.Bool("first", false, "stop each mutant's checks at the first that catches it (faster, shorter table)")
	markdown := fs.Bool("markdown", false, "print the table as Markdown (for docs/mutants.md)")
	checks := fs.String("checks", "", "comma-separated checks to run: "+strings.Join(mutants.ShortNames(), ",")+" (default: all)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, mutantsUsage)
		printDefaults(fs)
		names := make([]string, len(broker.Mutants))
		for i, m := range broker.Mutants {
			names[i] = string(m)
		}
		fmt.Fprint(stderr, "\n"+wrap("mutants: ", strings.Join(names, " "), wrapColumns, "  "))
	}
	if code, done := parseFlags(fs, args, atLeast("random", 0), atLeast("free", 0), maxArgs(0, "")); done {
		return code
	}
	ms := broker.Mutants
	if *only != "" {
		ms = nil
		for _, name := range strings.Split(*only, ",") {
			m := broker.Mutant(strings.TrimSpace(name))
			known := false
			for _, k := range broker.Mutants {
				known = known || k == m
			}
			if !known {
				fmt.Fprintf(stderr, "hwepoch mutants: unknown mutant %q (known: %v)\n", m, broker.Mutants)
				return 2
			}
			ms = append(ms, m)
		}
	}
	var run []mutants.Check
	checksSet := false
	fs.Visit(func(f *flag.Flag) { checksSet = checksSet || f.Name == "checks" })
	if checksSet {
		var err error
		if run, err = mutants.ParseChecks(*checks); err != nil {
			fmt.Fprintf(stderr, "hwepoch mutants: -checks: %v\n", err)
			return 2
		}
	}
	root, err := repoRoot()
	if err != nil {
		fmt.Fprintf(stderr, "hwepoch mutants: %v\n", err)
		return 2
	}
	b := mutants.Budget{TracesDir: filepath.Join(root, "traces"), RandomTraces: *nRandom, FreeRuns: *nFree, Seed: *seed, FirstCatch: *first, Checks: run}
	if *first {
		b.FreeRunsToCatch = mutants.CI("").FreeRunsToCatch // a mutant's free runs go on until one catches it
	}
	progress := func(s string) { fmt.Fprintf(stderr, "hwepoch mutants: %s\n", s) }
	start := time.Now()
	base := mutants.Run("", b, progress)
	status := 0
	for _, d := range base.Detections {
		if d.Caught || d.Err != nil {
			fmt.Fprintf(stdout, "BASELINE FAILS: %s without any mutant: %s %s %v\n", d.Check, d.Where, d.Detail, d.Err)
			status = 1
		}
	}
	if status != 0 {
		fmt.Fprintln(stdout, "the implementation fails a check on its own: fix that first; until then a mutant's \"catch\" means nothing")
		return 1
	}
	var results []mutants.Result
	for _, m := range ms {
		r := mutants.Run(m, b, progress)
		results = append(results, r)
		if !r.Caught() {
			status = 1
		}
		for _, d := range r.Detections {
			if d.Err != nil {
				fmt.Fprintf(stderr, "hwepoch mutants: %s: %s could not run: %v\n", m, d.Check, d.Err)
				status = 1
			}
		}
	}
	writeMutantTable(stdout, results, *markdown)
	if !*markdown {
		writeFirstCatches(stdout, results, root)
	}
	ran := "every check"
	if run != nil {
		names := make([]string, len(run))
		for i, c := range run {
			names[i] = string(c)
		}
		ran = "checks run: " + strings.Join(names, ", ")
	}
	fmt.Fprintf(stdout, "\n%d mutants, %d caught (%s); random traces %d per policy, %d free runs, seed %d; %v\n",
		len(results), countCaught(results), ran, *nRandom, *nFree, *seed, time.Since(start).Round(time.Second))
	return status
}

func countCaught(rs []mutants.Result) int {
	n := 0
	for _, r := range rs {
		if r.Caught() {
			n++
		}
	}
	return n
}

// writeFirstCatches writes, per mutant, where its first catch happened and
// what the check reported: which trace to open to see the bug (paths
// relative to the repository root).
func writeFirstCatches(w io.Writer, rs []mutants.Result, root string) {
	fmt.Fprintln(w)
	for _, r := range rs {
		if d, ok := r.First(); ok {
			where := strings.ReplaceAll(d.Where, root+string(filepath.Separator), "")
			fmt.Fprintf(w, "%s: %s, length %d, %s: %s\n", r.Mutant, d.Check, d.Length, where, d.Detail)
		}
	}
}

// writeMutantTable writes one row per mutant: the first catch (shortest
// exposing trace) and, per check, the length of its exposing trace ("-":
// not caught; "not run": the check was left out by -checks).
func writeMutantTable(w io.Writer, rs []mutants.Result, markdown bool) {
	head := []string{"mutant", "caught by", "length"}
	for _, c := range mutants.Checks {
		head = append(head, string(c))
	}
	var rows [][]string
	for _, r := range rs {
		row := []string{string(r.Mutant), "NOT CAUGHT", "-"}
		if d, ok := r.First(); ok {
			row[1], row[2] = string(d.Check), fmt.Sprint(d.Length)
		}
		for _, c := range mutants.Checks {
			cell := "not run"
			for _, d := range r.Detections {
				if d.Check != c {
					continue
				}
				switch {
				case d.Err != nil:
					cell = "error"
				case d.Caught:
					cell = fmt.Sprint(d.Length)
				default:
					cell = "-"
				}
			}
			row = append(row, cell)
		}
		rows = append(rows, row)
	}
	if markdown {
		fmt.Fprintf(w, "| %s |\n|%s\n", strings.Join(head, " | "), strings.Repeat("---|", len(head)))
		for _, row := range rows {
			fmt.Fprintf(w, "| %s |\n", strings.Join(row, " | "))
		}
		return
	}
	width := make([]int, len(head))
	for i, h := range head {
		width[i] = len(h)
	}
	for _, row := range rows {
		for i, c := range row {
			width[i] = max(width[i], len(c))
		}
	}
	line := func(cells []string) {
		for i, c := range cells {
			fmt.Fprintf(w, "%-*s  ", width[i], c)
		}
		fmt.Fprintln(w)
	}
	line(head)
	for _, row := range rows {
		line(row)
	}
}
