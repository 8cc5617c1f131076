package explore

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hwepoch/hwepoch/model"
)

// chunkSize is how many frontier states one worker claims at a time; chunks
// are the unit of deterministic ordering.
const chunkSize = 256

// node is a frontier state, encoded (model.AppendEncoding), and its number
// in BFS order. Frontier states are kept encoded: a few hundred bytes each
// instead of dozens of small objects, and nothing for the GC to scan.
type node struct {
	enc []byte
	idx uint32
}

// cand is a successor not seen before this level; its encoding is
// arena[off:off+n] of its chunk.
type cand struct {
	fp     uint64
	off, n uint32
	parent uint32
	act    packed
	win    bool // first of its fingerprint in BFS order: becomes a new state
}

// chunkOut is what expanding one chunk of the frontier produced.
type chunkOut struct {
	arena     []byte
	cands     []cand
	generated int64
	// the first violations in the chunk, in frontier order
	inv     *found
	act     *found
	evalErr error
}

type found struct {
	pos      int // position in the frontier, for ordering
	property string
	idx      uint32 // the violating state (invariant) or the step's source (action)
	step     packed // the violating step (action properties)
}

type checker struct {
	cfg     *model.Config
	perms   [][]int // every replica permutation, the identity first, with Symmetry
	pinvs   [][]int // their inverses
	fullSym bool    // Options.FullSymmetry
	reduce  bool    // Options.Reduce
	invs    []namedInv
	props   []namedProp
	// pk is the packed engine (packedrun.go), nil when the search runs on
	// model.State (Options.Engine, or a configuration beyond its maxima).
	pk *packedEngine
}

type namedInv struct {
	name string
	f    model.Invariant
}

type namedProp struct {
	name string
	f    model.ActionProperty
}

func newChecker(cfg *model.Config, opts *Options) (*checker, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := model.CheckNames(opts.Invariants, opts.Properties); err != nil {
		return nil, err
	}
	c := &checker{cfg: cfg, reduce: opts.Reduce}
	if opts.Symmetry {
		if cfg.N() > 8 {
			return nil, fmt.Errorf("symmetry over %d replicas: the explorer handles at most 8", cfg.N())
		}
		c.fullSym = opts.FullSymmetry
		c.perms = model.Permutations(cfg.N())
		for _, p := range c.perms {
			c.pinvs = append(c.pinvs, model.Inverse(p))
		}
	}
	for _, n := range opts.Invariants {
		c.invs = append(c.invs, namedInv{n, model.Invariants[n]})
	}
	for _, n := range opts.Properties {
		c.props = append(c.props, namedProp{n, model.Properties[n]})
	}
	switch opts.Engine {
	case EngineAuto, EnginePacked:
		pk, err := newPackedEngine(cfg, c)
		if err != nil && opts.Engine == EnginePacked {
			return nil, fmt.Errorf("the packed engine cannot search this configuration: %w", err)
		}
		c.pk = pk
	case EngineReadable:
	default:
		return nil, fmt.Errorf("engine %q: want %q, %q or %q", opts.Engine, EngineAuto, EnginePacked, EngineReadable)
	}
	return c, nil
}

// badInvariant returns the first configured invariant s violates, in the
// configuration's order (TLC's order), or "". A panic while evaluating one is
// returned as an error, as TLC would stop with one.
func (c *checker) badInvariant(s model.State) (name string, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("evaluating invariant %s: %v", name, p)
		}
	}()
	for _, inv := range c.invs {
		name = inv.name
		if !inv.f(c.cfg, s) {
			return name, nil
		}
	}
	return "", nil
}

func (c *checker) badProperty(s, t model.State) (name string, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("evaluating property %s: %v", name, p)
		}
	}()
	for _, p := range c.props {
		name = p.name
		if !p.f(c.cfg, s, t) && !s.Equal(t) { // [][A]_vars: stuttering is allowed
			return name, nil
		}
	}
	return "", nil
}

