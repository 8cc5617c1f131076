package packed

import (
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/model/tlccfg"
)

func manifest(t testing.TB) *tlccfg.Manifest {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	m, err := tlccfg.LoadManifest(filepath.Join(filepath.Dir(file), "..", "..", "spec"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// checks are the manifest's configurations that keep says to take.
func checks(t testing.TB, keep func(tlccfg.Entry) bool) []*tlccfg.Check {
	t.Helper()
	m := manifest(t)
	var out []*tlccfg.Check
	for _, e := range m.Configs {
		if !keep(e) {
			continue
		}
		c, err := m.LoadCheck(e)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	return out
}

// ciChecks are the manifest's ci configurations (plus those of its mutants),
// the configurations the differential tests run on.
func ciChecks(t testing.TB) []*tlccfg.Check {
	t.Helper()
	out := checks(t, func(e tlccfg.Entry) bool { return e.CI })
	if len(out) < 20 {
		t.Fatalf("only %d ci configurations in the manifest", len(out))
	}
	return out
}

// mutantChecks are the manifest's liveness-mutant configurations
// (live-mutant-*) that are not ci ones.
func mutantChecks(t testing.TB) []*tlccfg.Check {
	t.Helper()
	return checks(t, func(e tlccfg.Entry) bool { return !e.CI && strings.HasPrefix(e.Name, "live-mutant-") })
}

// check is the manifest's configuration of that name.
func check(t testing.TB, name string) *tlccfg.Check {
	t.Helper()
	out := checks(t, func(e tlccfg.Entry) bool { return e.Name == name })
	if len(out) != 1 {
		t.Fatalf("no configuration %s in the manifest", name)
	}
	return out[0]
}

// maxReachable bounds a differential test's configuration.
const maxReachable = 3_000_000

// reach is a configuration's reachable states, kept as their canonical
// encodings (model.Encode) end to end in one array: a few hundred megabytes
// for every ci configuration together, where model.States would take
// gigabytes, so that the tests share one search per configuration.
type reach struct {
	arena []byte
	ends  []int // state k is arena[ends[k-1]:ends[k]]
}

func (r *reach) len() int { return len(r.ends) }

func (r *reach) encoding(k int) []byte {
	start := 0
	if k > 0 {
		start = r.ends[k-1]
	}
	return r.arena[start:r.ends[k]]
}

func (r *reach) add(b []byte) {
	r.arena = append(r.arena, b...)
	r.ends = append(r.ends, len(r.arena))
}

// each calls f with states from..to-1 in turn, until f returns false. *s is
// valid only during the call (its slices are one scratch, reused).
func (r *reach) each(t testing.TB, from, to int, f func(k int, s *model.State) bool) {
	t.Helper()
	var sc model.Scratch
	var s model.State
	for k := from; k < to; k++ {
		if err := model.DecodeInto(r.encoding(k), &s, &sc); err != nil {
			t.Fatalf("state %d: %v", k, err)
		}
		if !f(k, &s) {
			return
		}
	}
}

var (
	reachMu    sync.Mutex
	reachCache = map[string]*reach{}
)

// reachable is every state the explorer visits when it checks c (without
// symmetry): breadth first, level by level, up to and including the first
// level that has a state violating one of c's invariants, or the successors
// of the first level with a step violating one of its action properties (the
// explorer stops there). Seen states are kept as 64-bit hashes of their
// encodings. The search runs once per configuration; later calls share it.
func reachable(t testing.TB, c *tlccfg.Check) *reach {
	t.Helper()
	reachMu.Lock()
	defer reachMu.Unlock()
	if r, ok := reachCache[c.Name]; ok {
		return r
	}
	r := search(t, c)
	reachCache[c.Name] = r
	return r
}

func search(t testing.TB, c *tlccfg.Check) *reach {
	t.Helper()
	cfg := &c.Config
	violates := func(s *model.State) bool {
		for _, n := range c.Invariants {
			if !model.Invariants[n](cfg, *s) {
				return true
			}
		}
		return false
	}
	r := &reach{}
	init := model.Init(cfg)
	buf := model.AppendEncoding(nil, &init)
	seen := map[uint64]struct{}{model.Hash64(buf): {}}
	r.add(buf)
	if violates(&init) {
		return r
	}
	for from, to := 0, 1; from < to; from, to = to, r.len() {
		stop, bad := false, false
		r.each(t, from, to, func(_ int, s *model.State) bool {
			err := model.NextPtr(cfg, s, func(_ model.Action, u *model.State) bool {
				for _, n := range c.Properties {
					if !model.Properties[n](cfg, *s, *u) && !s.Equal(*u) {
						stop = true
					}
				}
				buf = model.AppendEncoding(buf[:0], u)
				if k := model.Hash64(buf); !has(seen, k) {
					seen[k] = struct{}{}
					r.add(buf)
					bad = bad || violates(u)
				}
				return true
			})
			if err != nil {
				t.Fatal(err)
			}
			return true
		})
		// The level just found ends the search when one of its states
		// violates an invariant (the explorer checks it and stops), and so
		// does a step of the level expanded that broke an action property.
		if stop || bad {
			break
		}
		if r.len() > maxReachable {
			t.Fatalf("%s: more than %d states reachable before a violation", c.Name, maxReachable)
		}
	}
	return r
}

func has(m map[uint64]struct{}, k uint64) bool { _, ok := m[k]; return ok }
