package explore

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/trace"
)

// Swarm testing (Groce, Zhang, Eide, Chen, Regehr: "Swarm Testing", ISSTA
// 2012): instead of one random walk policy, every walk draws its own
// profile: a weight per action kind (some kinds left out altogether), its
// own step bound and its own, smaller or equal, model bounds. A uniform
// walk spends most of its steps on whatever is enabled most often (fetches);
// a swarm of skewed walks reaches the corners a uniform one almost never
// does (many elections, few fetches, a crash at the right time).

// SwarmOptions configure a swarm of random walks.
type SwarmOptions struct {
	Options
	// Seed fixes every walk: walk i's profile and choices are a function
	// of (Seed, i) alone, so a result is reproducible from the seed and
	// does not depend on Workers.
	Seed uint64
	// Walks is the most walks to take (0: no limit, until ctx ends).
	Walks int
	// MinSteps and MaxSteps bound each walk's step bound, drawn uniformly
	// in [MinSteps, MaxSteps] (defaults 10 and 60).
	MinSteps, MaxSteps int
	// Prefix, if set, is where every walk starts instead of Init: a
	// behaviour of the configuration (its first state Init), whose states
	// are not checked again. The step bound counts the steps after it.
	// It lets a test or a user fuzz the end of a known story.
	Prefix *trace.Trace
	// Branches is how many branches a walk takes (default 16; see
	// swarmWalk).
	Branches int
	// Accept, if set, decides whether a violation is the one wanted (e.g.
	// carries a bug's signature); walks go on until one finds a violation
	// it accepts. A rejected violation ends its branch. nil accepts any.
	// It is called from several goroutines.
	Accept func(*Violation) bool
}

// SwarmResult is the outcome of a swarm. Its counts are over the walks up
// to and including the one that found the accepted violation (all walks
// taken when none did), whatever walks further workers also ran, so they
// are a function of the seed.
type SwarmResult struct {
	Walks    int   // walks counted
	Steps    int64 // steps over those walks
	Rejected int   // violations those walks found that Accept rejected
	Duration time.Duration
	// Violation is the accepted violation of the lowest-numbered walk, nil
	// if none was found.
	Violation *Violation
	// Walk is that walk's number and Profile its profile.
	Walk    int
	Profile WalkProfile
}

// WalkProfile is one walk's draw: per action kind a weight (0: never
// taken), per replica a weight, its step bound and the model bounds it
// runs under. An action's weight is its kind's times its acting
// replica's (the first parameter: r, l, or f for a follower's own steps).
type WalkProfile struct {
	// Weights are the kinds' weights in the walk's two phases: steps
	// before Switch use Weights[0], the rest Weights[1]. Two phases let a
	// walk first build up a state (produce, replicate) and then break it
	// (crash, elect), as a fault schedule does; one uniform mix would
	// spend its one crash before there is anything to lose.
	Weights [2][numKindsSwarm]uint8 // by model.ActionKind
	Switch  int
	// Mute[phase] lists the (kind, replica) pairs a phase never takes,
	// as kind*N + replica: one broker that stops handling the
	// controller's requests for a while (the KIP-320 zombie), or never
	// fetches, is such a pair.
	Mute                                  [2][]bool
	Replicas                              []uint8 // by replica index
	Steps                                 int
	MaxRecords, MaxEpoch, MaxCrashes, MPE int
}

// numKindsSwarm covers every model.ActionKind value (index 0 unused).
const numKindsSwarm = 32

func (p WalkProfile) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "steps<=%d MaxRecords=%d MaxEpoch=%d MaxCrashes=%d MaxPartitionEpoch=%d", p.Steps, p.MaxRecords, p.MaxEpoch, p.MaxCrashes, p.MPE)
	for ph := range p.Weights {
		if ph == 0 {
			fmt.Fprintf(&b, " weights before step %d", p.Switch)
		} else {
			b.WriteString("; after")
		}
		for _, k := range model.ActionKinds() {
			fmt.Fprintf(&b, " %s=%d", k, p.Weights[ph][k])
		}
	}
	fmt.Fprintf(&b, " replicas %v", p.Replicas)
	for ph := range p.Mute {
		var muted []string
		for x, m := range p.Mute[ph] {
			if m {
				muted = append(muted, fmt.Sprintf("%s@%d", model.ActionKind(x/len(p.Replicas)), x%len(p.Replicas)))
			}
		}
		fmt.Fprintf(&b, " muted in phase %d %v", ph, muted)
	}
	return b.String()
}

