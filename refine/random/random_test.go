package random

import (
	"flag"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/refine"
)

var (
	traces = flag.Int("random.traces", 1000, "random traces per policy")
	seed   = flag.Int64("random.seed", 1, "seed of the random traces (each policy adds its index)")
)

// At least a thousand random traces per policy hold: the implementation
// takes every step the model takes, refuses the ones it refuses, and its
// abstraction equals the model's state after every step, with the
// invariants the configuration promises. A failure is shrunk and written
// under traces/regressions/, where TestReplayTraces replays it from then on.
func TestRandomTraces(t *testing.T) {
	n := *traces
	if testing.Short() {
		n = min(n, 100)
	}
	for i, p := range []string{model.HighWatermark, model.Kip101, model.LeaderEpoch} {
		t.Run(p, func(t *testing.T) {
			t.Parallel()
			s := *seed + int64(i)
			res, err := Run(Options{Policy: p, Traces: n, Seed: s})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %d traces held (%d clusters started) in %v", p, res.Passed, res.Started, res.Took.Round(1e6))
			if f := res.Failure; f != nil {
				path := filepath.Join("..", "..", "traces", "regressions", fmt.Sprintf("random-%s-seed%d.itf.json", p, s))
				note := fmt.Sprintf("random trace (policy %s, seed %d), shrunk: %s", p, s, f.Problem)
				if err := refine.WriteRegression(path, f.Config, f.Trace, f.Refuse, note); err != nil {
					t.Errorf("writing the regression: %v", err)
				}
				t.Fatalf("a random trace failed after %d traces held; shrunk to %s\nwritten to %s (replayed by TestReplayTraces from now on)", res.Passed, f, path)
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
