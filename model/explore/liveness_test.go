package explore

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/model/tlccfg"
)

func liveCheck(t *testing.T, name string) *tlccfg.Check {
	t.Helper()
	m, err := tlccfg.LoadManifest(specDir(t))
	if err != nil {
		t.Fatal(err)
	}
	e, ok := m.Lookup(name)
	if !ok {
		t.Fatalf("no configuration %s", name)
	}
	chk, err := m.LoadCheck(e)
	if err != nil {
		t.Fatal(err)
	}
	return chk
}

// TestFaultIsAPairOfStates: FaultsStop is about steps as TLA+ has them,
// pairs of states. Under LossyNetwork a fetch response handled without
// effect is the same pair as its loss, so every cycle of a follower
// fetching nothing new has a Fault step and live-hw-catchup's violation
// (a lost committed record, then fetch rounds for ever) is no
// counterexample: TLC found it holding, 32,958 distinct states and 138,305
// generated (TLC2 2026.12.02 rev cc6b616, traces/tlc/live-hw-catchup.log
// of that run, before the configuration's network was made reliable).
// Judging steps by the action that made them would report it.
func TestFaultIsAPairOfStates(t *testing.T) {
	chk := liveCheck(t, "live-hw-catchup")
	cfg := chk.Config
	cfg.LossyNetwork = true
	res, err := CheckLiveness(context.Background(), &cfg, LiveOptions{Properties: chk.LiveProperties})
	if err != nil {
		t.Fatal(err)
	}
	if res.Violation != nil || res.Distinct != 32958 || res.Generated != 138305 {
		t.Fatalf("lossy live-hw-catchup: %d distinct, %d generated, %v; TLC: holds, 32958, 138305", res.Distinct, res.Generated, res.Violation)
	}
	// The reliable network, as configured: the loss is a counterexample.
	res, err = CheckLiveness(context.Background(), &chk.Config, LiveOptions{Properties: chk.LiveProperties})
	if err != nil {
		t.Fatal(err)
	}
	if res.Violation == nil {
		t.Fatal("live-hw-catchup holds with a reliable network")
	}
}

// TestStutteringLasso: a state where no fair action is enabled is a fair
// behaviour by stuttering there (the stopped fetcher of
// fetcher-stops-after-loss): a lasso whose loop is its last state.
func TestStutteringLasso(t *testing.T) {
	chk := liveCheck(t, "live-mutant-fetcher-stops")
	res, err := CheckLiveness(context.Background(), &chk.Config, LiveOptions{Properties: chk.LiveProperties})
	if err != nil {
		t.Fatal(err)
	}
	v := res.Violation
	if v == nil || v.Loop != v.Trace.Len()-1 {
		t.Fatalf("want a stuttering lasso, got %v", v)
	}
	checkLasso(t, &chk.Config, &Violation{Property: v.Property, Trace: v.Trace, Lasso: true, Loop: v.Loop, Instance: v.Instance})
	// Without the mutant the same configuration holds.
	cfg := chk.Config
	cfg.Mutant = ""
	res, err = CheckLiveness(context.Background(), &cfg, LiveOptions{Properties: chk.LiveProperties})
	if err != nil || res.Violation != nil {
		t.Fatalf("without the mutant: %v, %v", res.Violation, err)
	}
}

// TestRunLiveRefuses: no symmetry (a quotient graph's fair cycles are not
// the spec's), no invariants (a LiveSpec configuration checks liveness
// only), no unknown property.
func TestRunLiveRefuses(t *testing.T) {
	chk, err := tlccfg.LoadCheck(filepath.Join(specDir(t), "live-le.cfg"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		opts Options
		live []string
		want string
	}{
		{Options{Symmetry: true}, chk.LiveProperties, "symmetry"},
		{Options{Invariants: []string{"TypeOK"}}, chk.LiveProperties, "invariant"},
		{Options{}, []string{"Progress"}, "unknown liveness property"},
		{Options{}, nil, "no liveness property"},
	} {
		if _, err := RunLive(context.Background(), &chk.Config, c.opts, c.live); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v %v: %v, want an error about %s", c.opts, c.live, err, c.want)
		}
	}
	cfg := chk.Config
	cfg.Mutant = "no-such-bug"
	if _, err := RunLive(context.Background(), &cfg, Options{}, chk.LiveProperties); err == nil || !strings.Contains(err.Error(), "no such seeded bug") {
		t.Errorf("an unknown mutant: %v", err)
	}
}

// TestMutantSpecPatches: every mutant's patch applies to the spec exactly
// once, and changes it.
func TestMutantSpecPatches(t *testing.T) {
	spec := readSpec(t)
	for _, m := range model.Mutants {
		b, err := model.MutantSpec(spec, m)
		if err != nil {
			t.Errorf("%s: %v", m, err)
			continue
		}
		if string(b) == string(spec) {
			t.Errorf("%s: the patched spec is the spec", m)
		}
	}
	if _, err := model.MutantSpec(spec, "no-such-bug"); err == nil {
		t.Error("an unknown mutant patched the spec")
	}
	if _, err := model.MutantSpec([]byte("---- MODULE Replication ----\n===="), model.MutantTruncationLoopStuck); err == nil {
		t.Error("a patch applied to a spec without its text")
	}
}

func readSpec(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(specDir(t), "Replication.tla"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestCheckLassoBites: CheckLasso refuses a lasso whose cycle has a Fault
// step (live-hw-catchup's under a lossy network, where its fetch response
// handled without effect is the pair a loss makes), one that is unfair
// (stuttering where a broker has a LeaderAndIsr to handle), and one that
// breaks another property than the one named.
func TestCheckLassoBites(t *testing.T) {
	chk := liveCheck(t, "live-hw-catchup")
	res, err := CheckLiveness(context.Background(), &chk.Config, LiveOptions{Properties: chk.LiveProperties})
	if err != nil || res.Violation == nil {
		t.Fatalf("no lasso: %v", err)
	}
	tr := res.Violation.Trace
	if _, err := CheckLasso(&chk.Config, "ReplicasCatchUp", tr); err != nil {
		t.Fatalf("the explorer's own lasso: %v", err)
	}
	lossy := chk.Config
	lossy.LossyNetwork = true
	if _, err := CheckLasso(&lossy, "ReplicasCatchUp", tr); err == nil || !strings.Contains(err.Error(), "Fault step") {
		t.Errorf("a cycle with a loss's pair of states: %v", err)
	}
	if _, err := CheckLasso(&chk.Config, "LeaderElected", tr); err == nil || !strings.Contains(err.Error(), "does not break") {
		t.Errorf("another property: %v", err)
	}
	// Stutter right after the first election: r1 and r2 have a
	// LeaderAndIsr to handle, so stuttering there is no fair behaviour.
	short := tr
	short.Steps = tr.Steps[:2]
	short.Loop = 1
	if _, err := CheckLasso(&chk.Config, "ReplicasCatchUp", short); err == nil || !strings.Contains(err.Error(), "unfair") {
		t.Errorf("stuttering with a request to handle: %v", err)
	}
}
