package explore

import (
	"context"
	"reflect"
	"testing"

	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/model/tlccfg"
	"github.com/hwepoch/hwepoch/trace"
)

// swarmCheck is spec/w-unclean-reconcile (two replicas, 2.1.0, unclean
// elections): walks break its action property NeverTruncatesCommitted
// within a few hundred walks, so several walks and both workers take part.
func swarmCheck(t *testing.T) *tlccfg.Check {
	t.Helper()
	m, err := tlccfg.LoadManifest(specDir(t))
	if err != nil {
		t.Fatal(err)
	}
	e, ok := m.Lookup(swarmCfgName)
	if !ok {
		t.Fatal("no " + swarmCfgName + " in the manifest")
	}
	chk, err := m.LoadCheck(e)
	if err != nil {
		t.Fatal(err)
	}
	return chk
}

func swarm(t *testing.T, chk *tlccfg.Check, seed uint64, workers int, accept func(*Violation) bool) *SwarmResult {
	return swarmOpt(t, chk, seed, workers, false, accept)
}

func swarmOpt(t *testing.T, chk *tlccfg.Check, seed uint64, workers int, archive bool, accept func(*Violation) bool) *SwarmResult {
	t.Helper()
	res, err := Swarm(context.Background(), &chk.Config, SwarmOptions{
		Options: Options{Workers: workers, Invariants: chk.Invariants, Properties: chk.Properties, ConfigName: chk.Name},
		Seed:    seed, Walks: 20000, Archive: archive, Accept: accept})
	if err != nil {
		t.Fatal(err)
	}
	if res.Violation == nil {
		t.Fatalf("seed %d: no violation in %d walks", seed, res.Walks)
	}
	checkSwarmViolation(t, &chk.Config, res.Violation)
	return res
}

// checkSwarmViolation: the counterexample is a behaviour of the model
// ending in a violation (not necessarily the shortest: a walk's).
func checkSwarmViolation(t *testing.T, cfg *model.Config, v *Violation) {
	t.Helper()
	if i, err := trace.Replay(cfg, v.Trace); err != nil {
		t.Fatalf("the walk does not replay on the model (step %d): %v", i, err)
	}
	steps := v.Trace.Steps
	last := steps[len(steps)-1].State
	if v.Action {
		if model.Properties[v.Property](cfg, steps[len(steps)-2].State, last) {
			t.Fatalf("the walk's last step satisfies %s", v.Property)
		}
		return
	}
	if model.Invariants[v.Property](cfg, last) {
		t.Fatalf("the walk's last state satisfies %s", v.Property)
	}
}

// Same seed, same walk, same counterexample and counts, whatever the
// number of workers, with and without the archive; another seed, another
// walk.
func TestSwarmIsAFunctionOfItsSeed(t *testing.T) {
	chk := swarmCheck(t)
	for _, archive := range []bool{false, true} {
		a := swarmOpt(t, chk, 1, 1, archive, nil)
		b := swarmOpt(t, chk, 1, 2, archive, nil)
		if b.Walk != a.Walk || b.Walks != a.Walks || b.Steps != a.Steps || b.Archived != a.Archived ||
			!reflect.DeepEqual(actions(b), actions(a)) {
			t.Fatalf("archive %t: seed 1 gave walk %d (%d walks, %d steps, %d cells) with one worker and walk %d (%d walks, %d steps, %d cells) with two",
				archive, a.Walk, a.Walks, a.Steps, a.Archived, b.Walk, b.Walks, b.Steps, b.Archived)
		}
		if archive && a.Archived < 2 {
			t.Fatalf("the archive kept %d cells", a.Archived)
		}
	}
	a := swarm(t, chk, 1, 1, nil)
	b := swarm(t, chk, 1, 1, nil)
	c := swarm(t, chk, 1, 2, nil)
	for _, r := range []*SwarmResult{b, c} {
		if r.Walk != a.Walk || r.Walks != a.Walks || r.Steps != a.Steps || r.Rejected != a.Rejected ||
			!reflect.DeepEqual(r.Profile, a.Profile) || !reflect.DeepEqual(actions(r), actions(a)) {
			t.Fatalf("seed 1 gave walk %d (%d walks, %d steps) and walk %d (%d walks, %d steps)", a.Walk, a.Walks, a.Steps, r.Walk, r.Walks, r.Steps)
		}
	}
	if a.Walk == 0 {
		t.Fatal("the first walk found it: the test would not see walks finish out of order")
	}
	d := swarm(t, chk, 3, 1, nil)
	if d.Walk == a.Walk && reflect.DeepEqual(actions(d), actions(a)) {
		t.Fatalf("seeds 1 and 3 gave the same walk %d", a.Walk)
	}
}

func actions(r *SwarmResult) []model.Action { return traceActions(r.Violation) }

// traceActions is a violation's counterexample as its actions.
func traceActions(v *Violation) []model.Action {
	var out []model.Action
	for _, s := range v.Trace.Steps {
		out = append(out, s.Action)
	}
	return out
}

// Accept sends the swarm past violations it rejects: the one it returns
// is accepted, comes from a later walk, and the rejected ones are counted
// (the same with two workers).
func TestSwarmWalksOnUntilAccepted(t *testing.T) {
	chk := swarmCheck(t)
	first := swarm(t, chk, 5, 1, nil)
	long := func(v *Violation) bool { return v.Trace.Len() > first.Violation.Trace.Len()+1 }
	for _, workers := range []int{1, 2} {
		r := swarm(t, chk, 5, workers, long)
		if !long(r.Violation) {
			t.Fatalf("returned a violation Accept rejects (%d states)", r.Violation.Trace.Len())
		}
		if r.Rejected == 0 {
			t.Fatalf("workers %d: no violation was rejected on the way", workers)
		}
		if r.Walk < first.Walk {
			t.Fatalf("the accepted walk %d comes before the first violating walk %d", r.Walk, first.Walk)
		}
	}
}

// A walk's profile is drawn within the configuration: bounds at most the
// configuration's, a step bound within [MinSteps, MaxSteps].
func TestSwarmProfilesStayWithinBounds(t *testing.T) {
	cfg := swarmCheck(t).Config
	opts := SwarmOptions{MinSteps: 5, MaxSteps: 9}
	for w := range 500 {
		p := drawProfile(&cfg, &opts, walkRNG(1, w))
		if p.Steps < 5 || p.Steps > 9 || p.Switch > p.Steps || p.MaxRecords > cfg.MaxRecords || p.MaxEpoch > cfg.MaxEpoch ||
			p.MaxCrashes > cfg.MaxCrashes || p.MPE > cfg.MaxPartitionEpoch || len(p.Replicas) != cfg.N() {
			t.Fatalf("walk %d: profile %s outside the configuration %s", w, p, cfg.String())
		}
	}
}

var swarmCfgName = "w-unclean-reconcile"
