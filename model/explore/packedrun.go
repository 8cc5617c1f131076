package explore

import (
	"fmt"
	"slices"
	"unsafe"

	"github.com/hwepoch/hwepoch/model"
	pstate "github.com/hwepoch/hwepoch/model/packed"
)

// packedEngine searches on model/packed's fixed-size states: a frontier
// state is its Layout's words (as bytes: the frontier's arenas and spill
// files hold bytes), its successors come from pstate.Succ without
// allocating, and its fingerprint is a hash straight from the words. The
// readable engine (model.State, decoded from the varint encoding) stays for
// configurations beyond packed's maxima, for liveness, and as the reference
// the packed engine is held to (TestPackedEngineEqualsReadable).
type packedEngine struct {
	lay   *pstate.Layout
	words int
	invs  []func(*model.Config, *pstate.State) bool
	props []func(*model.Config, *pstate.State, *pstate.State) bool
}

// newPackedEngine is nil, with the reason, when cfg is beyond the packed
// state's maxima.
func newPackedEngine(cfg *model.Config, c *checker) (*packedEngine, error) {
	lay, err := pstate.NewLayout(cfg)
	if err != nil {
		return nil, err
	}
	if _, err := pstate.NewSucc(cfg); err != nil {
		return nil, err
	}
	e := &packedEngine{lay: lay, words: lay.Words()}
	for _, inv := range c.invs {
		f, ok := pstate.Invariants[inv.name]
		if !ok {
			return nil, fmt.Errorf("invariant %s has no packed form", inv.name)
		}
		e.invs = append(e.invs, f)
	}
	for _, p := range c.props {
		f, ok := pstate.Properties[p.name]
		if !ok {
			return nil, fmt.Errorf("property %s has no packed form", p.name)
		}
		e.props = append(e.props, f)
	}
	return e, nil
}

// packedReplicaKey is packed.ReplicaKey; a variable so that a test can seed
// a key that is not invariant under renaming and see the counts go wrong.
var packedReplicaKey = pstate.ReplicaKey

// packedWorker is one worker's scratch for the packed engine.
type packedWorker struct {
	succ       *pstate.Succ
	s, perm    pstate.State
	words, tmp []uint64
	fpBuf      []byte
	// recent holds fingerprints of this chunk's successors, direct mapped
	// (32 KiB: it stays in the L1/L2 cache). A successor found there repeats
	// an earlier one of the same chunk: that one was either already seen
	// or became a candidate, which wins the fingerprint in dedup (the first
	// in BFS order), so the repeat is dropped without a lookup in seen (a
	// cache miss) and without being packed. A slot holds the last
	// fingerprint that hashed to it; a miss in recent only costs the lookup.
	recent [recentSlots]uint64
}

const recentSlots = 4096

func (c *checker) packedWorker(w *worker) *packedWorker {
	if w.pk == nil {
		succ, err := pstate.NewSucc(c.cfg)
		if err != nil {
			panic(err) // newPackedEngine made one from the same configuration
		}
		w.pk = &packedWorker{succ: succ, words: make([]uint64, c.pk.words), tmp: make([]uint64, c.pk.words),
			fpBuf: make([]byte, pstate.FingerprintBuf)}
	}
	return w.pk
}

// wordBytes views words as bytes (little-endian machines only: the
// frontier's bytes are this process's own, never read elsewhere).
func wordBytes(w []uint64) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(w))), len(w)*8)
}

// initPacked is the initial state's frontier bytes and fingerprint.
func (c *checker) initPacked(s *model.State) ([]byte, uint64, error) {
	var p pstate.State
	if err := pstate.FromModel(c.cfg, s, &p); err != nil {
		return nil, 0, err
	}
	var w worker
	pw := c.packedWorker(&w)
	if err := c.pk.pack(&p, pw.words); err != nil {
		return nil, 0, err
	}
	fp := c.fingerprintPacked(pw, &p)
	return append([]byte(nil), wordBytes(pw.words)...), fp, nil
}

// pack is Layout.Pack, with a value outside its field's width (a bug of the
// layout's bounds) as an error instead of a panic.
func (e *packedEngine) pack(p *pstate.State, dst []uint64) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("packing a state: %v", r)
		}
	}()
	e.lay.Pack(p, dst)
	return nil
}

