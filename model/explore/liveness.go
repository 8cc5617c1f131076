package explore

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"slices"
	"time"

	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/trace"
)

// The liveness check: the spec's liveness properties
// (spec/ReplicationLiveness.tla, model/liveness.go) decided on the whole
// state graph, which the safety search does not keep. It explores the graph
// breadth first as Run does (the same states, in the same order, so the same
// counts as TLC without SYMMETRY), keeping every edge with its action, and
// then looks for a fair cycle:
//
//   - A behaviour in which faults stop ends, for ever, inside one strongly
//     connected component of the graph without fault edges (stuttering is
//     allowed in every state, so a single state is such a component too).
//   - Under weak fairness only, a component C holds a fair cycle iff for
//     every fairness conjunct WF_vars(A) some state of C disables A or some
//     edge inside C is an A step: one cycle through every state and edge of
//     C is then fair, and if A is enabled in every state of C with no A edge
//     inside, no cycle in C is fair.
//   - FaultsStop => (P ~> Q) fails iff a reachable P /\ ~Q state reaches,
//     through ~Q states (faults allowed), a fair component of the ~Q
//     subgraph; FaultsStop => <>[]P fails iff a fair component of the whole
//     fault-free graph holds a ~P state.
//
// The counterexample is a lasso: the shortest path to the P state, a path
// through ~Q states into the component, and a cycle in it that visits a
// state disabling, or takes an edge of, every fairness conjunct in turn.

// LiveOptions configure a liveness check.
type LiveOptions struct {
	Workers    int
	Properties []string // names in model.LiveProperties
	ConfigName string
	Progress   io.Writer
	// ProgressEvery defaults to 2s.
	ProgressEvery time.Duration
}

// LiveResult is the outcome of a liveness check.
type LiveResult struct {
	Distinct  int64 // states (TLC: "distinct states found")
	Generated int64 // states generated (TLC: "states generated")
	Edges     int64 // distinct-state edges kept
	Depth     int
	Duration  time.Duration
	// GraphBytes is what the kept graph holds (states' index, edges, bits).
	GraphBytes int64
	// Violation is the first property (in the order given) that fails.
	Violation *LiveViolation
}

// LiveViolation is a failed liveness property and its lasso.
type LiveViolation struct {
	Property string
	Instance string // the binding of the property's bound variables, "" if none
	// Trace is the lasso: its last state equals Trace.Steps[Loop].State,
	// and the behaviour runs Steps[Loop+1:] again and again. Loop =
	// len(Steps)-1 means it stutters in the last state for ever.
	Trace trace.Trace
	Loop  int
}

func (v *LiveViolation) String() string {
	inst := ""
	if v.Instance != "" {
		inst = " (" + v.Instance + ")"
	}
	// States are numbered from 0, as the rendered trace numbers them.
	rest := fmt.Sprintf("then steps %d-%d again and again, back to state %d", v.Loop+1, v.Trace.Len()-1, v.Loop)
	if v.Loop == v.Trace.Len()-1 {
		rest = fmt.Sprintf("then stuttering in state %d for ever", v.Loop)
	}
	return fmt.Sprintf("temporal property %s%s is violated (lasso of %d states, %s)",
		v.Property, inst, v.Trace.Len(), rest)
}

