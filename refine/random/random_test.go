package random

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/refine"
)

var (
	traces = flag.Int("random.traces", 1000, "random traces per policy")
	seed   = flag.Int64("random.seed", 1, "seed of the random traces (each policy adds its index)")
	update = flag.Bool("update", false, "write a failing trace's shrunk regression into traces/regressions (default: a new temporary directory, whose path the failure prints)")
)

// regressionPath is where a failing trace's shrunk regression goes: into
// the repository's traces/regressions only when -update asks, else into a
// new temporary directory, so a failing test never overwrites a committed
// regression (which a later verify in the same tree would then replay).
func regressionPath(policy string, seed int64, update bool) (string, error) {
	name := fmt.Sprintf("random-%s-seed%d.itf.json", policy, seed)
	if update {
		return filepath.Join("..", "..", "traces", "regressions", name), nil
	}
	dir, err := os.MkdirTemp("", "hwepoch-regression-")
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, name), nil
}

// At least a thousand random traces per policy hold: the implementation
// takes every step the model takes, refuses the ones it refuses, and its
// abstraction equals the model's state after every step, with the
// invariants the configuration promises. A failure is shrunk and written
// to a temporary directory (the failure prints the path), or with -update
// under traces/regressions/, where TestReplayTraces replays it from then on.
func TestRandomTraces(t *testing.T) {
	n := *traces
	if testing.Short() {
		n = min(n, 100)
	}
	for i, p := range model.Policies {
		t.Run(p, func(t *testing.T) {
			t.Parallel()
			s := *seed + int64(i)
			res, err := Run(Options{Policy: p, Traces: n, Seed: s})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %d traces held (%d clusters started) in %v", p, res.Passed, res.Started, res.Took.Round(1e6))
			if f := res.Failure; f != nil {
				path, err := regressionPath(p, s, *update)
				if err != nil {
					t.Fatal(err)
				}
				note := fmt.Sprintf("random trace (policy %s, seed %d), shrunk: %s", p, s, f.Problem)
				if err := refine.WriteRegression(path, f.Config, f.Trace, f.Refuse, note); err != nil {
					t.Errorf("writing the regression: %v", err)
				}
				where := "run with -update to write it under traces/regressions, where TestReplayTraces replays it from then on"
				if *update {
					where = "replayed by TestReplayTraces from now on"
				}
				t.Fatalf("a random trace failed after %d traces held; shrunk to %s\nwritten to %s (%s)", res.Passed, f, path, where)
			}
			if res.Passed < n {
				t.Fatalf("only %d of %d traces ran", res.Passed, n)
			}
		})
	}
}

// A shrunk failure is written as a regression that replays: loading it
// gives back the configuration, the actions and the states, and replaying
// it on the model succeeds.
func TestRegressionRoundTrip(t *testing.T) {
	cfg := &model.Config{Replicas: []model.Replica{"r1", "r2"}, Truncation: model.LeaderEpoch, Fencing: true,
		Acks: "all", MinInsyncReplicas: 1, MaxRecords: 2, MaxEpoch: 2, MaxCrashes: 1}
	tr, err := refine.ActionsTrace("test", cfg, []model.Action{
		{Kind: model.Elect, R: "r1"}, {Kind: model.HandleLeaderAndIsr, R: "r1"}, {Kind: model.Produce, L: "r1"}})
	if err != nil {
		t.Fatal(err)
	}
	refuse := model.Action{Kind: model.Produce, L: "r2"}
	path := filepath.Join(t.TempDir(), "x.itf.json")
	if err := refine.WriteRegression(path, cfg, tr, &refuse, "a note"); err != nil {
		t.Fatal(err)
	}
	cs, err := refine.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	c := cs[0]
	if c.Config.String() != cfg.String() || c.Refuse == nil || *c.Refuse != refuse || c.Trace.Len() != tr.Len() {
		t.Fatalf("round trip changed the case: %+v", c)
	}
	if err := refine.ReplayCase(c, refine.Options{}); err != nil {
		t.Fatal(err)
	}
}

// Without -update a failing trace's regression goes to a new temporary
// directory, never into the repository; with it, to traces/regressions.
func TestRegressionPathOnlyWritesTheTreeWhenAsked(t *testing.T) {
	tmp, err := regressionPath(model.LeaderEpoch, 3, false)
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(filepath.Dir(tmp))
	abs, _ := filepath.Abs(tmp)
	repo, _ := filepath.Abs(filepath.Join("..", ".."))
	if strings.HasPrefix(abs, repo+string(filepath.Separator)) || !strings.HasPrefix(abs, os.TempDir()) {
		t.Errorf("without -update the regression goes to %s, inside the repository %s or outside %s", abs, repo, os.TempDir())
	}
	if fi, err := os.Stat(filepath.Dir(tmp)); err != nil || !fi.IsDir() {
		t.Errorf("the temporary directory %s was not made: %v", filepath.Dir(tmp), err)
	}
	tree, err := regressionPath(model.LeaderEpoch, 3, true)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join("..", "..", "traces", "regressions", "random-LeaderEpoch-seed3.itf.json"); tree != want {
		t.Errorf("with -update: %s, want %s", tree, want)
	}
}

// Random traces of 3.9 reach the asynchronous AlterPartition's window and
// replay it on the implementation: steps taken while a leader's proposal
// is pending, the controller's decisions and the leader's handling of them
// are all counted (the traces themselves are held to the model by Run).
func TestRandomTracesReachPendingAlterPartition(t *testing.T) {
	var pending, decided, answered, staleRejected int
	res, err := Run(Options{Policy: model.DivergingEpoch, Traces: 200, Seed: 5,
		Step: func(cfg *model.Config, pre model.State, a model.Action) {
			for _, p := range pre.PendingIsr {
				if len(p) > 0 {
					pending++
					break
				}
			}
			switch a.Kind {
			case model.HandleAlterPartition:
				decided++
				if m := pre.AlterPartition[cfg.Index(a.L)]; m.PartitionEpoch != pre.CtrlPartitionEpoch {
					staleRejected++
				}
			case model.HandleAlterPartitionResponse:
				answered++
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Failure != nil {
		t.Fatalf("a random trace failed: %s", res.Failure)
	}
	t.Logf("%d traces: %d steps with an AlterPartition pending, %d decisions (%d on a stale partition epoch), %d responses handled",
		res.Passed, pending, decided, staleRejected, answered)
	if pending == 0 || decided == 0 || answered == 0 {
		t.Fatalf("the random traces never reached the pending window: %d pending steps, %d decisions, %d responses", pending, decided, answered)
	}
}
