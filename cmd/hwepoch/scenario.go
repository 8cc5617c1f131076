package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/model/tlccfg"
	"github.com/hwepoch/hwepoch/render"
	"github.com/hwepoch/hwepoch/trace"
	"github.com/hwepoch/hwepoch/trace/scenario"
)

func init() {
	register("scenario", "run named scenarios (traces/scenarios) on the model and compare their verdicts per policy", runScenario)
}

func runScenario(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("scenario", flag.ContinueOnError)
	fl.SetOutput(stderr)
	dirFlag := fl.String("dir", "", "directory of the NAME.scenario files (default: traces/scenarios of the enclosing repository)")
	all := fl.Bool("all", false, "run every scenario in -dir")
	policy := fl.String("policy", "", "only the cases of this policy (HighWatermark, Kip101, LeaderEpoch, DivergingEpoch, EligibleLeader)")
	variant := fl.String("variant", "", "only the cases of this variant (e.g. Fencing=TRUE)")
	svgOut := fl.String("svg", "", "write the timeline of the one selected case to this SVG file")
	svgDir := fl.String("svgdir", "", "write DIR/NAME-CASE.svg for every selected case")
	md := fl.Bool("md", false, "print Markdown tables instead of one line per replica per step")
	quiet := fl.Bool("q", false, "print the verdicts only")
	table := fl.Bool("table", false, "with -all: print the Markdown verdict table of docs/scenarios.md and nothing else")
	verbose := fl.Bool("v", false, "with -all: print every case's verdict and trace, as for named scenarios (default with -all: a summary, one row per scenario)")
	fl.Usage = func() {
		fmt.Fprint(stderr, `usage: hwepoch scenario [flags] NAME ...
       hwepoch scenario [-q | -v | -table] [flags] -all

Runs each named scenario (DIR/NAME.scenario, or a FILE.scenario given as a
path; the format is described in
docs/scenarios.md) on the model, under each of its cases (a policy, and a
variant when the scenario has variants). For each case it prints the
verdict -- the checked invariants violated, each at the step where it
first fails -- and whether that is what the scenario's expect and final
lines say, then the trace: one line per replica per step, or Markdown
tables with -md.

With -all it runs every scenario and prints a summary: one row per
scenario, its cases, how many gave their expected verdict and the
invariants violated (and in which cases), then any case that was not as
expected. -all -q prints every case's verdict line, -all -v every case's
verdict and trace.

The pictures in docs/img and the verdict table of docs/scenarios.md are
made with:
  go run ./cmd/hwepoch scenario -all -q -svgdir docs/img
  go run ./cmd/hwepoch scenario -all -table

Exit status: 0 when every case gives its expected verdict, 1 otherwise,
2 on a usage or input error.

flags:
`)
		printDefaults(fl)
	}
	if code, done := parseFlags(fl, args, needs("table", "all"), needs("v", "all"), excludes("q", "v"),
		excludes("table", "policy", "variant", "svg", "svgdir", "md", "q", "v")); done {
		return code
	}
	fail := usageError(stderr, "scenario")
	// say reports how far a long case (over scenario.ProgressEvery steps)
	// has come, on stderr: reading checks every case, then each is run.
	say := func(msg string) { fmt.Fprintf(stderr, "hwepoch scenario: %s\n", msg) }
	// The directory of scenarios is needed only to look names up: a file
	// given by its path (NAME.scenario) is read wherever it is.
	dir := func() (string, error) { return scenarioDir(*dirFlag) }
	var scs []scenario.Scenario
	switch {
	case *all && fl.NArg() > 0:
		return fail("give scenario names or -all, not both")
	case *all:
		d, err := dir()
		if err != nil {
			return fail("%v", err)
		}
		if scs, err = scenario.LoadDir(d); err != nil {
			return fail("%v", err)
		}
	case fl.NArg() == 0:
		d, err := dir()
		if err != nil {
			return fail("name a scenario file (NAME%s), or give -all: %v", scenario.Ext, err)
		}
		fmt.Fprint(stderr, wrap("", fmt.Sprintf("hwepoch scenario: name a scenario, or give -all (see hwepoch scenario -h); the scenarios in %s: %s", d, scenarioNames(d)), wrapColumns, "  "))
		return 2
	default:
		for _, name := range fl.Args() {
			var sc scenario.Scenario
			var err error
			if strings.HasSuffix(name, scenario.Ext) {
				sc, err = scenario.LoadProgress(name, say) // a file, yours or one of traces/scenarios
			} else {
				var d string
				if d, err = dir(); err != nil {
					return fail("%v; or give the scenario's file, %s%s", err, name, scenario.Ext)
				}
				sc, err = scenario.Find(d, name)
			}
			if err != nil {
				return fail("%v", err)
			}
			scs = append(scs, sc)
		}
	}
	if *table {
		t, err := render.VerdictTable(scs)
		if err != nil {
			return fail("%v", err)
		}
		fmt.Fprint(stdout, t)
		return 0
	}
	type run struct {
		sc scenario.Scenario
		c  scenario.Case
	}
	var runs []run
	for _, sc := range scs {
		for _, c := range sc.Cases() {
			if (*policy == "" || c.Policy == *policy) && (*variant == "" || c.Variant.String() == *variant) {
				runs = append(runs, run{sc, c})
			}
		}
	}
	if len(runs) == 0 {
		return fail("no case matches -policy %q -variant %q; the cases are %s", *policy, *variant, caseList(scs))
	}
	if *svgOut != "" && len(runs) != 1 {
		return fail("-svg writes one picture, and %d cases are selected (%s): choose one with -policy and -variant, or use -svgdir", len(runs), caseList(scs))
	}
	if *svgDir != "" {
		if err := os.MkdirAll(*svgDir, 0o755); err != nil {
			return fail("%v", err)
		}
	}
	status := 0
	summary := *all && !*verbose && !*quiet && !*md
	var results []caseResult
	for _, r := range runs {
		// The dense text needs one state at a time: walk the case (twice,
		// verdict first) in memory linear in its length. Markdown and SVG
		// draw the whole trace.
		targets := svgTargets(*svgOut, *svgDir, r.sc.Name+"-"+r.c.Slug()+".svg")
		var tr trace.Trace
		var v scenario.Verdict
		var err error
		if *md || len(targets) > 0 {
			tr, v, err = r.sc.Run(r.c)
		} else {
			v, err = r.sc.Walk(r.c, r.sc.Progress(r.c, "running", say))
		}
		if err != nil {
			return fail("%v", err)
		}
		verdict := "as expected"
		meets := v.Meets(r.sc.Expectation(r.c))
		if meets != nil {
			verdict = "UNEXPECTED: " + meets.Error()
			status = 1
		}
		results = append(results, caseResult{r.sc.Name, r.c, v, meets})
		if !summary {
			printWrapped(stdout, "%s %s: %s -- %s\n", r.sc.Name, r.c, v, verdict)
		}
		cfg, opt := r.sc.Config(r.c), render.ScenarioOptions(r.sc, r.c)
		switch {
		case *quiet, summary:
		case *md:
			fmt.Fprintln(stdout)
			if err := render.Markdown(stdout, &cfg, tr, opt); err != nil {
				return fail("%v", err)
			}
			fmt.Fprintln(stdout)
		case tr.Len() > 0:
			trace.Render(stdout, &cfg, tr)
			fmt.Fprintln(stdout)
		default:
			var prev *model.State
			progress := r.sc.Progress(r.c, "printing", say)
			if _, err := r.sc.Walk(r.c, func(i int, st trace.Step, line int) error {
				trace.RenderStep(stdout, &cfg, i, st, prev)
				prev = &st.State
				if progress != nil {
					return progress(i, st, line)
				}
				return nil
			}); err != nil {
				return fail("%v", err)
			}
			fmt.Fprintln(stdout)
		}
		if a := r.sc.RefusalFor(r.c); a != nil && !*quiet && !*md {
			fmt.Fprintf(stdout, "then %s is refused: the model does not enable it (the implementation must refuse it)\n\n", a)
		}
		for _, path := range targets {
			var b bytes.Buffer
			if err := render.SVG(&b, &cfg, tr, opt); err != nil {
				return fail("%v", err)
			}
			if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
				return fail("%v", err)
			}
			fmt.Fprintf(stdout, "wrote %s: the timeline of %s %s, %d steps\n", path, r.sc.Name, r.c, tr.Len()-1)
		}
	}
	if summary {
		writeScenarioSummary(stdout, results)
	}
	if status == 0 {
		fmt.Fprintf(stdout, "all %d cases as expected\n", len(runs))
	}
	if summary {
		fmt.Fprintln(stdout, "hwepoch scenario NAME prints a scenario's cases step by step; -all -q every verdict, -all -v every trace")
	}
	return status
}

