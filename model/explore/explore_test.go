package explore

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"testing"

	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/model/tlccfg"
	"github.com/hwepoch/hwepoch/trace"
	"github.com/hwepoch/hwepoch/trace/tlcjson"
)

func specDir(t testing.TB) string {
	d, err := tlccfg.FindSpecDir(".")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func run(t testing.TB, chk *tlccfg.Check, workers int) *Result {
	t.Helper()
	opts := Options{Workers: workers, Invariants: chk.Invariants,
		Properties: chk.Properties, Symmetry: chk.Symmetry, ConfigName: chk.Name}
	var res *Result
	var err error
	if chk.Live {
		res, err = RunLive(context.Background(), &chk.Config, opts, chk.LiveProperties)
	} else {
		res, err = Run(context.Background(), &chk.Config, opts)
	}
	if err != nil {
		t.Fatalf("%s: %v", chk.Name, err)
	}
	return res
}

// checkViolation asserts the counterexample is a real behaviour of the
// model that ends in a violation of the named property.
func checkViolation(t *testing.T, cfg *model.Config, v *Violation) {
	t.Helper()
	if i, err := trace.Replay(cfg, v.Trace); err != nil {
		t.Fatalf("counterexample does not replay (step %d): %v", i, err)
	}
	steps := v.Trace.Steps
	last := steps[len(steps)-1].State
	if v.Lasso {
		checkLasso(t, cfg, v)
		return
	}
	if v.Action {
		if model.Properties[v.Property](cfg, steps[len(steps)-2].State, last) {
			t.Fatalf("the counterexample's last step satisfies %s", v.Property)
		}
		return
	}
	if model.Invariants[v.Property](cfg, last) {
		t.Fatalf("the counterexample's last state satisfies %s", v.Property)
	}
	for _, st := range steps[:len(steps)-1] {
		if !model.Invariants[v.Property](cfg, st.State) {
			t.Fatalf("the counterexample violates %s before its end: not the shortest", v.Property)
		}
	}
}

// The manifest's CI configurations give the manifest's verdicts; where
// traces/tlc/runs.json records TLC's run, holding configurations have
// TLC's distinct states and depth, and counterexamples are no longer than
// TLC's.
func TestManifestCIConfigs(t *testing.T) {
	dir := specDir(t)
	m, err := tlccfg.LoadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	runs := loadRuns(t, dir)
	if runs == nil {
		t.Log("comparing verdicts only, not TLC's counts")
	}
	for _, e := range m.Configs {
		if !e.CI {
			continue
		}
		t.Run(e.Name, func(t *testing.T) {
			chk, err := m.LoadCheck(e) // with the mutant the entry seeds
			if err != nil {
				t.Fatal(err)
			}
			res := run(t, chk, 0)
			got := "holds"
			if res.Violation != nil {
				got = "violated"
				checkViolation(t, &chk.Config, res.Violation)
			}
			if got != e.Expect {
				t.Fatalf("verdict %s, manifest expects %s (%v)", got, e.Expect, res.Violation)
			}
			if got == "violated" && res.Violation.Property != e.Property {
				t.Fatalf("violated %s, manifest expects %s", res.Violation.Property, e.Property)
			}
			if runs == nil {
				return
			}
			tlc, ok := runs.Exhaustive(e.Name)
			if !ok {
				t.Logf("runs.json has no TLC run of %s: not compared", e.Name)
				return
			}
			compareWithTLC(t, res, tlc)
		})
	}
}

// loadRuns reads traces/tlc/runs.json, or returns nil (saying why) when it
// does not exist or was recorded on another version of the spec.
func loadRuns(t *testing.T, specDir string) *tlcjson.Runs {
	runs, err := tlcjson.LoadRuns(filepath.Join(filepath.Dir(specDir), "traces", "tlc"))
	if errors.Is(err, fs.ErrNotExist) {
		t.Log("traces/tlc/runs.json does not exist (run `hwepoch tlc` to record TLC's runs)")
		return nil
	} else if err != nil {
		t.Fatal(err)
	}
	ok, err := runs.ForSpec(filepath.Join(specDir, "Replication.tla"))
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		t.Log("traces/tlc/runs.json was recorded on another version of spec/Replication.tla (rerun `hwepoch tlc`)")
		return nil
	}
	return runs
}

func compareWithTLC(t *testing.T, res *Result, tlc tlcjson.Run) {
	t.Helper()
	got := "holds"
	if res.Violation != nil {
		got = "violated"
	}
	if got != tlc.Verdict {
		t.Errorf("explorer: %s, TLC: %s", got, tlc.Verdict)
	}
	if tlc.Verdict == "holds" {
		if res.Distinct != tlc.DistinctStates || res.Depth != tlc.Depth {
			t.Errorf("explorer: %d distinct states, depth %d; TLC: %d, depth %d", res.Distinct, res.Depth, tlc.DistinctStates, tlc.Depth)
		}
		if res.Generated != tlc.StatesGenerated {
			t.Logf("explorer generated %d states, TLC %d", res.Generated, tlc.StatesGenerated)
		}
		return
	}
	if tlc.TraceLength > 0 && res.Violation != nil && !res.Violation.Lasso && res.Violation.Trace.Len() > tlc.TraceLength {
		t.Errorf("counterexample of %d states, TLC's has %d", res.Violation.Trace.Len(), tlc.TraceLength)
	}
}

