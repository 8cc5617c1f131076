package main

import (
	"bytes"
	"encoding/json"
	"errors"
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
	"github.com/hwepoch/hwepoch/trace/itf"
	"github.com/hwepoch/hwepoch/trace/scenario"
	"github.com/hwepoch/hwepoch/trace/tlcjson"
)

func init() {
	register("render", "draw a TLC JSON trace, an ITF trace or a scenario as an SVG timeline or Markdown tables", runRender)
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
	cfgFlag := fl.String("cfg", "", "the TLC .cfg the trace was made with (default: spec/NAME.cfg, NAME from the file name or the ITF #meta)")
	svgOut := fl.String("svg", "", "write an SVG timeline to this file (one trace)")
	md := fl.Bool("md", false, "print Markdown tables (default: one line per replica per step)")
	policy := fl.String("policy", "", "for a scenario: only the cases of this policy")
	variant := fl.String("variant", "", "for a scenario: only the cases of this variant")
	fl.Usage = func() {
		fmt.Fprint(stderr, `usage: hwepoch render [flags] FILE

Draws one trace. FILE is
  - a TLC JSON trace (TLC -dumpTrace json; traces/tlc/NAME.json), read with
    the constants of spec/NAME.cfg or -cfg;
  - an ITF trace (*.itf.json, as hwepoch check -itf writes), read with the
    .cfg its #meta names or -cfg;
  - a scenario file (*.scenario), each of its cases (or -policy/-variant).
The invariants of the .cfg (of the scenario's check line) are evaluated on
every state; a violation is marked where it begins and on the last step.

Output: -svg FILE (a timeline), -md (Markdown tables), or else the dense
text of hwepoch check: one line per replica per step.

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
		fmt.Fprintf(stderr, "hwepoch render: "+format+"\n", a...)
		return 2
	}
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
		items, err = scenarioItems(path, *policy, *variant)
	case strings.HasSuffix(path, ".json"):
		var it renderable
		it, err = jsonItem(path, *cfgFlag)
		items = []renderable{it}
	default:
		return fail("%s: not a trace this command reads: want a TLC JSON trace (.json), an ITF trace (.itf.json) or a scenario (%s)", path, scenario.Ext)
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

// jsonItem reads a TLC JSON or ITF trace. ITF is recognised by its "states"
// array (TLC writes "counterexample"); the configuration comes from -cfg,
// else from spec/NAME.cfg where NAME is the ITF's #meta config or the file's
// base name.
func jsonItem(path, cfgPath string) (renderable, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return renderable{}, err
	}
	var peek struct {
		Meta   map[string]any    `json:"#meta"`
		States []json.RawMessage `json:"states"`
	}
	if err := json.Unmarshal(b, &peek); err != nil {
		return renderable{}, fmt.Errorf("%s: not JSON: %v", path, err)
	}
	isITF := peek.States != nil
	name := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(path), ".json"), ".itf")
	if c, ok := peek.Meta["config"].(string); ok && isITF && c != "" {
		name = c
	}
	if cfgPath == "" {
		spec, err := tlccfg.FindSpecDir(filepath.Dir(path))
		if err != nil {
			if spec, err = tlccfg.FindSpecDir("."); err != nil {
				return renderable{}, fmt.Errorf("%s: give the .cfg it was made with: -cfg spec/NAME.cfg (%v)", path, err)
			}
		}
		cfgPath = filepath.Join(spec, name+".cfg")
	}
	chk, err := tlccfg.LoadCheck(cfgPath)
	if err != nil {
		return renderable{}, fmt.Errorf("%v (the trace %s needs the constants it was made with: give -cfg)", err, path)
	}
	var tr trace.Trace
	if isITF {
		tr, err = itf.Read(path, b, &chk.Config)
	} else {
		tr, err = tlcjson.Parse(path, b, &chk.Config, chk.Name)
	}
	if err != nil {
		return renderable{}, err
	}
	opt := render.Options{
		Title:      filepath.Base(path),
		Subtitle:   fmt.Sprintf("%s, with the constants of %s\n%s", tr.Source, cfgPath, render.ConfigSummary(&chk.Config)),
		Invariants: chk.Invariants,
	}
	return renderable{cfg: chk.Config, tr: tr, opt: opt}, nil
}
