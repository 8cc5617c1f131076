package scenario

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/trace"
)

// Verdict is what a run of one case found.
type Verdict struct {
	Case  Case
	Holds bool // every checked invariant held at every state
	// Broken lists, for each checked invariant violated somewhere, the first
	// state where it is, ordered by step (then by the check line).
	Broken []Violation
	// Violated lists, for every state of the trace (index 0: Init), the
	// checked invariants that fail there, in the order of the check line.
	Violated [][]string
	// FailedFinals describes the final assertions the last state does not meet.
	FailedFinals []string
}

// Violation is the first state where one invariant fails.
type Violation struct {
	Invariant string
	Step      int // index in the trace (0: the initial state)
	Line      int // the scenario line of the step that led there (0: Init)
	Action    model.Action
}

func (v Violation) String() string {
	if v.Step == 0 {
		return fmt.Sprintf("%s from the initial state", v.Invariant)
	}
	return fmt.Sprintf("%s at step %d %s (line %d)", v.Invariant, v.Step, v.Action, v.Line)
}

// First is the earliest violation, nil when the case holds.
func (v Verdict) First() *Violation {
	if len(v.Broken) == 0 {
		return nil
	}
	return &v.Broken[0]
}

// Invariants are the names of the violated invariants, in order of Broken.
func (v Verdict) Invariants() []string {
	out := make([]string, len(v.Broken))
	for i, b := range v.Broken {
		out[i] = b.Invariant
	}
	return out
}

func (v Verdict) String() string {
	if v.Holds {
		return "holds"
	}
	parts := make([]string, len(v.Broken))
	for i, b := range v.Broken {
		parts[i] = b.String()
	}
	return "violates " + strings.Join(parts, "; ")
}

// Run applies case c's steps to the model from Init and evaluates the
// checked invariants after every step (and on Init). It does not stop at
// a violation: the steps after it show what becomes of the broken state.
// The trace's ConfigName is "NAME CASE". The trace holds every state, so
// its memory grows with the square of a scenario that keeps appending
// records; Walk visits the states one at a time instead.
func (s Scenario) Run(c Case) (trace.Trace, Verdict, error) {
	tr := trace.Trace{Source: "scenario:" + s.Path, ConfigName: s.Name + " " + c.String()}
	v, err := s.Walk(c, func(_ int, st trace.Step, _ int) error {
		tr.Steps = append(tr.Steps, st)
		return nil
	})
	return tr, v, err
}

// Walk is Run without keeping the trace: it calls visit (if not nil) with
// each state in turn (i = 0 is Init; line is the scenario line of the step
// that led there, 0 for Init) and keeps only the current state, so a
// scenario of any length runs in memory linear in its length. An error
// from visit stops the walk and is returned.
func (s Scenario) Walk(c Case, visit func(i int, st trace.Step, line int) error) (Verdict, error) {
	cfg, err := s.config(c)
	if err != nil {
		return Verdict{}, fmt.Errorf("%s: case %s: %w", s.Path, c, err)
	}
	v := Verdict{Case: c, Holds: true}
	st := model.Init(&cfg)
	i := 0
	record := func(a model.Action, line int) error {
		bad, err := s.violated(&cfg, st)
		if err != nil {
			return &Error{File: s.Path, Line: line, Token: a.String(), Msg: fmt.Sprintf("case %s: %v", c, err)}
		}
		v.Violated = append(v.Violated, bad)
		for _, inv := range bad {
			if !slices.ContainsFunc(v.Broken, func(b Violation) bool { return b.Invariant == inv }) {
				v.Holds = false
				v.Broken = append(v.Broken, Violation{Invariant: inv, Step: i, Line: line, Action: a})
			}
		}
		if visit != nil {
			if err := visit(i, trace.Step{Action: a, State: st}, line); err != nil {
				return err
			}
		}
		i++
		return nil
	}
	if err := record(model.Action{}, 0); err != nil {
		return v, err
	}
	for _, step := range s.StepsFor(c) {
		next, err := model.Apply(&cfg, st, step.Action)
		if err != nil {
			return v, &Error{File: s.Path, Line: step.Line, Token: step.Text,
				Msg: fmt.Sprintf("case %s, step %d: %v%s", c, i, err, enabledHint(&cfg, st))}
		}
		st = next
		if err := record(step.Action, step.Line); err != nil {
			return v, err
		}
	}
	if r := s.refusal(c); r != nil {
		if _, err := model.Apply(&cfg, st, r.Action); err == nil {
			return v, &Error{File: s.Path, Line: r.Line, Token: r.Text,
				Msg: fmt.Sprintf("case %s: the model enables this action after the last step; a refuse line names one it does not", c)}
		}
	}
	v.FailedFinals = s.failedFinals(c, &cfg, &st)
	return v, nil
}