// RunLive checks cfg's liveness properties as Run checks its safety ones,
// with Run's Result: the same counts (Run's without symmetry) and, for a
// failed property, a Violation with Lasso set. opts.Invariants and
// opts.Properties must be empty (a LiveSpec configuration checks liveness
// only) and opts.Symmetry false.
func RunLive(ctx context.Context, cfg *model.Config, opts Options, live []string) (*Result, error) {
	if opts.Symmetry {
		return nil, fmt.Errorf("liveness under symmetry: a quotient graph can hide or invent fair cycles; check it without SYMMETRY")
	}
	if opts.Reduce {
		return nil, fmt.Errorf("liveness under the inert-message reduction: its argument is for safety properties only; check it without -reduce")
	}
	if opts.Resume {
		return nil, fmt.Errorf("a liveness check keeps its graph in memory: it writes no checkpoint and cannot resume")
	}
	if len(opts.Invariants) > 0 || len(opts.Properties) > 0 {
		return nil, fmt.Errorf("a liveness check checks no invariant or action property: give them a configuration of Spec")
	}
	lr, err := CheckLiveness(ctx, cfg, LiveOptions{Workers: opts.Workers, Properties: live, ConfigName: opts.ConfigName,
		Progress: opts.Progress, ProgressEvery: opts.ProgressEvery})
	if err != nil {
		return nil, err
	}
	res := &Result{Distinct: lr.Distinct, Generated: lr.Generated, Depth: lr.Depth, Duration: lr.Duration,
		MemBytes: lr.GraphBytes, Complete: lr.Violation == nil}
	n := float64(res.Distinct)
	res.CollisionProb = n * n / (1 << 65)
	if v := lr.Violation; v != nil {
		res.Violation = &Violation{Property: v.Property, Trace: v.Trace, Lasso: true, Loop: v.Loop, Instance: v.Instance}
	}
	return res, nil
}

// edge is one step of the graph between distinct states.
type edge struct {
	dst   uint32
	act   packed
	class int16 // the fairness conjunct (model.FairClassOf), -1 if none
	fault bool
}

// graph is the explored state graph.
type graph struct {
	cfg      *model.Config
	nclass   int
	off      []uint32 // edges of state i: edges[off[i]:off[i+1]]
	edges    []edge
	parent   []uint32 // BFS tree, for the prefix
	enabled  []uint64 // per state, nclassWords words: fairness conjuncts enabled
	words    int
	bits     []uint64 // per state, bitWords words: property predicates (see predBit)
	bitWords int
	props    []*model.LiveProperty
	base     []int // bit index of property k's instance 0 (P at 2i, Q at 2i+1)
}

func (g *graph) states() int { return len(g.parent) }

func (g *graph) pred(s uint32, bit int) bool {
	return g.bits[int(s)*g.bitWords+bit/64]>>(bit%64)&1 == 1
}

func (g *graph) isEnabled(s uint32, c int) bool {
	return g.enabled[int(s)*g.words+c/64]>>(c%64)&1 == 1
}

// liveSucc is one successor found while expanding a state.
type liveSucc struct {
	fp    uint64
	off   uint32
	n     uint32
	act   packed
	class int16
	fault bool
}

type liveChunk struct {
	arena   []byte
	succs   [][]liveSucc // per frontier state
	enabled []uint64     // per frontier state, words
	bits    []uint64     // per frontier state, bitWords
	gen     int64
	err     error
}

// CheckLiveness explores cfg's graph and checks the named liveness
// properties on it. Symmetry is not offered: a quotient graph merges states
// whose fairness conjuncts differ by a renaming, so a fair cycle there need
// not be one of the spec (TLC warns of the same).
func CheckLiveness(ctx context.Context, cfg *model.Config, opts LiveOptions) (*LiveResult, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if len(opts.Properties) == 0 {
		return nil, fmt.Errorf("no liveness property to check")
	}
	if err := model.CheckLiveNames(opts.Properties); err != nil {
		return nil, err
	}
	start := time.Now()
	g, res, err := buildGraph(ctx, cfg, opts)
	if err != nil {
		return nil, err
	}
	for k, p := range g.props {
		v, err := g.check(ctx, k, p, opts.ConfigName)
		if err != nil {
			return nil, err
		}
		if v != nil {
			res.Violation = v
			break
		}
	}
	res.Duration = time.Since(start)
	return res, nil
}

