package explore

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/trace"
)

// The cell search: a breadth-first search that keeps at most K states of
// each abstract cell.
//
// Why. The KIP-320 zombie follower and KAFKA-7128 need counterexamples of
// about 30 states at three replicas. A breadth-first search is exhaustive,
// but at depth 19 its levels still grow about 1.5× each (millions of
// states a level): it would take hours. The swarm's random walks go deep
// fast, but each bug needs a long and narrow interleaving (one fetch
// answered by a leader of a newer epoch, the ISR expanded at one moment,
// an election before a response arrives), and tens of thousands of walks
// did not hit one. Most of a level's states differ only in what is in
// flight and in the leaders' views, while the bugs turn on the logs,
// epochs, HWs, ISRs and who leads: the cell (roles, epochs, logs, HWs,
// fetch states, the controller's view, records acknowledged and committed,
// crashes: the abstraction the swarm's Go-Explore archive uses,
// appendCell). So the search keeps the breadth-first order, level by
// level, but gives each cell at most K states: a level keeps, of each
// cell, only as many states as the cell has room left for, and cuts the
// rest. The search then grows with the cells, not with the interleavings
// of messages. Under Symmetry both the states and the cells are taken
// modulo renaming the replicas.
//
// The quota is per cell over the round, not per cell and level: measured
// on KAFKA-7128 (three replicas, K 8, under symmetry), a quota per level
// keeps about five states of every cell at every level it recurs at, and
// the levels still grow about 1.3× each (105 k states at depth 16); with
// the quota over the round they grow 1.03–1.18× a level from depth 14 to
// 20 (44 k states at depth 20), and the search reaches the 29-state
// counterexample after 0.8 M states.
//
// Which K: the search prefers states whose per-replica message state (the
// fetch request or response in flight, the controller's requests queued,
// the pending AlterPartition) is new for their cell, so that the states
// kept differ in what is about to happen (a fetch sent in the old epoch
// still in flight when the leader changes is what the zombie needs), and
// fills the rest of the quota in a seeded random order: each level is
// shuffled by a generator drawn from (Seed, round, depth) before the cut,
// so the search, its counts and its counterexample are a function of its
// seed, whatever the number of workers.
//
// Rounds. A round that exhausts its pruned space without an accepted
// violation is followed by one with K doubled (the bounds widen), until a
// round cuts nothing (then the whole space was searched) or ctx ends.
//
// Like the swarm, the search walks on past violations that Accept rejects
// (a violating state is not expanded, but the level goes on) until one is
// accepted; its counterexample, rebuilt from parent pointers, is replayed
// on the configuration before it is returned.

// CellOptions configure a cell search.
type CellOptions struct {
	Options
	// Seed orders each level before the cut (see above).
	Seed uint64
	// K is the first round's number of states kept per cell (default
	// DefaultCellK); each further round doubles it.
	K int
	// Rounds is the most rounds to run (0: no limit).
	Rounds int
	// Accept, if set, decides whether a violation is the one wanted; the
	// search goes past the others. nil accepts any. It is called from
	// several goroutines.
	Accept func(*Violation) bool
}

// CellResult is the outcome of a cell search. Its counts are over every
// round.
type CellResult struct {
	Rounds int // rounds started
	K      int // the last round's K
	// Depth is the last round's depth (levels, Init being 1), Level the
	// states it kept at that depth and LevelCut those it cut there.
	Depth, Level, LevelCut int
	Cells                  int   // cells the last round reached
	States                 int64 // states kept (checked, and expanded unless violating)
	Generated              int64 // successors generated
	Cut                    int64 // new states cut
	Rejected               int   // violations Accept rejected
	// Exhausted: a round cut nothing and Accept accepted no violation:
	// the whole state space was searched.
	Exhausted bool
	Duration  time.Duration
	Violation *Violation // the accepted violation, nil if none
}

// DefaultCellK is CellOptions.K's default.
const DefaultCellK = 8