// violated evaluates the check line's invariants on st. The model's
// invariants panic where TLC would stop with an evaluation error; that is
// reported, not propagated.
func (s Scenario) violated(cfg *model.Config, st model.State) (bad []string, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("evaluating the invariants: %v", p)
		}
	}()
	for _, name := range s.Checks {
		if !model.Invariants[name](cfg, st) {
			bad = append(bad, name)
		}
	}
	return bad, nil
}

// enabledHint lists what is enabled where a step was not, which is usually
// enough to see the slip (a missing HandleLeaderAndIsr, a fetch not sent).
func enabledHint(cfg *model.Config, st model.State) string {
	acts := model.Enabled(cfg, st)
	if len(acts) == 0 {
		return "; nothing is enabled here"
	}
	const most = 24
	parts := make([]string, 0, most)
	for i, a := range acts {
		if i == most {
			parts = append(parts, fmt.Sprintf("... (%d more)", len(acts)-most))
			break
		}
		parts = append(parts, a.String())
	}
	return "; enabled here: " + strings.Join(parts, " ")
}

// validateRuns runs every case, so that a file whose steps are not all
// enabled where they stand never loads. progress, if not nil, hears how
// far a long case has come.
func (s Scenario) validateRuns(progress func(msg string)) error {
	for _, c := range s.Cases() {
		if _, err := s.Walk(c, s.Progress(c, "checking", progress)); err != nil {
			return err
		}
	}
	return nil
}

// ProgressEvery is how many steps a case must have for Progress to report,
// and how often it does.
const ProgressEvery = 10_000

// Progress is a visit function for Walk that tells say, every
// ProgressEvery steps of a case that has more, "VERB NAME CASE: step I of
// N". It returns nil (no visiting) when say is nil or the case is short.
func (s Scenario) Progress(c Case, verb string, say func(msg string)) func(int, trace.Step, int) error {
	n := len(s.StepsFor(c))
	if say == nil || n <= ProgressEvery {
		return nil
	}
	return func(i int, _ trace.Step, _ int) error {
		if i > 0 && (i%ProgressEvery == 0 || i == n) {
			say(fmt.Sprintf("%s %s %s: step %d of %d", verb, s.Name, c, i, n))
		}
		return nil
	}
}

// Meets compares a verdict with the case's expect line and final
// assertions: the invariants violated must be exactly those expected. The
// error says every way it differs.
func (v Verdict) Meets(e Expect) error {
	var probs []string
	got := v.Invariants()
	for _, inv := range e.Violates {
		if !contains(got, inv) {
			probs = append(probs, fmt.Sprintf("expected a violation of %s (line %d), but it holds throughout", inv, e.Line))
		}
	}
	for _, b := range v.Broken {
		if !contains(e.Violates, b.Invariant) {
			probs = append(probs, fmt.Sprintf("expected %s to hold (line %d), but it is violated: %s", b.Invariant, e.Line, b))
		}
	}
	probs = append(probs, v.FailedFinals...)
	if len(probs) == 0 {
		return nil
	}
	return fmt.Errorf("case %s: %s", v.Case, strings.Join(probs, "; "))
}

// Verify runs case c and compares the verdict with its expectation.
func (s Scenario) Verify(c Case) (trace.Trace, Verdict, error) {
	tr, v, err := s.Run(c)
	if err != nil {
		return tr, v, err
	}
	if err := v.Meets(s.Expectation(c)); err != nil {
		return tr, v, fmt.Errorf("%s: %w", s.Path, err)
	}
	return tr, v, nil
}
