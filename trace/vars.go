package trace

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/hwepoch/hwepoch/model"
)

// The spec's variables as JSON-like values, one type-directed walker for
// both directions. Formats differ only in how they spell sets and functions
// (TLC's JSON: arrays and objects; ITF: {"#set": ...} and {"#map": ...}),
// which the Spelling interface supplies; decoding reads the neutral form
// (sets as arrays, functions as objects keyed by model value) that
// encoding/json yields for TLC's output and that trace/itf normalizes to.

// Spelling says how a format writes sets and functions.
type Spelling interface {
	Set(elems []any) any
	// Func writes a function with model-value domain; keys are sorted.
	Func(keys []string, vals []any) any
}

// VarsToValues returns s's variables (by TLA+ name) as JSON-ready values.
func VarsToValues(cfg *model.Config, s model.State, sp Spelling) map[string]any {
	n := cfg.N()
	fn := func(val func(i int) any) any {
		keys := make([]string, n)
		vals := make([]any, n)
		for i, r := range cfg.Replicas {
			keys[i], vals[i] = string(r), val(i)
		}
		return sp.Func(keys, vals)
	}
	replicas := func(rs []model.Replica) any {
		el := make([]any, len(rs))
		for i, r := range rs {
			el[i] = string(r)
		}
		return sp.Set(el)
	}
	records := func(rs []model.Record) any {
		out := make([]any, len(rs))
		for i, r := range rs {
			out[i] = map[string]any{"id": r.ID, "epoch": r.Epoch}
		}
		return out
	}
	offsetIDs := func(xs []model.OffsetID) any {
		el := make([]any, len(xs))
		for i, x := range xs {
			el[i] = map[string]any{"offset": x.Offset, "id": x.ID}
		}
		return sp.Set(el)
	}
	msg := func(m model.Msg) any {
		out := map[string]any{"type": m.Type.String()}
		for _, f := range model.MsgFields[m.Type][1:] {
			switch f {
			case "leader":
				out[f] = string(m.Leader)
			case "epoch":
				out[f] = m.Epoch
			case "isr":
				out[f] = replicas(m.Isr)
			case "src":
				out[f] = string(m.Src)
			case "dst":
				out[f] = string(m.Dst)
			case "currentEpoch":
				out[f] = m.CurrentEpoch
			case "error":
				out[f] = m.Error.String()
			case "offset":
				out[f] = m.Offset
			case "records":
				out[f] = records(m.Records)
			case "hw":
				out[f] = m.Hw
			case "leo":
				out[f] = m.Leo
			case "partitionEpoch":
				out[f] = m.PartitionEpoch
			case "leaderEpoch":
				out[f] = m.LeaderEpoch
			case "brokerEpochs":
				out[f] = fn(func(i int) any { return m.BrokerEpochs[i] })
			case "lastFetchedEpoch":
				out[f] = m.LastFetchedEpoch
			case "orphan":
				out[f] = m.Orphan
			case "diverging":
				out[f] = m.Diverging
			case "divergingEpoch":
				out[f] = map[string]any{"epoch": m.DivergingEpoch.Epoch, "offset": m.DivergingEpoch.Offset}
			}
		}
		return out
	}
	return map[string]any{
		"log": fn(func(i int) any { return records(s.Log[i]) }),
		"epochCache": fn(func(i int) any {
			out := make([]any, len(s.EpochCache[i]))
			for k, e := range s.EpochCache[i] {
				out[k] = map[string]any{"epoch": e.Epoch, "start": e.Start}
			}
			return out
		}),
		"hwCheckpoint": fn(func(i int) any { return s.HwCheckpoint[i] }),
		"role":         fn(func(i int) any { return s.Role[i].String() }),
		"leaderEpoch":  fn(func(i int) any { return s.LeaderEpoch[i] }),
		"leader":       fn(func(i int) any { return string(s.Leader[i]) }),
		"hw":           fn(func(i int) any { return s.Hw[i] }),
		"isr":          fn(func(i int) any { return replicas(s.Isr[i]) }),
		"followerLeo": fn(func(i int) any {
			return fn(func(j int) any { return s.FollowerLeo[i][j] })
		}),
		"followerBrokerEpoch": fn(func(i int) any {
			return fn(func(j int) any { return s.FollowerBrokerEpoch[i][j] })
		}),
		"fetchState":         fn(func(i int) any { return s.FetchState[i].String() }),
		"produceEpoch":       fn(func(i int) any { return s.ProduceEpoch[i] }),
		"partitionEpoch":     fn(func(i int) any { return s.PartitionEpoch[i] }),
		"pendingIsr":         fn(func(i int) any { return replicas(s.PendingIsr[i]) }),
		"ctrlLeader":         string(s.CtrlLeader),
		"ctrlEpoch":          s.CtrlEpoch,
		"ctrlIsr":            replicas(s.CtrlIsr),
		"ctrlPartitionEpoch": s.CtrlPartitionEpoch,
		"ctrlElr":            replicas(s.CtrlElr),
		"brokerEpoch":        fn(func(i int) any { return s.BrokerEpoch[i] }),
		"ctrlLastKnownElr":   replicas(s.CtrlLastKnownElr),
		"controllerQueue": fn(func(i int) any {
			out := make([]any, len(s.ControllerQueue[i]))
			for k, m := range s.ControllerQueue[i] {
				out[k] = msg(m)
			}
			return out
		}),
		"inflight":       fn(func(i int) any { return msg(s.Inflight[i]) }),
		"alterPartition": fn(func(i int) any { return msg(s.AlterPartition[i]) }),
		"nextId":         s.NextId,
		"crashes":        s.Crashes,
		"acked":          offsetIDs(s.Acked),
		"committed":      offsetIDs(s.Committed),
	}
}

