// Package tlatrace loads the traces TLC writes as TLA+ modules, with
// -dumpTrace tla:
//
//	---- MODULE trace_NAME ----
//	LOCAL INSTANCE TLC
//
//	CounterExample ==
//		[action |-> {<<<<1, VARS>>, INFO, <<2, VARS>>>>, ...}, state |-> {<<1, VARS>>, <<2, VARS>>, ...}]
//
//	====
//
// where VARS is a record of the spec's variables and INFO is
// [name |-> "Elect", location |-> [...], context |-> [r |-> r1], parameters |-> <<"r">>];
// and with -dumpTrace tlcplain, whose module defines only the states:
//
//	Trace == <<VARS, VARS, ...>>
//
// Values are in the syntax TLC's ToString prints (see ParseValue). The
// variables are decoded the way trace/tlcjson decodes TLC's JSON, through
// trace.ValuesToState, so both exports of one run load as the same trace.
// A step whose action TLC did not record (every step of a tlcplain trace)
// gets the first action, in Next's order, that leads the model from the
// previous state to its state (InferAction).
package tlatrace

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/trace"

	"github.com/hwepoch/hwepoch/internal/inputfile"
)

// Error names the file, the step and the field a load failed at.
type Error struct {
	File  string
	Line  int // line and column of a syntax error; 0 for other errors
	Col   int
	Step  int // index of the state in the trace (0: initial, TLC's state 1); -1 when not about one step
	Field string
	Msg   string
}

func (e *Error) Error() string {
	s := e.File
	if e.Line > 0 {
		s += fmt.Sprintf(":%d:%d", e.Line, e.Col)
	}
	if e.Step >= 0 {
		s += fmt.Sprintf(": step %d", e.Step)
	}
	if e.Field != "" {
		s += ": " + e.Field
	}
	return s + ": " + e.Msg
}

// Load reads a trace module TLC wrote with -dumpTrace tla (or tlcplain).
// It has the contract of tlcjson.Load: the trace of configuration cfg
// (named cfgName), Source "tlc:"+path; errors are *Error.
func Load(path string, cfg *model.Config, cfgName string) (trace.Trace, error) {
	b, err := inputfile.ReadFile(path)
	if err != nil {
		return trace.Trace{}, err
	}
	return Parse(path, b, cfg, cfgName)
}

// Parse decodes the bytes of a trace module; name is used in errors and as
// Source. It never panics.
func Parse(name string, b []byte, cfg *model.Config, cfgName string) (trace.Trace, error) {
	m, serr := parseModule(b)
	if serr != nil {
		line, col := lineCol(b, serr.off)
		return trace.Trace{}, &Error{File: name, Line: line, Col: col, Step: serr.step, Field: serr.field, Msg: serr.msg}
	}
	// TLC names the module it writes after the file it writes it to
	// (_TLAPlusCounterExample.tla, _TLCTracePlain.tla: ModuleName ==
	// ReplaceFirstSubSeq("", ".tla", file)), as TLA+ requires of every
	// module: a module named otherwise was renamed, or its file was.
	if want := strings.TrimSuffix(filepath.Base(name), ".tla"); m.name != want {
		line, col := lineCol(b, m.nameOff)
		return trace.Trace{}, &Error{File: name, Line: line, Col: col, Step: -1,
			Msg: fmt.Sprintf("module %s is not named after its file: TLC names a -dumpTrace module after the file it writes (want MODULE %s)", m.name, want)}
	}
	l := &loader{name: name, cfg: cfg, tr: trace.Trace{Source: "tlc:" + name, ConfigName: cfgName}}
	var err error
	if d, ok := m.lookup("CounterExample"); ok {
		err = l.counterExample(d.value)
	} else if d, ok := m.lookup("Trace"); ok {
		err = l.plain(d.value)
	} else {
		err = l.fail(-1, "", "module %s defines neither CounterExample (-dumpTrace tla) nor Trace (-dumpTrace tlcplain)", m.name)
	}
	if err != nil {
		return trace.Trace{}, err
	}
	return l.tr, nil
}

func (m *module) lookup(name string) (def, bool) {
	for _, d := range m.defs {
		if d.name == name {
			return d, true
		}
	}
	return def{}, false
}