func buildGraph(ctx context.Context, cfg *model.Config, opts LiveOptions) (*graph, *LiveResult, error) {
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	g := &graph{cfg: cfg}
	classes := model.FairClasses(cfg)
	g.nclass = len(classes)
	g.words = (g.nclass + 63) / 64
	nbits := 0
	for _, n := range opts.Properties {
		p := model.LiveProperties[n]
		g.props = append(g.props, p)
		g.base = append(g.base, nbits)
		nbits += 2 * p.Instances(cfg)
	}
	g.bitWords = (nbits + 63) / 64
	res := &LiveResult{}
	index := make(map[uint64]uint32)

	init := model.Init(cfg)
	enc := model.AppendEncoding(nil, &init)
	index[model.Hash64(enc)] = 0
	g.parent = append(g.parent, 0)
	frontier := []node{{enc: enc, idx: 0}}
	res.Generated, res.Distinct = 1, 1

	var prog progress
	prog.distinct.Store(1)
	prog.generated.Store(1)
	stop := prog.start(opts.Progress, opts.ProgressEvery, time.Now())
	defer stop()

	g.off = append(g.off, 0)
	for len(frontier) > 0 {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		res.Depth++
		prog.depth.Store(int64(res.Depth))
		outs := g.expandLevel(ctx, frontier, workers)
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		var next []node
		var arena []byte
		for ci := range outs {
			o := &outs[ci]
			if o.err != nil {
				return nil, nil, o.err
			}
			res.Generated += o.gen
			for k, ss := range o.succs {
				src := frontier[ci*chunkSize+k].idx
				g.enabled = append(g.enabled, o.enabled[k*g.words:(k+1)*g.words]...)
				g.bits = append(g.bits, o.bits[k*g.bitWords:(k+1)*g.bitWords]...)
				for _, sc := range ss {
					dst, ok := index[sc.fp]
					if !ok {
						dst = uint32(len(g.parent))
						if dst == 1<<32-1 {
							return nil, nil, fmt.Errorf("more than 2^32 states: the liveness check numbers states with 32 bits")
						}
						index[sc.fp] = dst
						g.parent = append(g.parent, src)
						off := len(arena)
						arena = append(arena, o.arena[sc.off:sc.off+sc.n]...)
						next = append(next, node{enc: arena[off:len(arena):len(arena)], idx: dst})
					}
					g.edges = append(g.edges, edge{dst: dst, act: sc.act, class: sc.class, fault: sc.fault})
				}
				g.off = append(g.off, uint32(len(g.edges)))
				if len(g.edges) >= 1<<32-1 {
					return nil, nil, fmt.Errorf("more than 2^32 edges: the liveness check numbers edges with 32 bits")
				}
			}
			o.arena, o.succs = nil, nil
		}
		res.Distinct = int64(len(g.parent))
		prog.distinct.Store(res.Distinct)
		prog.generated.Store(res.Generated)
		prog.queue.Store(int64(len(next)))
		frontier = next
	}
	res.Edges = int64(len(g.edges))
	res.GraphBytes = int64(cap(g.edges))*12 + int64(cap(g.off)+cap(g.parent))*4 +
		int64(cap(g.enabled)+cap(g.bits))*8 + int64(len(index))*16
	return g, res, nil
}

// expandLevel computes, in parallel by chunks of the frontier, each state's
// successors (with their fingerprints), its enabled fairness conjuncts and
// its property bits. States are numbered in BFS order as the safety search
// numbers them, so the graph's states are the search's.
func (g *graph) expandLevel(ctx context.Context, frontier []node, workers int) []liveChunk {
	outs := make([]liveChunk, (len(frontier)+chunkSize-1)/chunkSize)
	forChunks(ctx, len(frontier), workers, func(ci, lo, hi int, w *worker) {
		g.expandChunk(frontier[lo:hi], &outs[ci], &w.sc)
	})
	return outs
}

