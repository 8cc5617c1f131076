package broker

import (
	"testing"

	"github.com/hwepoch/hwepoch/impl/protocol"
	"github.com/hwepoch/hwepoch/impl/storage"
)

// Under asynchronous AlterPartition the HW is the least LEO over the
// maximal ISR: a follower whose addition is pending is waited for
// (KIP-497); the mutant computes it over the committed ISR. A pending
// shrink is not in effect: the follower being removed still counts.
func TestHWOverMaximalIsr(t *testing.T) {
	for _, mutant := range []bool{false, true} {
		h := newMutantHarness(t, storage.DivergingEpoch, MutantHWOverCommittedIsr, mutant)
		h.leaderAndIsr(me, 0, 1)
		h.produce(protocol.AcksLeader, 1) // ISR {1}: HW 1
		h.fetch(2, 1, 0)                  // follower 2 caught up
		if _, err := h.b.ExpandIsr(tp, 2); err != nil {
			t.Fatal(err)
		}
		h.idle()
		h.take(ctrlNode) // the AlterPartition stays unanswered: pending
		h.produce(protocol.AcksLeader, 2)
		hw := h.state().HW
		if !mutant && hw != 1 {
			t.Errorf("HW %d with follower 2 (at 1) pending in the ISR, want 1", hw)
		}
		if mutant && hw != 2 {
			t.Errorf("mutant: HW %d, want 2 (the committed ISR is the leader alone)", hw)
		}
	}
	// A pending shrink still counts the follower.
	h := newHarness(t, func(c *Config) { c.Policy = storage.DivergingEpoch })
	h.leaderAndIsr(me, 0, 1, 2)
	h.produce(protocol.AcksLeader, 1)
	if _, err := h.b.ShrinkIsr(tp, 2); err != nil {
		t.Fatal(err)
	}
	h.idle()
	h.take(ctrlNode)
	h.produce(protocol.AcksLeader, 2)
	if st := h.state(); st.HW != 0 {
		t.Fatalf("HW %d moved while the shrink of follower 2 (unknown view) is pending", st.HW)
	}
}

// The answers to a proposal under 3.9: a commit applies; INELIGIBLE_REPLICA
// reverts; FENCED_LEADER_EPOCH and INVALID_UPDATE_VERSION stay pending (no
// second proposal) until a LeaderAndIsr; under 2.1 (the ZooKeeper write)
// every refusal leaves nothing pending.
func TestAlterPartitionAnswers(t *testing.T) {
	propose := func(h *harness) protocol.AlterPartitionRequest {
		t.Helper()
		if _, err := h.b.ShrinkIsr(tp, 2); err != nil {
			t.Fatal(err)
		}
		h.idle()
		return h.take(ctrlNode)[0].(protocol.AlterPartitionRequest)
	}
	answer := func(h *harness, req protocol.AlterPartitionRequest, code protocol.Error) {
		h.deliver(ctrlNode, Node(me), protocol.AlterPartitionResponse{Header: protocol.Header{CorrelationID: req.CorrelationID},
			Partition: tp, Error: code, Leader: me, LeaderEpoch: req.LeaderEpoch, Isr: req.NewIsr,
			PartitionEpoch: req.PartitionEpoch + 1})
	}
	for _, c := range []struct {
		p           storage.Policy
		code        protocol.Error
		stayPending bool
	}{
		{storage.DivergingEpoch, protocol.IneligibleReplica, false},
		{storage.DivergingEpoch, protocol.FencedLeaderEpoch, true},
		{storage.DivergingEpoch, protocol.InvalidUpdateVersion, true},
		{storage.EligibleLeader, protocol.IneligibleReplica, false},
		{storage.EligibleLeader, protocol.FencedLeaderEpoch, true},
		{storage.EligibleLeader, protocol.InvalidUpdateVersion, true},
		{storage.LeaderEpoch, protocol.InvalidUpdateVersion, false},
		{storage.LeaderEpoch, protocol.FencedLeaderEpoch, false},
	} {
		h := newHarness(t, func(cfg *Config) { cfg.Policy = c.p })
		h.leaderAndIsr(me, 0, 1, 2, 3)
		answer(h, propose(h), c.code)
		st := h.state()
		if pending := st.PendingIsr != nil; pending != c.stayPending {
			t.Errorf("%s %s: pending %v, want pending=%t", c.p, c.code, st.PendingIsr, c.stayPending)
		}
		if len(st.Isr) != 3 {
			t.Errorf("%s %s: ISR %v changed", c.p, c.code, st.Isr)
		}
		_, err := h.b.ShrinkIsr(tp, 3)
		if (err != nil) != c.stayPending {
			t.Errorf("%s %s: a second proposal: %v", c.p, c.code, err)
		}
	}
	h := newHarness(t, func(cfg *Config) { cfg.Policy = storage.DivergingEpoch })
	h.leaderAndIsr(me, 0, 1, 2, 3)
	answer(h, propose(h), protocol.None)
	if st := h.state(); st.PendingIsr != nil || len(st.Isr) != 2 || st.PartitionEpoch != 1 {
		t.Fatalf("after the commit: %+v", st)
	}
}