// fingerprintPacked is the state's fingerprint: packed.Fingerprint of its
// struct (no packing: most successors are duplicates, and only new ones
// are packed), or under symmetry the least over the renamings that sort
// the replicas by packed.ReplicaKey (as fingerprintBuf does on
// model.State).
func (c *checker) fingerprintPacked(pw *packedWorker, p *pstate.State) uint64 {
	n := c.cfg.N()
	if c.perms == nil {
		return pstate.Fingerprint(n, p, pw.fpBuf)
	}
	var keys [8]uint64
	if !c.fullSym {
		for i := range n {
			keys[i] = packedReplicaKey(c.cfg, p, i)
		}
	}
	fp := ^uint64(0)
	for k, perm := range c.perms {
		if !c.fullSym && !model.SortsByKey(keys[:n], c.pinvs[k]) {
			continue
		}
		if k == 0 {
			fp = min(fp, pstate.Fingerprint(n, p, pw.fpBuf))
			continue
		}
		pstate.Permute(c.cfg, p, perm, c.pinvs[k], &pw.perm)
		fp = min(fp, pstate.Fingerprint(n, &pw.perm, pw.fpBuf))
	}
	return fp
}

// badInvariantPacked is badInvariant on the packed form.
func (c *checker) badInvariantPacked(p *pstate.State) (name string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("evaluating invariant %s: %v", name, r)
		}
	}()
	for k, f := range c.pk.invs {
		name = c.invs[k].name
		if !f(c.cfg, p) {
			return name, nil
		}
	}
	return "", nil
}

// badPropertyPacked is badProperty on the packed form.
func (c *checker) badPropertyPacked(p, q *pstate.State) (name string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("evaluating property %s: %v", name, r)
		}
	}()
	for k, f := range c.pk.props {
		name = c.props[k].name
		if !f(c.cfg, p, q) && *p != *q { // [][A]_vars: stuttering is allowed
			return name, nil
		}
	}
	return "", nil
}

// expandChunkPacked is expandChunk on the packed engine: the same checks in
// the same order, so the same counts and the same first violation.
func (c *checker) expandChunkPacked(frontier []node, lo, hi int, seen *fpSet, expand bool, out *chunkOut, w *worker) {
	pw := c.packedWorker(w)
	rec := c.pk.words * 8
	out.arena = make([]byte, 0, (hi-lo)*2*rec)
	out.cands = make([]cand, 0, (hi-lo)*3/2)
	src := wordBytes(pw.words)
	clear(pw.recent[:])
	for pos := lo; pos < hi; pos++ {
		nd := &frontier[pos]
		if len(nd.enc) != rec {
			out.evalErr = fmt.Errorf("state %d: %d bytes, want %d (a frontier of another layout)", nd.idx, len(nd.enc), rec)
			return
		}
		copy(src, nd.enc)
		c.pk.lay.Unpack(pw.words, &pw.s)
		s := &pw.s
		name, err := c.badInvariantPacked(s)
		if err != nil {
			out.evalErr = err
			return
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
		err = pw.succ.Next(s, func(k model.ActionKind, i, j, keep int, t *pstate.State) bool {
			out.generated++
			if len(c.props) > 0 && out.act == nil {
				name, err := c.badPropertyPacked(s, t)
				if err != nil {
					stepErr = err
					return false
				}
				if name != "" {
					out.act = &found{pos: pos, property: name, idx: nd.idx, step: pack(c.cfg, pstate.Action(c.cfg, k, i, j, keep))}
				}
			}
			if c.reduce {
				pw.succ.Collapse(t)
			}
			fp := c.fingerprintPacked(pw, t)
			slot := &pw.recent[fp&(recentSlots-1)]
			if *slot == norm(fp) {
				return true // seen before, or a candidate of this chunk that wins the fingerprint
			}
			*slot = norm(fp)
			if seen.contains(fp) {
				return true
			}
			off := len(out.arena)
			out.arena = slices.Grow(out.arena, rec)[:off+rec]
			tw := unsafe.Slice((*uint64)(unsafe.Pointer(&out.arena[off])), c.pk.words)
			if uintptr(unsafe.Pointer(&out.arena[off]))%8 != 0 {
				tw = pw.tmp
			}
			if err := c.pk.pack(t, tw); err != nil {
				stepErr = fmt.Errorf("%s: %w", pstate.Action(c.cfg, k, i, j, keep), err)
				return false
			}
			if &tw[0] == &pw.tmp[0] {
				copy(out.arena[off:], wordBytes(pw.tmp))
			}
			out.cands = append(out.cands, cand{fp: fp, off: uint32(off), n: uint32(rec),
				parent: nd.idx, act: pack(c.cfg, pstate.Action(c.cfg, k, i, j, keep))})
			return true
		})
		if err == nil {
			err = stepErr
		}
		if err != nil {
			out.evalErr = fmt.Errorf("expanding state %d: %w", nd.idx, err)
			return
		}
	}
}
