package hunt

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hwepoch/hwepoch/internal/viewer"
	"github.com/hwepoch/hwepoch/model/tlccfg"
	"github.com/hwepoch/hwepoch/refine"
	"github.com/hwepoch/hwepoch/render"
	"github.com/hwepoch/hwepoch/trace/itf"
)

// Certified is what became of a counterexample after the search: its
// replay on the model and on the implementation (refine.Replay, as
// hwepoch replay does it), its SVG timeline (render.SVG, as hwepoch render
// draws it), and the files written.
type Certified struct {
	ReplayErr error    // nil: every step replayed on the implementation and matched the model
	RenderErr error    // nil: the timeline was drawn
	Files     []string // written under the output directory
}

// OK says whether the counterexample replayed and rendered.
func (c *Certified) OK() bool { return c.ReplayErr == nil && c.RenderErr == nil }

// Certify replays a cell's counterexample on the model and the
// implementation and renders it; with outDir set it writes the trace as
// ITF (BUG-METHOD.itf.json), its timeline (BUG-METHOD.svg), its page
// (BUG-METHOD.html, internal/viewer) and the bug's
// TLC configuration (hunt-BUG.cfg, with which hwepoch replay -cfg and render
// -cfg read the trace back).
func Certify(b Bug, c *Cell, outDir string) *Certified {
	if c.Trace == nil {
		return nil
	}
	out := &Certified{}
	out.ReplayErr = refine.Replay(&b.Config, *c.Trace, refine.Options{})
	var svg bytes.Buffer
	opt := render.Options{
		Title:      fmt.Sprintf("%s: %s", b.Name, b.Title),
		Subtitle:   fmt.Sprintf("%s, found by %s (%s)\n%s", b.Release, c.Method, c.Trace.Source, render.ConfigSummary(&b.Config)),
		Invariants: []string{b.Invariant},
	}
	out.RenderErr = render.SVG(&svg, &b.Config, *c.Trace, opt)
	if outDir == "" {
		return out
	}
	write := func(name string, data []byte) {
		p := filepath.Join(outDir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			if out.RenderErr == nil {
				out.RenderErr = err
			}
			return
		}
		out.Files = append(out.Files, p)
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		out.RenderErr = err
		return out
	}
	write("hunt-"+b.Name+".cfg", tlccfg.Format(b.Config, []string{b.Invariant}, nil, false,
		fmt.Sprintf("hwepoch hunt: %s (%s)", b.Title, b.Release)))
	var tr bytes.Buffer
	if err := itf.Write(&tr, &b.Config, *c.Trace); err != nil {
		out.RenderErr = err
		return out
	}
	write(fmt.Sprintf("%s-%s.itf.json", b.Name, c.Method), tr.Bytes())
	if out.RenderErr == nil {
		write(fmt.Sprintf("%s-%s.svg", b.Name, c.Method), svg.Bytes())
		// The same trace to step through (hwepoch view), replay's states.
		var page bytes.Buffer
		p := viewer.Page{Title: opt.Title, Subtitle: opt.Subtitle, Kind: "hunt counterexample", Config: &b.Config,
			Trace: *c.Trace, Invariants: opt.Invariants, Loop: -1}
		if err := viewer.Write(&page, p); err != nil {
			out.RenderErr = err
			return out
		}
		write(fmt.Sprintf("%s-%s.html", b.Name, c.Method), page.Bytes())
	}
	return out
}
