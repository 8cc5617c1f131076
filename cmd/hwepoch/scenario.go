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
	policy := fl.String("policy", "", "only the cases of this policy (HighWatermark, Kip101, LeaderEpoch, DivergingEpoch)")
	variant := fl.String("variant", "", "only the cases of this variant (e.g. Fencing=TRUE)")
	svgOut := fl.String("svg", "", "write the timeline of the one selected case to this SVG file")
	svgDir := fl.String("svgdir", "", "write DIR/NAME-CASE.svg for every selected case")
	md := fl.Bool("md", false, "print Markdown tables instead of one line per replica per step")
	quiet := fl.Bool("q", false, "print the verdicts only")
	table := fl.Bool("table", false, "print the Markdown verdict table of docs/scenarios.md (with -all) and nothing else")
	fl.Usage = func() {
		fmt.Fprint(stderr, `usage: hwepoch scenario [flags] NAME ...
       hwepoch scenario [flags] -all

Runs each named scenario (DIR/NAME.scenario, or a FILE.scenario given as a
path; the format is described in
docs/scenarios.md) on the model, under each of its cases (a policy, and a
variant when the scenario has variants). For each case it prints the
verdict -- the checked invariants violated, each at the step where it
first fails -- and whether that is what the scenario's expect and final
lines say, then the trace: one line per replica per step, or Markdown
tables with -md.

The pictures in docs/img and the verdict table of docs/scenarios.md are
made with:
  go run ./cmd/hwepoch scenario -all -q -svgdir docs/img
  go run ./cmd/hwepoch scenario -all -table

Exit status: 0 when every case gives its expected verdict, 1 otherwise,
2 on a usage or input error.

flags:
`)
		fl.PrintDefaults()
	}
	if code, done := parseFlags(fl, args); done {
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
		fl.Usage()
		fmt.Fprintf(stderr, "\nhwepoch scenario: name a scenario, or give -all; the scenarios in %s: %s\n", d, scenarioNames(d))
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
		if err := v.Meets(r.sc.Expectation(r.c)); err != nil {
			verdict = "UNEXPECTED: " + err.Error()
			status = 1
		}
		fmt.Fprintf(stdout, "%s %s: %s -- %s\n", r.sc.Name, r.c, v, verdict)
		cfg, opt := r.sc.Config(r.c), render.ScenarioOptions(r.sc, r.c)
		switch {
		case *quiet:
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
	if status == 0 {
		fmt.Fprintf(stdout, "all %d cases as expected\n", len(runs))
	}
	return status
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
