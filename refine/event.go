package refine

import (
	"fmt"

	"github.com/hwepoch/hwepoch/impl/cluster"
	"github.com/hwepoch/hwepoch/model"
)

// ActionOf maps an event onto the spec action it names: the action by
// name, each of the operator's parameters from the event's Params (broker
// ids mapped to replicas). An event whose action or parameters the spec
// does not have is unmappable, and says which.
func ActionOf(cfg *model.Config, e cluster.Event) (model.Action, error) {
	k, err := model.ParseActionKind(e.Action)
	if err != nil {
		return model.Action{}, fmt.Errorf("the spec has no action %q", e.Action)
	}
	a := model.Action{Kind: k}
	for _, p := range k.Params() {
		v, ok := e.Params[p]
		if !ok {
			return model.Action{}, fmt.Errorf("%s event has no parameter %s (params %v)", e.Action, p, e.Params)
		}
		if p == "keep" {
			a.Keep = int(v)
			continue
		}
		r, err := ReplicaOf(cfg, int32(v))
		if err != nil {
			return model.Action{}, fmt.Errorf("%s event parameter %s: %w", e.Action, p, err)
		}
		switch p {
		case "r":
			a.R = r
		case "l":
			a.L = r
		case "f":
			a.F = r
		}
	}
	return a, nil
}
