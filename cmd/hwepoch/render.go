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
	"github.com/hwepoch/hwepoch/refine"
	"github.com/hwepoch/hwepoch/render"
	"github.com/hwepoch/hwepoch/trace"
	"github.com/hwepoch/hwepoch/trace/scenario"
)

func init() {
	register("render", "draw a TLC trace (json or tla), an ITF trace or a scenario as an SVG timeline or Markdown tables", runRender)
}

// renderable is one trace to draw, with its configuration and options.
type renderable struct {
	cfg model.Config
	tr  trace.Trace
	opt render.Options
}

func runRender(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("render", flag.ContinueOnError)
	fl.SetOutput(stderr)
	cfgFlag := fl.String("cfg", "", "the TLC .cfg the trace was made with (default: the constants an ITF regression carries, the run's in traces/tlc/runs.json, else spec/NAME.cfg)")
	svgOut := fl.String("svg", "", "write an SVG timeline to this file (one trace)")
	md := fl.Bool("md", false, "print Markdown tables (default: one line per replica per step)")
	policy := fl.String("policy", "", "for a scenario: only the cases of this policy (refused for a trace)")
	variant := fl.String("variant", "", "for a scenario: only the cases of this variant (refused for a trace)")
	fl.Usage = func() {
		fmt.Fprint(stderr, `usage: hwepoch render [flags] FILE

Draws one trace. FILE is
  - a TLC trace (TLC -dumpTrace json or tla; traces/tlc/NAME.json,
    traces/tlc/trace_NAME.tla), read with the constants of its run in
    traces/tlc/runs.json, of spec/NAME.cfg, or of -cfg;
  - an ITF trace (*.itf.json, as hwepoch check -itf writes), read with the
    .cfg its #meta names or -cfg;
  - a scenario file (*.scenario), each of its cases (or -policy/-variant).
The invariants of the .cfg (of the scenario's check line) are evaluated on
every state; a violation is marked where it begins and on the last step.

Output: -svg FILE (a timeline), -md (Markdown tables), or else the dense
text of hwepoch check: one line per replica per step.

flags:
`)
		printDefaults(fl)
	}
	if code, done := parseFlags(fl, args); done {
		return code
	}
	fail := usageError(stderr, "render")
	if fl.NArg() != 1 {
		fl.Usage()
		return fail("give exactly one FILE, e.g. traces/tlc/hw-acked-loss.json or traces/scenarios/kip101-scenario-1.scenario")
	}
	if *svgOut != "" && *md {
		return fail("give -svg or -md, not both")
	}
	path := fl.Arg(0)
	var items []renderable
	var err error
	switch {
	case strings.HasSuffix(path, scenario.Ext):
		if given(fl, "cfg") {
			return fail("-cfg gives a trace its constants; a scenario (%s) carries its own: drop -cfg", path)
		}
		items, err = scenarioItems(path, *policy, *variant)
	case strings.HasSuffix(path, ".json"), strings.HasSuffix(path, ".tla"):
		for _, f := range []string{"policy", "variant"} {
			if given(fl, f) {
				return fail("-%s selects a scenario's cases; %s is a trace, one behaviour under the constants it is read with (-cfg): drop -%s", f, path, f)
			}
		}
		var it renderable
		it, err = jsonItem(path, *cfgFlag)
		items = []renderable{it}
	default:
		return fail("%s: not a trace this command reads: want a TLC trace (.json or .tla), an ITF trace (.itf.json) or a scenario (%s)", path, scenario.Ext)
	}
	if err != nil {
		return fail("%v", err)
	}
	if *svgOut != "" && len(items) != 1 {
		names := make([]string, len(items))
		for i, it := range items {
			names[i] = it.opt.Title
		}
		return fail("-svg writes one picture, and %s has %d cases (%s): choose one with -policy and -variant", path, len(items), strings.Join(names, ", "))
	}
	for _, it := range items {
		switch {
		case *svgOut != "":
			var b bytes.Buffer
			if err := render.SVG(&b, &it.cfg, it.tr, it.opt); err != nil {
				return fail("%v", err)
			}
			if err := os.WriteFile(*svgOut, b.Bytes(), 0o644); err != nil {
				return fail("%v", err)
			}
			fmt.Fprintf(stdout, "wrote %s: the timeline of %s, %d steps (%d bytes of SVG)\n", *svgOut, it.opt.Title, it.tr.Len()-1, b.Len())
		case *md:
			if err := render.Markdown(stdout, &it.cfg, it.tr, it.opt); err != nil {
				return fail("%v", err)
			}
			fmt.Fprintln(stdout)
		default:
			fmt.Fprintf(stdout, "%s\n", it.opt.Title)
			trace.Render(stdout, &it.cfg, it.tr)
			fmt.Fprintln(stdout)
		}
	}
	return 0
}

func scenarioItems(path, policy, variant string) ([]renderable, error) {
	sc, err := scenario.Load(path)
	if err != nil {
		return nil, err
	}
	var out []renderable
	for _, c := range sc.Cases() {
		if (policy != "" && c.Policy != policy) || (variant != "" && c.Variant.String() != variant) {
			continue
		}
		tr, _, err := sc.Run(c)
		if err != nil {
			return nil, err
		}
		out = append(out, renderable{cfg: sc.Config(c), tr: tr, opt: render.ScenarioOptions(sc, c)})
	}
	if len(out) == 0 {
		names := make([]string, 0)
		for _, c := range sc.Cases() {
			names = append(names, fmt.Sprintf("%q", c.String()))
		}
		return nil, fmt.Errorf("%s: no case matches -policy %q -variant %q (its cases: %s)", path, policy, variant, strings.Join(names, ", "))
	}
	return out, nil
}

// jsonItem reads a TLC JSON or ITF trace as replay does (refine.Load):
// the configuration is -cfg's if given, else the one the trace carries
// (an ITF regression), the run's in traces/tlc/runs.json, or spec/NAME.cfg.
func jsonItem(path, cfgPath string) (renderable, error) {
	cases, err := refine.LoadWithConfig(path, cfgPath)
	if err != nil {
		return renderable{}, err
	}
	c := cases[0]
	// Draw only what the model does under these constants, as replay
	// demands: a trace that contradicts its configuration (another -cfg's
	// replicas or bounds, a negative HW or id, a step the model does not
	// take) would be drawn as if it were a behaviour of the spec.
	if _, err := refine.ReplayModel(c.Config, c.Trace, refine.Options{}); err != nil {
		return renderable{}, fmt.Errorf("%s is not a behaviour of the spec under %s, so it is not drawn:\n%v", path, configOf(c, cfgPath), err)
	}
	from := "the constants the trace carries"
	if cfgPath != "" {
		from = "the constants of " + cfgPath
	} else if c.Trace.ConfigName != "" {
		from = "the constants of " + c.Trace.ConfigName
	}
	opt := render.Options{
		Title:      filepath.Base(path),
		Subtitle:   fmt.Sprintf("%s, with %s\n%s", c.Trace.Source, from, render.ConfigSummary(c.Config)),
		Invariants: c.Invariants,
	}
	return renderable{cfg: *c.Config, tr: c.Trace, opt: opt}, nil
}

// configOf names the configuration a trace was read with, for messages.
func configOf(c refine.Case, cfgPath string) string {
	switch {
	case cfgPath != "":
		return cfgPath
	case c.Trace.ConfigName != "":
		return c.Trace.ConfigName + ".cfg"
	}
	return "the constants it carries"
}
