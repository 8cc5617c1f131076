package explore

import (
	"context"
	"fmt"
	"io"
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
	// Archive makes walks start from the archive of cells reached so far
	// (see archive) three walks in four; without it every walk starts at Init
	// (or Prefix).
	Archive bool
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
	// Archived is how many cells the archive held at the end (1 without
	// Archive).
	Archived int
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

	// Walks run in generations of genSize. Within a generation they are
	// claimed in increasing order by the workers; between generations the
	// archive takes the new cells the generation's walks found, merged in
	// walk order. A walk's start (an archive entry) is drawn from the
	// archive as it stood before its generation. So the walks, the lowest
	// accepted one and the counts up to it are a function of the seed,
	// whatever the number of workers.
	arch := newArchive(cfg, opts.Prefix, 3*opts.MaxSteps)
	var (
		mu      sync.Mutex
		outs    = map[int]*walkOut{}
		walkErr error
	)
	var prog swarmProgress
	stopProgress := startSwarmProgress(opts.Progress, opts.ProgressEvery, start, &prog)
	res := &SwarmResult{}
	winner := -1
	var won *walkOut
	for g := 0; winner < 0 && ctx.Err() == nil && walkErr == nil; g++ {
		lo, hi := g*genSize, (g+1)*genSize
		if opts.Walks > 0 {
			hi = min(hi, opts.Walks)
		}
		if lo >= hi {
			break
		}
		var next atomic.Int64
		next.Store(int64(lo))
		var wg sync.WaitGroup
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for ctx.Err() == nil {
					w := int(next.Add(1) - 1)
					if w >= hi {
						return
					}
					out, err := c.swarmWalk(ctx, cfg, &opts, arch, w)
					mu.Lock()
					if err != nil && walkErr == nil {
						walkErr = err
					}
					if out != nil {
						outs[w] = out
					}
					mu.Unlock()
					if err != nil || out == nil {
						return
					}
					prog.walks.Add(1)
					prog.steps.Add(int64(out.steps))
				}
			}()
		}
		wg.Wait()
		if walkErr != nil {
			break
		}
		for w := lo; w < hi; w++ {
			out := outs[w]
			if out == nil {
				break // ctx ended: walks from here on did not finish
			}
			res.Walks++
			res.Steps += int64(out.steps)
			res.Rejected += out.rejected
			if out.v != nil {
				winner, won = w, out
				break
			}
			if opts.Archive {
				arch.merge(out.start, out.cells)
			}
		}
		clear(outs)
	}
	stopProgress()
	if walkErr != nil {
		return nil, walkErr
	}
	res.Duration = time.Since(start)
	res.Archived = len(arch.entries)
	if won != nil {
		// The walk ran under its profile's bounds from an archived state;
		// it must be a behaviour of cfg itself, or the counterexample would
		// not be one of cfg's.
		if i, err := trace.Replay(cfg, won.v.Trace); err != nil {
			return nil, fmt.Errorf("swarm walk %d (%s) is not a behaviour of the configuration at step %d: %w", winner, won.profile, i, err)
		}
		res.Violation, res.Walk, res.Profile = won.v, winner, won.profile
	}
	return res, nil
}

// genSize is how many walks a generation has (see Swarm).
const genSize = 64

// maxNewCells bounds the cells one walk offers the archive (each copies
// the walk's actions so far).
const maxNewCells = 32

// An archive keeps one state per cell reached so far, where a cell is the
// state without its messages, views and checkpoints: roles, epochs, logs,
// HWs, fetch states, the controller's leader, epoch and ISR, and how many
// records are acknowledged, committed and how many crashes happened. Walks
// start from archived states (Go-Explore: Ecoffet et al., "First return,
// then explore", Nature 2021): a state that took a lucky prefix to reach
// (a record acknowledged and a replica crashed, a follower that missed an
// epoch) is kept and walked on from, instead of being reached again by
// luck from Init.
type archive struct {
	cfg      *model.Config
	entries  []archEntry
	seen     map[uint64]bool
	maxDepth int // cells deeper than this are not kept
}

// archEntry is an archived state: the entry it was reached from and the
// actions from there.
type archEntry struct {
	parent int // -1: the root (Init, or the end of the prefix)
	acts   []model.Action
	depth  int // steps from the root
	chosen int // walks that started here (counted between generations)
}

// cell is an archived state's cell found by a walk: the start entry, and
// the walk's actions from its state to the cell's.
type cell struct {
	key   uint64
	start int
	acts  []model.Action
}

func newArchive(cfg *model.Config, prefix *trace.Trace, maxDepth int) *archive {
	a := &archive{cfg: cfg, entries: []archEntry{{parent: -1}}, seen: map[uint64]bool{}, maxDepth: maxDepth}
	var s model.State
	if prefix != nil {
		s = prefix.Steps[len(prefix.Steps)-1].State
	} else {
		s = model.Init(cfg)
	}
	a.seen[cellKey(&s)] = true
	return a
}

// maxArchive bounds the archive (each entry holds its actions, about a
// kilobyte): beyond it, walks still start from the archived states but no
// new ones are kept.
const maxArchive = 200_000

// merge counts the walk's start and adds the cells not archived yet, in
// order.
func (a *archive) merge(start int, cells []cell) {
	a.entries[start].chosen++
	for _, c := range cells {
		depth := a.entries[c.start].depth + len(c.acts)
		if a.seen[c.key] || len(a.entries) >= maxArchive || depth > a.maxDepth {
			continue
		}
		a.seen[c.key] = true
		a.entries = append(a.entries, archEntry{parent: c.start, acts: c.acts, depth: depth})
	}
}

