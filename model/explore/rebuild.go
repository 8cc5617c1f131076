package explore

import (
	"fmt"
	"slices"

	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/trace"
)

// rebuild turns state idx's chain of parent pointers back into a trace by
// re-executing the recorded actions from Init (the search keeps no states
// behind its frontier). A nonzero last step is appended (action properties).
// A search with the inert-message reduction (reduce) recorded the steps of
// the quotient: after each step but the last, the steps that drain the
// slots it emptied are put back (model.DrainSteps), so that the trace is a
// behaviour of the spec.
func rebuild(cfg *model.Config, parents *parentStore, idx uint32, last packed, name string, reduce bool) (trace.Trace, error) {
	var chain []packed
	for i := idx; i != 0; {
		p, a, err := parents.get(i)
		if err != nil {
			return trace.Trace{}, err
		}
		if p >= i {
			return trace.Trace{}, fmt.Errorf("state %d's parent is %d: parent pointers go back in BFS order", i, p)
		}
		chain = append(chain, a)
		i = p
	}
	slices.Reverse(chain)
	if last != 0 {
		chain = append(chain, last)
	}
	return replayActs(cfg, chain, name, reduce)
}
