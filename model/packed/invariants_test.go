package packed

import (
	"fmt"
	"maps"
	"math/bits"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"unsafe"

	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/model/tlccfg"
)

// corpus is one ci configuration's states, as the differential tests of
// this file, symmetry_test.go and layout_test.go run on them: every state
// reachable returns (the explorer's visited set without symmetry, search
// stopped where the explorer stops), in its order, then the successors of
// its last level that it does not list (extra states, for the properties'
// steps). One search per configuration gives the states, the model's
// verdicts on them and every step of model.Next out of them.
type corpus struct {
	check   *tlccfg.Check
	visited int      // states 0..visited-1 are reachable's; the rest are extra
	arena   []byte   // the packed states, squeezed
	ends    []uint32 // state k is arena[ends[k-1]:ends[k]]
	// inv[k] has bit j set when model invariant invNames[j] holds on state
	// k; invPanic when evaluating it panicked.
	inv, invPanic []uint32
	steps         []corpusStep
}

// corpusStep is a step of model.Next from state from to state to, with the
// model's verdicts on it: bit j of holds for property propNames[j].
type corpusStep struct {
	from, to      uint32
	holds, panics uint8
}

var (
	invNames  = model.InvariantNames()
	propNames = model.PropertyNames()
)

func (co *corpus) len() int { return len(co.ends) }

// state unsqueezes state k into p.
func (co *corpus) state(k int, p *State) {
	start := uint32(0)
	if k > 0 {
		start = co.ends[k-1]
	}
	unsqueeze(co.arena[start:co.ends[k]], p)
}

// stateBytes views p as bytes (it is pointer-free).
func stateBytes(p *State) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(p)), unsafe.Sizeof(*p))
}

// squeeze appends p's bytes with every run of zeros as 0, length: a packed
// State is mostly zeros (replicas and slots beyond the configuration's).
func squeeze(dst []byte, p *State) []byte {
	b := stateBytes(p)
	for i := 0; i < len(b); {
		if b[i] != 0 {
			dst = append(dst, b[i])
			i++
			continue
		}
		j := i
		for j < len(b) && b[j] == 0 && j-i < 255 {
			j++
		}
		dst = append(dst, 0, byte(j-i))
		i = j
	}
	return dst
}

func unsqueeze(src []byte, p *State) {
	b := stateBytes(p)
	i := 0
	for k := 0; k < len(src); k++ {
		if src[k] != 0 {
			b[i] = src[k]
			i++
			continue
		}
		k++
		clear(b[i : i+int(src[k])])
		i += int(src[k])
	}
}

// verdict evaluates f, reporting a panic instead of propagating it.
func verdict(f func() bool) (holds, panicked bool) {
	defer func() {
		if recover() != nil {
			holds, panicked = false, true
		}
	}()
	return f(), false
}

func (co *corpus) add(t testing.TB, s *model.State, buf []byte) []byte {
	cfg := &co.check.Config
	var p State
	if err := FromModel(cfg, s, &p); err != nil {
		t.Fatalf("%s: %v", co.check.Name, err)
	}
	buf = squeeze(buf[:0], &p)
	co.arena = append(co.arena, buf...)
	co.ends = append(co.ends, uint32(len(co.arena)))
	var holds, panics uint32
	for j, n := range invNames {
		h, pn := verdict(func() bool { return model.Invariants[n](cfg, *s) })
		if h {
			holds |= 1 << j
		}
		if pn {
			panics |= 1 << j
		}
	}
	co.inv = append(co.inv, holds)
	co.invPanic = append(co.invPanic, panics)
	return buf
}

