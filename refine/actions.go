package refine

import (
	"fmt"

	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/trace"
)

// ActionsTrace is the seam for traces that are only a list of actions (a
// scenario's case, a step list written by hand): it runs them on the model
// from Init and returns the trace with the model's states, or an error
// naming the first action the model does not enable. Replay then holds the
// implementation to those states.
func ActionsTrace(name string, cfg *model.Config, actions []model.Action) (trace.Trace, error) {
	s := model.Init(cfg)
	tr := trace.Trace{Source: name, Steps: []trace.Step{{State: s}}}
	for i, a := range actions {
		next, err := model.Apply(cfg, s, a)
		if err != nil {
			return tr, fmt.Errorf("%s: step %d %s: %w", name, i+1, trace.ActionString(a), err)
		}
		s = next
		tr.Steps = append(tr.Steps, trace.Step{Action: a, State: s})
	}
	return tr, nil
}

// ReplayActions replays a list of actions on the model and the
// implementation (ActionsTrace, then Replay).
func ReplayActions(name string, cfg *model.Config, actions []model.Action, opt Options) error {
	tr, err := ActionsTrace(name, cfg, actions)
	if err != nil {
		return err
	}
	return Replay(cfg, tr, opt)
}
