package explore

import (
	"fmt"

	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/trace"
)

// CheckLasso says whether tr, a lasso, is a counterexample to the liveness
// property named: a behaviour of the spec under Fairness in which faults
// stop and the property fails. It checks what the fair-cycle search
// promises, from the trace alone (so TLC's lassos are judged as the
// explorer's): the cycle returns to its loop state; no step of it is a
// Fault (judged by its pair of states, as TLA+ does); for P ~> Q some
// instance has P /\ ~Q at a state of the trace and ~Q all along the cycle,
// for <>[]P some state of the cycle breaks P; and every fairness conjunct
// enabled in every state of the cycle is a step of it. It returns the
// instance found. The trace's steps must already replay (trace.Replay).
func CheckLasso(cfg *model.Config, property string, tr trace.Trace) (instance string, err error) {
	if !tr.Lasso {
		return "", fmt.Errorf("the trace is no lasso")
	}
	if err := tr.CheckLasso(); err != nil {
		return "", err
	}
	p := model.LiveProperties[property]
	if p == nil {
		return "", fmt.Errorf("%s is no liveness property", property)
	}
	steps := tr.Steps
	cycle := steps[tr.Loop:]
	classes := model.FairClasses(cfg)
	enabledAll := make([]bool, len(classes))
	for i := range enabledAll {
		enabledAll[i] = true
	}
	for k, st := range cycle {
		s := st.State
		en := make([]bool, len(classes))
		var next *model.State
		if k+1 < len(cycle) {
			next = &cycle[k+1].State
		}
		fault := false
		err := model.NextPtr(cfg, &s, func(a model.Action, u *model.State) bool {
			if u.Equal(s) {
				return true
			}
			if c := model.FairClassOf(cfg, &s, a); c >= 0 {
				en[c] = true
			}
			if next != nil && model.IsFault(a) && u.Equal(*next) {
				fault = true
			}
			return true
		})
		if err != nil {
			return "", err
		}
		if fault {
			return "", fmt.Errorf("step %d of the cycle is a Fault step (a fault makes the same pair of states)", tr.Loop+k+1)
		}
		for i := range en {
			enabledAll[i] = enabledAll[i] && en[i]
		}
	}
	for i, st := range cycle[1:] {
		prev := cycle[i].State
		if c := model.FairClassOf(cfg, &prev, st.Action); c >= 0 {
			enabledAll[c] = false
		}
	}
	for i, e := range enabledAll {
		if e {
			return "", fmt.Errorf("the cycle is unfair: %s is enabled all along it and never taken", classes[i].String(cfg))
		}
	}
	for i := range p.Instances(cfg) {
		if lassoBreaks(cfg, p, i, steps, cycle) {
			return p.InstanceName(cfg, i), nil
		}
	}
	return "", fmt.Errorf("the lasso does not break %s", property)
}

func lassoBreaks(cfg *model.Config, p *model.LiveProperty, i int, steps, cycle []trace.Step) bool {
	if p.Kind == model.EventuallyAlways {
		for _, st := range cycle {
			s := st.State
			if !p.P(cfg, &s, i) {
				return true
			}
		}
		return false
	}
	started := false
	for _, st := range steps {
		s := st.State
		started = started || p.P(cfg, &s, i) && !p.Q(cfg, &s, i)
	}
	if !started {
		return false
	}
	for _, st := range cycle {
		s := st.State
		if p.Q(cfg, &s, i) {
			return false
		}
	}
	return true
}