// CellSearch runs the cell search on cfg from Init, checking the
// invariants in every new state and the action properties on every step,
// until Accept accepts a violation, a round cuts nothing, Rounds rounds
// end, or ctx ends (then the result has no violation and ctx's error is
// not returned: the counts say how far it got).
func CellSearch(ctx context.Context, cfg *model.Config, opts CellOptions) (*CellResult, error) {
	opts.Engine = EngineReadable // the search runs on model.State
	c, err := newChecker(cfg, &opts.Options)
	if err != nil {
		return nil, err
	}
	if opts.K <= 0 {
		opts.K = DefaultCellK
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	start := time.Now()
	res := &CellResult{}
	var prog cellProgress
	stop := startCellProgress(opts.Progress, opts.ProgressEvery, start, &prog)
	defer stop()
	for round := 0; opts.Rounds == 0 || round < opts.Rounds; round++ {
		if ctx.Err() != nil || opts.K<<round > 1<<30 {
			break
		}
		res.Rounds++
		res.K = opts.K << round
		prog.round.Store(int64(round + 1))
		prog.k.Store(int64(res.K))
		cut, err := c.cellRound(ctx, cfg, &opts, workers, round, res, &prog)
		if err != nil {
			return nil, err
		}
		if res.Violation != nil {
			break
		}
		if ctx.Err() == nil && cut == 0 {
			res.Exhausted = true
			break
		}
	}
	res.Duration = time.Since(start)
	if v := res.Violation; v != nil {
		if i, err := trace.Replay(cfg, v.Trace); err != nil {
			return nil, fmt.Errorf("cell search: the counterexample is not a behaviour of the configuration at step %d: %w", i, err)
		}
	}
	return res, nil
}

// cellCand is a successor not seen before its level: its encoding is
// arena[off:off+n] of its chunk.
type cellCand struct {
	fp     uint64
	off, n uint32
	parent uint32
	act    packed
	chunk  uint32 // its chunk
	msgs   uint32 // its message keys are its chunk's msgs[msgs:msgs+N]
	cell   uint64
	bad    string // the invariant (or, with badAct, the action property) it violates
	badAct bool
}

type cellChunk struct {
	arena []byte
	cands []cellCand
	// msgs holds, per candidate and replica, the hash of the candidate's
	// cell, the replica and its message state: what the cut prefers new.
	msgs      []uint64
	generated int64
	err       error
}

// cellRound runs one round with K = res.K from Init, adding its counts to
// res and setting res.Violation if Accept accepted one; it returns how
// many states it cut.
func (c *checker) cellRound(ctx context.Context, cfg *model.Config, opts *CellOptions, workers, round int, res *CellResult, prog *cellProgress) (int64, error) {
	K := res.K
	n := cfg.N()
	seen := newFPSet()
	perCell := map[uint64]int{}    // states kept per cell this round
	novel := map[uint64]struct{}{} // message keys of the states kept this round
	parents := &parentStore{limit: 1 << 62}
	var cut int64

	init := model.Init(cfg)
	enc := model.AppendEncoding(nil, &init)
	seen.add(c.fingerprint(&init, enc, nil))
	if err := parents.add(0, 0, 0); err != nil {
		return 0, err
	}
	initCell, _ := c.cellOf(&init, nil)
	perCell[initCell]++
	res.States++
	res.Depth, res.Level, res.LevelCut, res.Cells = 1, 1, 0, 1
	if name, err := c.badInvariant(init); err != nil {
		return 0, err
	} else if name != "" {
		v := &Violation{Property: name, Trace: trace.Trace{Source: "cell search", ConfigName: opts.ConfigName, Steps: []trace.Step{{State: init}}}}
		if opts.Accept == nil || opts.Accept(v) {
			res.Violation = v
		} else {
			res.Rejected++
		}
		return 0, nil
	}
	frontier := []node{{enc: enc, idx: 0}}
	for depth := 2; len(frontier) > 0; depth++ {
		outs := make([]cellChunk, (len(frontier)+chunkSize-1)/chunkSize)
		forChunks(ctx, len(frontier), workers, func(ci, lo, hi int, w *worker) {
			c.expandCellChunk(frontier, lo, hi, seen, &outs[ci], uint32(ci), w)
			prog.generated.Add(outs[ci].generated)
		})
		if ctx.Err() != nil {
			return cut, nil
		}
		var level []*cellCand
		for i := range outs {
			o := &outs[i]
			if o.err != nil {
				return cut, o.err
			}
			res.Generated += o.generated
			for k := range o.cands {
				if seen.add(o.cands[k].fp) {
					level = append(level, &o.cands[k])
				}
			}
		}
		if len(level) == 0 {
			break
		}
		rng := rand.New(rand.NewPCG(opts.Seed^0x43454c4c53000000, uint64(round)<<32|uint64(depth)))
		rng.Shuffle(len(level), func(i, j int) { level[i], level[j] = level[j], level[i] })

		// Violations, in the shuffled order: the first accepted one ends
		// the search; the others are not expanded.
		v, rejected, err := c.cellViolations(ctx, cfg, opts, workers, parents, level)
		if err != nil {
			return cut, err
		}
		if ctx.Err() != nil {
			return cut, nil
		}
		res.Rejected += rejected
		prog.rejected.Add(int64(rejected))
		if v != nil {
			res.Violation = v
			res.Depth = depth
			return cut, nil
		}

		// The cut: first the states that bring a replica's message state
		// new to their cell, then the rest, each in the shuffled order,
		// while their cell has room.
		msgs := func(cd *cellCand) []uint64 { return outs[cd.chunk].msgs[cd.msgs : cd.msgs+uint32(n)] }
		keep := make([]bool, len(level))
		kept, bad := 0, 0
		take := func(i int, cd *cellCand) {
			keep[i] = true
			kept++
			perCell[cd.cell]++
			for _, m := range msgs(cd) {
				novel[m] = struct{}{}
			}
		}
		for i, cd := range level {
			if cd.bad != "" {
				bad++
				continue
			}
			if perCell[cd.cell] >= K {
				continue
			}
			for _, m := range msgs(cd) {
				if _, ok := novel[m]; !ok {
					take(i, cd)
					break
				}
			}
		}
		for i, cd := range level {
			if !keep[i] && cd.bad == "" && perCell[cd.cell] < K {
				take(i, cd)
			}
		}
		next := make([]node, 0, kept)
		for i, cd := range level {
			if !keep[i] {
				continue
			}
			if parents.len() >= 1<<32-1 {
				return cut, fmt.Errorf("cell search: more than 2^32 states")
			}
			idx := uint32(parents.len())
			if err := parents.add(cd.parent, cd.act, 0); err != nil {
				return cut, err
			}
			// A copy, so that the chunks (and the states cut) can be collected.
			a := outs[cd.chunk].arena
			next = append(next, node{enc: append([]byte(nil), a[cd.off:cd.off+cd.n]...), idx: idx})
		}
		levelCut := len(level) - bad - kept
		cut += int64(levelCut)
		res.Cut += int64(levelCut)
		res.States += int64(kept)
		res.Depth, res.Level, res.LevelCut, res.Cells = depth, kept, levelCut, len(perCell)
		prog.states.Add(int64(kept))
		prog.depth.Store(int64(depth))
		prog.level.Store(int64(kept))
		prog.cells.Store(int64(len(perCell)))
		frontier = next
	}
	return cut, nil
}

// cellViolations checks the level's violating candidates, in its order,
// against Accept (in parallel), and returns the first accepted one's
// violation and how many came before it (all of them if none was).
func (c *checker) cellViolations(ctx context.Context, cfg *model.Config, opts *CellOptions, workers int, parents *parentStore, level []*cellCand) (*Violation, int, error) {
	var bad []*cellCand
	for _, cd := range level {
		if cd.bad != "" {
			bad = append(bad, cd)
		}
	}
	if len(bad) == 0 {
		return nil, 0, nil
	}
	vs := make([]*Violation, len(bad))
	ok := make([]bool, len(bad))
	errs := make([]error, len(bad))
	var next atomic.Int64
	var first atomic.Int64 // the lowest accepted index so far, len(bad) if none
	first.Store(int64(len(bad)))
	var wg sync.WaitGroup
	for range min(workers, len(bad)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= len(bad) || int64(i) > first.Load() {
					return
				}
				cd := bad[i]
				tr, err := rebuild(cfg, parents, cd.parent, cd.act, opts.ConfigName, false)
				if err != nil {
					errs[i] = err
					return
				}
				tr.Source = "cell search"
				vs[i] = &Violation{Property: cd.bad, Action: cd.badAct, Trace: tr}
				if opts.Accept == nil || opts.Accept(vs[i]) {
					ok[i] = true
					for f := first.Load(); int64(i) < f && !first.CompareAndSwap(f, int64(i)); f = first.Load() {
					}
				}
			}
		}()
	}
	wg.Wait()
	for i := range bad {
		if errs[i] != nil {
			return nil, 0, errs[i]
		}
		if ok[i] {
			return vs[i], i, nil
		}
	}
	return nil, len(bad), nil
}

