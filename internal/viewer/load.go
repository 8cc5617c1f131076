package viewer

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hwepoch/hwepoch/internal/inputfile"
	"github.com/hwepoch/hwepoch/refine"
	"github.com/hwepoch/hwepoch/refine/sim"
	"github.com/hwepoch/hwepoch/render"
	"github.com/hwepoch/hwepoch/trace/scenario"
)

// Loaded is a page read from a trace file and the file name it is
// written under by default.
type Loaded struct {
	Name string // e.g. hw-acked-loss.html, kip101-scenario-1-LeaderEpoch.html
	Page Page
}

// RefusedError is a trace the model cannot replay: the viewer refuses it
// as hwepoch replay does, with replay's report of the step.
type RefusedError struct {
	Path string
	Err  error
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("%s is not a behaviour of the model, so no page is written:\n%v", e.Path, e.Err)
}

func (e *RefusedError) Unwrap() error { return e.Err }

// Load reads a trace file the way hwepoch replay reads it and replays it
// the same way, and returns one page per case:
//
//   - a TLC trace (json or tla), an ITF trace or a scenario: refine.LoadWithConfig
//     (cfgPath as replay's -cfg), then refine.ReplayModel for the states
//     and refine.ReplayCase on the implementation, as hwepoch replay FILE;
//   - a chaos run (.sim, or a free run's .steps): sim.ReadRun and
//     sim.Replay, as hwepoch chaos -replay FILE.
//
// A case the model does not take is a *RefusedError and no page is
// returned for any case; an implementation that departs from the model
// is shown on the page (Page.Mismatch), as replay reports it. dir is where
// the stepped clusters keep their files ("": the default temporary root).
func Load(path, cfgPath string, opt refine.Options) ([]Loaded, error) {
	if strings.HasSuffix(path, ".sim") || strings.HasSuffix(path, ".steps") {
		if cfgPath != "" {
			return nil, fmt.Errorf("%s: a chaos run carries its own settings; -cfg does not apply to it", path)
		}
		l, err := loadRun(path, opt.Dir)
		if err != nil {
			return nil, err
		}
		return []Loaded{l}, nil
	}
	cases, err := refine.LoadWithConfig(path, cfgPath)
	if err != nil {
		return nil, err
	}
	// A scenario's cases carry its title and phase notes (render's
	// options for the pictures); the cases come in sc.Cases()'s order.
	var sc *scenario.Scenario
	if strings.HasSuffix(path, scenario.Ext) {
		s, err := scenario.Load(path)
		if err != nil {
			return nil, err
		}
		if len(s.Cases()) != len(cases) {
			return nil, fmt.Errorf("%s: %d cases, but the replay loaded %d", path, len(s.Cases()), len(cases))
		}
		sc = &s
	}
	var out []Loaded
	for i, c := range cases {
		states, err := refine.ReplayModel(c.Config, c.Trace, opt)
		if err != nil {
			return nil, &RefusedError{Path: c.Name, Err: err}
		}
		tr := c.Trace
		tr.Steps = append(tr.Steps[:0:0], tr.Steps...)
		for k := range tr.Steps {
			tr.Steps[k].State = states[k]
		}
		p := Page{Config: c.Config, Trace: tr, Invariants: c.Invariants, Loop: -1}
		if tr.Lasso {
			p.Loop = tr.Loop
		}
		var name string
		if sc != nil {
			sco := render.ScenarioOptions(*sc, sc.Cases()[i])
			p.Title, p.Subtitle, p.Notes, p.Kind = sco.Title, sco.Subtitle, sco.Notes, "scenario case"
			name = sc.Name + "-" + sc.Cases()[i].Slug() + ".html"
		} else {
			p.Title = filepath.Base(path)
			p.Kind = kindOf(path)
			p.Subtitle = c.Trace.Source
			if c.Trace.ConfigName != "" {
				p.Subtitle += ", with the constants of " + c.Trace.ConfigName
			}
			if cfgPath != "" {
				p.Subtitle += ", with the constants of " + cfgPath
			}
			name = baseName(path) + ".html"
		}
		if err := refine.ReplayCase(c, opt); err != nil {
			var m *refine.Mismatch
			if !errors.As(err, &m) {
				return nil, err
			}
			if m.Side == "model" {
				return nil, &RefusedError{Path: c.Name, Err: err}
			}
			p.Mismatch = &Mismatch{Step: min(m.Step, len(tr.Steps)-1), Side: m.Side, What: m.What, Got: m.Got}
		}
		out = append(out, Loaded{Name: name, Page: p})
	}
	return out, nil
}