func (g *graph) expandChunk(nodes []node, out *liveChunk, sc *model.Scratch) {
	cfg := g.cfg
	out.succs = make([][]liveSucc, len(nodes))
	out.enabled = make([]uint64, len(nodes)*g.words)
	out.bits = make([]uint64, len(nodes)*g.bitWords)
	for k := range nodes {
		var s model.State
		if err := model.DecodeInto(nodes[k].enc, &s, sc); err != nil {
			out.err = fmt.Errorf("state %d: %w", nodes[k].idx, err)
			return
		}
		bits := out.bits[k*g.bitWords : (k+1)*g.bitWords]
		if err := g.evalPreds(&s, bits); err != nil {
			out.err = fmt.Errorf("state %d: %w", nodes[k].idx, err)
			return
		}
		en := out.enabled[k*g.words : (k+1)*g.words]
		var seen []uint64
		err := model.NextPtr(cfg, &s, func(a model.Action, t *model.State) bool {
			out.gen++
			if t.Equal(s) {
				return true // a stuttering step: enables no <<A>>_vars, is no edge
			}
			class := model.FairClassOf(cfg, &s, a)
			if class >= 0 {
				en[class/64] |= 1 << (class % 64)
			}
			off := len(out.arena)
			out.arena = model.AppendEncoding(out.arena, t)
			fp := model.Hash64(out.arena[off:])
			// Two actions may lead to the same state; both edges count for
			// fairness, so only an identical (state, action) pair is dropped.
			key := fp ^ uint64(pack(cfg, a))*0x9e3779b97f4a7c15
			if slices.Contains(seen, key) {
				out.arena = out.arena[:off]
				return true
			}
			seen = append(seen, key)
			out.succs[k] = append(out.succs[k], liveSucc{fp: fp, off: uint32(off), n: uint32(len(out.arena) - off),
				act: pack(cfg, a), class: int16(class), fault: model.IsFault(a)})
			return true
		})
		if err != nil {
			out.err = fmt.Errorf("expanding state %d: %w", nodes[k].idx, err)
			return
		}
		// TLA+ judges a step by its pair of states, not by the disjunct of
		// Next that made it: a step that some fault action also makes (a
		// fetch response handled without effect is its loss, under
		// LossyNetwork) is a Fault step, as TLC evaluates FaultsStop.
		var faultTo []uint64
		for _, sc := range out.succs[k] {
			if sc.fault {
				faultTo = append(faultTo, sc.fp)
			}
		}
		for i := range out.succs[k] {
			if slices.Contains(faultTo, out.succs[k][i].fp) {
				out.succs[k][i].fault = true
			}
		}
	}
}

// evalPreds sets the state's property bits; a panic in a predicate (an index
// out of range, as TLC would stop with an evaluation error) is an error.
func (g *graph) evalPreds(s *model.State, bits []uint64) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("evaluating a liveness property: %v", p)
		}
	}()
	for k, p := range g.props {
		for i := range p.Instances(g.cfg) {
			b := g.base[k] + 2*i
			if p.P(g.cfg, s, i) {
				bits[b/64] |= 1 << (b % 64)
			}
			if p.Kind == model.LeadsTo && p.Q(g.cfg, s, i) {
				b++
				bits[b/64] |= 1 << (b % 64)
			}
		}
	}
	return nil
}

// check decides property k over all its instances.
func (g *graph) check(ctx context.Context, k int, p *model.LiveProperty, name string) (*LiveViolation, error) {
	n := g.states()
	for i := range p.Instances(g.cfg) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		pb := g.base[k] + 2*i
		var allowed func(uint32) bool // the states the bad suffix stays in
		var starts []uint32           // where it may start, in BFS order
		var mustVisit func(uint32) bool
		if p.Kind == model.LeadsTo {
			allowed = func(s uint32) bool { return !g.pred(s, pb+1) }
			for s := range uint32(n) {
				if g.pred(s, pb) && !g.pred(s, pb+1) {
					starts = append(starts, s)
				}
			}
		} else {
			allowed = func(uint32) bool { return true }
			mustVisit = func(s uint32) bool { return !g.pred(s, pb) }
		}
		if p.Kind == model.LeadsTo && len(starts) == 0 {
			continue
		}
		// Restrict the search to what the starts reach through allowed
		// states (leads-to), or to the whole graph (<>[]).
		var region []uint32
		inRegion := make([]bool, n)
		if p.Kind == model.LeadsTo {
			queue := append([]uint32(nil), starts...)
			for _, s := range starts {
				inRegion[s] = true
			}
			for q := 0; q < len(queue); q++ {
				s := queue[q]
				for _, e := range g.edges[g.off[s]:g.off[s+1]] {
					if !inRegion[e.dst] && allowed(e.dst) {
						inRegion[e.dst] = true
						queue = append(queue, e.dst)
					}
				}
			}
			region = queue
		} else {
			region = make([]uint32, n)
			for s := range uint32(n) {
				region[s], inRegion[s] = s, true
			}
		}
		comp, ncomp := g.sccs(region, inRegion)
		fair := g.fairComponents(region, comp, ncomp, mustVisit)
		bad := make([]bool, n) // in a fair component
		anyBad := false
		for _, s := range region {
			if fair[comp[s]] {
				bad[s], anyBad = true, true
			}
		}
		if !anyBad {
			continue
		}
		v, err := g.lasso(k, i, p, starts, inRegion, bad, comp, mustVisit, name)
		if err != nil {
			return nil, err
		}
		return v, nil
	}
	return nil, nil
}

