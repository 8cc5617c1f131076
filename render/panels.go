package render

import (
	"slices"

	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/trace"
)

// panel is one picture of the timeline: the state after its last step,
// and the steps that led there from the previous panel.
type panel struct {
	first, last int      // trace indices of its steps; both 0 for the initial state
	captions    []string // one per step: the action and what it did
	note        []string // the note of a phase beginning at one of its steps
	changed     []bool   // per replica: something drawn differs from the previous panel
	violations  []violation
}

type violation struct {
	invariant, why string
	fresh          bool // not violated in the previous panel's state
}

// panels groups t's steps: a step that changes nothing drawn joins the
// next one, so that the timeline shows what moves. A phase note always
// starts a new panel, and the last step always ends one.
func panels(cfg *model.Config, t trace.Trace, opt Options) []panel {
	steps := t.Steps
	if len(steps) == 1 {
		return []panel{{changed: make([]bool, cfg.N()), violations: violations(cfg, &steps[0].State, opt.Invariants)}}
	}
	var out []panel
	prevShown := 0 // trace index of the state the previous panel shows
	emit := func(first, last int) {
		p := panel{first: first, last: last, changed: make([]bool, cfg.N())}
		for i := first; i <= last; i++ {
			p.captions = append(p.captions, caption(cfg, &steps[i-1].State, &steps[i].State, steps[i].Action))
			p.note = append(p.note, opt.Notes[i]...)
		}
		for r := range cfg.Replicas {
			p.changed[r] = replicaDrawnChanged(&steps[prevShown].State, &steps[last].State, r)
		}
		p.violations = violations(cfg, &steps[last].State, opt.Invariants)
		before := violatedNames(cfg, &steps[prevShown].State, opt.Invariants)
		for k := range p.violations {
			p.violations[k].fresh = prevShown == last || !slices.Contains(before, p.violations[k].invariant)
		}
		out = append(out, p)
		prevShown = last
	}
	start := 1
	for i := 1; i < len(steps); i++ {
		if i > start && len(opt.Notes[i]) > 0 {
			emit(start, i-1)
			start = i
		}
		a, b := &steps[i-1].State, &steps[i].State
		if i == len(steps)-1 || drawnChanged(cfg, a, b) ||
			!slices.Equal(violatedNames(cfg, a, opt.Invariants), violatedNames(cfg, b, opt.Invariants)) {
			emit(start, i)
			start = i + 1
		}
	}
	return out
}

// drawnChanged reports whether anything the timeline draws differs.
func drawnChanged(cfg *model.Config, a, b *model.State) bool {
	for r := range cfg.Replicas {
		if replicaDrawnChanged(a, b, r) {
			return true
		}
	}
	return a.CtrlLeader != b.CtrlLeader || a.CtrlEpoch != b.CtrlEpoch ||
		!slices.Equal(a.CtrlIsr, b.CtrlIsr) || !slices.Equal(a.Acked, b.Acked)
}

// replicaDrawnChanged compares what a replica's row shows: messages, the
// controller queue and the leader's follower views are not drawn.
func replicaDrawnChanged(a, b *model.State, r int) bool {
	return !slices.Equal(a.Log[r], b.Log[r]) || !slices.Equal(a.EpochCache[r], b.EpochCache[r]) ||
		a.HwCheckpoint[r] != b.HwCheckpoint[r] || a.Role[r] != b.Role[r] ||
		a.LeaderEpoch[r] != b.LeaderEpoch[r] || a.Hw[r] != b.Hw[r] || a.FetchState[r] != b.FetchState[r]
}

func violatedNames(cfg *model.Config, s *model.State, invs []string) []string {
	var out []string
	for _, v := range violations(cfg, s, invs) {
		out = append(out, v.invariant)
	}
	return out
}

// violations evaluates invs on s. An invariant that cannot be evaluated
// (the model panics where TLC would report an error) counts as violated.
func violations(cfg *model.Config, s *model.State, invs []string) []violation {
	var out []violation
	for _, name := range invs {
		f, ok := model.Invariants[name]
		if !ok {
			continue
		}
		if holds, err := safely(func() bool { return f(cfg, *s) }); err != "" || !holds {
			why := err
			if why == "" {
				why = explain(cfg, s, name)
			}
			out = append(out, violation{invariant: name, why: why})
		}
	}
	return out
}

func safely(f func() bool) (ok bool, err string) {
	defer func() {
		if p := recover(); p != nil {
			ok, err = false, "cannot be evaluated"
		}
	}()
	return f(), ""
}

// Violation is a checked invariant a state violates, and why (named
// replicas and offsets), as a timeline panel says it.
type Violation struct {
	Invariant, Why string
}

// Violations evaluates the invariants invs (names of model.Invariants;
// others are ignored) on s, as the timeline does: an invariant that cannot
// be evaluated counts as violated.
func Violations(cfg *model.Config, s *model.State, invs []string) []Violation {
	var out []Violation
	for _, v := range violations(cfg, s, invs) {
		out = append(out, Violation{Invariant: v.invariant, Why: v.why})
	}
	return out
}

// EpochColor is the fill of a record of epoch e (white for none): the
// pictures' palette, which the viewer shares so the two read alike.
func EpochColor(e int) string { return epochColor(e) }

// EpochPalette is the list of fills EpochColor cycles through.
func EpochPalette() []string { return append([]string(nil), epochColors...) }

// Colors are the marks the pictures use, by name, for the viewer's CSS.
func Colors() map[string]string {
	return map[string]string{"hw": colorHW, "violated": colorViolated, "changed": colorChanged,
		"text": colorText, "muted": colorMuted, "frame": colorFrame}
}

// RoleLabel is a replica's role as the pictures label it ("leader e2",
// "truncating e1", "offline").
func RoleLabel(s *model.State, r int) string { return roleLabel(s, r) }

// ControllerLine is the controller's state as the pictures print it.
func ControllerLine(s *model.State) string { return controllerLine(s) }