// Run explores cfg's state graph breadth first.
func Run(ctx context.Context, cfg *model.Config, opts Options) (*Result, error) {
	c, err := newChecker(cfg, &opts)
	if err != nil {
		return nil, err
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	start := time.Now()
	// The search's long-lived data is pointer-free (encoded states,
	// fingerprints), so a collection finds little to mark and the garbage
	// (successors, once encoded) dies young; collecting somewhat less often
	// than Go's default trades a little memory for time.
	defer debug.SetGCPercent(debug.SetGCPercent(200))
	// GOGC=200 lets the heap grow to three times the live data, which on
	// a search of tens of millions of states (several GiB live) would make
	// the collector's headroom, not the states, what runs out of memory. A
	// soft limit at most of the machine's memory (unless the user set
	// GOMEMLIMIT) makes the collector work harder only as the heap nears it.
	if lim := memoryLimit(); lim > 0 {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(lim))
	}
	res := &Result{}
	seen := newFPSet()
	var prog progress
	st, err := newStore(&opts, &prog.spilled)
	if err != nil {
		return nil, err
	}
	finished := false
	defer func() { st.close(finished) }()
	buf := make([]byte, 0, 512)

	init := model.Init(cfg)
	// The initial state's frontier bytes and fingerprint: the packed
	// engine's words, or model.State's encoding (they also tell a
	// checkpoint of one engine from the other's).
	var fp uint64
	if c.pk != nil {
		enc, pfp, err := c.initPacked(&init)
		if err != nil {
			return nil, err
		}
		buf, fp = enc, norm(pfp)
	} else {
		buf = model.AppendEncoding(buf, &init)
		fp = norm(c.fingerprint(&init, buf, nil))
	}
	st.desc, st.sum = identity(cfg, &opts, buf, fp)
	var cur *level // the level to expand
	if opts.Resume {
		ck, l, err := st.resume(res, seen)
		if err != nil {
			return nil, err
		}
		if opts.MaxDepth > 0 && ck.Depth >= opts.MaxDepth {
			return nil, fmt.Errorf("the checkpoint is at depth %d, MaxDepth is %d", ck.Depth, opts.MaxDepth)
		}
		cur, start = l, start.Add(-ck.Elapsed)
	} else {
		seen.add(fp)
		cur = st.newLevel()
		if err := cur.add(fp, 0, 0, buf); err != nil {
			return nil, err
		}
		if err := cur.seal(&st.runs, st.parents); err != nil {
			return nil, err
		}
		res.Generated = 1
		res.Distinct = 1
	}

	prog.distinct.Store(res.Distinct)
	prog.generated.Store(res.Generated)
	prog.queue.Store(int64(cur.count))
	stopProgress := prog.start(opts.Progress, opts.ProgressEvery, start)
	defer stopProgress()

	var next *level // the level being built
	defer func() {
		if next != nil {
			next.release() // a search stopped part way: its files go
		}
	}()
	for cur.count > 0 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		res.Depth++
		prog.depth.Store(int64(res.Depth))
		// At MaxDepth the level is checked but not expanded.
		expand := opts.MaxDepth == 0 || res.Depth < opts.MaxDepth
		// The level is expanded a window at a time (all of it at once when
		// it fits the budget), in BFS order: each window's new successors
		// are deduplicated against the fingerprints in memory and added to
		// the next level before the next window, so the first of each in
		// BFS order wins, as if the level were expanded at once.
		next = st.newLevel()
		// Violations: an invariant broken by a state of this level comes
		// before an action property broken by a step out of this level, as in
		// TLC, which checks a state's invariants when it first generates it.
		var inv, act *found
		err := cur.windows(st.window, workers*chunkSize, func(w []node) error {
			outs := c.expandLevel(ctx, w, seen, workers, expand, &prog)
			if err := ctx.Err(); err != nil {
				return err // the level was cut short: its results are partial
			}
			for i := range outs {
				o := &outs[i]
				if o.evalErr != nil {
					return o.evalErr
				}
				if inv == nil && o.inv != nil {
					inv = o.inv
				}
				if act == nil && o.act != nil {
					act = o.act
				}
				res.Generated += o.generated
			}
			if inv != nil || act != nil || !expand {
				return nil // the search ends with this level: no next one
			}
			dedup(outs, seen, workers)
			for i := range outs {
				for k := range outs[i].cands {
					cd := &outs[i].cands[k]
					if !cd.win {
						continue
					}
					if err := next.add(norm(cd.fp), cd.parent, cd.act, outs[i].arena[cd.off:cd.off+cd.n]); err != nil {
						return err
					}
				}
				outs[i].cands, outs[i].arena = nil, nil
			}
			res.FrontierBytes = max(res.FrontierBytes, cur.memBytes(w)+next.mem)
			return nil
		})
		if err != nil {
			return nil, err
		}
		if inv != nil || act != nil {
			v := &Violation{}
			if inv != nil {
				v.Property = inv.property
				v.Trace, err = rebuild(cfg, st.parents, inv.idx, 0, opts.ConfigName, opts.Reduce)
			} else {
				v.Property, v.Action = act.property, true
				v.Trace, err = rebuild(cfg, st.parents, act.idx, act.step, opts.ConfigName, opts.Reduce)
			}
			if err != nil {
				return nil, err
			}
			res.Violation = v
			res.Queue = cur.count
			break
		}
		if !expand {
			res.Queue = cur.count // explored to MaxDepth: these were not expanded
			break
		}
		// Number the new states in BFS order, dropping those found in the
		// fingerprint runs on disk.
		if err := next.seal(&st.runs, st.parents); err != nil {
			return nil, err
		}
		if st.parents.len() >= 1<<32-1 {
			return nil, fmt.Errorf("more than 2^32 states: the explorer numbers states with 32 bits")
		}
		cur.release()
		cur, next = next, nil
		res.Distinct += int64(cur.count)
		prog.distinct.Store(res.Distinct)
		prog.generated.Store(res.Generated)
		prog.queue.Store(int64(cur.count))
		if err := st.endLevel(seen, res, cur, time.Since(start)); err != nil {
			return nil, err
		}
		if opts.afterLevel != nil {
			opts.afterLevel(res.Depth, st, cur)
		}
	}
	cur.release()
	res.Complete = res.Violation == nil && res.Queue == 0
	res.Reduced = opts.Reduce
	finished = res.Complete || res.Violation != nil
	res.Duration = time.Since(start)
	res.MemBytes = int64(seen.bytes()) + st.parents.bytes()
	res.SpilledBytes = st.d.maxSize
	n := float64(res.Distinct)
	res.CollisionProb = n * n / (1 << 65)
	return res, nil
}