// cellOf is s's cell: the hash of appendCell, under symmetry the least
// over every renaming of the replicas. buf is scratch, returned grown.
func (c *checker) cellOf(s *model.State, buf []byte) (uint64, []byte) {
	buf = appendCell(buf[:0], c.cfg, s, nil, nil)
	cell := model.Hash64(buf)
	for k := 1; k < len(c.perms); k++ {
		buf = appendCell(buf[:0], c.cfg, s, c.perms[k], c.pinvs[k])
		cell = min(cell, model.Hash64(buf))
	}
	return cell, buf
}

// expandCellChunk expands frontier[lo:hi]: every successor not in seen,
// with its cell, its message keys and the property it violates.
func (c *checker) expandCellChunk(frontier []node, lo, hi int, seen *fpSet, out *cellChunk, ci uint32, w *worker) {
	n := c.cfg.N()
	var cellBuf []byte
	for pos := lo; pos < hi; pos++ {
		nd := &frontier[pos]
		var s model.State
		if err := model.DecodeInto(nd.enc, &s, &w.sc); err != nil {
			out.err = fmt.Errorf("state %d: %w", nd.idx, err)
			return
		}
		var stepErr error
		err := model.NextPtr(c.cfg, &s, func(a model.Action, t *model.State) bool {
			out.generated++
			off := len(out.arena)
			out.arena = model.AppendEncoding(out.arena, t)
			var fp uint64
			fp, w.buf = c.fingerprintBuf(t, out.arena[off:], w.buf)
			if seen.contains(fp) {
				out.arena = out.arena[:off]
				return true
			}
			cd := cellCand{fp: fp, off: uint32(off), n: uint32(len(out.arena) - off), parent: nd.idx, act: pack(c.cfg, a),
				chunk: ci, msgs: uint32(len(out.msgs))}
			if len(c.props) > 0 {
				name, err := c.badProperty(s, *t)
				if err != nil {
					stepErr = err
					return false
				}
				cd.bad, cd.badAct = name, name != ""
			}
			if cd.bad == "" {
				name, err := c.badInvariant(*t)
				if err != nil {
					stepErr = err
					return false
				}
				cd.bad = name
			}
			cd.cell, cellBuf = c.cellOf(t, cellBuf)
			// Message keys: the cell, the replica and its messages.
			cellBuf = appendUint64(cellBuf[:0], cd.cell)
			for r := range n {
				cellBuf = appendMessages(cellBuf[:8], t, r)
				out.msgs = append(out.msgs, model.Hash64(cellBuf))
			}
			out.cands = append(out.cands, cd)
			return true
		})
		if err == nil {
			err = stepErr
		}
		if err != nil {
			out.err = fmt.Errorf("expanding state %d: %w", nd.idx, err)
			return
		}
	}
}