// loadRun reads and replays a chaos run as hwepoch chaos -replay does.
func loadRun(path, dir string) (Loaded, error) {
	f, err := inputfile.Open(path)
	if err != nil {
		return Loaded{}, err
	}
	rf, err := sim.ReadRun(f)
	f.Close()
	if err != nil {
		return Loaded{}, fmt.Errorf("%s: cannot replay: %v", path, err)
	}
	tmp, err := os.MkdirTemp(refine.TempRoot(dir), "hwepoch-view-")
	if err != nil {
		return Loaded{}, err
	}
	defer os.RemoveAll(tmp)
	rep, err := sim.Replay(rf, tmp)
	var cannot *sim.CannotReplay
	if errors.As(err, &cannot) {
		return Loaded{}, &RefusedError{Path: path, Err: err}
	}
	if err != nil {
		return Loaded{}, fmt.Errorf("%s: %v", path, err)
	}
	tr := rep.Trace
	tr.Source = "sim:" + path
	p := Page{Config: rep.Config, Trace: tr, Invariants: sim.Safety, Loop: -1, Kind: "chaos run",
		Title: filepath.Base(path)}
	if rf.Simulated {
		p.Kind = "chaos simulation run"
		rr := "reproduced exactly (the recorded event-log hash)"
		if !rep.Reproduced {
			rr = "NOT reproduced: the file records hash " + rf.Hash
		}
		p.Subtitle = fmt.Sprintf("seed %d, %d decisions, %d steps; simulated again: %s\nverdict: %s", rf.Seed, rf.Events, len(rf.Steps), rr, rep.Verdict)
	} else {
		p.Subtitle = fmt.Sprintf("a free run's %d steps\nverdict: %s", len(rf.Steps), rep.Verdict)
	}
	if rep.Diverged != "" {
		p.Mismatch = &Mismatch{Step: rep.DivergedStep, Side: "implementation", What: rep.Diverged, Got: rep.DivergedState}
	}
	return Loaded{Name: baseName(path) + "-run.html", Page: p}, nil
}

func kindOf(path string) string {
	switch {
	case strings.HasSuffix(path, ".itf.json"):
		return "ITF trace"
	case strings.HasSuffix(path, ".json"):
		return "TLC trace (json)"
	case strings.HasSuffix(path, ".tla"):
		return "TLC trace (tla)"
	}
	return "trace"
}

// baseName is the file's name without its trace extension.
func baseName(path string) string {
	b := filepath.Base(path)
	for _, ext := range []string{".itf.json", ".json", ".tla", ".sim", ".steps", scenario.Ext} {
		if strings.HasSuffix(b, ext) {
			return strings.TrimSuffix(b, ext)
		}
	}
	return b
}

// ChaosPage is the page of a shrunk chaos failure, as hwepoch chaos draws
// it beside its SVG (sim.SVG): the shrunk trace's model states, its
// violated invariant marked where it breaks.
func ChaosPage(s sim.Shrunk, title string) Page {
	return Page{Title: title, Kind: "shrunk chaos failure", Config: s.Config, Trace: s.Trace, Loop: -1,
		Subtitle:   fmt.Sprintf("shrunk from %d steps of a simulated run to %d; violates %s\n%s", s.From, s.Trace.Len()-1, s.Invariant, render.ConfigSummary(s.Config)),
		Invariants: []string{s.Invariant}}
}
