// Package random holds the implementation to the model on random traces,
// with gopter's commands: each trace starts from a configuration drawn for
// the policy under test and the model's Init; each command is an action the
// model enables where the trace stands (now and then, one it does not
// enable, which the implementation must refuse); the system under test is a
// fresh stepped cluster; the post-condition of every command is that the
// abstraction of the cluster equals the model's state and that the
// invariants the configuration promises hold. A failing trace is shrunk by
// gopter (commands removed while it still fails and every command stays
// enabled) to a trace from which no single command can be removed.
package random

import (
	"fmt"
	"math/rand"
	"time"

	"github.com/hwepoch/hwepoch/impl/cluster"
	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/refine"
	"github.com/hwepoch/hwepoch/trace"
	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/commands"
	"github.com/leanovate/gopter/gen"
)

// Options configure a run of random traces.
type Options struct {
	Policy string // the spec's Truncation
	Traces int    // passing traces wanted
	// MinSteps and MaxSteps bound a trace's length; gopter grows it from
	// the one to the other over the run (defaults 5 and 25).
	MinSteps, MaxSteps int
	Seed               int64
	// MaxShrinks bounds gopter's shrinking rounds (default 1000).
	MaxShrinks int
	// Dir is where each trace's cluster directory is made ("": see
	// refine.TempRoot).
	Dir string
	// Cluster, if set, changes each cluster's configuration (mutants).
	Cluster func(*cluster.Config)
	// Config, if set, replaces GenConfig.
	Config func(rng *rand.Rand, policy string) *model.Config
	// Progress, if set, is called with the number of clusters started so
	// far (traces, and the shrinking's replays).
	Progress func(started int)
	// InvariantsOnly drops the comparison with the model: the
	// post-condition is only that the abstraction of the implementation's
	// state satisfies the invariants the configuration promises. It is what
	// a property-based test without a model could check, and the mutation
	// check reports it separately to show what refinement adds.
	InvariantsOnly bool
	// Step, if set, is called with every action a trace takes and the
	// model's state before it (the coverage measurement of refine/coverage).
	Step func(cfg *model.Config, pre model.State, a model.Action)
}

// Result is a run's outcome.
type Result struct {
	Policy  string
	Seed    int64
	Passed  int // traces that held
	Started int // clusters started, shrinking included
	Took    time.Duration
	Failure *Failure
}

// Failure is the shrunk failing trace.
type Failure struct {
	Config *model.Config
	// Trace is the shrunk trace's actions with the model's states.
	Trace trace.Trace
	// Refuse is set when the failure is that the implementation took this
	// action, which the model does not enable, after the trace.
	Refuse *model.Action
	// Problem says what failed at the trace's last step.
	Problem string
}

func (f *Failure) String() string {
	s := fmt.Sprintf("%d steps under %s:\n", f.Trace.Len()-1, f.Config)
	for i, st := range f.Trace.Steps[1:] {
		s += fmt.Sprintf("  %2d %s\n", i+1, trace.ActionString(st.Action))
	}
	if f.Refuse != nil {
		s += fmt.Sprintf("  then the implementation must refuse %s\n", trace.ActionString(*f.Refuse))
	}
	return s + f.Problem
}

// runner is one Run's state. gopter runs traces one at a time (one
// worker), so the last failing run it sees is the shrunk one.
type runner struct {
	opt     Options
	started int
	current *sut
	last    *lastFail
}

type lastFail struct {
	cfg     *model.Config
	cmds    []any
	problem string
}

func (r *runner) fail(cfg *model.Config, problem string) {
	u := r.current
	r.last = &lastFail{cfg: cfg, cmds: append([]any(nil), u.cmds...), problem: problem}
	u.failed = true
}

