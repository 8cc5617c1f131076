package scenario

import (
	"fmt"
	"strings"

	"github.com/hwepoch/hwepoch/model"
)

// Scenario is a parsed scenario file. It is a value: running it does not
// change it.
type Scenario struct {
	Path        string   // the file it was read from (for errors)
	Name        string   // the name line
	Title       string   // the first line of the comment block before the name line
	Description []string // the rest of that block; "" separates paragraphs
	Policies    []string // Truncation values, in the order of the policies line
	Variants    []Assignment
	Checks      []string // invariant names, in the order of the check line
	Steps       []Step
	Expects     []Expect
	Finals      []Final
	Refusals    []Refusal

	consts []constant // the config lines, in order
}

// Assignment is one constant binding, Name=Value as written.
type Assignment struct {
	Name  string
	Value string
}

func (a Assignment) String() string {
	if a.Name == "" {
		return ""
	}
	return a.Name + "=" + a.Value
}

// Case is one run of a scenario: a policy and, when the scenario declares
// variants, one of them.
type Case struct {
	Policy  string
	Variant Assignment // zero when the scenario has no variants
}

// String is the case as selectors spell it: "LeaderEpoch" or
// "LeaderEpoch Fencing=TRUE".
func (c Case) String() string {
	if c.Variant.Name == "" {
		return c.Policy
	}
	return c.Policy + " " + c.Variant.String()
}

// Slug is the case for file names: "LeaderEpoch", "LeaderEpoch-Fencing-TRUE".
func (c Case) Slug() string {
	if c.Variant.Name == "" {
		return c.Policy
	}
	v := strings.Trim(c.Variant.Value, `"{}`)
	v = strings.NewReplacer(",", "-", " ", "").Replace(v)
	return c.Policy + "-" + c.Variant.Name + "-" + v
}

// Selector restricts a line to some cases; the zero Selector matches all.
type Selector struct {
	Policies []string
	Variants []Assignment
}

// Matches reports whether case c is selected: its policy is among the
// policies named (or none is named), and likewise its variant.
func (s Selector) Matches(c Case) bool {
	okP := len(s.Policies) == 0
	for _, p := range s.Policies {
		okP = okP || p == c.Policy
	}
	okV := len(s.Variants) == 0
	for _, v := range s.Variants {
		okV = okV || v == c.Variant
	}
	return okP && okV
}

func (s Selector) String() string {
	var parts []string
	parts = append(parts, s.Policies...)
	for _, v := range s.Variants {
		parts = append(parts, v.String())
	}
	if len(parts) == 0 {
		return ""
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// Step is one action line.
type Step struct {
	Line   int
	Text   string // the action as written, for messages
	Only   Selector
	Action model.Action
	Note   []string // the comment block before it: the phase it begins
}

// Expect is one expect line: the checked invariants the case violates at
// some step (in the order written); every other checked invariant holds at
// every step. None means "holds".
type Expect struct {
	Line     int
	Only     Selector
	Violates []string
}

func (e Expect) String() string {
	if len(e.Violates) == 0 {
		return "holds"
	}
	return "violates " + strings.Join(e.Violates, " ")
}

// Refusal is one refuse line: an action the model does not enable after
// the last step of the cases it selects, which the implementation must
// refuse, changing nothing (a guard a scenario's steps cannot show, such as
// a produce refused NOT_ENOUGH_REPLICAS).
type Refusal struct {
	Line   int
	Only   Selector
	Text   string // the action as written, for messages
	Action model.Action
}

// RefusalFor is the action case c must refuse after its last step, if its
// scenario has a refuse line for it (the parser allows at most one).
func (s Scenario) RefusalFor(c Case) *model.Action {
	if r := s.refusal(c); r != nil {
		a := r.Action
		return &a
	}
	return nil
}

func (s Scenario) refusal(c Case) *Refusal {
	for i, r := range s.Refusals {
		if r.Only.Matches(c) {
			return &s.Refusals[i]
		}
	}
	return nil
}

// Final is one final assertion.
type Final struct {
	Line    int
	Only    Selector
	Field   string
	Replica model.Replica // "" for whole-state fields
	Want    string        // canonical: tokens joined by one space
}

func (f Final) String() string {
	r := ""
	if f.Replica != "" {
		r = " " + string(f.Replica)
	}
	return fmt.Sprintf("%s%s = %s", f.Field, r, f.Want)
}

// Cases lists the scenario's runs: policies in the order written, each with
// every variant in the order written.
func (s Scenario) Cases() []Case {
	var out []Case
	for _, p := range s.Policies {
		if len(s.Variants) == 0 {
			out = append(out, Case{Policy: p})
			continue
		}
		for _, v := range s.Variants {
			out = append(out, Case{Policy: p, Variant: v})
		}
	}
	return out
}

// FindCase returns the case whose String is label ("LeaderEpoch" or
// "LeaderEpoch Fencing=TRUE").
func (s Scenario) FindCase(label string) (Case, error) {
	var names []string
	for _, c := range s.Cases() {
		if c.String() == label {
			return c, nil
		}
		names = append(names, fmt.Sprintf("%q", c.String()))
	}
	return Case{}, fmt.Errorf("scenario %s has no case %q; its cases are %s", s.Name, label, strings.Join(names, ", "))
}

// StepsFor lists the steps taken in case c, in order.
func (s Scenario) StepsFor(c Case) []Step {
	var out []Step
	for _, st := range s.Steps {
		if st.Only.Matches(c) {
			out = append(out, st)
		}
	}
	return out
}

// Actions lists the actions taken in case c: what the implementation side
// replays, with Config(c).
func (s Scenario) Actions(c Case) []model.Action {
	steps := s.StepsFor(c)
	out := make([]model.Action, len(steps))
	for i, st := range steps {
		out[i] = st.Action
	}
	return out
}

// Expectation is the expect line that covers case c. The parser guarantees
// there is exactly one for each case.
func (s Scenario) Expectation(c Case) Expect {
	for _, e := range s.Expects {
		if e.Only.Matches(c) {
			return e
		}
	}
	return Expect{}
}

// Notes maps the index in c's trace (1 = the first step) of each step that
// begins a phase to that phase's comment lines.
func (s Scenario) Notes(c Case) map[int][]string {
	out := map[int][]string{}
	for i, st := range s.StepsFor(c) {
		if len(st.Note) > 0 {
			out[i+1] = st.Note
		}
	}
	return out
}
