package refine

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/hwepoch/hwepoch/model"
)

var update = flag.Bool("update", false, "rewrite the hand-written regressions under traces/regressions")

// known are hand-written regressions: a case the random traces reach too
// rarely to rely on, written down once; and the random traces' shrunk
// failures of an earlier spec, rewritten as their action lists so that they
// follow the spec as it changes (refuse is nil for those: they end in a
// state, not a refusal).
var known = []struct {
	file, note string
	cfg        model.Config
	actions    []model.Action
	refuse     *model.Action
}{{
	file: "kafka-7128-expand-below-epoch-start.itf.json",
	note: "KAFKA-7128: a follower whose LEO has reached the HW but not the start of the leader's epoch may hold another epoch's " +
		"records there, so it must not join the ISR (Partition.maybeExpandIsr checks leaderEpochStartOffsetOpt from 2.0.1/2.1.0). " +
		"r1 shrinks r2 out and is re-elected (epoch 1) with its HW held at 0 by MinIsrGatesHW, so its epoch starts at 2 while " +
		"the HW is 0; r2 restarts its fetcher for the new epoch (2.1: makeFollower is true for any new epoch), truncates to 1 " +
		"and fetches from 1: r1's view of r2 (1) is at the HW but below the epoch start, and ExpandIsr(r1, r2) must be refused.",
	cfg: model.Config{Replicas: []model.Replica{"r1", "r2"}, Truncation: model.LeaderEpoch, Fencing: true, Acks: "1",
		MinInsyncReplicas: 2, MinIsrGatesHW: true, MaxRecords: 2, MaxEpoch: 1, MaxPartitionEpoch: 2},
	actions: []model.Action{
		{Kind: model.Elect, R: "r1"}, {Kind: model.HandleLeaderAndIsr, R: "r1"}, {Kind: model.HandleLeaderAndIsr, R: "r2"},
		{Kind: model.SendOffsetsForLeaderEpoch, F: "r2"}, {Kind: model.HandleOffsetsForLeaderEpoch, L: "r1", F: "r2"},
		{Kind: model.HandleOffsetsForLeaderEpochResponse, F: "r2"},
		{Kind: model.Produce, L: "r1"},
		{Kind: model.SendFetch, F: "r2"}, {Kind: model.HandleFetch, L: "r1", F: "r2"},
		{Kind: model.UpdateFollowerFetchState, L: "r1", F: "r2"}, {Kind: model.HandleFetchResponse, F: "r2"},
		{Kind: model.ShrinkIsr, L: "r1", F: "r2"},
		{Kind: model.Produce, L: "r1"},
		{Kind: model.Elect, R: "r1"}, {Kind: model.HandleLeaderAndIsr, R: "r1"}, {Kind: model.HandleLeaderAndIsr, R: "r2"},
		{Kind: model.SendOffsetsForLeaderEpoch, F: "r2"}, {Kind: model.HandleOffsetsForLeaderEpoch, L: "r1", F: "r2"},
		{Kind: model.HandleOffsetsForLeaderEpochResponse, F: "r2"},
		{Kind: model.SendFetch, F: "r2"}, {Kind: model.HandleFetch, L: "r1", F: "r2"},
		{Kind: model.UpdateFollowerFetchState, L: "r1", F: "r2"},
	},
	refuse: &model.Action{Kind: model.ExpandIsr, L: "r1", F: "r2"},
}, {
	file: "nextid-after-leader-change-HighWatermark.itf.json",
	note: "random trace (policy HighWatermark, seed 1), shrunk, rewritten from its actions for the spec of issues 10 and 11. " +
		"It caught the implementation reusing a producer id after a leader change (nextId 1 where the model has 2): r2 leads " +
		"epoch 0 and writes m1, then follows r1 (epoch 1) and, its leader changed, truncates to its HW (0.10.2): m1 is gone " +
		"from every log, but its id is spent.",
	cfg: model.Config{Replicas: []model.Replica{"r1", "r2"}, Truncation: model.HighWatermark, Acks: "all",
		MinInsyncReplicas: 1, MinIsrGatesHW: true, MaxRecords: 3, MaxEpoch: 4, MaxCrashes: 2},
	actions: []model.Action{
		{Kind: model.Elect, R: "r2"}, {Kind: model.Elect, R: "r1"}, {Kind: model.HandleLeaderAndIsr, R: "r2"},
		{Kind: model.Produce, L: "r2"}, {Kind: model.HandleLeaderAndIsr, R: "r2"},
	},
}, {
	file: "nextid-after-leader-change-Kip101.itf.json",
	note: "random trace (policy Kip101, seed 2, with fencing: an ablation of 0.11), shrunk, rewritten from its actions for " +
		"the spec of issues 10 and 11. It caught the implementation reusing a producer id after a leader change: r1 leads " +
		"epoch 0 and writes m1, then follows r2 (epoch 1); the next record must get id 2.",
	cfg: model.Config{Replicas: []model.Replica{"r1", "r2"}, Truncation: model.Kip101, Fencing: true, Acks: "all",
		MinInsyncReplicas: 2, LossyNetwork: true, MaxRecords: 3, MaxEpoch: 4, MaxCrashes: 2},
	actions: []model.Action{
		{Kind: model.Elect, R: "r1"}, {Kind: model.HandleLeaderAndIsr, R: "r1"}, {Kind: model.Produce, L: "r1"},
		{Kind: model.Elect, R: "r2"}, {Kind: model.HandleLeaderAndIsr, R: "r1"},
	},
}, {
	file: "nextid-after-leader-change-LeaderEpoch.itf.json",
	note: "random trace (policy LeaderEpoch, seed 3), shrunk, rewritten from its actions for the spec of issues 10 and 11. " +
		"It caught the implementation reusing a producer id after a leader change: r1 leads epoch 0, writes m1 and is " +
		"re-elected (epoch 1); a re-elected leader now keeps its views and its waiting produce request.",
	cfg: model.Config{Replicas: []model.Replica{"r1", "r2", "r3"}, Truncation: model.LeaderEpoch, Fencing: true, Acks: "all",
		MinInsyncReplicas: 1, MinIsrGatesHW: true, LossyNetwork: true, MaxRecords: 3, MaxEpoch: 4, MaxCrashes: 2},
	actions: []model.Action{
		{Kind: model.Elect, R: "r1"}, {Kind: model.HandleLeaderAndIsr, R: "r1"}, {Kind: model.Produce, L: "r1"},
		{Kind: model.Elect, R: "r1"}, {Kind: model.HandleLeaderAndIsr, R: "r1"},
	},
}}

// The hand-written regressions under traces/regressions are what these
// action lists give (run with -update to rewrite them): the model takes
// every step and, where one is named, refuses the final action.
func TestKnownRegressions(t *testing.T) {
	for _, k := range known {
		t.Run(k.file, func(t *testing.T) {
			cfg := k.cfg
			tr, err := ActionsTrace(k.file, &cfg, k.actions)
			if err != nil {
				t.Fatal(err)
			}
			if k.refuse != nil {
				if _, err := model.Apply(&cfg, tr.Steps[len(tr.Steps)-1].State, *k.refuse); err == nil {
					t.Fatalf("the model enables %s at the end: not a refusal", *k.refuse)
				}
			}
			path := filepath.Join("..", "traces", "regressions", k.file)
			tmp := filepath.Join(t.TempDir(), k.file)
			if err := WriteRegression(tmp, &cfg, tr, k.refuse, k.note); err != nil {
				t.Fatal(err)
			}
			want, _ := os.ReadFile(tmp)
			if *update {
				if err := os.WriteFile(path, want, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := os.ReadFile(path)
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("%s is missing or stale (err %v): run go test ./refine -run TestKnownRegressions -update", path, err)
			}
		})
	}
}