// Every holding run in runs.json small enough for go test is reproduced
// state for state (the CI configurations are covered above).
func TestRecordedTLCRuns(t *testing.T) {
	dir := specDir(t)
	runs := loadRuns(t, dir)
	if runs == nil {
		t.Skip("no recorded TLC runs of this spec to compare with")
	}
	limit := int64(1_500_000)
	if testing.Short() {
		limit = 200_000
	}
	for _, tlc := range runs.Runs {
		if !tlc.Exhaustive() || tlc.Verdict != "holds" || tlc.DistinctStates >= limit {
			continue
		}
		t.Run(tlc.Name, func(t *testing.T) {
			chk, err := tlccfg.LoadCheck(filepath.Join(dir, tlc.ConfigName()+".cfg"))
			if err != nil {
				t.Fatal(err)
			}
			compareWithTLC(t, run(t, chk, 0), tlc)
		})
	}
}

// The search is deterministic: the same counts and the same counterexample
// whatever the number of workers.
func TestDeterministicAcrossWorkers(t *testing.T) {
	chk, err := tlccfg.LoadCheck(filepath.Join(specDir(t), "hw-acked-loss.cfg"))
	if err != nil {
		t.Fatal(err)
	}
	a, b := run(t, chk, 1), run(t, chk, 3)
	if a.Distinct != b.Distinct || a.Generated != b.Generated || a.Depth != b.Depth {
		t.Fatalf("1 worker: %d/%d/%d, 3 workers: %d/%d/%d", a.Distinct, a.Generated, a.Depth, b.Distinct, b.Generated, b.Depth)
	}
	if a.Violation == nil || b.Violation == nil {
		t.Fatal("hw-acked-loss should be violated")
	}
	ta, tb := a.Violation.Trace.Steps, b.Violation.Trace.Steps
	if len(ta) != len(tb) {
		t.Fatalf("trace lengths %d and %d", len(ta), len(tb))
	}
	for i := range ta {
		if ta[i].Action != tb[i].Action {
			t.Fatalf("step %d: %s with 1 worker, %s with 3", i, ta[i].Action, tb[i].Action)
		}
	}
}

func TestUnknownNamesAreErrors(t *testing.T) {
	cfg := &model.Config{Replicas: []model.Replica{"r1"}, Truncation: "LeaderEpoch", Acks: "1", MinInsyncReplicas: 1}
	if _, err := Run(context.Background(), cfg, Options{Invariants: []string{"Nope"}}); err == nil {
		t.Error("an unknown invariant should be an error")
	}
	bad := *cfg
	bad.Acks = "2"
	if _, err := Run(context.Background(), &bad, Options{}); err == nil {
		t.Error("an invalid configuration should be an error")
	}
}

func TestMaxDepth(t *testing.T) {
	chk, err := tlccfg.LoadCheck(filepath.Join(specDir(t), "le-fenced-2.cfg"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), &chk.Config, Options{Invariants: chk.Invariants, MaxDepth: 3})
	if err != nil {
		t.Fatal(err)
	}
	if res.Depth != 3 || res.Complete || res.Queue == 0 || res.Distinct >= 1_095_034 {
		t.Fatalf("depth %d complete %t distinct %d", res.Depth, res.Complete, res.Distinct)
	}
}

func TestSimulateFindsWitnessDeterministically(t *testing.T) {
	chk, err := tlccfg.LoadCheck(filepath.Join(specDir(t), "w-leader-change.cfg"))
	if err != nil {
		t.Fatal(err)
	}
	opts := SimOptions{Options: Options{Invariants: chk.Invariants, ConfigName: chk.Name}, Seed: 7, Walks: 200, MaxSteps: 60}
	a, err := Simulate(context.Background(), &chk.Config, opts)
	if err != nil {
		t.Fatal(err)
	}
	if a.Violation == nil || a.Violation.Property != "NeverLeaderChange" {
		t.Fatalf("no witness in %d walks: %+v", a.Walks, a)
	}
	checkViolation(t, &chk.Config, a.Violation)
	b, err := Simulate(context.Background(), &chk.Config, opts)
	if err != nil {
		t.Fatal(err)
	}
	if b.Walks != a.Walks || b.Steps != a.Steps || b.Violation.Trace.Len() != a.Violation.Trace.Len() {
		t.Fatal("the same seed gave different walks")
	}
}

// checkLasso asserts a liveness counterexample is one (CheckLasso), of
// the instance the search names.
func checkLasso(t *testing.T, cfg *model.Config, v *Violation) {
	t.Helper()
	inst, err := CheckLasso(cfg, v.Property, v.Trace)
	if err != nil {
		t.Fatal(err)
	}
	if p := model.LiveProperties[v.Property]; p.Kind == model.LeadsTo && inst == "" && v.Instance != "" {
		t.Fatalf("no instance found, the search names %q", v.Instance)
	}
}