// A leader re-elected without a break keeps its views; the mutant resets
// them, so its HW waits for fetches it already had.
func TestReelectionViewResetMutant(t *testing.T) {
	for _, mutant := range []bool{false, true} {
		h := newMutantHarness(t, storage.LeaderEpoch, MutantReelectionViewReset, mutant)
		h.leaderAndIsr(me, 0, 1, 2)
		h.produce(protocol.AcksLeader, 1)
		h.fetch(2, 1, 0)
		h.leaderAndIsr(me, 1, 1, 2)
		h.produce(protocol.AcksLeader, 2)
		if v := h.state().FollowerLEO[2]; (v == 1) == mutant {
			t.Errorf("mutant=%t: view of follower 2 after the re-election is %d", mutant, v)
		}
	}
}

// A new leader (one that followed in between) forgets the views of its
// last leadership; the no-view-reset mutant keeps them.
func TestNoViewResetMutant(t *testing.T) {
	for _, mutant := range []bool{false, true} {
		h := newMutantHarness(t, storage.LeaderEpoch, MutantNoViewReset, mutant)
		h.leaderAndIsr(me, 0, 1, 2)
		h.produce(protocol.AcksLeader, 1)
		h.fetch(2, 1, 0)
		h.leaderAndIsr(2, 1, 2, 1)
		h.leaderAndIsr(me, 2, 1, 2)
		if v := h.state().FollowerLEO[2]; (v == 1) != mutant {
			t.Errorf("mutant=%t: view of follower 2 for the new leader is %d", mutant, v)
		}
	}
}

// 3.7+ (KAFKA-15583, Partition.isUnderMinIsr): the HW does not move while
// the committed ISR is below min.insync.replicas, even when a pending
// expansion makes the maximal ISR large enough.
func TestMinIsrGateCountsCommittedIsr(t *testing.T) {
	h := newHarness(t, func(c *Config) {
		c.Policy = storage.DivergingEpoch
		c.MinIsrGatesHW = true
		c.MinInsyncReplicas = 2
	})
	h.leaderAndIsr(me, 0, 1)
	h.produce(protocol.AcksLeader, 1)
	if hw := h.state().HW; hw != 0 {
		t.Fatalf("HW %d with the ISR below min.insync.replicas", hw)
	}
	h.fetch(2, 1, 0)
	if _, err := h.b.ExpandIsr(tp, 2); err != nil {
		t.Fatal(err)
	}
	h.idle()
	req := h.take(ctrlNode)[0].(protocol.AlterPartitionRequest)
	h.fetch(2, 1, 0)
	if hw := h.state().HW; hw != 0 {
		t.Fatalf("HW %d with only the maximal ISR at min.insync.replicas", hw)
	}
	h.deliver(ctrlNode, Node(me), protocol.AlterPartitionResponse{Header: protocol.Header{CorrelationID: req.CorrelationID},
		Partition: tp, Leader: me, LeaderEpoch: 0, Isr: []int32{1, 2}, PartitionEpoch: 1})
	if hw := h.state().HW; hw != 1 {
		t.Fatalf("HW %d after the expansion committed, want 1", hw)
	}
}

// One AlterPartition per partition at a time (AlterPartitionManager): a
// LeaderAndIsr that drops the proposal does not let a second one out while
// the first awaits its answer; the answer, stale now, changes nothing but
// frees the way.
func TestOneAlterPartitionInFlight(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.Policy = storage.DivergingEpoch })
	h.leaderAndIsr(me, 0, 1, 2, 3)
	if _, err := h.b.ShrinkIsr(tp, 3); err != nil {
		t.Fatal(err)
	}
	h.idle()
	req := h.take(ctrlNode)[0].(protocol.AlterPartitionRequest)
	h.leaderAndIsr(me, 1, 1, 2, 3) // re-elected: the proposal is dropped
	if st := h.state(); st.PendingIsr != nil {
		t.Fatalf("proposal survived the LeaderAndIsr: %v", st.PendingIsr)
	}
	if _, err := h.b.ShrinkIsr(tp, 2); err == nil {
		t.Fatal("a second AlterPartition went out while the first awaits its answer")
	}
	h.deliver(ctrlNode, Node(me), protocol.AlterPartitionResponse{Header: protocol.Header{CorrelationID: req.CorrelationID},
		Partition: tp, Error: protocol.FencedLeaderEpoch, LeaderEpoch: 0, PartitionEpoch: 0})
	if st := h.state(); len(st.Isr) != 3 || st.PendingIsr != nil {
		t.Fatalf("the stale answer changed the leader: %+v", st)
	}
	if _, err := h.b.ShrinkIsr(tp, 2); err != nil {
		t.Fatalf("after the answer: %v", err)
	}
}