// Collections in a format that tells sets, sequences and tuples apart
// (ITF: {"#set": [...]}, a plain array, {"#tup": [...]}) decode to these
// types, and a value of one where the spec's type wants another is refused
// by name. TLC's JSON writes sets and sequences both as plain arrays, which
// decode as []any and are accepted for either.
type (
	SetValue   []any // a set (ITF #set)
	SeqValue   []any // a sequence (an ITF plain array)
	TupleValue []any // a tuple (ITF #tup): no variable of the spec holds one
)

// FieldError names the variable or field that failed to decode.
type FieldError struct {
	Path string // e.g. log.r1[2].epoch
	Msg  string
}

func (e *FieldError) Error() string { return e.Path + ": " + e.Msg }

// dec decodes neutral JSON values, recording the first error with its path.
type dec struct {
	cfg *model.Config
	err error
}

func (d *dec) fail(path, format string, args ...any) {
	if d.err == nil {
		d.err = &FieldError{Path: path, Msg: fmt.Sprintf(format, args...)}
	}
}

func (d *dec) int(path string, v any) int {
	switch x := v.(type) {
	case json.Number:
		n, err := strconv.Atoi(string(x))
		if err == nil {
			return n
		}
	case float64:
		if x == float64(int(x)) {
			return int(x)
		}
	case int:
		return x
	}
	d.fail(path, "want an integer, got %s", describe(v))
	return 0
}

func (d *dec) bool(path string, v any) bool {
	b, ok := v.(bool)
	if !ok {
		d.fail(path, "want TRUE or FALSE, got %s", describe(v))
	}
	return b
}

// nat decodes an integer the spec's type says is in Nat (an HW, an offset,
// a record id, an epoch of the log): a negative one is refused here, by
// name, rather than drawn or replayed as if it were a state of the spec.
func (d *dec) nat(path string, v any) int { return d.atLeast(path, v, 0) }

// epochOrNone decodes an epoch or LEO where -1 means "none yet" (a
// replica's leaderEpoch, the controller's epoch, a leader's view of a
// follower's LEO before its first fetch).
func (d *dec) epochOrNone(path string, v any) int { return d.atLeast(path, v, -1) }

func (d *dec) atLeast(path string, v any, min int) int {
	n := d.int(path, v)
	if d.err == nil && n < min {
		d.fail(path, "%d is out of range: want %d or more", n, min)
	}
	return n
}

func (d *dec) str(path string, v any) string {
	s, ok := v.(string)
	if !ok {
		d.fail(path, "want a string, got %s", describe(v))
	}
	return s
}

func (d *dec) replica(path string, v any, allowNone bool) model.Replica {
	s := d.str(path, v)
	if d.err != nil {
		return ""
	}
	r := model.Replica(s)
	if r == model.None && allowNone {
		return r
	}
	if d.cfg.Index(r) < 0 {
		d.fail(path, "%q is not a replica of the configuration %v", s, d.cfg.Replicas)
	}
	return r
}

// array decodes a sequence: a plain array, or a sequence of a format that
// tells sets from sequences; a set or a tuple there is refused.
func (d *dec) array(path string, v any) []any {
	switch x := v.(type) {
	case []any:
		return x
	case SeqValue:
		return x
	case SetValue, TupleValue:
		d.fail(path, "want a sequence, got %s", describe(v))
		return nil
	}
	if d.err == nil {
		d.fail(path, "want an array, got %s", describe(v))
	}
	return nil
}

