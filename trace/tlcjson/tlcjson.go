// Package tlcjson loads the traces TLC writes with -dumpTrace json:
//
//	{"counterexample": {"action": [STEP, ...], "state": [[i, VARS], ...]}, "vars": [...]}
//
// where STEP is [[i, VARS], {"name", "context", "parameters", "location"}, [i+1, VARS]].
// TLC writes sets and sequences both as arrays, functions with model-value
// domains as objects keyed by the model value's name, model values as
// strings and records as objects; values are decoded by the type each
// variable has in the spec.
package tlcjson

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/hwepoch/hwepoch/internal/strictjson"
	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/trace"

	"github.com/hwepoch/hwepoch/internal/inputfile"
)

// Error names the file, the step and the field a load failed at.
type Error struct {
	File  string
	Step  int // index of the state in the trace (0: initial); -1 when not about one step
	Field string
	Msg   string
}

func (e *Error) Error() string {
	s := e.File
	if e.Step >= 0 {
		s += fmt.Sprintf(": step %d", e.Step)
	}
	if e.Field != "" {
		s += ": " + e.Field
	}
	return s + ": " + e.Msg
}

type file struct {
	Counterexample *struct {
		Action []json.RawMessage `json:"action"`
		State  []json.RawMessage `json:"state"`
	} `json:"counterexample"`
	Vars []string `json:"vars"`
}

type actionInfo struct {
	Name    string         `json:"name"`
	Context map[string]any `json:"context"`
}

// Load reads a TLC JSON trace file.
func Load(path string, cfg *model.Config, configName string) (trace.Trace, error) {
	b, err := inputfile.ReadFile(path)
	if err != nil {
		return trace.Trace{}, err
	}
	return Parse(path, b, cfg, configName)
}

func decode(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	return d.Decode(v)
}

// Parse decodes TLC JSON trace bytes; name is used in errors and as Source.
func Parse(name string, b []byte, cfg *model.Config, configName string) (trace.Trace, error) {
	fail := func(step int, field, format string, args ...any) error {
		return &Error{File: name, Step: step, Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	var f file
	if err := strictjson.Unmarshal(b, &f); err != nil {
		return trace.Trace{}, fail(-1, "", "not TLC JSON: %v", err)
	}
	if err := trace.CheckVarNames(f.Vars); err != nil {
		return trace.Trace{}, fail(-1, fieldOf(err), "%s", msgOf(err))
	}
	if f.Counterexample == nil {
		return trace.Trace{}, fail(-1, "counterexample", "missing")
	}
	states := f.Counterexample.State
	if len(states) == 0 {
		return trace.Trace{}, fail(-1, "counterexample.state", "no states")
	}
	// A liveness counterexample is a lasso: one more action, from the last
	// state back to an earlier one (TLC's "Back to state k").
	lasso := len(f.Counterexample.Action) == len(states)
	if len(f.Counterexample.Action) != len(states)-1 && !lasso {
		return trace.Trace{}, fail(-1, "counterexample.action", "%d actions for %d states (want one fewer, or as many for a lasso)", len(f.Counterexample.Action), len(states))
	}
	tr := trace.Trace{Source: "tlc:" + name, ConfigName: configName}
	stateAt := func(step int, field string, raw json.RawMessage) (model.State, error) {
		var pair []json.RawMessage
		if err := decode(raw, &pair); err != nil || len(pair) != 2 {
			return model.State{}, fail(step, field, "want [index, {variables}]")
		}
		var idx int
		if err := decode(pair[0], &idx); err != nil || idx != step+1 {
			return model.State{}, fail(step, field, "state index %s, want %d", pair[0], step+1)
		}
		var vars map[string]any
		if err := decode(pair[1], &vars); err != nil {
			return model.State{}, fail(step, field, "variables: %v", err)
		}
		s, err := trace.ValuesToState(cfg, vars)
		if err != nil {
			return model.State{}, fail(step, field+"."+fieldOf(err), "%s", msgOf(err))
		}
		return s, nil
	}
	for i, raw := range states {
		s, err := stateAt(i, "state", raw)
		if err != nil {
			return trace.Trace{}, err
		}
		tr.Steps = append(tr.Steps, trace.Step{State: s})
	}
	for i, raw := range f.Counterexample.Action {
		step := i + 1
		var parts []json.RawMessage
		if err := decode(raw, &parts); err != nil || len(parts) != 3 {
			return trace.Trace{}, fail(step, "action", "want [[i, before], {action}, [i+1, after]]")
		}
		before, err := stateAt(i, "action.before", parts[0])
		if err != nil {
			return trace.Trace{}, err
		}
		if lasso && step == len(states) {
			// The back edge: its target names the state the cycle starts at.
			var pair []json.RawMessage
			var k int
			if err := decode(parts[2], &pair); err != nil || len(pair) != 2 || decode(pair[0], &k) != nil || k < 1 || k > len(states) {
				return trace.Trace{}, fail(step, "action.after", "a lasso's last action must lead back to one of its %d states", len(states))
			}
			after, err := stateAt(k-1, "action.after", parts[2])
			if err != nil {
				return trace.Trace{}, err
			}
			tr.Lasso, tr.Loop = true, k-1
			if k == len(states) {
				// "State N: Stuttering": the behaviour stays in its last
				// state; TLC writes it as an edge to itself, under the name
				// of an action that is not taken.
				break
			}
			tr.Steps = append(tr.Steps, trace.Step{State: after})
		}
		after, err := stateAt(min(step, len(tr.Steps)-1), "action.after", parts[2])
		if lasso && step == len(states) {
			after, err = tr.Steps[step].State, nil
		}
		if err != nil {
			return trace.Trace{}, err
		}
		if !before.Equal(tr.Steps[i].State) || !after.Equal(tr.Steps[step].State) {
			return trace.Trace{}, fail(step, "action", "the states around the action differ from the trace's states %d and %d", i, step)
		}
		var info actionInfo
		if err := decode(parts[1], &info); err != nil {
			return trace.Trace{}, fail(step, "action.name", "%v", err)
		}
		if info.Name == "" {
			return trace.Trace{}, fail(step, "action.name", "missing")
		}
		a, err := trace.ActionFromContext(cfg, info.Name, info.Context)
		if err != nil {
			field := "action.name"
			if f := fieldOf(err); f != "" {
				field = "action." + f
			}
			return trace.Trace{}, fail(step, field, "%s", msgOf(err))
		}
		tr.Steps[step].Action = a
	}
	return tr, nil
}

func fieldOf(err error) string {
	if fe, ok := err.(*trace.FieldError); ok {
		return fe.Path
	}
	return ""
}

func msgOf(err error) string {
	if fe, ok := err.(*trace.FieldError); ok {
		return fe.Msg
	}
	return err.Error()
}