// weight is action a's weight under the profile.
func (p *WalkProfile) weight(cfg *model.Config, step int, a model.Action) int {
	actor := a.R
	switch {
	case a.L != "":
		actor = a.L
	case a.F != "":
		actor = a.F
	}
	ph := 0
	if step >= p.Switch {
		ph = 1
	}
	i := cfg.Index(actor)
	if p.Mute[ph][int(a.Kind)*len(p.Replicas)+i] {
		return 0
	}
	return int(p.Weights[ph][a.Kind]) * int(p.Replicas[i])
}

// walkRNG is walk i's random source: a function of (seed, i) only.
func walkRNG(seed uint64, i int) *rand.Rand {
	return rand.New(rand.NewPCG(seed^0x5357_4152_4d00_0000, uint64(i)*0x9e3779b97f4a7c15+1))
}

// drawProfile draws walk i's profile. Kinds are left out with probability
// 1/8 (more would almost never leave the ten or so kinds a bug needs all
// present); the others weigh 1, 2, 4, 8 or 16; replicas 1, 4 or 16; a
// (kind, replica) pair is muted with probability 1/12. Each model bound is the
// configuration's with probability 1/2, else uniform below it (a walk
// under smaller bounds is a behaviour of the configuration too: the bounds
// only guard actions).
func drawProfile(cfg *model.Config, opts *SwarmOptions, rng *rand.Rand) WalkProfile {
	var p WalkProfile
	for ph := range p.Weights {
		for _, k := range model.ActionKinds() {
			if rng.IntN(8) == 0 {
				continue
			}
			p.Weights[ph][k] = uint8(1) << rng.IntN(5)
		}
	}
	// Replicas weigh 1, 4 or 16: a quiet replica is one that rarely acts,
	// the third replica of a two-replica story.
	p.Replicas = make([]uint8, cfg.N())
	for i := range p.Replicas {
		p.Replicas[i] = uint8(1) << (2 * rng.IntN(3))
	}
	for ph := range p.Mute {
		p.Mute[ph] = make([]bool, numKindsSwarm*cfg.N())
		for x := range p.Mute[ph] {
			p.Mute[ph][x] = rng.IntN(12) == 0
		}
	}
	p.Steps = opts.MinSteps + rng.IntN(opts.MaxSteps-opts.MinSteps+1)
	p.Switch = rng.IntN(p.Steps + 1)
	bound := func(max, least int) int {
		if max <= least || rng.IntN(2) == 0 {
			return max
		}
		return least + rng.IntN(max-least+1)
	}
	p.MaxRecords = bound(cfg.MaxRecords, 1)
	p.MaxEpoch = bound(cfg.MaxEpoch, 1)
	p.MaxCrashes = bound(cfg.MaxCrashes, 0)
	p.MPE = bound(cfg.MaxPartitionEpoch, 0)
	return p
}

