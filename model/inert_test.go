package model_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/model/tlccfg"
)

// quotientLimit bounds the reachable states of a configuration the
// quotient test searches in full.
const quotientLimit = 250_000

// quotientChecks are the manifest's ci configurations of the spec as
// written (no seeded bug), whatever their properties, with one record, at
// most one leader change and ISR proposals below partition epoch 2:
// searched in full, without symmetry and past
// any violation, the ci configurations themselves reach millions of
// states. Configurations that become equal are taken once.
func quotientChecks(t *testing.T) []*tlccfg.Check {
	t.Helper()
	man, err := tlccfg.LoadManifest(filepath.Join("..", "spec"))
	if err != nil {
		t.Fatal(err)
	}
	var out []*tlccfg.Check
	seen := map[string]bool{}
	for _, e := range man.Configs {
		if !e.CI || e.Mutant != "" {
			continue
		}
		c, err := man.LoadCheck(e)
		if err != nil {
			t.Fatal(err)
		}
		c.Config.MaxRecords = 1
		c.Config.MaxEpoch = min(c.Config.MaxEpoch, 1)
		c.Config.MaxPartitionEpoch = min(c.Config.MaxPartitionEpoch, 2)
		key := c.Config.String()
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, c)
	}
	return out
}

// closure is the set of states reachable from Init (as hashes of their
// encodings), each successor passed through collapse first (nil: none).
func closure(cfg *model.Config, collapse func(*model.State)) (map[uint64]model.State, error) {
	seen := map[uint64]model.State{}
	var buf []byte
	add := func(s model.State) bool {
		buf = model.AppendEncoding(buf[:0], &s)
		k := model.Hash64(buf)
		if _, ok := seen[k]; ok {
			return false
		}
		seen[k] = s
		return true
	}
	init := model.Init(cfg)
	add(init)
	for level := []model.State{init}; len(level) > 0; {
		var next []model.State
		for _, s := range level {
			err := model.NextPtr(cfg, &s, func(_ model.Action, t *model.State) bool {
				u := *t
				if collapse != nil {
					collapse(&u)
				}
				if add(u) {
					next = append(next, u)
				}
				return true
			})
			if err != nil {
				return nil, err
			}
		}
		if len(seen) > quotientLimit {
			return nil, fmt.Errorf("more than %d states", quotientLimit)
		}
		level = next
	}
	return seen, nil
}

// quotientDiff compares, for one configuration, the collapsed images of
// the reachable states with the states the reduced search reaches, and
// describes the first difference ("" when the sets are equal). It also
// checks every invariant on each reachable state against its image.
func quotientDiff(cfg *model.Config) (full, reduced int, diff string, err error) {
	all, err := closure(cfg, nil)
	if err != nil {
		return 0, 0, "", err
	}
	red, err := closure(cfg, func(s *model.State) { model.Collapse(cfg, s) })
	if err != nil {
		return 0, 0, "", err
	}
	images := map[uint64]bool{}
	var buf []byte
	for _, s := range all {
		u := s
		model.Collapse(cfg, &u)
		buf = model.AppendEncoding(buf[:0], &u)
		k := model.Hash64(buf)
		images[k] = true
		if _, ok := red[k]; !ok && diff == "" {
			diff = fmt.Sprintf("a reachable state's image is not reached by the reduced search:\n%v", u)
		}
		for name, inv := range model.Invariants {
			if inv(cfg, s) != inv(cfg, u) && diff == "" {
				diff = fmt.Sprintf("%s is %t on a reachable state and %t on its image", name, inv(cfg, s), inv(cfg, u))
			}
		}
	}
	for k, s := range red {
		if !images[k] && diff == "" {
			diff = fmt.Sprintf("the reduced search reaches a state that is no reachable state's image:\n%v", s)
		}
	}
	return len(all), len(red), diff, nil
}

// TestCollapseIsAnExactQuotient holds the inert-message reduction to its
// claim on every ci configuration small enough to search in full (without
// symmetry): the states the reduced search reaches are exactly the
// collapsed images of the reachable states, and every invariant has the
// same value on a state and on its image. That is what makes the reduced
// search find every violation the full one finds (docs/correctness.md).
func TestCollapseIsAnExactQuotient(t *testing.T) {
	if testing.Short() {
		t.Skip("searches every small ci configuration twice")
	}
	searched := 0
	for _, c := range quotientChecks(t) {
		full, red, diff, err := quotientDiff(&c.Config)
		if err != nil {
			t.Logf("%s: not searched in full: %v", c.Name, err)
			continue
		}
		searched++
		if diff != "" {
			t.Errorf("%s: %s", c.Name, diff)
		}
		if red > full {
			t.Errorf("%s: the reduced search reaches %d states, the full one %d", c.Name, red, full)
		}
		t.Logf("%s: %d states, %d in the quotient (%.2fx)", c.Name, full, red, float64(full)/float64(red))
	}
	if searched < 10 {
		t.Errorf("only %d configurations searched in full", searched)
	}
}

// TestCollapseMutantsAreCaught seeds each wrong inert rule and wants the
// quotient test to fail on at least one configuration: a request its
// leader can still serve, or a divergingEpoch answer, taken as inert.
func TestCollapseMutantsAreCaught(t *testing.T) {
	if testing.Short() {
		t.Skip("searches ci configurations under seeded bugs")
	}
	checks := map[string]*tlccfg.Check{}
	for _, c := range quotientChecks(t) {
		checks[c.Name] = c
	}
	for _, tc := range []struct{ bug, config string }{
		{"request", "w-leader-change"},
		{"response", "w-de-diverging-truncation"},
	} {
		t.Run(tc.bug, func(t *testing.T) {
			c := checks[tc.config]
			if c == nil {
				t.Fatalf("no configuration %s among the quotient test's", tc.config)
			}
			restore := model.SeedInertBug(tc.bug)
			defer restore()
			_, _, diff, err := quotientDiff(&c.Config)
			switch {
			case err != nil:
				t.Fatal(err)
			case diff == "":
				t.Errorf("the %s bug was not caught on %s", tc.bug, tc.config)
			default:
				t.Logf("caught on %s: %.200s", tc.config, diff)
			}
		})
	}
}