// set decodes a set: a plain array, or a set of a format that tells sets
// from sequences; a sequence or a tuple there is refused.
func (d *dec) set(path string, v any) []any {
	switch x := v.(type) {
	case []any:
		return x
	case SetValue:
		return x
	case SeqValue, TupleValue:
		d.fail(path, "want a set, got %s", describe(v))
		return nil
	}
	if d.err == nil {
		d.fail(path, "want an array, got %s", describe(v))
	}
	return nil
}

func (d *dec) object(path string, v any) map[string]any {
	m, ok := v.(map[string]any)
	if !ok && d.err == nil {
		d.fail(path, "want an object, got %s", describe(v))
	}
	return m
}

// fields checks a record has exactly the given fields.
func (d *dec) record(path string, v any, fields ...string) map[string]any {
	m := d.object(path, v)
	if d.err != nil {
		return nil
	}
	for _, f := range fields {
		if _, ok := m[f]; !ok {
			d.fail(path, "record has no field %q", f)
			return nil
		}
	}
	if len(m) != len(fields) {
		extra := []string{}
		for k := range m {
			if !slices.Contains(fields, k) {
				extra = append(extra, k)
			}
		}
		sort.Strings(extra)
		d.fail(path, "record has unexpected fields %v (want %v)", extra, fields)
		return nil
	}
	return m
}

// fn decodes a function over Replicas into per-replica values.
func fn[T any](d *dec, path string, v any, elem func(path string, v any) T) []T {
	m := d.object(path, v)
	if d.err != nil {
		return nil
	}
	if len(m) != d.cfg.N() {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		d.fail(path, "function domain %v is not Replicas %v", keys, d.cfg.Replicas)
		return nil
	}
	out := make([]T, d.cfg.N())
	for i, r := range d.cfg.Replicas {
		x, ok := m[string(r)]
		if !ok {
			d.fail(path, "function has no value for replica %s", r)
			return nil
		}
		out[i] = elem(path+"."+string(r), x)
	}
	return out
}

func seq[T any](d *dec, path string, v any, elem func(path string, v any) T) []T {
	return elems(d, path, d.array(path, v), elem)
}

// setOf decodes a set's elements; the caller sorts and deduplicates.
func setOf[T any](d *dec, path string, v any, elem func(path string, v any) T) []T {
	return elems(d, path, d.set(path, v), elem)
}

func elems[T any](d *dec, path string, a []any, elem func(path string, v any) T) []T {
	if d.err != nil || len(a) == 0 {
		return nil
	}
	out := make([]T, len(a))
	for i, x := range a {
		out[i] = elem(fmt.Sprintf("%s[%d]", path, i), x)
	}
	return out
}

func (d *dec) records(path string, v any) []model.Record {
	return seq(d, path, v, func(p string, x any) model.Record {
		m := d.record(p, x, "id", "epoch")
		return model.Record{ID: d.nat(p+".id", m["id"]), Epoch: d.nat(p+".epoch", m["epoch"])}
	})
}

func (d *dec) replicaSet(path string, v any) []model.Replica {
	rs := setOf(d, path, v, func(p string, x any) model.Replica { return d.replica(p, x, false) })
	return model.SetOf(rs...)
}

func (d *dec) offsetIDs(path string, v any) []model.OffsetID {
	xs := setOf(d, path, v, func(p string, x any) model.OffsetID {
		m := d.record(p, x, "offset", "id")
		return model.OffsetID{Offset: d.nat(p+".offset", m["offset"]), ID: d.nat(p+".id", m["id"])}
	})
	slices.SortFunc(xs, func(a, b model.OffsetID) int {
		if a.Offset != b.Offset {
			return a.Offset - b.Offset
		}
		return a.ID - b.ID
	})
	return slices.Compact(xs)
}