// Swarm takes seeded random walks from Init, each with its own profile
// (drawProfile), choosing among the enabled actions in proportion to their
// kinds' weights, and checks the invariants in every state and the action
// properties on every step, against cfg. It stops at the first walk whose
// violation Accept accepts, after Walks walks, or when ctx ends (then the
// result has no violation and ctx's error is not returned: the counts say
// how far it got).
func Swarm(ctx context.Context, cfg *model.Config, opts SwarmOptions) (*SwarmResult, error) {
	c, err := newChecker(cfg, &opts.Options)
	if err != nil {
		return nil, err
	}
	if opts.MinSteps <= 0 {
		opts.MinSteps = 10
	}
	if opts.MaxSteps <= 0 {
		opts.MaxSteps = 60
	}
	if opts.Branches <= 0 {
		opts.Branches = 16
	}
	if opts.Prefix != nil {
		if i, err := trace.Replay(cfg, *opts.Prefix); err != nil {
			return nil, fmt.Errorf("swarm: the prefix is not a behaviour of the configuration at step %d: %w", i, err)
		}
	}
	if opts.MaxSteps < opts.MinSteps {
		return nil, fmt.Errorf("swarm: MaxSteps %d is below MinSteps %d", opts.MaxSteps, opts.MinSteps)
	}
	workers := max(1, opts.Workers)
	start := time.Now()

	// Walks are claimed in increasing order. Once walk w has found an
	// accepted violation no walk above w is started, and every walk below
	// w was claimed earlier and is finished before the workers return: the
	// lowest accepted walk, and the counts up to it, do not depend on how
	// the walks were spread over the workers.
	var next atomic.Int64
	var best atomic.Int64
	best.Store(math.MaxInt64)
	type done struct {
		walk     int
		steps    int
		rejected int
	}
	var (
		mu      sync.Mutex
		log     []done // every finished walk
		found   = map[int]*walkOut{}
		walkErr error
	)
	var prog swarmProgress
	stopProgress := startSwarmProgress(opts.Progress, opts.ProgressEvery, start, &prog)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				w := int(next.Add(1) - 1)
				if int64(w) > best.Load() || (opts.Walks > 0 && w >= opts.Walks) {
					return
				}
				out, err := c.swarmWalk(ctx, cfg, &opts, w)
				if err != nil {
					mu.Lock()
					if walkErr == nil {
						walkErr = err
					}
					mu.Unlock()
					best.Store(-1)
					return
				}
				if out == nil {
					return // ctx ended mid-walk
				}
				prog.walks.Add(1)
				prog.steps.Add(int64(out.steps))
				accepted := out.v != nil
				mu.Lock()
				log = append(log, done{w, out.steps, out.rejected})
				if accepted {
					found[w] = out
				}
				mu.Unlock()
				if accepted {
					for {
						b := best.Load()
						if int64(w) >= b || best.CompareAndSwap(b, int64(w)) {
							break
						}
					}
				}
			}
		}()
	}
	wg.Wait()
	stopProgress()
	if walkErr != nil {
		return nil, walkErr
	}
	res := &SwarmResult{Duration: time.Since(start)}
	limit := best.Load()
	for _, d := range log {
		if int64(d.walk) > limit {
			continue
		}
		res.Walks++
		res.Steps += int64(d.steps)
		res.Rejected += d.rejected
	}
	if out := found[int(limit)]; limit != math.MaxInt64 && out != nil {
		// The walk ran under its profile's bounds; it must be a behaviour of
		// cfg itself, or the counterexample would not be one of cfg's.
		if i, err := trace.Replay(cfg, out.v.Trace); err != nil {
			return nil, fmt.Errorf("swarm walk %d (%s) is not a behaviour of the configuration at step %d: %w", limit, out.profile, i, err)
		}
		res.Violation, res.Walk, res.Profile = out.v, int(limit), out.profile
	}
	return res, nil
}

// walkOut is what one walk did.
type walkOut struct {
	steps    int
	rejected int        // violations Accept rejected
	v        *Violation // the accepted violation, nil if none
	profile  WalkProfile
}

