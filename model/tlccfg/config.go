package tlccfg

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hwepoch/hwepoch/model"
)

// Check is what a .cfg asks of a model checker: the constants as a
// model.Config and the invariants and properties to check.
type Check struct {
	Name       string // the .cfg's base name
	Config     model.Config
	Invariants []string
	Properties []string
	Symmetry   bool // SYMMETRY Symmetry: explore one state per permutation class of Replicas
	// Live: SPECIFICATION LiveSpec, the spec with Fairness
	// (spec/ReplicationLiveness.tla); LiveProperties are the PROPERTIES
	// that are liveness properties (model.LiveProperties), the others stay
	// in Properties.
	Live           bool
	LiveProperties []string
}

// Module is the TLA+ module a check's configuration is run against.
func (c *Check) Module() string {
	if c.Live {
		return "ReplicationLiveness"
	}
	return "Replication"
}

// specConstants are the spec's CONSTANTS, each with the kind of value it takes.
var specConstants = []struct {
	name string
	kind ValueKind
}{
	{"Replicas", Set}, {"None", ModelValue}, {"Truncation", String}, {"Fencing", Bool},
	{"Acks", String}, {"MinInsyncReplicas", Int}, {"MinIsrGatesHW", Bool},
	{"UncleanLeaderElectionEnable", Bool}, {"UnflushedLoss", Bool}, {"LossyNetwork", Bool}, {"MissedLeaderAndIsr", Bool},
	{"MaxRecords", Int}, {"MaxEpoch", Int}, {"MaxCrashes", Int}, {"MaxPartitionEpoch", Int},
}

var kindNames = map[ValueKind]string{ModelValue: "a model value", Int: "an integer", String: "a string", Bool: "TRUE or FALSE", Set: "a set"}

