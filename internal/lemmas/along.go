package lemmas

import (
	"fmt"
	"strings"

	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/trace"
	"github.com/hwepoch/hwepoch/trace/scenario"
)

// Break is the first step of a trace at which a lemma fails.
type Break struct {
	Lemma string
	Step  int // 0: the initial state
}

// AlongTrace judges every lemma on every state and step of tr and returns,
// for each lemma that fails somewhere, the first step where it does, in
// the order of All.
func AlongTrace(cfg *model.Config, tr trace.Trace) []Break {
	var out []Break
	for _, l := range All {
		for i := range tr.Steps {
			ok := true
			switch {
			case l.State != nil:
				_, ok = l.State(cfg, &tr.Steps[i].State)
			case i > 0:
				_, ok = l.Step(cfg, &tr.Steps[i-1].State, tr.Steps[i].Action, &tr.Steps[i].State)
			}
			if !ok {
				out = append(out, Break{l.Name, i})
				break
			}
		}
	}
	return out
}

// ScenarioTable is the Markdown table of docs/correctness.md: for each
// case of each scenario, the lemmas that fail along its trace, each at the
// first step where it does.
func ScenarioTable(scs []scenario.Scenario) (string, error) {
	var b strings.Builder
	b.WriteString("| scenario | case | fencing | lemmas broken (first step) |\n|---|---|---|---|\n")
	for _, sc := range scs {
		for _, c := range sc.Cases() {
			tr, _, err := sc.Run(c)
			if err != nil {
				return "", err
			}
			cfg := sc.Config(c)
			fmt.Fprintf(&b, "| %s | %s | %t | %s |\n", sc.Name, c, cfg.Fencing, breaksString(AlongTrace(&cfg, tr)))
		}
	}
	return b.String(), nil
}

func breaksString(bs []Break) string {
	if len(bs) == 0 {
		return "none"
	}
	parts := make([]string, len(bs))
	for i, x := range bs {
		parts[i] = fmt.Sprintf("%s (%d)", x.Lemma, x.Step)
	}
	return strings.Join(parts, ", ")
}