// swarmWalk takes walk w: nil (and no error) if ctx ended during it. A
// walk is Branches branches: the first from Init; each further one goes
// back to a random state of the previous branch (not its last) and walks
// on from there with fresh choices, so a prefix that took many lucky
// steps to build (a record acknowledged, a replica crashed) is tried with
// several suffixes instead of one. A branch ends at the step bound, where
// nothing the profile takes is enabled, or at a violation Accept rejects.
func (c *checker) swarmWalk(ctx context.Context, cfg *model.Config, opts *SwarmOptions, w int) (*walkOut, error) {
	rng := walkRNG(opts.Seed, w)
	p := drawProfile(cfg, opts, rng)
	sub := *cfg
	sub.MaxRecords, sub.MaxEpoch, sub.MaxCrashes, sub.MaxPartitionEpoch = p.MaxRecords, p.MaxEpoch, p.MaxCrashes, p.MPE
	type succ struct {
		a model.Action
		s model.State
	}
	out := &walkOut{profile: p}
	tr := trace.Trace{Source: fmt.Sprintf("swarm seed %d walk %d", opts.Seed, w), ConfigName: opts.ConfigName,
		Steps: []trace.Step{{State: model.Init(&sub)}}}
	base := 0 // the steps of the prefix, which every branch keeps
	if opts.Prefix != nil {
		tr.Steps = slices.Clone(opts.Prefix.Steps)
		base = len(tr.Steps) - 1
	}
	var succs []succ
	checked := base // tr.Steps[:checked] hold no violation (the first branch checks the prefix's last state)
	for branch := 0; branch < opts.Branches; branch++ {
		if branch > 0 {
			if len(tr.Steps) < base+2 {
				break // the walk never left its start
			}
			tr.Steps = tr.Steps[:base+1+rng.IntN(len(tr.Steps)-base-1)]
			checked = len(tr.Steps)
		}
		for {
			step := len(tr.Steps) - 1 - base
			if step%32 == 0 && ctx.Err() != nil {
				return nil, nil
			}
			s := tr.Steps[base+step].State
			if base+step >= checked {
				name, err := c.badInvariant(s)
				if err != nil {
					return nil, err
				}
				checked = base + step + 1
				if name != "" {
					v := &Violation{Property: name, Trace: trace.Trace{Source: tr.Source, ConfigName: tr.ConfigName, Steps: slices.Clone(tr.Steps)}}
					if opts.Accept == nil || opts.Accept(v) {
						out.v = v
						return out, nil
					}
					out.rejected++
					checked--
					if step == 0 {
						return out, nil // the walk's start violates: nowhere to go back to
					}
					tr.Steps = tr.Steps[:base+step] // the next branch starts before the violation
					break
				}
			}
			if step == p.Steps {
				break
			}
			succs = succs[:0]
			total := 0
			if err := model.Next(&sub, s, func(a model.Action, t model.State) bool {
				if wt := p.weight(cfg, step, a); wt > 0 {
					succs = append(succs, succ{a, t})
					total += wt
				}
				return true
			}); err != nil {
				return nil, err
			}
			if total == 0 {
				break // nothing the profile takes is enabled
			}
			x := rng.IntN(total)
			pick := succs[len(succs)-1]
			for _, sc := range succs {
				x -= p.weight(cfg, step, sc.a)
				if x < 0 {
					pick = sc
					break
				}
			}
			out.steps++
			tr.Steps = append(tr.Steps, trace.Step{Action: pick.a, State: pick.s})
			if name, err := c.badProperty(s, pick.s); err != nil {
				return nil, err
			} else if name != "" {
				v := &Violation{Property: name, Action: true, Trace: trace.Trace{Source: tr.Source, ConfigName: tr.ConfigName, Steps: slices.Clone(tr.Steps)}}
				if opts.Accept == nil || opts.Accept(v) {
					out.v = v
					return out, nil
				}
				out.rejected++
				tr.Steps = tr.Steps[:base+step+1]
				checked = base + step + 1
				break
			}
		}
	}
	return out, nil
}

// swarmProgress counts walks and steps for the progress line.
type swarmProgress struct {
	walks, steps atomic.Int64
}

func startSwarmProgress(w io.Writer, period time.Duration, t0 time.Time, p *swarmProgress) func() {
	if w == nil {
		return func() {}
	}
	if period <= 0 {
		period = 2 * time.Second
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(period)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case now := <-tick.C:
				el := now.Sub(t0).Seconds()
				fmt.Fprintf(w, "swarm: %6.0fs  %d walks  %d steps (%.0f/s)\n", el, p.walks.Load(), p.steps.Load(), float64(p.steps.Load())/el)
			}
		}
	}()
	return func() { close(done); <-finished }
}
