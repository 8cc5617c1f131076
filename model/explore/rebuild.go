package explore

import (
	"fmt"

	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/trace"
)

// rebuild turns state idx's chain of parent pointers back into a trace by
// re-executing the recorded actions from Init (the search keeps no states
// behind its frontier). A nonzero last step is appended (action properties).
func rebuild(cfg *model.Config, parents []uint32, acts []packed, idx uint32, last packed, name string) (trace.Trace, error) {
	var chain []packed
	for i := idx; i != 0; i = parents[i] {
		chain = append(chain, acts[i])
	}
	s := model.Init(cfg)
	tr := trace.Trace{Source: "explore", ConfigName: name, Steps: []trace.Step{{State: s}}}
	for k := len(chain) - 1; k >= -1; k-- {
		var p packed
		if k >= 0 {
			p = chain[k]
		} else if p = last; p == 0 {
			break
		}
		a := p.unpack(cfg)
		t, err := model.Apply(cfg, s, a)
		if err != nil {
			return trace.Trace{}, fmt.Errorf("rebuilding the trace: %w", err)
		}
		tr.Steps = append(tr.Steps, trace.Step{Action: a, State: t})
		s = t
	}
	return tr, nil
}