func (d *dec) msg(path string, v any) model.Msg {
	m := d.object(path, v)
	if d.err != nil {
		return model.Msg{}
	}
	t, err := model.ParseMsgType(d.str(path+".type", m["type"]))
	if d.err != nil {
		return model.Msg{}
	}
	if err != nil {
		d.fail(path+".type", "%v", err)
		return model.Msg{}
	}
	m = d.record(path, v, model.MsgFields[t]...)
	out := model.Msg{Type: t}
	for _, f := range model.MsgFields[t][1:] {
		p, x := path+"."+f, m[f]
		switch f {
		case "leader":
			out.Leader = d.replica(p, x, false)
		case "epoch":
			out.Epoch = d.int(p, x)
		case "isr":
			out.Isr = d.replicaSet(p, x)
		case "src":
			out.Src = d.replica(p, x, false)
		case "dst":
			out.Dst = d.replica(p, x, true)
		case "currentEpoch":
			out.CurrentEpoch = d.int(p, x)
		case "error":
			e, err := model.ParseErrorCode(d.str(p, x))
			if err != nil && d.err == nil {
				d.fail(p, "%v", err)
			}
			out.Error = e
		case "offset":
			out.Offset = d.int(p, x)
		case "records":
			out.Records = d.records(p, x)
		case "hw":
			out.Hw = d.int(p, x)
		case "leo":
			out.Leo = d.int(p, x)
		case "partitionEpoch":
			out.PartitionEpoch = d.int(p, x)
		case "leaderEpoch":
			out.LeaderEpoch = d.int(p, x)
		case "brokerEpochs":
			out.BrokerEpochs = fn(d, p, x, d.int)
		case "lastFetchedEpoch":
			out.LastFetchedEpoch = d.int(p, x)
		case "orphan":
			out.Orphan = d.bool(p, x)
		case "diverging":
			out.Diverging = d.bool(p, x)
		case "divergingEpoch":
			r := d.record(p, x, "epoch", "offset")
			out.DivergingEpoch = model.EpochOffset{Epoch: d.int(p+".epoch", r["epoch"]), Offset: d.int(p+".offset", r["offset"])}
		}
	}
	return out
}

// CheckVarNames checks a trace file's list of the variables it records
// (ITF's and TLC's "vars"): every variable of the spec, each once, and
// nothing else. The error is a *FieldError at "vars".
func CheckVarNames(vars []string) error {
	fail := func(format string, args ...any) error {
		return &FieldError{Path: "vars", Msg: fmt.Sprintf(format, args...) +
			fmt.Sprintf(" (a trace lists the spec's %d variables, each once)", len(model.VarNames))}
	}
	switch {
	case vars == nil:
		return fail("missing")
	case len(vars) == 0:
		return fail("lists no variable")
	}
	seen := map[string]bool{}
	for _, v := range vars {
		switch {
		case !slices.Contains(model.VarNames, v):
			return fail("%q is not a variable of the spec", v)
		case seen[v]:
			return fail("%q is listed twice", v)
		}
		seen[v] = true
	}
	var missing []string
	for _, n := range model.VarNames {
		if !seen[n] {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		names := quoteAll(missing)
		if len(names) > 3 {
			names = append(names[:3], fmt.Sprintf("and %d more", len(missing)-3))
		}
		return fail("%s missing", strings.Join(names, ", "))
	}
	return nil
}

func quoteAll(xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = strconv.Quote(x)
	}
	return out
}