type loader struct {
	name string
	cfg  *model.Config
	tr   trace.Trace
}

func (l *loader) fail(step int, field, format string, args ...any) error {
	return &Error{File: l.name, Step: step, Field: field, Msg: fmt.Sprintf(format, args...)}
}

// state decodes a record of the spec's variables.
func (l *loader) state(step int, field string, v Value) (model.State, error) {
	if v.Kind != Record {
		return model.State{}, l.fail(step, field, "want a record of the variables, got %s", v.Kind)
	}
	s, err := trace.ValuesToState(l.cfg, neutral(v).(map[string]any))
	if err != nil {
		if fe, ok := err.(*trace.FieldError); ok {
			return model.State{}, l.fail(step, field+"."+fe.Path, "%s", fe.Msg)
		}
		return model.State{}, l.fail(step, field, "%v", err)
	}
	return s, nil
}

// numbered splits TLC's <<n, VARS>>.
func numbered(v Value) (int, Value, bool) {
	if v.Kind != Seq || len(v.Elems) != 2 || v.Elems[0].Kind != Int || v.Elems[1].Kind != Record {
		return 0, Value{}, false
	}
	return v.Elems[0].Int, v.Elems[1], true
}

func isCollection(v Value) bool { return v.Kind == Set || v.Kind == Seq }

// counterExample loads TLC's CounterExample record.
func (l *loader) counterExample(ce Value) error {
	if ce.Kind != Record {
		return l.fail(-1, "CounterExample", "want a record [action |-> ..., state |-> ...], got %s", ce.Kind)
	}
	sv, ok := ce.Field("state")
	if !ok {
		return l.fail(-1, "state", "missing")
	}
	if !isCollection(sv) {
		return l.fail(-1, "state", "want a set of <<n, [variables]>>, got %s", sv.Kind)
	}
	if len(sv.Elems) == 0 {
		return l.fail(-1, "state", "no states")
	}
	slots := make([]*Value, len(sv.Elems))
	for _, e := range sv.Elems {
		n, vars, ok := numbered(e)
		switch {
		case !ok:
			return l.fail(-1, "state", "want <<n, [variables]>>, got %s", e.Kind)
		case n < 1 || n > len(slots):
			return l.fail(-1, "state", "state number %d is not in 1..%d", n, len(slots))
		case slots[n-1] != nil:
			return l.fail(n-1, "state", "state %d appears twice", n)
		}
		slots[n-1] = &vars
	}
	for i, vars := range slots {
		s, err := l.state(i, "state", *vars)
		if err != nil {
			return err
		}
		l.tr.Steps = append(l.tr.Steps, trace.Step{State: s})
	}
	known := make([]bool, len(slots))
	var back *Value // a liveness counterexample's step back into its cycle
	if av, ok := ce.Field("action"); ok {
		if !isCollection(av) {
			return l.fail(-1, "action", "want a set of <<<<n, [variables]>>, [name |-> ...], <<n+1, [variables]>>>>, got %s", av.Kind)
		}
		for _, e := range av.Elems {
			if e.Kind == Seq && len(e.Elems) == 3 {
				n, _, ok1 := numbered(e.Elems[0])
				m, _, ok2 := numbered(e.Elems[2])
				if ok1 && ok2 && n == len(slots) && m >= 1 && m <= n {
					// A lasso (TLC's "Back to state m", or "Stuttering"
					// when m is the last state): not a step of the list.
					if back != nil {
						return l.fail(n, "action", "two actions lead back from the last state")
					}
					back = &e
					l.tr.Lasso, l.tr.Loop = true, m-1
					continue
				}
			}
			step, err := l.action(e, slots, known)
			if err != nil {
				return err
			}
			known[step] = true
		}
	}
	if err := l.infer(known); err != nil {
		return err
	}
	if back == nil || l.tr.Loop == len(slots)-1 {
		return nil // no lasso, or one that stutters in its last state
	}
	// The cycle's closing step: our lassos repeat its target as the last
	// state (trace.Trace.Lasso).
	n := len(slots)
	a, err := l.actionInfo(n, back.Elems[1])
	if err != nil {
		return err
	}
	l.tr.Steps = append(l.tr.Steps, trace.Step{Action: a, State: l.tr.Steps[l.tr.Loop].State})
	return nil
}

