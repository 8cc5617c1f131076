// Package itf writes and reads traces in the Informal Trace Format (ITF) of
// Apalache and Quint:
//
//	{"#meta": {...}, "vars": [...], "states": [{"#meta": {"index": i}, VAR: VALUE, ...}]}
//
// with sets as {"#set": [...]}, functions as {"#map": [[k, v], ...]},
// tuples as {"#tup": [...]}, integers beyond 2^53 as {"#bigint": "..."} and
// records as plain objects. Model values are written as their names
// (strings). Each state's "#meta" also carries the action that produced it
// ("action": name, "params": {param: value}), so a trace read back names its
// steps as trace.Step requires; other tools' traces without that metadata
// still load, with zero actions.
package itf

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/hwepoch/hwepoch/internal/strictjson"
	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/trace"

	"github.com/hwepoch/hwepoch/internal/inputfile"
)

type spelling struct{}

func (spelling) Set(elems []any) any {
	if elems == nil {
		elems = []any{}
	}
	return map[string]any{"#set": elems}
}

func (spelling) Func(keys []string, vals []any) any {
	pairs := make([]any, len(keys))
	for i := range keys {
		pairs[i] = []any{keys[i], vals[i]}
	}
	return map[string]any{"#map": pairs}
}

// Write writes t as ITF JSON.
func Write(w io.Writer, cfg *model.Config, t trace.Trace) error {
	type state = map[string]any
	doc := map[string]any{
		"#meta": map[string]any{
			"format":             "ITF",
			"format-description": "https://apalache-mc.org/docs/adr/015adr-trace.html",
			"source":             t.Source,
			"description":        "hwepoch trace of configuration " + t.ConfigName,
			"config":             t.ConfigName,
		},
		"vars": model.VarNames,
	}
	states := make([]state, len(t.Steps))
	for i, st := range t.Steps {
		s := state(trace.VarsToValues(cfg, st.State, spelling{}))
		meta := map[string]any{"index": i}
		if st.Action.Kind != model.NoAction {
			meta["action"] = st.Action.Kind.String()
			meta["params"] = trace.ActionContext(st.Action)
		}
		s["#meta"] = meta
		states[i] = s
	}
	doc["states"] = states
	if t.Lasso {
		// ITF's loop: after the last state the behaviour goes on at
		// states[loop]. Our last state is that state again, so each turn
		// has one stuttering step, which no property of the spec can tell.
		doc["loop"] = t.Loop
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(doc)
}

// WriteFile writes t to path as ITF JSON.
func WriteFile(path string, cfg *model.Config, t trace.Trace) error {
	var b bytes.Buffer
	if err := Write(&b, cfg, t); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// ReadFile reads an ITF trace from path.
func ReadFile(path string, cfg *model.Config) (trace.Trace, error) {
	b, err := inputfile.ReadFile(path)
	if err != nil {
		return trace.Trace{}, err
	}
	return Read(path, b, cfg)
}

// Read decodes ITF JSON; name is used in errors and as the Source.
func Read(name string, b []byte, cfg *model.Config) (trace.Trace, error) {
	var doc struct {
		Meta   map[string]any   `json:"#meta"`
		Vars   []string         `json:"vars"`
		States []map[string]any `json:"states"`
		Loop   *int             `json:"loop"`
	}
	if err := strictjson.Unmarshal(b, &doc); err != nil {
		return trace.Trace{}, fmt.Errorf("%s: not ITF JSON: %w", name, err)
	}
	if err := trace.CheckVarNames(doc.Vars); err != nil {
		return trace.Trace{}, fmt.Errorf("%s: %w", name, err)
	}
	if len(doc.States) == 0 {
		return trace.Trace{}, fmt.Errorf("%s: states: no states", name)
	}
	if doc.Loop != nil && (*doc.Loop < 0 || *doc.Loop >= len(doc.States)) {
		return trace.Trace{}, fmt.Errorf("%s: loop: %d is not the index of one of its %d states", name, *doc.Loop, len(doc.States))
	}
	t := trace.Trace{Source: "itf:" + name}
	if c, ok := doc.Meta["config"].(string); ok {
		t.ConfigName = c
	}
	for i, raw := range doc.States {
		meta, _ := raw["#meta"].(map[string]any)
		vars := map[string]any{}
		for k, v := range raw {
			if k == "#meta" {
				continue
			}
			nv, err := normalize(v)
			if err != nil {
				return trace.Trace{}, fmt.Errorf("%s: state %d: %s: %w", name, i, k, err)
			}
			vars[k] = nv
		}
		s, err := trace.ValuesToState(cfg, vars)
		if err != nil {
			return trace.Trace{}, fmt.Errorf("%s: state %d: %w", name, i, err)
		}
		st := trace.Step{State: s}
		if act, ok := meta["action"].(string); ok && i > 0 {
			params, _ := meta["params"].(map[string]any)
			a, err := trace.ActionFromContext(cfg, act, params)
			if err != nil {
				return trace.Trace{}, fmt.Errorf("%s: state %d: #meta.action: %w", name, i, err)
			}
			st.Action = a
		}
		t.Steps = append(t.Steps, st)
	}
	if doc.Loop != nil {
		k, last := *doc.Loop, len(t.Steps)-1
		t.Lasso, t.Loop = true, k
		if !t.Steps[last].State.Equal(t.Steps[k].State) {
			// Another tool's lasso: the step back to states[loop] is not
			// written; it is the step that leads there from the last state.
			a, err := trace.InferAction(cfg, t.Steps[last].State, t.Steps[k].State)
			if err != nil {
				return trace.Trace{}, fmt.Errorf("%s: loop = %d: no step of the spec leads from the last state back to state %d: %w", name, k, k, err)
			}
			t.Steps = append(t.Steps, trace.Step{Action: a, State: t.Steps[k].State})
		}
	}
	return t, nil
}

// normalize turns ITF's tagged values into the form trace decodes, keeping
// what kind of collection each is: sets become trace.SetValue, tuples
// trace.TupleValue and sequences (plain arrays) trace.SeqValue, so that the
// decoder refuses one where the spec's type wants another; maps become
// objects keyed by the key's string (our functions' domains are model
// values), big integers numbers.
func normalize(v any) (any, error) {
	switch x := v.(type) {
	case []any:
		out, err := normalizeAll(x)
		return trace.SeqValue(out), err
	case map[string]any:
		if len(x) == 1 {
			for tag, inner := range x {
				switch tag {
				case "#set", "#tup":
					a, ok := inner.([]any)
					if !ok {
						return nil, fmt.Errorf("%s wants an array", tag)
					}
					out, err := normalizeAll(a)
					if tag == "#set" {
						return trace.SetValue(out), err
					}
					return trace.TupleValue(out), err
				case "#bigint":
					s, ok := inner.(string)
					if !ok {
						return nil, fmt.Errorf("#bigint wants a string")
					}
					if _, err := strconv.ParseInt(s, 10, 64); err != nil {
						return nil, fmt.Errorf("#bigint %q: %v", s, err)
					}
					return json.Number(s), nil
				case "#map":
					pairs, ok := inner.([]any)
					if !ok {
						return nil, fmt.Errorf("#map wants an array of pairs")
					}
					out := map[string]any{}
					for _, p := range pairs {
						kv, ok := p.([]any)
						if !ok || len(kv) != 2 {
							return nil, fmt.Errorf("#map entry is not a [key, value] pair")
						}
						k, ok := kv[0].(string)
						if !ok {
							return nil, fmt.Errorf("#map key %v is not a model value name", kv[0])
						}
						if _, dup := out[k]; dup {
							return nil, fmt.Errorf("#map key %q given twice (a function has one value per argument)", k)
						}
						val, err := normalize(kv[1])
						if err != nil {
							return nil, err
						}
						out[k] = val
					}
					return out, nil
				case "#unserializable":
					return nil, fmt.Errorf("unserializable value %v", inner)
				}
			}
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			n, err := normalize(e)
			if err != nil {
				return nil, err
			}
			out[k] = n
		}
		return out, nil
	}
	return v, nil
}

func normalizeAll(a []any) ([]any, error) {
	out := make([]any, len(a))
	for i, e := range a {
		n, err := normalize(e)
		if err != nil {
			return nil, err
		}
		out[i] = n
	}
	return out, nil
}