// sccs numbers the strongly connected components of the region's
// fault-free subgraph (Tarjan's algorithm, iterative).
func (g *graph) sccs(region []uint32, in []bool) ([]int32, int) {
	n := g.states()
	comp := make([]int32, n)
	index := make([]int32, n)
	low := make([]int32, n)
	onStack := make([]bool, n)
	for i := range index {
		index[i] = -1
		comp[i] = -1
	}
	var stack []uint32
	type frame struct {
		s uint32
		e uint32 // next edge to look at
	}
	var call []frame
	next, ncomp := int32(0), 0
	for _, root := range region {
		if index[root] >= 0 {
			continue
		}
		call = append(call[:0], frame{root, g.off[root]})
		index[root], low[root] = next, next
		next++
		stack = append(stack, root)
		onStack[root] = true
		for len(call) > 0 {
			f := &call[len(call)-1]
			s := f.s
			if f.e < g.off[s+1] {
				e := g.edges[f.e]
				f.e++
				if e.fault || !in[e.dst] {
					continue
				}
				if index[e.dst] < 0 {
					index[e.dst], low[e.dst] = next, next
					next++
					stack = append(stack, e.dst)
					onStack[e.dst] = true
					call = append(call, frame{e.dst, g.off[e.dst]})
				} else if onStack[e.dst] {
					low[s] = min(low[s], index[e.dst])
				}
				continue
			}
			if low[s] == index[s] {
				for {
					t := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					onStack[t] = false
					comp[t] = int32(ncomp)
					if t == s {
						break
					}
				}
				ncomp++
			}
			call = call[:len(call)-1]
			if len(call) > 0 {
				p := call[len(call)-1].s
				low[p] = min(low[p], low[s])
			}
		}
	}
	return comp, ncomp
}

// fairComponents says which components hold a fair cycle (see the package
// comment above), and, with mustVisit, one through a state it accepts.
func (g *graph) fairComponents(region []uint32, comp []int32, ncomp int, mustVisit func(uint32) bool) []bool {
	// disabled[c]: conjuncts some state of component c disables;
	// taken[c]: conjuncts some edge inside c is a step of.
	disabled := make([]uint64, ncomp*g.words)
	taken := make([]uint64, ncomp*g.words)
	visit := make([]bool, ncomp)
	for _, s := range region {
		c := int(comp[s])
		for w := range g.words {
			disabled[c*g.words+w] |= ^g.enabled[int(s)*g.words+w]
		}
		if mustVisit != nil && mustVisit(s) {
			visit[c] = true
		}
		for _, e := range g.edges[g.off[s]:g.off[s+1]] {
			if !e.fault && e.class >= 0 && comp[e.dst] == int32(c) {
				taken[c*g.words+int(e.class)/64] |= 1 << (int(e.class) % 64)
			}
		}
	}
	fair := make([]bool, ncomp)
	for c := range ncomp {
		ok := mustVisit == nil || visit[c]
		for cl := 0; ok && cl < g.nclass; cl++ {
			w, b := cl/64, uint64(1)<<(cl%64)
			ok = disabled[c*g.words+w]&b != 0 || taken[c*g.words+w]&b != 0
		}
		fair[c] = ok
	}
	return fair
}

