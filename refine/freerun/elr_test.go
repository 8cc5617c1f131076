package freerun

import (
	"testing"

	"github.com/hwepoch/hwepoch/model"
)

// ElrSteps counts each behaviour of the controller's Eligible Leader
// Replicas once where it happens: along traces/regressions'
// elr-election-order story (refine/known_test.go) every kind occurs, the
// ELR election and the last known leader's included, which free runs
// reach rarely.
func TestElrStepsCountEachBehaviour(t *testing.T) {
	cfg := &model.Config{Replicas: []model.Replica{"r1", "r2"}, Truncation: model.EligibleLeader, Fencing: true, Acks: "all",
		MinInsyncReplicas: 2, MinIsrGatesHW: true, MaxRecords: 0, MaxEpoch: 2, MaxCrashes: 2, MaxPartitionEpoch: 8}
	acts := []model.Action{
		{Kind: model.Elect, R: "r1"}, {Kind: model.HandleLeaderAndIsr, R: "r1"}, {Kind: model.HandleLeaderAndIsr, R: "r2"},
		{Kind: model.ShrinkIsr, L: "r1", F: "r2"}, {Kind: model.HandleAlterPartition, L: "r1"}, // r2 joins the ELR
		{Kind: model.HandleAlterPartitionResponse, L: "r1"},
		{Kind: model.Crash, R: "r1", Keep: 0}, // the leader fenced, the ISR emptied, r1 joins the ELR
		{Kind: model.Elect, R: "r2"},          // from the ELR
		{Kind: model.HandleLeaderAndIsr, R: "r2"},
		{Kind: model.Restart, R: "r1"}, // r1 leaves the ELR
		{Kind: model.HandleLeaderAndIsr, R: "r2"}, {Kind: model.HandleLeaderAndIsr, R: "r1"},
		{Kind: model.Crash, R: "r2", Keep: 0}, // the leader fenced, the ISR emptied, r2 joins the ELR
		{Kind: model.Restart, R: "r2"},        // r2 leaves the ELR
		{Kind: model.Elect, R: "r2"},          // the last known leader
	}
	var c ElrSteps
	s := model.Init(cfg)
	type step struct{ from, to model.State }
	var steps []step
	for i, a := range acts {
		t2, err := model.Apply(cfg, s, a)
		if err != nil {
			t.Fatalf("step %d %s: %v", i+1, a, err)
		}
		c.count(cfg, a, &s, &t2)
		steps = append(steps, step{s, t2})
		s = t2
	}
	want := ElrSteps{Joined: 3, Emptied: 2, LeaderFenced: 2, LeftOnRestart: 2, ElrElections: 1, LastKnownElections: 1}
	if c != want || c.Kinds() != 6 {
		t.Errorf("counted %+v (%d kinds), want %+v", c, c.Kinds(), want)
	}
	// Without ELR nothing counts: the same steps, which counted all six
	// kinds above, judged under a release that has no ELR.
	de := *cfg
	de.Truncation = model.DivergingEpoch
	var none ElrSteps
	for i, st := range steps {
		none.count(&de, acts[i], &st.from, &st.to)
	}
	if none != (ElrSteps{}) {
		t.Errorf("counted %+v under DivergingEpoch", none)
	}
}