// buildCorpus builds c's corpus. The walk is reachable's (reach_test.go): level
// by level, stopping after the first level with a state that violates one
// of c's invariants, or after the successors of the first level with a step
// that breaks one of c's action properties; here it also keeps every step.
func buildCorpus(t testing.TB, c *tlccfg.Check) *corpus {
	cfg := &c.Config
	co := &corpus{check: c}
	index := map[uint64]uint32{}
	var enc, sq []byte
	key := func(s *model.State) uint64 {
		enc = model.AppendEncoding(enc[:0], s)
		return model.Hash64(enc)
	}
	mask := func(names []string, all []string) (m uint32) {
		for _, n := range names {
			m |= 1 << slices.Index(all, n)
		}
		return m
	}
	stopInv, stopProp := mask(c.Invariants, invNames), uint8(mask(c.Properties, propNames))

	// expand records the steps out of level (states first.. of the corpus),
	// adding successors not seen yet; it returns them, and whether a step
	// that changes the state breaks one of c's properties.
	expand := func(level []model.State, first int) (next []model.State, stop bool) {
		for k := range level {
			s := &level[k]
			from := uint32(first + k)
			err := model.NextPtr(cfg, s, func(_ model.Action, u *model.State) bool {
				var holds, panics uint8
				for j, n := range propNames {
					h, pn := verdict(func() bool { return model.Properties[n](cfg, *s, *u) })
					if h {
						holds |= 1 << j
					}
					if pn {
						panics |= 1 << j
					}
				}
				if (^holds|panics)&stopProp != 0 && !s.Equal(*u) {
					stop = true
				}
				h := key(u)
				to, ok := index[h]
				if !ok {
					to = uint32(co.len())
					index[h] = to
					sq = co.add(t, u, sq)
					next = append(next, *u)
				}
				co.steps = append(co.steps, corpusStep{from: from, to: to, holds: holds, panics: panics})
				return true
			})
			if err != nil {
				t.Fatalf("%s: %v", c.Name, err)
			}
		}
		return next, stop
	}

	init := model.Init(cfg)
	index[key(&init)] = 0
	sq = co.add(t, &init, sq)
	level, first := []model.State{init}, 0
	for len(level) > 0 {
		bad := false
		for k := range level {
			if (^co.inv[first+k]|co.invPanic[first+k])&stopInv != 0 {
				bad = true
			}
		}
		if bad {
			break // reachable returns with this level, unexpanded
		}
		next, stop := expand(level, first)
		first += len(level)
		level = next
		if stop {
			break // reachable returns with the level just found, unexpanded
		}
		if co.len() > maxReachable {
			t.Fatalf("%s: more than %d states reachable before a violation", c.Name, maxReachable)
		}
	}
	co.visited = co.len()
	// The last level's steps, whose new successors are the extra states.
	expand(level, first)
	return co
}

var (
	corporaOnce sync.Once
	corpora     []*corpus
)

// ciCorpora are the corpora of every ci configuration, built once and
// shared by the tests.
func ciCorpora(t testing.TB) []*corpus {
	t.Helper()
	corporaOnce.Do(func() {
		for _, c := range ciChecks(t) {
			corpora = append(corpora, buildCorpus(t, c))
		}
	})
	if corpora == nil {
		t.Fatal("the corpora were not built")
	}
	return corpora
}

func TestInvariantsHaveModelsNames(t *testing.T) {
	if got, want := slices.Sorted(maps.Keys(Invariants)), model.InvariantNames(); !slices.Equal(got, want) {
		t.Errorf("packed.Invariants has %v, model.Invariants %v", got, want)
	}
	if got, want := slices.Sorted(maps.Keys(Properties)), model.PropertyNames(); !slices.Equal(got, want) {
		t.Errorf("packed.Properties has %v, model.Properties %v", got, want)
	}
}

// mismatch is a (state, invariant) pair on which packed and model differ.
type mismatch struct {
	config, name string
	state        int
	got, want    string
}

func (m mismatch) String() string {
	return fmt.Sprintf("%s: state %d: %s is %s on the packed state, %s on the model's", m.config, m.state, m.name, m.got, m.want)
}

func verdictString(holds, panicked bool) string {
	switch {
	case panicked:
		return "a panic"
	case holds:
		return "true"
	}
	return "false"
}

// compareInvariants evaluates invs (those named in only, or all) on every
// state of every corpus and returns where they differ from the model's
// verdicts, and on how many visited states each model invariant is false.
func compareInvariants(t *testing.T, invs map[string]func(*model.Config, *State) bool, only []string) (bad []mismatch, falses map[string]int) {
	falses = map[string]int{}
	var p State
	for _, co := range ciCorpora(t) {
		cfg := &co.check.Config
		for k := range co.len() {
			co.state(k, &p)
			for j, n := range invNames {
				if only != nil && !slices.Contains(only, n) {
					continue
				}
				wantH, wantP := co.inv[k]&(1<<j) != 0, co.invPanic[k]&(1<<j) != 0
				if !wantH && !wantP && k < co.visited {
					falses[n]++
				}
				gotH, gotP := verdict(func() bool { return invs[n](cfg, &p) })
				if gotH != wantH || gotP != wantP {
					bad = append(bad, mismatch{co.check.Name, n, k, verdictString(gotH, gotP), verdictString(wantH, wantP)})
				}
			}
		}
	}
	return bad, falses
}