func appendUint64(buf []byte, x uint64) []byte {
	for range 8 {
		buf = append(buf, byte(x))
		x >>= 8
	}
	return buf
}

// appendMessages appends replica r's message state to buf: r's index,
// the fetcher's request or response in flight, the controller's requests
// queued for r and r's pending AlterPartition.
func appendMessages(buf []byte, s *model.State, r int) []byte {
	buf = append(buf, byte(r))
	buf = appendMsg(buf, &s.Inflight[r])
	buf = append(buf, byte(len(s.ControllerQueue[r])))
	for i := range s.ControllerQueue[r] {
		buf = appendMsg(buf, &s.ControllerQueue[r][i])
	}
	return appendMsg(buf, &s.AlterPartition[r])
}

// appendMsg appends every field of m (those its type does not use are
// zero).
func appendMsg(buf []byte, m *model.Msg) []byte {
	put := func(v int) { buf = append(buf, byte(v), byte(v>>8)) }
	name := func(r model.Replica) { buf = append(append(buf, r...), 0) }
	flag := func(x bool) {
		if x {
			buf = append(buf, 1)
		} else {
			buf = append(buf, 0)
		}
	}
	buf = append(buf, byte(m.Type))
	if m.Type == model.MsgNone {
		return buf
	}
	name(m.Leader)
	put(m.Epoch)
	put(len(m.Isr))
	for _, r := range m.Isr {
		name(r)
	}
	put(m.PartitionEpoch)
	put(m.LeaderEpoch)
	name(m.Src)
	name(m.Dst)
	put(m.CurrentEpoch)
	put(int(m.Error))
	put(m.Offset)
	put(len(m.Records))
	for _, x := range m.Records {
		put(x.ID)
		put(x.Epoch)
	}
	put(m.Hw)
	put(m.Leo)
	put(m.LastFetchedEpoch)
	flag(m.Orphan)
	flag(m.Diverging)
	put(m.DivergingEpoch.Epoch)
	put(m.DivergingEpoch.Offset)
	return buf
}

// cellProgress counts for the progress line.
type cellProgress struct {
	round, k, depth, level, cells, states, generated, rejected atomic.Int64
}

func startCellProgress(w io.Writer, period time.Duration, t0 time.Time, p *cellProgress) func() {
	return ticker(w, period, t0, func(el float64) {
		fmt.Fprintf(w, "cells: %6.0fs  round %d (K %d)  depth %d  level %d  %d cells  %d states  %d generated  %d rejected\n",
			el, p.round.Load(), p.k.Load(), p.depth.Load(), p.level.Load(), p.cells.Load(), p.states.Load(), p.generated.Load(), p.rejected.Load())
	})
}