// lasso builds the counterexample: the BFS path to a start that reaches a
// fair component, the shortest allowed path from it into the component,
// and a fair cycle there.
func (g *graph) lasso(k, inst int, p *model.LiveProperty, starts []uint32, in, bad []bool, comp []int32, mustVisit func(uint32) bool, name string) (*LiveViolation, error) {
	// The start nearest to Init (least BFS number) from which a fair
	// component is reachable, and the path to it (shortest, within the region).
	var path []edgeRef
	var from uint32
	if p.Kind == model.LeadsTo {
		found := false
		for _, s := range starts {
			if pp, ok := g.pathTo(s, in, func(t uint32) bool { return bad[t] }); ok {
				path, from, found = pp, s, true
				break
			}
		}
		if !found {
			return nil, fmt.Errorf("%s: a fair component is in the region but no start reaches it", p.Name)
		}
	} else {
		// <>[]: the bad component nearest to Init.
		for s := range uint32(g.states()) {
			if bad[s] {
				from = s
				break
			}
		}
	}
	entry := from
	if len(path) > 0 {
		entry = g.edges[path[len(path)-1].e].dst
	}
	cycle, err := g.fairCycle(entry, comp, mustVisit)
	if err != nil {
		return nil, err
	}
	// Assemble: BFS prefix to from, then path, then cycle.
	var acts []packed
	for s := from; s != 0; s = g.parent[s] {
		acts = append(acts, g.actInto(g.parent[s], s))
	}
	slices.Reverse(acts)
	for _, r := range path {
		acts = append(acts, g.edges[r.e].act)
	}
	loop := len(acts) // index of the entry state in the trace
	for _, r := range cycle {
		acts = append(acts, g.edges[r.e].act)
	}
	tr, err := replayActs(g.cfg, acts, name, false)
	if err != nil {
		return nil, err
	}
	tr.Lasso, tr.Loop = true, loop
	if !tr.Steps[len(tr.Steps)-1].State.Equal(tr.Steps[loop].State) {
		return nil, fmt.Errorf("%s: the lasso's cycle does not return to its first state", p.Name)
	}
	return &LiveViolation{Property: p.Name, Instance: p.InstanceName(g.cfg, inst), Trace: tr, Loop: loop}, nil
}

// edgeRef is an edge by its index in graph.edges.
type edgeRef struct{ e uint32 }

// actInto is the action of an edge from s to t (the BFS tree's).
func (g *graph) actInto(s, t uint32) packed {
	for _, e := range g.edges[g.off[s]:g.off[s+1]] {
		if e.dst == t {
			return e.act
		}
	}
	panic(fmt.Sprintf("no edge from state %d to its BFS child %d", s, t))
}

// pathTo is the shortest path from s to a state goal accepts, through
// states in, by any edges; pathToComp may also keep to fault-free edges
// and to one component. The empty path when s itself is a goal.
func (g *graph) pathTo(s uint32, in []bool, goal func(uint32) bool) ([]edgeRef, bool) {
	return g.pathToComp(s, in, goal, false, nil, -1)
}

func (g *graph) pathToComp(s uint32, in []bool, goal func(uint32) bool, faultFree bool, comps []int32, comp int32) ([]edgeRef, bool) {
	if goal(s) {
		return nil, true
	}
	prev := map[uint32]uint32{s: ^uint32(0)} // state -> edge index that reached it
	queue := []uint32{s}
	for q := 0; q < len(queue); q++ {
		u := queue[q]
		for ei := g.off[u]; ei < g.off[u+1]; ei++ {
			e := g.edges[ei]
			if faultFree && e.fault {
				continue
			}
			if in != nil && !in[e.dst] {
				continue
			}
			if comps != nil && comps[e.dst] != comp {
				continue
			}
			if _, ok := prev[e.dst]; ok {
				continue
			}
			prev[e.dst] = ei
			if goal(e.dst) {
				var path []edgeRef
				for t := e.dst; t != s; {
					pe := prev[t]
					path = append(path, edgeRef{pe})
					t = g.edgeSrc(pe)
				}
				for a, b := 0, len(path)-1; a < b; a, b = a+1, b-1 {
					path[a], path[b] = path[b], path[a]
				}
				return path, true
			}
			queue = append(queue, e.dst)
		}
	}
	return nil, false
}

