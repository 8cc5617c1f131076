package broker

import (
	"testing"

	"github.com/hwepoch/hwepoch/impl/protocol"
)

// The acks paths (Partition.appendRecordsToLeader, DelayedProduce).
func TestProduceAcks(t *testing.T) {
	t.Run("acks=0 is never answered", func(t *testing.T) {
		h := newHarness(t, nil)
		h.leaderAndIsr(me, 0, 1, 2)
		if r := h.produce(protocol.AcksNone, 1); len(r) != 0 {
			t.Fatalf("answered %v", r)
		}
		if h.state().LEO != 1 {
			t.Fatal("not appended")
		}
	})
	t.Run("acks=1 is answered after the append", func(t *testing.T) {
		h := newHarness(t, nil)
		h.leaderAndIsr(me, 0, 1, 2)
		r := h.produce(protocol.AcksLeader, 1)
		if len(r) != 1 || r[0].Error != protocol.None || r[0].BaseOffset != 0 {
			t.Fatalf("answer %v", r)
		}
	})
	t.Run("acks=all waits for the HW", func(t *testing.T) {
		h := newHarness(t, func(c *Config) { c.MinInsyncReplicas = 2 })
		h.leaderAndIsr(me, 0, 1, 2)
		if r := h.produce(protocol.AcksAll, 1); len(r) != 0 {
			t.Fatalf("answered before replication: %v", r)
		}
		h.fetch(2, 0, 0)
		if r := h.produceResponses(); len(r) != 0 {
			t.Fatalf("answered before the HW passed: %v", r)
		}
		h.fetch(2, 1, 0)
		if r := h.produceResponses(); len(r) != 1 || r[0].Error != protocol.None || r[0].BaseOffset != 0 {
			t.Fatalf("answer %v, want NONE at 0", r)
		}
	})
	t.Run("NOT_ENOUGH_REPLICAS before the append", func(t *testing.T) {
		h := newHarness(t, func(c *Config) { c.MinInsyncReplicas = 2 })
		h.leaderAndIsr(me, 0, 1)
		r := h.produce(protocol.AcksAll, 1)
		if len(r) != 1 || r[0].Error != protocol.NotEnoughReplicas {
			t.Fatalf("answer %v", r)
		}
		if h.state().LEO != 0 {
			t.Fatal("appended anyway")
		}
		if r := h.produce(protocol.AcksLeader, 2); len(r) != 1 || r[0].Error != protocol.None {
			t.Fatalf("acks=1 is not subject to min.insync.replicas: %v", r)
		}
	})
	t.Run("NOT_ENOUGH_REPLICAS_AFTER_APPEND", func(t *testing.T) {
		h := newHarness(t, func(c *Config) { c.MinInsyncReplicas = 2 })
		h.leaderAndIsr(me, 0, 1, 2)
		h.produce(protocol.AcksAll, 1)
		corr, err := h.b.ShrinkIsr(tp, 2)
		if err != nil {
			t.Fatal(err)
		}
		h.idle()
		req := h.take(ctrlNode)[0].(protocol.AlterPartitionRequest)
		if req.CorrelationID != corr || len(req.NewIsr) != 1 || req.NewIsr[0] != me || req.LeaderEpoch != 0 {
			t.Fatalf("AlterPartition %+v", req)
		}
		h.deliver(ctrlNode, Node(me), protocol.AlterPartitionResponse{Header: protocol.Header{CorrelationID: corr},
			Partition: tp, Leader: me, LeaderEpoch: 0, Isr: []int32{me}, PartitionEpoch: 1})
		if st := h.state(); len(st.Isr) != 1 || st.HW != 1 {
			t.Fatalf("after the shrink: ISR %v HW %d, want [1] and 1", st.Isr, st.HW)
		}
		if r := h.produceResponses(); len(r) != 1 || r[0].Error != protocol.NotEnoughReplicasAfterAppend {
			t.Fatalf("answer %v, want NOT_ENOUGH_REPLICAS_AFTER_APPEND", r)
		}
	})
	t.Run("not leader, and leadership lost while waiting", func(t *testing.T) {
		h := newHarness(t, nil)
		if r := h.produce(protocol.AcksLeader, 1); len(r) != 1 || r[0].Error != protocol.NotLeaderOrFollower {
			t.Fatalf("Starting replica: %v", r)
		}
		h.leaderAndIsr(me, 0, 1, 2)
		h.produce(protocol.AcksAll, 2)
		h.leaderAndIsr(2, 1, 2, 1)
		if r := h.produceResponses(); len(r) != 1 || r[0].Error != protocol.NotLeaderOrFollower {
			t.Fatalf("waiting request after losing leadership: %v", r)
		}
	})
}

// ExpandIsr needs the follower at or past the HW and the epoch start
// (KAFKA-7128); ShrinkIsr needs it in the ISR; neither while one is pending.
func TestIsrChangeGuards(t *testing.T) {
	h := newHarness(t, nil)
	h.leaderAndIsr(me, 0, 1, 2)
	h.produce(protocol.AcksLeader, 1)
	h.fetch(2, 1, 0) // HW 1
	if _, err := h.b.ExpandIsr(tp, 3); err == nil {
		t.Fatal("expanded with follower 3 never fetched")
	}
	h.fetch(3, 0, 0)
	if _, err := h.b.ExpandIsr(tp, 3); err == nil {
		t.Fatal("expanded with follower 3 below the HW")
	}
	h.fetch(3, 1, 0)
	if _, err := h.b.ExpandIsr(tp, 3); err != nil {
		t.Fatalf("in-sync follower refused: %v", err)
	}
	if _, err := h.b.ShrinkIsr(tp, 2); err == nil {
		t.Fatal("a second AlterPartition went out while one is pending")
	}
	if _, err := h.b.ShrinkIsr(tp, me); err == nil {
		t.Fatal("the leader shrank itself")
	}
}
