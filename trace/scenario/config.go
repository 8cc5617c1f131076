package scenario

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/hwepoch/hwepoch/model"
)

// The config line binds the spec's constants by their TLA+ names, with
// values spelled as in a TLC .cfg, so that a scenario reads like the
// configuration TLC would run it under.

type valueKind int

const (
	kBool valueKind = iota
	kInt
	kString
	kSet
)

var kindWords = map[valueKind]string{kBool: "TRUE or FALSE", kInt: "a natural number",
	kString: `a quoted string such as "all"`, kSet: "a set of model values such as {r1, r2}"}

// constants are the spec's CONSTANTS a scenario may bind. Truncation is left
// out on purpose: the policies line sets it per case.
var constants = []struct {
	name string
	kind valueKind
	def  string // default, as written; "" = the release's (Fencing, MinIsrGatesHW) or computed from the steps
}{
	{"Replicas", kSet, "{r1,r2}"},
	{"Fencing", kBool, ""},
	{"Acks", kString, `"all"`},
	{"MinInsyncReplicas", kInt, "1"},
	{"MinIsrGatesHW", kBool, ""},
	{"UncleanLeaderElectionEnable", kBool, "FALSE"},
	{"UnflushedLoss", kBool, "FALSE"},
	{"LossyNetwork", kBool, "FALSE"},
	{"MissedLeaderAndIsr", kBool, "FALSE"},
	{"MaxRecords", kInt, ""},
	{"MaxEpoch", kInt, ""},
	{"MaxCrashes", kInt, ""},
	{"MaxPartitionEpoch", kInt, ""},
}

func constantKind(name string) (valueKind, bool) {
	for _, c := range constants {
		if c.name == name {
			return c.kind, true
		}
	}
	return 0, false
}

func constantNames() string {
	names := make([]string, len(constants))
	for i, c := range constants {
		names[i] = c.name
	}
	return strings.Join(names, ", ")
}

// constant is one binding of a config line or a variant.
type constant struct {
	Line  int
	Name  string
	Value value
}

type value struct {
	kind valueKind
	b    bool
	i    int
	s    string
	set  []string
}

// String writes the value canonically, so that selectors compare variants
// by value, not by spelling.
func (v value) String() string {
	switch v.kind {
	case kBool:
		if v.b {
			return "TRUE"
		}
		return "FALSE"
	case kInt:
		return strconv.Itoa(v.i)
	case kString:
		return strconv.Quote(v.s)
	}
	return "{" + strings.Join(v.set, ",") + "}"
}

