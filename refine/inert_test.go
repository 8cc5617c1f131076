package refine

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/hwepoch/hwepoch/model"
)

// followsInQuotient checks the inert-message reduction's simulation lemma
// along one behaviour: each step's collapsed end is its collapsed start, or
// a collapsed successor of it, and every invariant has the same value on a
// state and on its collapsed image. So the reduced search reaches the
// collapsed image of every state of the behaviour, with the same verdicts:
// the violation it ends in, or the situation it witnesses, included.
func followsInQuotient(cfg *model.Config, steps []model.State) error {
	image := func(s model.State) model.State {
		model.Collapse(cfg, &s)
		return s
	}
	for i, s := range steps {
		u := image(s)
		for name, inv := range model.Invariants {
			if inv(cfg, s) != inv(cfg, u) {
				return fmt.Errorf("state %d: %s is %t, on its collapsed image %t", i+1, name, inv(cfg, s), inv(cfg, u))
			}
		}
		if i+1 == len(steps) {
			break
		}
		v := image(steps[i+1])
		if v.Equal(u) {
			continue
		}
		found := false
		err := model.NextPtr(cfg, &u, func(_ model.Action, t *model.State) bool {
			w := *t
			model.Collapse(cfg, &w)
			found = w.Equal(v)
			return !found
		})
		if err != nil {
			return fmt.Errorf("state %d: %v", i+1, err)
		}
		if !found {
			return fmt.Errorf("step %d: the collapsed image of state %d is no collapsed successor of state %d's", i+1, i+2, i+1)
		}
	}
	return nil
}

// TestKnownTracesFollowInQuotient runs the lemma along every trace under
// traces/: TLC's counterexamples and simulations, the explorer's
// counterexamples, the regressions (among them KAFKA-7128 and finding 1's
// stale fetch) and the scenarios (KIP-101's two, KIP-279, KIP-320's).
func TestKnownTracesFollowInQuotient(t *testing.T) {
	n := 0
	eachKnownTrace(t, func(c Case, steps []model.State) bool {
		if err := followsInQuotient(c.Config, steps); err != nil {
			t.Errorf("%s: %v", c.Name, err)
		}
		n++
		return true
	})
	if n < 50 {
		t.Fatalf("only %d traces", n)
	}
	t.Logf("%d traces", n)
}

// eachKnownTrace calls f with every trace under traces/ and its states,
// until f returns false.
func eachKnownTrace(t *testing.T, f func(c Case, steps []model.State) bool) {
	t.Helper()
	files, err := Discover(filepath.Join("..", "traces"))
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range files {
		cases, err := Load(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			steps := make([]model.State, len(c.Trace.Steps))
			for i, st := range c.Trace.Steps {
				steps[i] = st.State
			}
			if !f(c, steps) {
				return
			}
		}
	}
}

// The lemma's check bites: with a wrong inert rule (a request its leader
// can still serve taken as inert) some known trace leaves the quotient.
func TestKnownTracesCatchSeededBug(t *testing.T) {
	restore := model.SeedInertBug("request")
	defer restore()
	caught := false
	eachKnownTrace(t, func(c Case, steps []model.State) bool {
		if err := followsInQuotient(c.Config, steps); err != nil {
			t.Logf("caught on %s: %v", c.Name, err)
			caught = true
		}
		return !caught
	})
	if !caught {
		t.Fatal("no known trace leaves the quotient under the seeded bug")
	}
}