// On every state of every ci configuration (those reachable visits, and the
// successors of its last level), every invariant gives the model's
// verdict; on every step of model.Next out of those states, every action
// property does.
func TestInvariantsEqualModel(t *testing.T) {
	bad, falses := compareInvariants(t, Invariants, nil)
	for _, m := range bad[:min(len(bad), 10)] {
		t.Error(m)
	}
	if len(bad) > 10 {
		t.Errorf("... %d mismatches in all", len(bad))
	}
	states, visited := 0, 0
	for _, co := range ciCorpora(t) {
		states += co.len()
		visited += co.visited
	}
	t.Logf("%d states: %d visited, %d successors of the last levels", states, visited, states-visited)
	for _, n := range invNames {
		t.Logf("%-34s false on %7d of %d visited states", n, falses[n], visited)
	}

	// The properties, step by step.
	propFalse := map[string]int{}
	steps, badSteps := 0, 0
	var p, q State
	for _, co := range ciCorpora(t) {
		cfg := &co.check.Config
		from := -1
		for _, st := range co.steps {
			if int(st.from) != from {
				from = int(st.from)
				co.state(from, &p)
			}
			co.state(int(st.to), &q)
			steps++
			for j, n := range propNames {
				wantH, wantP := st.holds&(1<<j) != 0, st.panics&(1<<j) != 0
				if !wantH && !wantP {
					propFalse[n]++
				}
				gotH, gotP := verdict(func() bool { return Properties[n](cfg, &p, &q) })
				if gotH != wantH || gotP != wantP {
					badSteps++
					if badSteps <= 10 {
						t.Errorf("%s: step %d -> %d: %s is %s on the packed states, %s on the model's", co.check.Name,
							st.from, st.to, n, verdictString(gotH, gotP), verdictString(wantH, wantP))
					}
				}
			}
		}
	}
	for _, n := range propNames {
		t.Logf("%-34s false on %7d of %d steps", n, propFalse[n], steps)
	}
	if badSteps > 10 {
		t.Errorf("... %d mismatching steps in all", badSteps)
	}
}

// Seeded bugs in the packed invariants, each in an invariant that is false
// on some visited states, so that the comparison above has something to
// catch.
var invariantMutants = []struct {
	name, bug string
	f         func(*model.Config, *State) bool
}{
	{"NoAckedLoss", "ignores an acknowledged record at the last offset", func(cfg *model.Config, p *State) bool {
		if p.CtrlLeader == None {
			return true
		}
		for set := p.Acked; set != 0; set &= set - 1 {
			o, id := pairAt(bits.TrailingZeros32(set))
			if o < cfg.MaxRecords-1 && !replicaHolds(&p.R[p.CtrlLeader], o, id) {
				return false
			}
		}
		return true
	}},
	{"EpochCacheMatchesLog", "takes the first entry at or below an offset, not the last", func(cfg *model.Config, p *State) bool {
		if cfg.Rel().CacheAssign == "None" {
			return true
		}
		for i := range cfg.N() {
			r := &p.R[i]
			if !replicaUp(r) {
				continue
			}
			for o := int8(0); o < r.LogLen; o++ {
				cover := -1
				for k, x := range r.Cache[:r.CacheLen] {
					if x.Start <= o && cover == -1 {
						cover = k
					}
				}
				if cover == -1 || r.Cache[cover].Epoch != r.Log[o].Epoch {
					return false
				}
			}
		}
		return true
	}},
	{"StrongIsr", "checks the controller's leader only, not every ISR member", func(cfg *model.Config, p *State) bool {
		if p.CtrlLeader == None || !p.CtrlIsr.Has(int(p.CtrlLeader)) {
			return true
		}
		for set := p.Committed; set != 0; set &= set - 1 {
			if o, id := pairAt(bits.TrailingZeros32(set)); !replicaHolds(&p.R[p.CtrlLeader], o, id) {
				return false
			}
		}
		return true
	}},
	{"NoDivergence", "compares the logs one offset short of the lower HW", func(cfg *model.Config, p *State) bool {
		for i := range cfg.N() {
			for j := range cfg.N() {
				a, b := &p.R[i], &p.R[j]
				if !replicaReconciled(a) || !replicaReconciled(b) || a.LeaderEpoch != b.LeaderEpoch {
					continue
				}
				for o := range min(a.Hw, b.Hw) - 1 {
					if a.Log[o] != b.Log[o] {
						return false
					}
				}
			}
		}
		return true
	}},
}

