package tlcjson

import (
	"encoding/json"
	"io"

	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/trace"
)

// Write writes t in the shape of TLC's -dumpTrace json (without source
// locations), so that the explorer's traces can be read by tools made for
// TLC's, and so that tests can make small TLC-shaped inputs.
func Write(w io.Writer, cfg *model.Config, t trace.Trace) error {
	type indexed = [2]any
	states := make([]indexed, len(t.Steps))
	for i, st := range t.Steps {
		states[i] = indexed{i + 1, trace.VarsToValues(cfg, st.State, TLCSpelling{})}
	}
	actions := make([][3]any, 0, len(t.Steps))
	for i := 1; i < len(t.Steps); i++ {
		a := t.Steps[i].Action
		info := map[string]any{"name": a.Kind.String(), "context": trace.ActionContext(a), "parameters": a.Kind.Params()}
		actions = append(actions, [3]any{states[i-1], info, states[i]})
	}
	return json.NewEncoder(w).Encode(map[string]any{
		"counterexample": map[string]any{"action": actions, "state": states},
		"vars":           model.VarNames,
	})
}