// edgeSrc is the state an edge leaves (binary search over off).
func (g *graph) edgeSrc(ei uint32) uint32 {
	lo, hi := 0, g.states()-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if g.off[mid] <= ei {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return uint32(lo)
}

// fairCycle is a cycle from entry back to entry inside entry's component,
// fault-free, that for every fairness conjunct visits a state disabling it
// or takes a step of it, and visits a state mustVisit accepts. Empty when
// stuttering at entry is fair.
func (g *graph) fairCycle(entry uint32, comp []int32, mustVisit func(uint32) bool) ([]edgeRef, error) {
	c := comp[entry]
	met := make([]bool, g.nclass)
	visited := mustVisit == nil
	note := func(s uint32) {
		for cl := range g.nclass {
			if !g.isEnabled(s, cl) {
				met[cl] = true
			}
		}
		if mustVisit != nil && mustVisit(s) {
			visited = true
		}
	}
	allMet := func() bool {
		for _, m := range met {
			if !m {
				return false
			}
		}
		return visited
	}
	note(entry)
	var cycle []edgeRef
	cur := entry
	for !allMet() {
		// The nearest state disabling an unmet conjunct, or the nearest
		// state with an edge of one inside the component (then take it).
		goal := func(s uint32) bool {
			if !visited && mustVisit(s) {
				return true
			}
			for cl := range g.nclass {
				if met[cl] {
					continue
				}
				if !g.isEnabled(s, cl) {
					return true
				}
				for _, e := range g.edges[g.off[s]:g.off[s+1]] {
					if !e.fault && int(e.class) == cl && comp[e.dst] == c {
						return true
					}
				}
			}
			return false
		}
		path, ok := g.pathToComp(cur, nil, goal, true, comp, c)
		if !ok {
			return nil, fmt.Errorf("no fair cycle in the component of state %d, which was judged fair", entry)
		}
		for _, r := range path {
			cycle = append(cycle, r)
			note(g.edges[r.e].dst)
			if cl := g.edges[r.e].class; cl >= 0 {
				met[cl] = true
			}
		}
		if len(path) > 0 {
			cur = g.edges[path[len(path)-1].e].dst
		}
		if allMet() {
			break
		}
		// At the goal: take an unmet conjunct's edge if the state does not
		// disable it.
		for ei := g.off[cur]; ei < g.off[cur+1]; ei++ {
			e := g.edges[ei]
			if !e.fault && e.class >= 0 && !met[e.class] && comp[e.dst] == c {
				cycle = append(cycle, edgeRef{ei})
				met[e.class] = true
				cur = e.dst
				note(cur)
				break
			}
		}
	}
	if cur != entry {
		back, ok := g.pathToComp(cur, nil, func(s uint32) bool { return s == entry }, true, comp, c)
		if !ok {
			return nil, fmt.Errorf("state %d cannot return to %d within its component", cur, entry)
		}
		cycle = append(cycle, back...)
	}
	return cycle, nil
}

// replayActs re-executes actions from Init into a trace (the searches keep
// no states behind their frontier, only each step's packed action); with
// reduce (a search under the inert-message reduction), the steps that drain
// the slots each step but the last emptied are put back after it.
func replayActs(cfg *model.Config, acts []packed, name string, reduce bool) (trace.Trace, error) {
	s := model.Init(cfg)
	tr := trace.Trace{Source: "explore", ConfigName: name, Steps: []trace.Step{{State: s}}}
	for k, p := range acts {
		a := p.unpack(cfg)
		t, err := model.Apply(cfg, s, a)
		if err != nil {
			return trace.Trace{}, fmt.Errorf("rebuilding the trace: %w", err)
		}
		tr.Steps = append(tr.Steps, trace.Step{Action: a, State: t})
		s = t
		if !reduce || k == len(acts)-1 {
			// The last step ends the trace: the state it reaches breaks
			// the invariant as its collapsed form does (no invariant
			// tells them apart), or the step breaks an action property.
			continue
		}
		drain, states, err := model.DrainSteps(cfg, s)
		if err != nil {
			return trace.Trace{}, fmt.Errorf("rebuilding the trace after %s: %w", a, err)
		}
		for i := range drain {
			tr.Steps = append(tr.Steps, trace.Step{Action: drain[i], State: states[i]})
			s = states[i]
		}
	}
	return tr, nil
}
