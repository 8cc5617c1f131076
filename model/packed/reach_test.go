package packed

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/model/tlccfg"
)

// ciChecks are the manifest's ci configurations (plus those of its mutants),
// the configurations the differential tests run on.
func ciChecks(t testing.TB) []*tlccfg.Check {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	m, err := tlccfg.LoadManifest(filepath.Join(filepath.Dir(file), "..", "..", "spec"))
	if err != nil {
		t.Fatal(err)
	}
	var out []*tlccfg.Check
	for _, e := range m.Configs {
		if !e.CI {
			continue
		}
		c, err := m.LoadCheck(e)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	if len(out) < 20 {
		t.Fatalf("only %d ci configurations in the manifest", len(out))
	}
	return out
}

// maxReachable bounds a differential test's configuration.
const maxReachable = 3_000_000

// reachable is every state the explorer visits when it checks c (without
// symmetry): breadth first, level by level, up to and including the first
// level that has a state violating one of c's invariants, or the successors
// of the first level with a step violating one of its action properties (the
// explorer stops there). Seen states are kept as 64-bit hashes of their encodings.
func reachable(t testing.TB, c *tlccfg.Check) []model.State {
	t.Helper()
	cfg := &c.Config
	init := model.Init(cfg)
	seen := map[uint64]bool{model.Hash64(model.Encode(init)): true}
	out := []model.State{init}
	level := out
	for len(level) > 0 {
		for _, s := range level {
			for _, n := range c.Invariants {
				if !model.Invariants[n](cfg, s) {
					return out
				}
			}
		}
		var next []model.State
		stop := false
		for _, s := range level {
			err := model.Next(cfg, s, func(_ model.Action, u model.State) bool {
				for _, n := range c.Properties {
					if !model.Properties[n](cfg, s, u) && !s.Equal(u) {
						stop = true
					}
				}
				if k := model.Hash64(model.Encode(u)); !seen[k] {
					seen[k] = true
					next = append(next, u)
				}
				return true
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		out = append(out, next...)
		level = next
		if stop { // a step of this level broke an action property: the explorer stops
			return out
		}
		if len(out) > maxReachable {
			t.Fatalf("%s: more than %d states reachable before a violation", c.Name, maxReachable)
		}
	}
	return out
}