// memoryLimit is 85% of the machine's memory, or 0 when that is unknown
// or GOMEMLIMIT already sets a limit.
func memoryLimit() int64 {
	if os.Getenv("GOMEMLIMIT") != "" {
		return 0
	}
	return MachineMemory() / 100 * 85
}

// MachineMemory is the machine's memory (MemTotal in /proc/meminfo), 0
// when unknown.
func MachineMemory() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "MemTotal:" {
			if kb, err := strconv.ParseInt(f[1], 10, 64); err == nil {
				return kb * 1024
			}
		}
	}
	return 0
}

// replicaKey is model.ReplicaKey; a variable so that a test can seed a key
// that is not invariant under renaming and see the counts go wrong.
var replicaKey = model.ReplicaKey

// fingerprint is the state's fingerprint given its encoding enc: its hash,
// or under symmetry the least hash over its replica permutations.
func (c *checker) fingerprint(s *model.State, enc, buf []byte) uint64 {
	fp, _ := c.fingerprintBuf(s, enc, buf)
	return fp
}

func (c *checker) fingerprintBuf(s *model.State, enc, buf []byte) (uint64, []byte) {
	if c.perms == nil {
		return model.Hash64(enc), buf
	}
	// Symmetry: the least hash over the renamings that sort the replicas by
	// model.ReplicaKey (model.SortsByKey explains why that is canonical);
	// with Options.FullSymmetry, over every renaming, as TLC does.
	var keys [8]uint64
	n := c.cfg.N()
	if !c.fullSym {
		for i := range n {
			keys[i] = replicaKey(c.cfg, s, i)
		}
	}
	fp := ^uint64(0)
	for k, p := range c.perms {
		if !c.fullSym && !model.SortsByKey(keys[:n], c.pinvs[k]) {
			continue
		}
		if k == 0 {
			fp = min(fp, model.Hash64(enc)) // the identity: enc is s's own encoding
			continue
		}
		buf = model.AppendPermutedEncoding(buf[:0], c.cfg, s, p, c.pinvs[k])
		fp = min(fp, model.Hash64(buf))
	}
	return fp, buf
}