// pick draws a walk's start: the root a quarter of the time, else the
// least often chosen of four archived states drawn uniformly (Go-Explore
// favours the cells least explored from).
func (a *archive) pick(rng *rand.Rand) int {
	if len(a.entries) == 1 || rng.IntN(4) == 0 {
		return 0
	}
	best := -1
	for range 4 {
		e := 1 + rng.IntN(len(a.entries)-1)
		if best < 0 || a.entries[e].chosen < a.entries[best].chosen {
			best = e
		}
	}
	return best
}

// trace rebuilds entry e's behaviour, root first: base's steps, then the
// actions down the entries, applied with the model under cfg.
func (a *archive) trace(base trace.Trace, e int) (trace.Trace, error) {
	var chain [][]model.Action
	for ; e > 0; e = a.entries[e].parent {
		chain = append(chain, a.entries[e].acts)
	}
	tr := trace.Trace{Source: base.Source, ConfigName: base.ConfigName, Steps: slices.Clone(base.Steps)}
	s := tr.Steps[len(tr.Steps)-1].State
	for k := len(chain) - 1; k >= 0; k-- {
		for _, act := range chain[k] {
			t, err := model.Apply(a.cfg, s, act)
			if err != nil {
				return tr, fmt.Errorf("archived walk, step %s: %w", act, err)
			}
			tr.Steps = append(tr.Steps, trace.Step{Action: act, State: t})
			s = t
		}
	}
	return tr, nil
}

// cellKey is the hash of s's cell (see archive).
func cellKey(s *model.State) uint64 {
	return model.Hash64(appendCell(make([]byte, 0, 256), nil, s, nil, nil))
}

// appendCell appends the bytes cellKey hashes: s without its messages,
// views and checkpoints (see archive). With perm (and its inverse pinv)
// set, they are the bytes of s with its replicas renamed as
// model.Permute(cfg, s, perm) renames them, without building that state:
// the cell search (cells.go) takes the least hash over the renamings, a
// cell under symmetry.
func appendCell(buf []byte, cfg *model.Config, s *model.State, perm, pinv []int) []byte {
	put := func(v int) { buf = append(buf, byte(v), byte(v>>8)) }
	for j := range s.Role {
		r := j
		if pinv != nil {
			r = pinv[j] // the replica renamed j
		}
		put(int(s.Role[r]))
		put(s.LeaderEpoch[r])
		put(s.Hw[r])
		put(int(s.FetchState[r]))
		put(len(s.Log[r]))
		for _, x := range s.Log[r] {
			put(x.ID)
			put(x.Epoch)
		}
	}
	rename := func(r model.Replica) model.Replica {
		if perm == nil {
			return r
		}
		if i := cfg.Index(r); i >= 0 {
			return cfg.Replicas[perm[i]]
		}
		return r // None
	}
	buf = append(buf, rename(s.CtrlLeader)...)
	put(s.CtrlEpoch)
	var isr [8]model.Replica
	set := isr[:0]
	if len(s.CtrlIsr) > len(isr) {
		set = make([]model.Replica, 0, len(s.CtrlIsr))
	}
	for _, r := range s.CtrlIsr {
		set = append(set, rename(r))
	}
	if perm != nil {
		slices.Sort(set) // a set is kept sorted, as Permute keeps it
	}
	for _, r := range set {
		buf = append(buf, r...)
		buf = append(buf, 0)
	}
	put(len(s.Acked))
	put(len(s.Committed))
	put(s.Crashes)
	return buf
}

// walkOut is what one walk did.
type walkOut struct {
	start    int    // the archive entry it started from
	cells    []cell // cells not archived before, in the order reached (at most maxNewCells)
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
func (c *checker) swarmWalk(ctx context.Context, cfg *model.Config, opts *SwarmOptions, arch *archive, w int) (*walkOut, error) {
	rng := walkRNG(opts.Seed, w)
	p := drawProfile(cfg, opts, rng)
	startEntry := 0
	if opts.Archive {
		startEntry = arch.pick(rng)
	}
	sub := *cfg
	sub.MaxRecords, sub.MaxEpoch, sub.MaxCrashes, sub.MaxPartitionEpoch = p.MaxRecords, p.MaxEpoch, p.MaxCrashes, p.MPE
	type succ struct {
		a model.Action
		s model.State
	}
	out := &walkOut{profile: p, start: startEntry}
	tr := trace.Trace{Source: fmt.Sprintf("swarm seed %d walk %d", opts.Seed, w), ConfigName: opts.ConfigName,
		Steps: []trace.Step{{State: model.Init(&sub)}}}
	if opts.Prefix != nil {
		tr.Steps = slices.Clone(opts.Prefix.Steps)
	}
	if startEntry > 0 {
		var err error
		if tr, err = arch.trace(tr, startEntry); err != nil {
			return nil, err
		}
	}
	base := len(tr.Steps) - 1 // the steps to the walk's start, which every branch keeps
	seen := map[uint64]bool{}
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
				if opts.Archive && name == "" && step > 0 {
					if k := cellKey(&s); len(out.cells) < maxNewCells && !arch.seen[k] && !seen[k] {
						seen[k] = true
						acts := make([]model.Action, step)
						for i := range acts {
							acts[i] = tr.Steps[base+1+i].Action
						}
						out.cells = append(out.cells, cell{key: k, start: startEntry, acts: acts})
					}
				}
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
	return ticker(w, period, t0, func(el float64) {
		fmt.Fprintf(w, "swarm: %6.0fs  %d walks  %d steps (%.0f/s)\n", el, p.walks.Load(), p.steps.Load(), float64(p.steps.Load())/el)
	})
}
