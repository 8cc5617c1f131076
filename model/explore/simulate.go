package explore

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/trace"
)

// SimOptions configure random walks (TLC's -simulate).
type SimOptions struct {
	Options
	Seed     uint64 // the walks are a function of the seed
	Walks    int    // number of walks (default 100)
	MaxSteps int    // steps per walk at most (default 100); a walk also ends in a deadlock
}

// SimResult is the outcome of a simulation.
type SimResult struct {
	Walks     int
	Steps     int64 // steps taken over all walks
	Duration  time.Duration
	Violation *Violation // the first violation, with the walk that found it
}

// Simulate takes random walks from Init, choosing uniformly among the
// enabled actions at each step, and checks the invariants in every state
// and the action properties on every step.
func Simulate(ctx context.Context, cfg *model.Config, opts SimOptions) (*SimResult, error) {
	c, err := newChecker(cfg, &opts.Options)
	if err != nil {
		return nil, err
	}
	if opts.Walks <= 0 {
		opts.Walks = 100
	}
	if opts.MaxSteps <= 0 {
		opts.MaxSteps = 100
	}
	rng := rand.New(rand.NewPCG(opts.Seed, opts.Seed^0x9e3779b97f4a7c15))
	start := time.Now()
	res := &SimResult{}
	type succ struct {
		a model.Action
		s model.State
	}
	for w := 0; w < opts.Walks; w++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		res.Walks++
		s := model.Init(cfg)
		tr := trace.Trace{Source: "simulate", ConfigName: opts.ConfigName, Steps: []trace.Step{{State: s}}}
		for step := 0; ; step++ {
			name, err := c.badInvariant(s)
			if err != nil {
				return nil, err
			}
			if name != "" {
				res.Violation = &Violation{Property: name, Trace: tr}
				break
			}
			if step == opts.MaxSteps {
				break
			}
			var succs []succ
			if err := model.Next(cfg, s, func(a model.Action, t model.State) bool {
				succs = append(succs, succ{a, t})
				return true
			}); err != nil {
				return nil, err
			}
			if len(succs) == 0 {
				break
			}
			pick := succs[rng.IntN(len(succs))]
			res.Steps++
			tr.Steps = append(tr.Steps, trace.Step{Action: pick.a, State: pick.s})
			if name, err := c.badProperty(s, pick.s); err != nil {
				return nil, err
			} else if name != "" {
				res.Violation = &Violation{Property: name, Action: true, Trace: tr}
				break
			}
			s = pick.s
		}
		if res.Violation != nil {
			break
		}
	}
	res.Duration = time.Since(start)
	return res, nil
}