// parseValue reads text as a value of the kind constant name takes.
func parseValue(name, text string) (value, error) {
	k, ok := constantKind(name)
	if !ok {
		switch name {
		case "Truncation":
			return value{}, fmt.Errorf("constant Truncation is set per case by the policies line, not by config")
		case "None":
			return value{}, fmt.Errorf("constant None is always the model value None; leave it out")
		}
		return value{}, fmt.Errorf("the spec has no constant %s a scenario can set (known: %s)", name, constantNames())
	}
	bad := func() (value, error) {
		return value{}, fmt.Errorf("%s must be %s, not %s", name, kindWords[k], text)
	}
	switch k {
	case kBool:
		switch text {
		case "TRUE":
			return value{kind: kBool, b: true}, nil
		case "FALSE":
			return value{kind: kBool}, nil
		}
		return bad()
	case kInt:
		n, err := strconv.Atoi(text)
		if err != nil || n < 0 || n > 1000 || strings.HasPrefix(text, "+") {
			return bad()
		}
		return value{kind: kInt, i: n}, nil
	case kString:
		if len(text) < 2 || text[0] != '"' || text[len(text)-1] != '"' || strings.ContainsAny(text[1:len(text)-1], `"\`) {
			return bad()
		}
		return value{kind: kString, s: text[1 : len(text)-1]}, nil
	}
	if len(text) < 2 || text[0] != '{' || text[len(text)-1] != '}' {
		return bad()
	}
	var set []string
	inner := strings.TrimSpace(text[1 : len(text)-1])
	for e := range strings.SplitSeq(inner, ",") {
		e = strings.TrimSpace(e)
		if inner == "" {
			break // {} is the empty set
		}
		if !isIdent(e) {
			return value{}, fmt.Errorf("%s: %q is not a model value name", name, e)
		}
		set = append(set, e)
	}
	return value{kind: kSet, set: model.SetOf(set...)}, nil
}

// splitAssignments splits "A=1 B={r1, r2} C=\"x\"" into NAME=VALUE texts:
// spaces separate bindings except inside braces and quotes.
func splitAssignments(text string) ([]string, error) {
	var out []string
	var cur strings.Builder
	depth, quoted := 0, false
	flush := func() {
		if cur.Len() > 0 {
			out = append(out, cur.String())
			cur.Reset()
		}
	}
	for _, ch := range text {
		switch {
		case quoted:
			quoted = ch != '"'
		case ch == '"':
			quoted = true
		case ch == '{':
			depth++
		case ch == '}':
			depth--
			if depth < 0 {
				return nil, fmt.Errorf("unbalanced '}'")
			}
		case (ch == ' ' || ch == '\t') && depth == 0:
			flush()
			continue
		case ch == ' ' || ch == '\t':
			continue // {r1, r2} is {r1,r2}
		}
		cur.WriteRune(ch)
	}
	if quoted {
		return nil, fmt.Errorf("unterminated string")
	}
	if depth != 0 {
		return nil, fmt.Errorf("unbalanced '{'")
	}
	flush()
	return out, nil
}

// parseAssignment reads one NAME=VALUE.
func parseAssignment(line int, tok string) (constant, error) {
	name, text, ok := strings.Cut(tok, "=")
	if !ok || name == "" || text == "" {
		return constant{}, fmt.Errorf("want NAME=VALUE")
	}
	v, err := parseValue(name, text)
	if err != nil {
		return constant{}, err
	}
	return constant{Line: line, Name: name, Value: v}, nil
}

// Config is the model.Config of case c: the defaults, the config lines, c's
// variant, Truncation = c.Policy, and the bounds its steps need unless the
// config sets them. The parser has checked that it is valid for every case.
func (s Scenario) Config(c Case) model.Config {
	cfg, _ := s.config(c)
	return cfg
}

func (s Scenario) config(c Case) (model.Config, error) {
	vals := map[string]value{}
	for _, d := range constants {
		if d.def != "" {
			v, err := parseValue(d.name, d.def)
			if err != nil {
				panic("scenario: bad default: " + err.Error())
			}
			vals[d.name] = v
		}
	}
	for _, k := range s.consts {
		vals[k.Name] = k.Value
	}
	if c.Variant.Name != "" {
		v, err := parseValue(c.Variant.Name, c.Variant.Value)
		if err != nil {
			return model.Config{}, err
		}
		vals[c.Variant.Name] = v
	}
	var produce, elect, crash, isr int
	// A refused action counts too: a bound must not be what refuses it.
	acts := s.Actions(c)
	if a := s.RefusalFor(c); a != nil {
		acts = append(acts, *a)
	}
	for _, a := range acts {
		switch a.Kind {
		case model.Produce:
			produce++
		case model.Elect:
			elect++
		case model.Crash:
			crash++
		case model.ShrinkIsr, model.ExpandIsr:
			isr++
		}
	}
	bound := func(name string, need int) int {
		if v, ok := vals[name]; ok {
			return v.i
		}
		return need
	}
	// Fencing and MinIsrGatesHW are what the case's release does unless the
	// scenario says otherwise (then the case is an ablation).
	rel := model.Releases[c.Policy]
	flag := func(name string, release bool) bool {
		if v, ok := vals[name]; ok {
			return v.b
		}
		return release
	}
	cfg := model.Config{
		Truncation:                  c.Policy,
		Fencing:                     flag("Fencing", rel.Fencing),
		Acks:                        vals["Acks"].s,
		MinInsyncReplicas:           vals["MinInsyncReplicas"].i,
		MinIsrGatesHW:               flag("MinIsrGatesHW", rel.MinIsrGatesHW),
		UncleanLeaderElectionEnable: vals["UncleanLeaderElectionEnable"].b,
		UnflushedLoss:               vals["UnflushedLoss"].b,
		LossyNetwork:                vals["LossyNetwork"].b,
		MissedLeaderAndIsr:          vals["MissedLeaderAndIsr"].b,
		MaxRecords:                  bound("MaxRecords", produce),
		MaxEpoch:                    bound("MaxEpoch", max(elect-1, 0)),
		MaxCrashes:                  bound("MaxCrashes", crash),
		// The partition epoch grows by one per election, per ISR change
		// and per fenced follower (a crash): a bound no case exceeds.
		MaxPartitionEpoch: bound("MaxPartitionEpoch", elect+isr+crash),
	}
	for _, r := range vals["Replicas"].set {
		cfg.Replicas = append(cfg.Replicas, model.Replica(r))
	}
	return cfg, cfg.Validate()
}
