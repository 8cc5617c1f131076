package refine

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/trace"
)

// benchCases are the traces the benchmarks replay: TLC's exports and the
// scenarios.
func benchCases(b *testing.B) []Case {
	b.Helper()
	var out []Case
	for _, dir := range []string{"tlc", "scenarios"} {
		files, err := Discover(filepath.Join("..", "traces", dir))
		if err != nil {
			b.Fatal(err)
		}
		for _, f := range files {
			cs, err := Load(f)
			if err != nil {
				b.Fatal(err)
			}
			out = append(out, cs...)
		}
	}
	if len(out) == 0 {
		b.Skip("no traces under traces/tlc or traces/scenarios")
	}
	return out
}

// The model alone: Apply and the diff against the recorded state, per
// step (ReplayModel).
func BenchmarkReplayModel(b *testing.B) {
	cases := benchCases(b)
	steps := 0
	start := time.Now()
	for b.Loop() {
		for _, c := range cases {
			if _, err := ReplayModel(c.Config, c.Trace, Options{}); err != nil {
				b.Fatal(err)
			}
			steps += c.Trace.Len() - 1
		}
	}
	b.ReportMetric(float64(steps)/time.Since(start).Seconds(), "steps/s")
}

// The stepped implementation: a fresh cluster per trace, each step through
// the stepped API, then a snapshot, its abstraction and the comparison with
// the model's state (ReplayImpl). Cluster start-up is included: it is part
// of what a replay costs.
func BenchmarkReplayImplementation(b *testing.B) {
	cases := benchCases(b)
	states := make([][]model.State, len(cases))
	for i, c := range cases {
		var err error
		if states[i], err = ReplayModel(c.Config, c.Trace, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	steps := 0
	start := time.Now()
	for b.Loop() {
		for i, c := range cases {
			if err := ReplayImpl(c.Config, c.Trace, states[i], Options{}); err != nil {
				b.Fatal(err)
			}
			steps += c.Trace.Len() - 1
		}
	}
	b.ReportMetric(float64(steps)/time.Since(start).Seconds(), "steps/s")
}

// One long trace on one cluster, so that start-up does not count: the
// stepped implementation's own step rate.
func BenchmarkReplayImplementationSteps(b *testing.B) {
	cfg := &model.Config{Replicas: []model.Replica{"r1", "r2"}, Truncation: model.LeaderEpoch, Fencing: true,
		Acks: "all", MinInsyncReplicas: 1, MaxRecords: 1 << 20, MaxEpoch: 1, MaxCrashes: 0}
	acts := []model.Action{{Kind: model.Elect, R: "r1"}, {Kind: model.HandleLeaderAndIsr, R: "r1"}, {Kind: model.HandleLeaderAndIsr, R: "r2"},
		{Kind: model.SendOffsetsForLeaderEpoch, F: "r2"}, {Kind: model.HandleOffsetsForLeaderEpoch, L: "r1", F: "r2"},
		{Kind: model.HandleOffsetsForLeaderEpochResponse, F: "r2"}}
	for range 100 {
		acts = append(acts, model.Action{Kind: model.Produce, L: "r1"}, model.Action{Kind: model.SendFetch, F: "r2"},
			model.Action{Kind: model.HandleFetch, L: "r1", F: "r2"}, model.Action{Kind: model.HandleFetchResponse, F: "r2"})
	}
	tr, err := ActionsTrace("bench", cfg, acts)
	if err != nil {
		b.Fatal(err)
	}
	states := make([]model.State, len(tr.Steps))
	for i, st := range tr.Steps {
		states[i] = st.State
	}
	steps := 0
	start := time.Now()
	for b.Loop() {
		if err := ReplayImpl(cfg, trace.Trace{Source: tr.Source, Steps: tr.Steps}, states, Options{}); err != nil {
			b.Fatal(err)
		}
		steps += len(acts)
	}
	b.ReportMetric(float64(steps)/time.Since(start).Seconds(), "steps/s")
}