// The comparison bites: each seeded bug, alone, makes it fail.
func TestInvariantMutantsAreCaught(t *testing.T) {
	for _, m := range invariantMutants {
		invs := maps.Clone(Invariants)
		invs[m.name] = m.f
		bad, falses := compareInvariants(t, invs, []string{m.name})
		if falses[m.name] == 0 {
			t.Errorf("%s is false on no state: a bug in it could not show", m.name)
		}
		if len(bad) == 0 {
			t.Errorf("%s %s: the comparison with the model did not notice", m.name, m.bug)
			continue
		}
		t.Logf("%s %s: %d states tell (first: %v)", m.name, m.bug, len(bad), bad[0])
	}
}

// The invariants and properties allocate nothing.
func TestInvariantsDoNotAllocate(t *testing.T) {
	co := ciCorpora(t)[0]
	cfg := &co.check.Config
	var p, q State
	co.state(co.visited-1, &p)
	co.state(0, &q)
	for _, n := range invNames {
		f := Invariants[n]
		if a := testing.AllocsPerRun(100, func() { f(cfg, &p) }); a != 0 {
			t.Errorf("%s: %v allocations", n, a)
		}
	}
	for _, n := range propNames {
		f := Properties[n]
		if a := testing.AllocsPerRun(100, func() { f(cfg, &p, &q) }); a != 0 {
			t.Errorf("%s: %v allocations", n, a)
		}
	}
}

// The ELR invariants and action properties, on perturbed states. On the
// states the ci configurations reach the three invariants never fail (they
// hold), so the comparison above cannot tell a wrong packed form of them
// from a right one. Here the controller's ISR, ELR and last known leader of
// states of the ELR configurations (and of a 3.9 one, without ELR) are
// drawn at random, and so is a step's elected leader, and half the time
// min.insync.replicas is 1 (at 2 of two replicas, a leader's maximal ISR
// holds everyone whenever ElrInMaximalIsr asks): on these the invariants
// and properties fail often, and packed must agree with the model on each.
func compareElrPerturbed(t *testing.T, invs map[string]func(*model.Config, *State) bool,
	props map[string]func(*model.Config, *State, *State) bool) (bad []mismatch, falses map[string]int) {
	names := []string{"ElrWellFormed", "ElrComplete", "ElrInMaximalIsr", "TypeOK"}
	propNames := []string{"NeverElrElection", "NeverLastKnownLeaderElection"}
	falses = map[string]int{}
	cos := elrCorpora(t)
	for _, co := range ciCorpora(t) {
		if co.check.Name == "de-unflushed-min2" {
			cos = append(cos, co)
		}
	}
	rng := rand.New(rand.NewPCG(5, 6))
	var p, q State
	for _, co := range cos {
		min1 := co.check.Config
		min1.MinInsyncReplicas = 1
		n := min1.N()
		for k := 0; k < co.visited; k += 1 + co.visited/2000 {
			co.state(k, &p)
			for x := range 4 {
				cfg := &co.check.Config
				if x%2 == 1 {
					cfg = &min1
				}
				all := 1<<n - 1
				p.CtrlIsr = Set(rng.IntN(all + 1))
				p.CtrlElr = Set(rng.IntN(all + 1))
				p.CtrlLastKnownElr = Set(rng.IntN(all + 1))
				if rng.IntN(2) == 0 {
					p.CtrlElr &^= p.CtrlIsr
				}
				if rng.IntN(2) == 0 && p.CtrlLastKnownElr.size() > 1 {
					p.CtrlLastKnownElr &= -p.CtrlLastKnownElr // its lowest member
				}
				s := ToModel(cfg, &p)
				for _, name := range names {
					wantH, wantP := verdict(func() bool { return model.Invariants[name](cfg, s) })
					gotH, gotP := verdict(func() bool { return invs[name](cfg, &p) })
					if !wantH {
						falses[name]++
					}
					if gotH != wantH || gotP != wantP {
						bad = append(bad, mismatch{co.check.Name, name, k, verdictString(gotH, gotP), verdictString(wantH, wantP)})
					}
				}
				q = p
				q.CtrlEpoch = p.CtrlEpoch + int8(rng.IntN(2))
				q.CtrlLeader = int8(rng.IntN(n+1) - 1)
				u := ToModel(cfg, &q)
				for _, name := range propNames {
					wantH, wantP := verdict(func() bool { return model.Properties[name](cfg, s, u) })
					gotH, gotP := verdict(func() bool { return props[name](cfg, &p, &q) })
					if !wantH {
						falses[name]++
					}
					if gotH != wantH || gotP != wantP {
						bad = append(bad, mismatch{co.check.Name, name + " (a step)", k, verdictString(gotH, gotP), verdictString(wantH, wantP)})
					}
				}
			}
		}
	}
	return bad, falses
}

