package freerun

import (
	"github.com/hwepoch/hwepoch/impl/cluster"
	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/refine"
)

// actionOf maps an event onto the spec action it names (refine.ActionOf).
func actionOf(cfg *model.Config, e cluster.Event) (model.Action, error) {
	return refine.ActionOf(cfg, e)
}