// caseResult is a case's verdict and whether it is the expected one (nil).
type caseResult struct {
	scenario string
	c        scenario.Case
	v        scenario.Verdict
	meets    error
}

// writeScenarioSummary is scenario -all's default output: one row per
// scenario (its cases, how many were as expected, the invariants violated
// and in which cases), within maxColumns, then each unexpected case.
func writeScenarioSummary(w io.Writer, results []caseResult) {
	type row struct {
		name            string
		cases, expected int
		broken          string
	}
	var rows []row
	for i := 0; i < len(results); {
		j := i
		for j < len(results) && results[j].scenario == results[i].scenario {
			j++
		}
		r := row{name: results[i].scenario, cases: j - i}
		// Cases grouped by the invariants they violate, in case order.
		var keys []string
		byKey := map[string][]string{}
		for _, cr := range results[i:j] {
			if cr.meets == nil {
				r.expected++
			}
			var invs []string
			for _, b := range cr.v.Broken {
				invs = append(invs, b.Invariant)
			}
			if len(invs) == 0 {
				continue
			}
			k := strings.Join(invs, ", ")
			if _, ok := byKey[k]; !ok {
				keys = append(keys, k)
			}
			byKey[k] = append(byKey[k], cr.c.String())
		}
		var parts []string
		for _, k := range keys {
			cs := strings.Join(byKey[k], ", ")
			if len(byKey[k]) == r.cases && r.cases > 1 {
				cs = "every case"
			}
			parts = append(parts, k+" ("+cs+")")
		}
		r.broken = "none"
		if len(parts) > 0 {
			r.broken = strings.Join(parts, "; ")
		}
		rows = append(rows, r)
		i = j
	}
	nameW := len("scenario")
	for _, r := range rows {
		nameW = max(nameW, len(r.name))
	}
	head := fmt.Sprintf("%-*s  cases  as expected  ", nameW, "scenario")
	indent := strings.Repeat(" ", len(head))
	fmt.Fprintln(w, head+"invariants violated (in which cases)")
	for _, r := range rows {
		prefix := fmt.Sprintf("%-*s  %5d  %11d  ", nameW, r.name, r.cases, r.expected)
		fmt.Fprint(w, wrap(prefix, r.broken, maxColumns, indent))
	}
	for _, cr := range results {
		if cr.meets != nil {
			printWrapped(w, "UNEXPECTED %s %s: %v\n", cr.scenario, cr.c, cr.meets)
		}
	}
}

func svgTargets(file, dir, name string) []string {
	var out []string
	if file != "" {
		out = append(out, file)
	}
	if dir != "" {
		out = append(out, filepath.Join(dir, name))
	}
	return out
}

// scenarioDir is -dir, or traces/scenarios beside the spec/ directory of
// the enclosing repository.
func scenarioDir(flagDir string) (string, error) {
	if flagDir != "" {
		return flagDir, nil
	}
	spec, err := tlccfg.FindSpecDir(".")
	if err != nil {
		return "", fmt.Errorf("%v, or give -dir DIR", err)
	}
	return filepath.Join(filepath.Dir(spec), "traces", "scenarios"), nil
}

func scenarioNames(dir string) string {
	scs, err := scenario.LoadDir(dir)
	if err != nil {
		return err.Error()
	}
	s := ""
	for i, sc := range scs {
		if i > 0 {
			s += " "
		}
		s += sc.Name
	}
	return s
}

func caseList(scs []scenario.Scenario) string {
	s := ""
	for _, sc := range scs {
		for _, c := range sc.Cases() {
			if s != "" {
				s += ", "
			}
			s += fmt.Sprintf("%s %q", sc.Name, c.String())
		}
	}
	return s
}