func TestElrInvariantsEqualModelOnPerturbedStates(t *testing.T) {
	bad, falses := compareElrPerturbed(t, Invariants, Properties)
	for _, m := range bad[:min(len(bad), 10)] {
		t.Error(m)
	}
	for name, k := range falses {
		t.Logf("%-30s false on %d perturbed states", name, k)
	}
	for _, name := range []string{"ElrWellFormed", "ElrComplete", "ElrInMaximalIsr", "NeverElrElection", "NeverLastKnownLeaderElection"} {
		if falses[name] == 0 {
			t.Errorf("%s is false on no perturbed state: a bug in it could not show", name)
		}
	}
}

// Seeded bugs in the packed ELR invariants and properties: each, alone,
// makes the perturbed comparison fail.
func TestElrInvariantMutantsAreCaught(t *testing.T) {
	for _, m := range []struct {
		name, bug string
		inv       func(*model.Config, *State) bool
		prop      func(*model.Config, *State, *State) bool
	}{
		{"ElrWellFormed", "lets the last known leader stand beside a non-empty ISR", func(cfg *model.Config, p *State) bool {
			return p.CtrlElr&p.CtrlIsr == 0 && !(p.CtrlIsr.size() >= model.EffMinIsr(cfg) && p.CtrlElr != 0) &&
				!(p.CtrlIsr == 0 && p.CtrlLastKnownElr == 0) && (cfg.Rel().Elr || (p.CtrlElr == 0 && p.CtrlLastKnownElr == 0))
		}, nil},
		{"ElrComplete", "asks it of the dead ELR members too", func(cfg *model.Config, p *State) bool {
			for set := p.Committed; set != 0; set &= set - 1 {
				o, id := pairAt(bits.TrailingZeros32(set))
				for i := range cfg.N() {
					if p.CtrlElr.Has(i) && !replicaHolds(&p.R[i], o, id) {
						return false
					}
				}
			}
			return true
		}, nil},
		{"ElrInMaximalIsr", "checks the ISR only, not the ELR", func(cfg *model.Config, p *State) bool {
			for l := range cfg.N() {
				r := &p.R[l]
				if r.Role == model.Leader && r.LeaderEpoch == p.CtrlEpoch && r.Isr.size() >= model.EffMinIsr(cfg) &&
					p.CtrlIsr&^maximalIsr(p, l) != 0 {
					return false
				}
			}
			return true
		}, nil},
		{"NeverElrElection", "does not ask the ISR to be empty", nil, func(cfg *model.Config, p, q *State) bool {
			return !(q.CtrlEpoch > p.CtrlEpoch && q.CtrlLeader != None && cfg.Rel().Elr && p.CtrlElr.Has(int(q.CtrlLeader)))
		}},
		{"NeverLastKnownLeaderElection", "does not ask the ELR to be empty", nil, func(cfg *model.Config, p, q *State) bool {
			return !(q.CtrlEpoch > p.CtrlEpoch && q.CtrlLeader != None && cfg.Rel().Elr && p.CtrlIsr == 0 &&
				p.CtrlLastKnownElr == bit(int(q.CtrlLeader)))
		}},
	} {
		invs, props := maps.Clone(Invariants), maps.Clone(Properties)
		if m.inv != nil {
			invs[m.name] = m.inv
		} else {
			props[m.name] = m.prop
		}
		bad, _ := compareElrPerturbed(t, invs, props)
		if len(bad) == 0 {
			t.Errorf("%s %s: the comparison with the model did not notice", m.name, m.bug)
			continue
		}
		t.Logf("%s %s: %d states tell (first: %v)", m.name, m.bug, len(bad), bad[0])
	}
}
