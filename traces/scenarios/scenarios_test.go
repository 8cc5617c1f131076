// Package scenarios holds the named scenarios (NAME.scenario; the format is
// documented in trace/scenario). This test replays each on the model under
// each of its cases and holds it to its expect and final lines.
package scenarios

import (
	"slices"
	"testing"

	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/trace"
	"github.com/hwepoch/hwepoch/trace/scenario"
)

func loadAll(t *testing.T) []scenario.Scenario {
	t.Helper()
	scs, err := scenario.LoadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	return scs
}

// TestScenariosOnTheModel runs every case of every scenario and compares
// the invariants it violates, and its final state, with the file's
// expectations.
func TestScenariosOnTheModel(t *testing.T) {
	for _, sc := range loadAll(t) {
		for _, c := range sc.Cases() {
			t.Run(sc.Name+"/"+c.Slug(), func(t *testing.T) {
				tr, v, err := sc.Verify(c)
				if err != nil {
					t.Errorf("%v", err)
				}
				cfg := sc.Config(c)
				if i, err := trace.Replay(&cfg, tr); err != nil {
					t.Errorf("the trace does not replay on the model at step %d: %v", i, err)
				}
				t.Logf("%s %s: %s", sc.Name, c, v)
			})
		}
	}
}

// TestTheNamedScenariosExist keeps the list the design promises (design.md
// §4) in traces/scenarios/, each with its headline verdict.
func TestTheNamedScenariosExist(t *testing.T) {
	want := []struct {
		name   string
		cases  []string
		breaks map[string]string // case -> an invariant it must violate; absent: holds
	}{
		{"seeds-acks1-loss", []string{"HighWatermark", "LeaderEpoch"},
			map[string]string{"HighWatermark": "NoAckedLoss", "LeaderEpoch": "NoAckedLoss"}},
		{"seeds-divergence", []string{"HighWatermark", "LeaderEpoch"},
			map[string]string{"HighWatermark": "NoDivergence"}},
		{"kip101-scenario-1", []string{"HighWatermark", "Kip101", "LeaderEpoch", "DivergingEpoch"},
			map[string]string{"HighWatermark": "NoAckedLoss"}},
		// The epoch policies lose the unflushed record but never diverge.
		{"kip101-scenario-2", []string{"HighWatermark", "Kip101", "LeaderEpoch", "DivergingEpoch"},
			map[string]string{"HighWatermark": "NoDivergence"}},
		{"kip279-fast-leader-changes", []string{"Kip101", "LeaderEpoch", "DivergingEpoch"},
			map[string]string{"Kip101": "NoDivergence"}},
		{"kip320-stale-leader", []string{"LeaderEpoch Fencing=FALSE", "LeaderEpoch Fencing=TRUE"},
			map[string]string{"LeaderEpoch Fencing=FALSE": "NoDivergence"}},
		{"kip320-zombie-follower", []string{"LeaderEpoch Fencing=FALSE", "LeaderEpoch Fencing=TRUE",
			"DivergingEpoch Fencing=FALSE", "DivergingEpoch Fencing=TRUE"},
			map[string]string{"LeaderEpoch Fencing=FALSE": "NoDivergence"}},
		{"unclean-election-loss", []string{"HighWatermark", "Kip101", "LeaderEpoch", "DivergingEpoch"},
			map[string]string{"HighWatermark": "NoAckedLoss", "Kip101": "NoAckedLoss", "LeaderEpoch": "NoAckedLoss",
				"DivergingEpoch": "NoAckedLoss"}},
		{"preferred-leader-election", []string{"HighWatermark", "LeaderEpoch", "DivergingEpoch"}, nil},
		{"auto-leader-rebalance", []string{"HighWatermark", "LeaderEpoch", "DivergingEpoch"}, nil},
		// One release difference each (issues 10 and 11).
		{"same-leader-epoch-bump", []string{"HighWatermark", "Kip101", "LeaderEpoch", "DivergingEpoch"}, nil},
		{"kip101-leader-epoch-entry", []string{"Kip101", "LeaderEpoch", "DivergingEpoch"}, nil},
		{"same-leader-reelection", []string{"HighWatermark", "Kip101", "LeaderEpoch", "DivergingEpoch"}, nil},
		{"split-fetch-hw-lag", []string{"HighWatermark", "Kip101", "LeaderEpoch", "DivergingEpoch"}, nil},
		{"alter-partition-pending", []string{"DivergingEpoch"},
			map[string]string{"DivergingEpoch": "NeverStalePartitionEpoch"}},
		{"kip903-orphan-fetch", []string{"HighWatermark", "Kip101", "LeaderEpoch", "DivergingEpoch"},
			map[string]string{"HighWatermark": "StrongIsr", "Kip101": "StrongIsr", "LeaderEpoch": "StrongIsr"}},
		// 3.9's min.insync.replicas gates count the committed ISR (issue 19).
		{"min-isr-pending-expansion", []string{"DivergingEpoch"}, nil},
	}
	for _, w := range want {
		sc, err := scenario.Find(".", w.name)
		if err != nil {
			t.Error(err)
			continue
		}
		var got []string
		for _, c := range sc.Cases() {
			got = append(got, c.String())
			e := sc.Expectation(c)
			inv, breaks := w.breaks[c.String()]
			switch {
			case breaks && !slices.Contains(e.Violates, inv):
				t.Errorf("%s %s: expected to violate %s, the file says %s", w.name, c, inv, e)
			case !breaks && slices.Contains(e.Violates, "NoDivergence"):
				t.Errorf("%s %s: must not diverge, the file says %s", w.name, c, e)
			case w.breaks == nil && len(e.Violates) > 0:
				t.Errorf("%s %s: must hold, the file says %s", w.name, c, e)
			}
		}
		if !slices.Equal(got, w.cases) {
			t.Errorf("%s: cases %q, want %q", w.name, got, w.cases)
		}
	}
}

// TestFencingIsIrrelevantElsewhere backs a claim of docs/scenarios.md: only
// the kip320 scenarios send a request across an epoch change, so in every
// other scenario flipping fencing (on for the releases that have KIP-320,
// off for the others) gives the very same behaviour.
func TestFencingIsIrrelevantElsewhere(t *testing.T) {
	for _, sc := range loadAll(t) {
		if len(sc.Variants) > 0 {
			continue
		}
		for _, c := range sc.Cases() {
			cfg := sc.Config(c)
			if cfg.Fencing != model.Releases[c.Policy].Fencing {
				t.Errorf("%s %s: Fencing=%t is not the release's; docs/scenarios.md says only the kip320 scenarios vary it", sc.Name, c, cfg.Fencing)
				continue
			}
			tr, _, err := sc.Run(c)
			if err != nil {
				t.Fatal(err)
			}
			flipped := cfg
			flipped.Fencing = !cfg.Fencing
			for i := 1; i < len(tr.Steps); i++ {
				got, err := model.Apply(&flipped, tr.Steps[i-1].State, tr.Steps[i].Action)
				if err != nil || !got.Equal(tr.Steps[i].State) {
					t.Errorf("%s %s: with Fencing=%t, step %d %s differs (%v)", sc.Name, c, flipped.Fencing, i, tr.Steps[i].Action, err)
					break
				}
			}
		}
	}
}
