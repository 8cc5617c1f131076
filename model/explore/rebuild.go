package explore

import (
	"slices"

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
	slices.Reverse(chain)
	if last != 0 {
		chain = append(chain, last)
	}
	return replayActs(cfg, chain, name)
}
