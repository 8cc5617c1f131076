package render

import (
	"strings"

	"github.com/hwepoch/hwepoch/trace"
)

// Options are what the trace itself does not say.
type Options struct {
	Title    string // first line of the picture or document
	Subtitle string // lines under the title ('\n' separates paragraphs)
	// Invariants are evaluated on every state; a state that violates one is
	// highlighted with the invariant's name and an explanation. Names are
	// those of model.Invariants; unknown names are ignored.
	Invariants []string
	// Notes maps a trace index (1 = the first step) to the comment lines of
	// the phase that step begins (scenario.Scenario.Notes).
	Notes map[int][]string
	// Width is the SVG width panels wrap at, in pixels (default 1240:
	// three panels of six records side by side).
	Width int
}

func (o Options) width() int {
	if o.Width <= 0 {
		return 1240
	}
	return o.Width
}

// LassoOptions are the options of a liveness counterexample's picture:
// the configuration's name and the property in the title.
func LassoOptions(name string, t trace.Trace) Options {
	return Options{Title: name + ": a lasso (liveness counterexample)",
		Subtitle: strings.TrimSpace(trace.LassoLine(t))}
}
