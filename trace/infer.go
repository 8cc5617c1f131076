package trace

import (
	"fmt"

	"github.com/hwepoch/hwepoch/model"
)

// A trace format may record states without the actions between them (TLC's
// -dumpTrace tlcplain, Apalache's ITF): the action of such a step is the one
// of the spec's Next that leads from the previous state to it.

// MatchingActions lists, in Next's order, the actions of Next that lead the
// model from s to t.
func MatchingActions(cfg *model.Config, s, t model.State) ([]model.Action, error) {
	var out []model.Action
	err := model.NextPtr(cfg, &s, func(a model.Action, u *model.State) bool {
		if u.Equal(t) {
			out = append(out, a)
		}
		return true
	})
	return out, err
}

// InferAction returns the first action, in Next's order, that leads the
// model from s to t: the action of a step whose trace does not name it.
// When several do, they yield the same model state, so the trace's states
// are checked the same either way; but the implementation is driven down
// the first one only. The ambiguity that can arise is LoseMessage(f)
// against handling a response that changes nothing (lossy configurations
// only; none of the recorded traces has such a step).
func InferAction(cfg *model.Config, s, t model.State) (model.Action, error) {
	var found model.Action
	err := model.NextPtr(cfg, &s, func(a model.Action, u *model.State) bool {
		if u.Equal(t) {
			found = a
			return false
		}
		return true
	})
	if err != nil {
		return model.Action{}, err
	}
	if found.Kind == model.NoAction {
		return model.Action{}, fmt.Errorf("no action of Next leads from the previous state to this one")
	}
	return found, nil
}