// ToCheck maps a parsed .cfg onto the spec's constants and properties. It
// checks what TLC and the spec's ASSUMEs would: every constant assigned, with
// a value of the right kind; no unknown constant, invariant or property.
func (f *File) ToCheck() (*Check, error) {
	at := func(line int, tok, format string, args ...any) error {
		return &ParseError{File: f.Path, Line: line, Token: tok, Msg: fmt.Sprintf(format, args...)}
	}
	switch {
	case f.Specification != "" && f.Specification != "Spec" && f.Specification != "LiveSpec":
		return nil, at(f.line(f.Specification), f.Specification,
			"SPECIFICATION must be Spec (Init /\\ [][Next]_vars) or LiveSpec (Spec /\\ Fairness, module ReplicationLiveness)")
	case f.Specification == "" && (f.Init != "Init" || f.Next != "Next"):
		return nil, at(max(f.line("INIT"), f.line("NEXT")), "", "give SPECIFICATION Spec, or INIT Init and NEXT Next")
	}
	live := f.Specification == "LiveSpec"
	if live && f.Symmetry != "" {
		return nil, at(f.line(f.Symmetry), f.Symmetry, "SYMMETRY with LiveSpec: a quotient graph can hide or invent fair cycles (TLC warns of the same); check liveness without it")
	}
	if f.Symmetry != "" && f.Symmetry != "Symmetry" {
		return nil, at(f.line(f.Symmetry), f.Symmetry, "SYMMETRY must be the spec's Symmetry (Permutations(Replicas))")
	}
	if len(f.Constraints) > 0 {
		return nil, at(f.line(f.Constraints[0]), f.Constraints[0], "CONSTRAINT is not supported: the spec bounds its state space with MaxRecords, MaxEpoch and MaxCrashes")
	}
	known := map[string]ValueKind{}
	for _, c := range specConstants {
		known[c.name] = c.kind
	}
	vals := map[string]Value{}
	for _, c := range f.Constants {
		k, ok := known[c.Name]
		if !ok {
			return nil, at(c.Line, c.Name, "the spec declares no constant %s", c.Name)
		}
		if c.Value.Kind != k {
			return nil, at(c.Line, c.Value.String(), "%s must be %s", c.Name, kindNames[k])
		}
		vals[c.Name] = c.Value
	}
	// A constant not assigned is missing from the CONSTANTS section.
	constantsLine := f.line("CONSTANTS")
	if _, ok := f.Lines["CONSTANTS"]; !ok {
		constantsLine = f.line("CONSTANT")
	}
	for _, c := range specConstants {
		if _, ok := vals[c.name]; !ok {
			return nil, at(constantsLine, "", "constant %s is not assigned", c.name)
		}
	}
	none := vals["None"]
	if none.Name != string(model.None) {
		return nil, at(none.Line, none.Name, "None must be the model value None (None = None)")
	}
	var cfg model.Config
	for _, e := range vals["Replicas"].Elems {
		if e.Kind != ModelValue {
			return nil, at(e.Line, e.String(), "Replicas must be a set of model values")
		}
		if e.Name == none.Name {
			return nil, at(e.Line, e.Name, "ASSUME None \\notin Replicas")
		}
		cfg.Replicas = append(cfg.Replicas, model.Replica(e.Name))
	}
	slices.Sort(cfg.Replicas)
	cfg.Replicas = slices.Compact(cfg.Replicas) // a set: {r1, r1} is {r1}
	cfg.Truncation = vals["Truncation"].Str
	cfg.Fencing = vals["Fencing"].Bool
	cfg.Acks = vals["Acks"].Str
	cfg.MinInsyncReplicas = vals["MinInsyncReplicas"].Int
	cfg.MinIsrGatesHW = vals["MinIsrGatesHW"].Bool
	cfg.UncleanLeaderElectionEnable = vals["UncleanLeaderElectionEnable"].Bool
	cfg.UnflushedLoss = vals["UnflushedLoss"].Bool
	cfg.LossyNetwork = vals["LossyNetwork"].Bool
	cfg.MissedLeaderAndIsr = vals["MissedLeaderAndIsr"].Bool
	cfg.MaxRecords = vals["MaxRecords"].Int
	cfg.MaxEpoch = vals["MaxEpoch"].Int
	cfg.MaxCrashes = vals["MaxCrashes"].Int
	cfg.MaxPartitionEpoch = vals["MaxPartitionEpoch"].Int
	if err := cfg.Validate(); err != nil {
		// Place the error at the constant it names.
		line := constantsLine
		for _, c := range f.Constants {
			if strings.Contains(err.Error(), "constant "+c.Name+" ") || c.Name == "Replicas" && strings.Contains(err.Error(), "replica ") {
				line = c.Line
				break
			}
		}
		return nil, at(line, "", "ASSUME violated: %v", err)
	}
	if len(f.Invariants) == 0 && len(f.Properties) == 0 {
		// Every search of it would "hold": a verdict that says nothing.
		return nil, at(f.line("CONSTANTS"), "", "the configuration checks nothing: give INVARIANTS or PROPERTIES")
	}
	for _, n := range f.Invariants {
		if _, ok := model.Invariants[n]; !ok {
			return nil, at(f.line(n), n, "unknown invariant %s (the spec's invariants: %v)", n, model.InvariantNames())
		}
	}
	var props, liveProps []string
	for _, n := range f.Properties {
		if _, ok := model.LiveProperties[n]; ok {
			if !live {
				return nil, at(f.line(n), n, "%s is a liveness property: it needs SPECIFICATION LiveSpec (the spec with its fairness, module ReplicationLiveness)", n)
			}
			liveProps = append(liveProps, n)
			continue
		}
		if _, ok := model.Properties[n]; !ok {
			return nil, at(f.line(n), n, "unknown property %s (the spec's action properties: %v; liveness properties: %v)",
				n, model.PropertyNames(), model.LivePropertyNames())
		}
		props = append(props, n)
	}
	if live && (len(f.Invariants) > 0 || len(props) > 0) {
		n := append(append([]string(nil), f.Invariants...), props...)[0]
		return nil, at(f.line(n), n, "a LiveSpec configuration checks liveness only: check %s in a configuration of Spec", n)
	}
	if live && len(liveProps) == 0 {
		return nil, at(f.line(f.Specification), f.Specification, "SPECIFICATION LiveSpec checks no liveness property: name one under PROPERTIES (%v)", model.LivePropertyNames())
	}
	return &Check{Name: Base(f.Path), Config: cfg, Invariants: f.Invariants, Properties: props,
		Symmetry: f.Symmetry != "", Live: live, LiveProperties: liveProps}, nil
}

// LoadCheck parses path and maps it with ToCheck.
func LoadCheck(path string) (*Check, error) {
	f, err := ParseFile(path)
	if err != nil {
		return nil, err
	}
	return f.ToCheck()
}