// action loads one <<<<n, VARS>>, INFO, <<n+1, VARS>>>> and returns its step, n.
// slots are the states' variables as printed in the state set.
func (l *loader) action(e Value, slots []*Value, known []bool) (int, error) {
	const shape = "want <<<<n, [variables]>>, [name |-> ...], <<n+1, [variables]>>>>"
	if e.Kind != Seq || len(e.Elems) != 3 {
		return 0, l.fail(-1, "action", "%s, got %s", shape, e.Kind)
	}
	n, before, ok1 := numbered(e.Elems[0])
	m, after, ok2 := numbered(e.Elems[2])
	switch {
	case !ok1 || !ok2:
		return 0, l.fail(-1, "action", "%s", shape)
	case n < 1 || n >= len(known):
		return 0, l.fail(-1, "action", "leads from state %d, which is not in 1..%d", n, len(known)-1)
	case m != n+1:
		return 0, l.fail(n, "action", "leads from state %d to state %d, want %d", n, m, n+1)
	case known[n]:
		return 0, l.fail(n, "action", "two actions lead from state %d", n)
	}
	// TLC prints the states around an action as it prints them in the
	// state set; only when the text differs are they decoded and compared.
	if !equal(before, *slots[n-1]) || !equal(after, *slots[n]) {
		bs, err := l.state(n-1, "action.before", before)
		if err != nil {
			return 0, err
		}
		as, err := l.state(n, "action.after", after)
		if err != nil {
			return 0, err
		}
		if !bs.Equal(l.tr.Steps[n-1].State) || !as.Equal(l.tr.Steps[n].State) {
			return 0, l.fail(n, "action", "the states around the action differ from the trace's states %d and %d", n-1, n)
		}
	}
	a, err := l.actionInfo(n, e.Elems[1])
	if err != nil {
		return 0, err
	}
	l.tr.Steps[n].Action = a
	return n, nil
}

// actionInfo decodes an action's [name |-> ..., context |-> ...] record,
// the action of step n.
func (l *loader) actionInfo(n int, info Value) (model.Action, error) {
	if info.Kind != Record {
		return model.Action{}, l.fail(n, "action", "want a record [name |-> ..., context |-> ...], got %s", info.Kind)
	}
	nv, ok := info.Field("name")
	if !ok {
		return model.Action{}, l.fail(n, "action.name", "missing")
	}
	if nv.Kind != String {
		return model.Action{}, l.fail(n, "action.name", "want a string, got %s", nv.Kind)
	}
	ctx := map[string]any{}
	if cv, ok := info.Field("context"); ok {
		if cv.Kind != Record {
			return model.Action{}, l.fail(n, "action.context", "want a record, got %s", cv.Kind)
		}
		ctx = neutral(cv).(map[string]any)
	}
	a, err := trace.ActionFromContext(l.cfg, nv.Str, ctx)
	if err != nil {
		field := "action.name"
		if fe, ok := err.(*trace.FieldError); ok {
			return model.Action{}, l.fail(n, "action."+fe.Path, "%s", fe.Msg)
		}
		return model.Action{}, l.fail(n, field, "%v", err)
	}
	return a, nil
}

// plain loads Trace == <<VARS, ...>>.
func (l *loader) plain(v Value) error {
	if v.Kind != Seq {
		return l.fail(-1, "Trace", "want a sequence of records of the variables, got %s", v.Kind)
	}
	if len(v.Elems) == 0 {
		return l.fail(-1, "Trace", "no states")
	}
	for i, e := range v.Elems {
		s, err := l.state(i, "state", e)
		if err != nil {
			return err
		}
		l.tr.Steps = append(l.tr.Steps, trace.Step{State: s})
	}
	return l.infer(make([]bool, len(v.Elems)))
}

// infer fills in the actions of the steps not known.
func (l *loader) infer(known []bool) error {
	for i := 1; i < len(l.tr.Steps); i++ {
		if known[i] {
			continue
		}
		a, err := trace.InferAction(l.cfg, l.tr.Steps[i-1].State, l.tr.Steps[i].State)
		if err != nil {
			return l.fail(i, "action", "TLC recorded no action, and %v", err)
		}
		l.tr.Steps[i].Action = a
	}
	return nil
}
