// Package trace is the one trace type of the project: a behaviour of the
// spec as a sequence of steps, each naming its action (with its parameters)
// and the state it leads to. The explorer, the TLC and ITF loaders and the
// refinement checker all speak it.
package trace

import (
	"fmt"

	"github.com/hwepoch/hwepoch/model"
)

// Trace is one behaviour. Steps[0] is the initial state (its Action is the
// zero Action); Steps[i] for i > 0 is the step that led from Steps[i-1].State
// to Steps[i].State.
type Trace struct {
	Source     string // where it came from: "explore", "tlc:FILE", "itf:FILE", ...
	ConfigName string // the configuration it belongs to (e.g. "le-fenced-2")
	Steps      []Step
	// Loop, when the trace is a lasso (a liveness counterexample: ITF's
	// "loop"), is the index of the state the behaviour returns to after
	// its last state; nil for a finite trace.
	Loop *int
}

// Step is one state of a trace and the action that produced it.
type Step struct {
	Action model.Action // zero for the initial state
	State  model.State
}

// Len is the number of states, as TLC counts a trace's length.
func (t Trace) Len() int { return len(t.Steps) }

// Replay checks t against the model: the first state is Init and every
// step's action is enabled in the previous state and yields exactly the
// recorded next state. It returns the index of the first bad step.
func Replay(cfg *model.Config, t Trace) (int, error) {
	if len(t.Steps) == 0 {
		return 0, fmt.Errorf("trace has no states")
	}
	if init := model.Init(cfg); !init.Equal(t.Steps[0].State) {
		return 0, fmt.Errorf("step 0: the first state is not Init")
	}
	for i := 1; i < len(t.Steps); i++ {
		st := t.Steps[i]
		next, err := model.Apply(cfg, t.Steps[i-1].State, st.Action)
		if err != nil {
			return i, fmt.Errorf("step %d: %s: %w", i, st.Action, err)
		}
		if !next.Equal(st.State) {
			return i, fmt.Errorf("step %d: %s: the model's next state differs from the trace's", i, st.Action)
		}
	}
	return -1, nil
}