// expandLevel checks and expands every frontier state, in parallel by chunks.
// Workers stop claiming chunks once ctx is done, so a deadline ends the
// search within a chunk's time rather than at the end of a level (a level of
// millions of states takes minutes).
func (c *checker) expandLevel(ctx context.Context, frontier []node, seen *fpSet, workers int, expand bool, prog *progress) []chunkOut {
	outs := make([]chunkOut, (len(frontier)+chunkSize-1)/chunkSize)
	forChunks(ctx, len(frontier), workers, func(ci, lo, hi int, w *worker) {
		if c.pk != nil {
			c.expandChunkPacked(frontier, lo, hi, seen, expand, &outs[ci], w)
		} else {
			w.buf = c.expandChunk(frontier, lo, hi, seen, expand, &outs[ci], w.buf, &w.sc)
		}
		prog.generated.Add(outs[ci].generated)
	})
	return outs
}

func (c *checker) expandChunk(frontier []node, lo, hi int, seen *fpSet, expand bool, out *chunkOut, buf []byte, sc *model.Scratch) []byte {
	// Sized for a typical chunk, so that appends rarely copy.
	out.arena = make([]byte, 0, (hi-lo)*2*(len(frontier[lo].enc)+16))
	out.cands = make([]cand, 0, (hi-lo)*3/2)
	for pos := lo; pos < hi; pos++ {
		nd := &frontier[pos]
		var s model.State
		err := model.DecodeInto(nd.enc, &s, sc)
		if err != nil {
			out.evalErr = fmt.Errorf("state %d: %w", nd.idx, err)
			return buf
		}
		name, err := c.badInvariant(s)
		if err != nil {
			out.evalErr = err
			return buf
		}
		if name != "" {
			if out.inv == nil {
				out.inv = &found{pos: pos, property: name, idx: nd.idx}
			}
			continue
		}
		if !expand || out.inv != nil {
			continue // a violation in this chunk already ends the search
		}
		var stepErr error
		err = model.NextPtr(c.cfg, &s, func(a model.Action, t *model.State) bool {
			out.generated++
			if len(c.props) > 0 && out.act == nil {
				name, err := c.badProperty(s, *t)
				if err != nil {
					stepErr = err
					return false
				}
				if name != "" {
					out.act = &found{pos: pos, property: name, idx: nd.idx, step: pack(c.cfg, a)}
				}
			}
			if c.reduce {
				model.Collapse(c.cfg, t)
			}
			off := len(out.arena)
			out.arena = model.AppendEncoding(out.arena, t)
			var fp uint64
			fp, buf = c.fingerprintBuf(t, out.arena[off:], buf)
			if seen.contains(fp) {
				out.arena = out.arena[:off]
			} else {
				out.cands = append(out.cands, cand{fp: fp, off: uint32(off), n: uint32(len(out.arena) - off),
					parent: nd.idx, act: pack(c.cfg, a)})
			}
			return true
		})
		if err == nil {
			err = stepErr
		}
		if err != nil {
			out.evalErr = fmt.Errorf("expanding state %d: %w", nd.idx, err)
			return buf
		}
	}
	return buf
}

// dedup inserts the level's candidates into seen and marks, for each new
// fingerprint, its first candidate in BFS order as the winner. Worker w owns
// the shards congruent to w, so inserts need no locks, and every worker
// walks the candidates in the same order, so the winner is deterministic.
func dedup(outs []chunkOut, seen *fpSet, workers int) {
	nshards := len(seen.shards)
	workers = min(workers, nshards)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range outs {
				cs := outs[i].cands
				for k := range cs {
					if seen.shardOf(norm(cs[k].fp))%workers != w {
						continue
					}
					cs[k].win = seen.add(cs[k].fp)
				}
			}
		}()
	}
	wg.Wait()
}
