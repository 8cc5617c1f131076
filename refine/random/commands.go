package random

import (
	"fmt"
	"os"
	"strings"

	"github.com/hwepoch/hwepoch/impl/cluster"
	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/refine"
	"github.com/hwepoch/hwepoch/trace"
	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/commands"
)

// The gopter commands: the model is gopter's State (the expected state),
// a stepped cluster its SystemUnderTest.

// modelState is gopter's State: the configuration the trace runs under
// and the model's state so far. It is a value; NextState returns a new one.
type modelState struct {
	cfg *model.Config
	s   model.State
}

func (m modelState) String() string { return m.cfg.String() }

// sut is one trace's stepped cluster and the commands run on it so far.
type sut struct {
	cfg    *model.Config
	dir    string
	c      *cluster.Cluster
	err    error       // starting the cluster failed
	cmds   []any       // the commands run so far, in order
	failed bool        // a post-condition failed: the rest is not worth running
	model  model.State // the model's state after the commands so far
}

// result is what Run returns: the cluster's refusal (if any) and the
// abstraction of its state after the command.
type result struct {
	refused error
	got     *model.State
	absErr  error
}

// actionCmd takes one action the model enables.
type actionCmd struct {
	r *runner
	a model.Action
}

// probeCmd tries one action the model does not enable (for a reason other
// than a bound): the implementation must refuse it and change nothing.
type probeCmd struct {
	r *runner
	a model.Action
}

// stutterCmd is the only command when the model enables nothing: it
// checks that the implementation is still in the model's state.
type stutterCmd struct{ r *runner }

func (c actionCmd) String() string  { return trace.ActionString(c.a) }
func (c probeCmd) String() string   { return "refused " + trace.ActionString(c.a) }
func (c stutterCmd) String() string { return "stutter" }

func (c actionCmd) PreCondition(st commands.State) bool {
	m := st.(modelState)
	_, err := model.Apply(m.cfg, m.s, c.a)
	return err == nil
}

func (c actionCmd) NextState(st commands.State) commands.State {
	m := st.(modelState)
	next, err := model.Apply(m.cfg, m.s, c.a)
	if err != nil {
		return m // never: PreCondition held
	}
	return modelState{cfg: m.cfg, s: next}
}

func (c actionCmd) Run(x commands.SystemUnderTest) commands.Result { return x.(*sut).do(c, c.a) }

func (c actionCmd) PostCondition(st commands.State, res commands.Result) *gopter.PropResult {
	m := st.(modelState)
	if u := c.r.current; u != nil {
		if c.r.opt.Step != nil {
			c.r.opt.Step(m.cfg, u.model, c.a)
		}
		u.model = m.s
	}
	return c.r.check(m, res.(result), c.a, false)
}

func (c probeCmd) PreCondition(st commands.State) bool {
	m := st.(modelState)
	return refusable(m.cfg, m.s, c.a)
}

func (c probeCmd) NextState(st commands.State) commands.State { return st }

func (c probeCmd) Run(x commands.SystemUnderTest) commands.Result { return x.(*sut).do(c, c.a) }

func (c probeCmd) PostCondition(st commands.State, res commands.Result) *gopter.PropResult {
	return c.r.check(st.(modelState), res.(result), c.a, true)
}

func (stutterCmd) PreCondition(st commands.State) bool {
	m := st.(modelState)
	return len(model.Enabled(m.cfg, m.s)) == 0
}

func (stutterCmd) NextState(st commands.State) commands.State { return st }

func (c stutterCmd) Run(x commands.SystemUnderTest) commands.Result {
	return x.(*sut).do(c, model.Action{})
}

func (c stutterCmd) PostCondition(st commands.State, res commands.Result) *gopter.PropResult {
	return c.r.check(st.(modelState), res.(result), model.Action{}, true)
}

// refusable reports whether the model does not enable a in s for a reason
// the implementation shares: a with the bounds lifted is still not enabled.
// (The bounds MaxRecords, MaxEpoch and MaxCrashes exist only in the model.)
func refusable(cfg *model.Config, s model.State, a model.Action) bool {
	if _, err := model.Apply(cfg, s, a); err == nil {
		return false
	}
	free := *cfg
	free.MaxRecords, free.MaxEpoch, free.MaxCrashes = 1<<20, 1<<20, 1<<20
	_, err := model.Apply(&free, s, a)
	return err != nil
}