// Run runs random traces until opt.Traces have held or one fails; a
// failure is shrunk and returned in Result.Failure.
func Run(opt Options) (Result, error) {
	if opt.MinSteps <= 0 {
		opt.MinSteps = 5
	}
	if opt.MaxSteps < opt.MinSteps {
		opt.MaxSteps = max(25, opt.MinSteps)
	}
	if opt.MaxShrinks <= 0 {
		opt.MaxShrinks = 1000
	}
	if opt.Config == nil {
		opt.Config = GenConfig
	}
	if _, ok := model.Releases[opt.Policy]; !ok {
		return Result{}, fmt.Errorf("policy %q: want one of %v", opt.Policy, model.Policies)
	}
	start := time.Now()
	r := &runner{opt: opt}
	params := gopter.DefaultTestParametersWithSeed(opt.Seed)
	params.MinSuccessfulTests = opt.Traces
	params.MinSize, params.MaxSize = opt.MinSteps, opt.MaxSteps+1
	params.MaxShrinkCount = opt.MaxShrinks
	params.Workers = 1
	res := commands.Prop(r.commands()).Check(params)
	out := Result{Policy: opt.Policy, Seed: opt.Seed, Passed: res.Succeeded, Started: r.started, Took: time.Since(start)}
	switch {
	case res.Passed():
		return out, nil
	case res.Status == gopter.TestFailed && r.last != nil:
		f, err := r.failure()
		out.Failure = f
		return out, err
	case res.Error != nil:
		return out, fmt.Errorf("gopter: %w", res.Error)
	}
	return out, fmt.Errorf("gopter gave up after %d traces (%d discarded): the model may enable nothing too often", res.Succeeded, res.Discarded)
}

func (r *runner) commands() *commands.ProtoCommands {
	return &commands.ProtoCommands{
		NewSystemUnderTestFunc:     r.newSUT,
		DestroySystemUnderTestFunc: r.destroySUT,
		InitialStateGen: func(p *gopter.GenParameters) *gopter.GenResult {
			cfg := r.opt.Config(p.Rng, r.opt.Policy)
			return gopter.NewGenResult(modelState{cfg: cfg, s: model.Init(cfg)}, gopter.NoShrinker)
		},
		GenCommandFunc: r.genCommand,
	}
}

// genCommand draws the next command: an action the model enables (nine
// times in ten) or a probe with one it does not; the stutter when the model
// enables nothing.
func (r *runner) genCommand(st commands.State) gopter.Gen {
	m := st.(modelState)
	var acts []any
	for _, a := range model.Enabled(m.cfg, m.s) {
		acts = append(acts, actionCmd{r: r, a: a})
	}
	if len(acts) == 0 {
		return gen.Const(stutterCmd{r: r})
	}
	var probes []any
	for _, a := range bindings(m.cfg) {
		if refusable(m.cfg, m.s, a) {
			probes = append(probes, probeCmd{r: r, a: a})
		}
	}
	if len(probes) == 0 {
		return gen.OneConstOf(acts...)
	}
	return gen.Frequency(map[int]gopter.Gen{9: gen.OneConstOf(acts...), 1: gen.OneConstOf(probes...)})
}

// bindings lists every action of Next with every binding of its
// parameters, enabled or not.
func bindings(cfg *model.Config) []model.Action {
	var out []model.Action
	for _, k := range model.ActionKinds() {
		for _, x := range cfg.Replicas {
			switch len(k.Params()) {
			case 1:
				out = append(out, model.Action{Kind: k, R: x, L: x, F: x})
			case 2:
				if k == model.Crash {
					for keep := 0; keep <= cfg.MaxRecords; keep++ {
						out = append(out, model.Action{Kind: k, R: x, Keep: keep})
					}
					continue
				}
				for _, y := range cfg.Replicas {
					out = append(out, model.Action{Kind: k, L: x, F: y})
				}
			}
		}
	}
	return clean(out)
}

// clean zeroes the parameters an action kind does not take, as the model's
// actions have them.
func clean(as []model.Action) []model.Action {
	for i, a := range as {
		b := model.Action{Kind: a.Kind}
		for _, p := range a.Kind.Params() {
			switch p {
			case "r":
				b.R = a.R
			case "l":
				b.L = a.L
			case "f":
				b.F = a.F
			case "keep":
				b.Keep = a.Keep
			}
		}
		as[i] = b
	}
	return as
}

// failure turns the last failing run into a trace.
func (r *runner) failure() (*Failure, error) {
	l := r.last
	f := &Failure{Config: l.cfg, Problem: l.problem}
	var acts []model.Action
	for i, c := range l.cmds {
		switch c := c.(type) {
		case actionCmd:
			acts = append(acts, c.a)
		case probeCmd:
			if i == len(l.cmds)-1 {
				a := c.a
				f.Refuse = &a
			}
		}
	}
	name := fmt.Sprintf("random:%s:seed=%d", r.opt.Policy, r.opt.Seed)
	tr, err := refine.ActionsTrace(name, l.cfg, acts)
	if err != nil {
		return f, fmt.Errorf("the shrunk trace does not replay on the model (a bug in the random runner): %w", err)
	}
	f.Trace = tr
	return f, nil
}