// ValuesToState decodes the spec's variables from neutral JSON values
// (sets as arrays, functions as objects keyed by model value names). Every
// variable must be present; an error is a *FieldError naming the field.
func ValuesToState(cfg *model.Config, vars map[string]any) (model.State, error) {
	d := &dec{cfg: cfg}
	for _, n := range model.VarNames {
		if _, ok := vars[n]; !ok {
			return model.State{}, &FieldError{Path: n, Msg: "variable missing"}
		}
	}
	for k := range vars {
		if !slices.Contains(model.VarNames, k) {
			return model.State{}, &FieldError{Path: k, Msg: "not a variable of the spec"}
		}
	}
	var s model.State
	s.Log = fn(d, "log", vars["log"], d.records)
	s.EpochCache = fn(d, "epochCache", vars["epochCache"], func(p string, v any) []model.Entry {
		return seq(d, p, v, func(p string, x any) model.Entry {
			m := d.record(p, x, "epoch", "start")
			return model.Entry{Epoch: d.nat(p+".epoch", m["epoch"]), Start: d.nat(p+".start", m["start"])}
		})
	})
	s.HwCheckpoint = fn(d, "hwCheckpoint", vars["hwCheckpoint"], d.nat)
	s.Role = fn(d, "role", vars["role"], func(p string, v any) model.Role {
		r, err := model.ParseRole(d.str(p, v))
		if err != nil && d.err == nil {
			d.fail(p, "%v", err)
		}
		return r
	})
	s.LeaderEpoch = fn(d, "leaderEpoch", vars["leaderEpoch"], d.epochOrNone)
	s.Leader = fn(d, "leader", vars["leader"], func(p string, v any) model.Replica { return d.replica(p, v, true) })
	s.Hw = fn(d, "hw", vars["hw"], d.nat)
	s.Isr = fn(d, "isr", vars["isr"], d.replicaSet)
	s.FollowerLeo = fn(d, "followerLeo", vars["followerLeo"], func(p string, v any) []int { return fn(d, p, v, d.epochOrNone) })
	s.FollowerBrokerEpoch = fn(d, "followerBrokerEpoch", vars["followerBrokerEpoch"], func(p string, v any) []int { return fn(d, p, v, d.epochOrNone) })
	s.FetchState = fn(d, "fetchState", vars["fetchState"], func(p string, v any) model.FetchState {
		f, err := model.ParseFetchState(d.str(p, v))
		if err != nil && d.err == nil {
			d.fail(p, "%v", err)
		}
		return f
	})
	s.ProduceEpoch = fn(d, "produceEpoch", vars["produceEpoch"], d.epochOrNone)
	s.PartitionEpoch = fn(d, "partitionEpoch", vars["partitionEpoch"], d.epochOrNone)
	s.PendingIsr = fn(d, "pendingIsr", vars["pendingIsr"], d.replicaSet)
	s.CtrlLeader = d.replica("ctrlLeader", vars["ctrlLeader"], true)
	s.CtrlEpoch = d.epochOrNone("ctrlEpoch", vars["ctrlEpoch"])
	s.CtrlIsr = d.replicaSet("ctrlIsr", vars["ctrlIsr"])
	s.CtrlPartitionEpoch = d.epochOrNone("ctrlPartitionEpoch", vars["ctrlPartitionEpoch"])
	s.CtrlElr = d.replicaSet("ctrlElr", vars["ctrlElr"])
	s.BrokerEpoch = fn(d, "brokerEpoch", vars["brokerEpoch"], d.nat)
	s.CtrlLastKnownElr = d.replicaSet("ctrlLastKnownElr", vars["ctrlLastKnownElr"])
	s.ControllerQueue = fn(d, "controllerQueue", vars["controllerQueue"], func(p string, v any) []model.Msg {
		return seq(d, p, v, d.msg)
	})
	s.Inflight = fn(d, "inflight", vars["inflight"], d.msg)
	s.AlterPartition = fn(d, "alterPartition", vars["alterPartition"], d.msg)
	s.NextId = d.nat("nextId", vars["nextId"])
	s.Crashes = d.nat("crashes", vars["crashes"])
	s.Acked = d.offsetIDs("acked", vars["acked"])
	s.Committed = d.offsetIDs("committed", vars["committed"])
	if d.err != nil {
		return model.State{}, d.err
	}
	return s, nil
}

// ActionFromContext builds an Action from a TLA+ action name and its
// parameter binding (TLC's "context", ITF's action metadata).
func ActionFromContext(cfg *model.Config, name string, ctx map[string]any) (model.Action, error) {
	k, err := model.ParseActionKind(name)
	if err != nil {
		return model.Action{}, err
	}
	d := &dec{cfg: cfg}
	a := model.Action{Kind: k}
	params := k.Params()
	for _, p := range params {
		v, ok := ctx[p]
		if !ok {
			return model.Action{}, &FieldError{Path: "context." + p, Msg: fmt.Sprintf("%s takes parameters %v; %s is missing", name, params, p)}
		}
		switch p {
		case "r":
			a.R = d.replica("context.r", v, false)
		case "l":
			a.L = d.replica("context.l", v, false)
		case "f":
			a.F = d.replica("context.f", v, false)
		case "keep":
			a.Keep = d.int("context.keep", v)
		}
	}
	for p := range ctx {
		if !slices.Contains(params, p) {
			return model.Action{}, &FieldError{Path: "context." + p, Msg: fmt.Sprintf("%s takes no parameter %s (it takes %v)", name, p, params)}
		}
	}
	if d.err != nil {
		return model.Action{}, d.err
	}
	return a, nil
}

// ActionContext is the inverse of ActionFromContext: the parameter binding.
func ActionContext(a model.Action) map[string]any {
	ctx := map[string]any{}
	for _, p := range a.Kind.Params() {
		switch p {
		case "r":
			ctx[p] = string(a.R)
		case "l":
			ctx[p] = string(a.L)
		case "f":
			ctx[p] = string(a.F)
		case "keep":
			ctx[p] = a.Keep
		}
	}
	return ctx
}

func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "nothing"
	case string:
		return fmt.Sprintf("the string %q", x)
	case json.Number, float64, int:
		return fmt.Sprintf("the number %v", x)
	case bool:
		return fmt.Sprintf("%t", x)
	case []any:
		return fmt.Sprintf("an array of %d", len(x))
	case SetValue:
		return fmt.Sprintf("a set (#set) of %d", len(x))
	case SeqValue:
		return fmt.Sprintf("a sequence (a plain array) of %d", len(x))
	case TupleValue:
		return fmt.Sprintf("a tuple (#tup) of %d", len(x))
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}