// do runs action a on the cluster (nothing for the zero action) and
// abstracts the cluster's state. After a failure the cluster is left alone:
// the trace has failed, and the rest is not worth the time.
func (u *sut) do(cmd any, a model.Action) result {
	u.cmds = append(u.cmds, cmd)
	if u.err != nil {
		return result{absErr: u.err}
	}
	if u.failed {
		return result{absErr: errEarlier}
	}
	var r result
	if a.Kind != model.NoAction {
		r.refused = refine.Step(u.c, u.cfg, a)
	}
	got, err := refine.Abstract(u.cfg, u.c.Snapshot())
	if err != nil {
		r.absErr = err
	} else {
		r.got = &got
	}
	return r
}

var errEarlier = fmt.Errorf("an earlier step failed")

// check is the post-condition: the implementation took the step the model
// took (or refused the one the model refuses), its abstraction equals the
// model's new state, and the invariants the configuration promises hold.
// A failure is remembered with the commands that led to it: the last one
// gopter sees is the shrunk trace.
func (r *runner) check(m modelState, res result, a model.Action, probe bool) *gopter.PropResult {
	if r.opt.InvariantsOnly {
		return r.checkInvariants(m, res)
	}
	var problems []string
	switch {
	case res.absErr == errEarlier:
		return &gopter.PropResult{Status: gopter.PropFalse}
	case res.absErr != nil:
		problems = append(problems, res.absErr.Error())
	case probe && a.Kind != model.NoAction && res.refused == nil:
		problems = append(problems, "the implementation took a step the model does not enable")
	case !probe && res.refused != nil:
		problems = append(problems, fmt.Sprintf("the implementation refused a step the model takes: %v", res.refused))
	}
	if res.got != nil {
		if d := refine.Diff(m.s, *res.got); d != "" {
			problems = append(problems, "the abstraction of the implementation's state differs from the model's (-model +implementation):\n"+d)
		}
	}
	if bad := refine.Violated(m.cfg, m.s, refine.ExpectedInvariants(m.cfg)); len(bad) > 0 {
		problems = append(problems, fmt.Sprintf("invariants the configuration promises are violated: %s", strings.Join(bad, ", ")))
	}
	if len(problems) == 0 {
		return &gopter.PropResult{Status: gopter.PropTrue}
	}
	r.fail(m.cfg, strings.Join(problems, "\n"))
	return &gopter.PropResult{Status: gopter.PropFalse}
}

// checkInvariants is check without the model: the invariants the
// configuration promises, evaluated on the abstraction of the
// implementation's own state.
func (r *runner) checkInvariants(m modelState, res result) *gopter.PropResult {
	switch {
	case res.absErr == errEarlier:
		return &gopter.PropResult{Status: gopter.PropFalse}
	case res.got == nil:
		return &gopter.PropResult{Status: gopter.PropTrue} // no abstraction: nothing to judge
	}
	if bad := refine.Violated(m.cfg, *res.got, refine.ExpectedInvariants(m.cfg)); len(bad) > 0 {
		r.fail(m.cfg, fmt.Sprintf("the implementation's state violates invariants the configuration promises: %s", strings.Join(bad, ", ")))
		return &gopter.PropResult{Status: gopter.PropFalse}
	}
	return &gopter.PropResult{Status: gopter.PropTrue}
}

// newSUT starts a cluster for one trace.
func (r *runner) newSUT(st commands.State) commands.SystemUnderTest {
	m := st.(modelState)
	u := &sut{cfg: m.cfg, model: m.s}
	r.current = u
	r.started++
	if r.opt.Progress != nil {
		r.opt.Progress(r.started)
	}
	dir, err := os.MkdirTemp(refine.TempRoot(r.opt.Dir), "hwepoch-random-")
	if err != nil {
		u.err = err
		return u
	}
	u.dir = dir
	u.c, u.err = refine.NewCluster(m.cfg, dir, r.opt.Cluster)
	return u
}

func (r *runner) destroySUT(x commands.SystemUnderTest) {
	u := x.(*sut)
	if u.c != nil {
		u.c.Close()
	}
	if u.dir != "" {
		os.RemoveAll(u.dir)
	}
}
