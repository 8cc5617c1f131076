package broker

import (
	"testing"

	"github.com/hwepoch/hwepoch/impl/protocol"
)

// The leader's HW (Partition.maybeIncrementLeaderHW): min LEO over the ISR
// from the leader's views, blocked while a view is unknown, never back;
// a re-elected leader keeps its views (Replica.resetReplicaState with
// !isNewLeader), a new leader forgets them.
func TestLeaderHighWatermark(t *testing.T) {
	h := newHarness(t, nil)
	h.leaderAndIsr(me, 0, 1, 2, 3)
	for id := int64(1); id <= 3; id++ {
		h.produce(protocol.AcksLeader, id)
	}
	hw := func() int64 { return h.state().HW }
	if hw() != 0 {
		t.Fatalf("HW %d before any fetch", hw())
	}
	h.fetch(2, 3, 0)
	if hw() != 0 {
		t.Fatalf("HW %d while follower 3's view is unknown", hw())
	}
	// The response carries the HW read before this fetch's update (the
	// split fetch): 0, while the leader's HW is now 1.
	if r := h.fetch(3, 1, 0); r.HighWatermark != 0 || len(r.Records) != 2 || hw() != 1 {
		t.Fatalf("fetch at 1: HW %d, %d records, leader HW %d; want HW 0, 2 records, leader HW 1", r.HighWatermark, len(r.Records), hw())
	}
	h.fetch(3, 3, 0)
	if hw() != 3 {
		t.Fatalf("HW %d, want 3 once every ISR view is 3", hw())
	}
	h.fetch(2, 2, 0) // a view going back does not take the HW back
	if hw() != 3 {
		t.Fatalf("HW went back to %d", hw())
	}
	if v := h.state().FollowerLEO; v[2] != 2 || v[3] != 3 || v[1] != -1 {
		t.Fatalf("follower views %v, want 2:2 3:3 1:-1", v)
	}
	// Re-elected in epoch 1 without a break: the views stay.
	h.leaderAndIsr(me, 1, 1, 2, 3)
	if v := h.state().FollowerLEO; v[2] != 2 || v[3] != 3 {
		t.Fatalf("views %v reset by a re-election", v)
	}
	h.produce(protocol.AcksLeader, 4)
	h.fetch(2, 4, 1)
	if hw() != 3 {
		t.Fatalf("HW %d, want 3 (follower 3 is at 3)", hw())
	}
	h.fetch(3, 4, 1)
	if hw() != 4 {
		t.Fatalf("HW %d, want 4", hw())
	}
	// A follower in epoch 2, leader again in epoch 3: a new leader, the
	// views are forgotten and the HW waits for every ISR follower.
	h.leaderAndIsr(2, 2, 1, 2, 3)
	h.leaderAndIsr(me, 3, 1, 2, 3)
	if v := h.state().FollowerLEO; v[2] != -1 || v[3] != -1 {
		t.Fatalf("views %v not reset for a new leader", v)
	}
	h.produce(protocol.AcksLeader, 5)
	h.fetch(2, 5, 3)
	if hw() != 4 {
		t.Fatalf("HW %d moved with follower 3 unknown in epoch 3", hw())
	}
	// The committed history saw every record the HW passed, once.
	if len(h.state().Log) != 5 {
		t.Fatalf("log %v", h.state().Log)
	}
}

// With ISR = {leader} the HW follows the LEO at once; with MinIsrGatesHW it
// does not while the ISR is below min.insync.replicas.
func TestLeaderHighWatermarkSoleReplicaAndMinIsrGate(t *testing.T) {
	h := newHarness(t, nil)
	h.leaderAndIsr(me, 0, 1)
	h.produce(protocol.AcksLeader, 1)
	if got := h.state().HW; got != 1 {
		t.Fatalf("sole replica: HW %d, want 1", got)
	}
	g := newHarness(t, func(c *Config) { c.MinIsrGatesHW = true; c.MinInsyncReplicas = 2 })
	g.leaderAndIsr(me, 0, 1)
	g.produce(protocol.AcksLeader, 1)
	if got := g.state().HW; got != 0 {
		t.Fatalf("MinIsrGatesHW: HW %d with ISR below min.insync.replicas, want 0", got)
	}
}

// KIP-320: a leader answers FENCED_LEADER_EPOCH to a lower current epoch,
// UNKNOWN_LEADER_EPOCH to a higher one, and serves nothing; without
// fencing it serves both. A non-leader answers NOT_LEADER_OR_FOLLOWER; a
// fetch beyond the LEO is OFFSET_OUT_OF_RANGE with the leader's LEO.
func TestFencingErrors(t *testing.T) {
	for _, fencing := range []bool{true, false} {
		h := newHarness(t, func(c *Config) { c.Fencing = fencing })
		if r := h.fetch(2, 0, 0); r.Error != protocol.NotLeaderOrFollower {
			t.Fatalf("fetch from a Starting replica: %v", r.Error)
		}
		if r := h.offsetsFor(2, 0, 0); r.Error != protocol.NotLeaderOrFollower {
			t.Fatalf("OffsetsForLeaderEpoch to a Starting replica: %v", r.Error)
		}
		h.leaderAndIsr(me, 5, 1, 2)
		h.produce(protocol.AcksLeader, 1)
		want := map[int32]protocol.Error{4: protocol.FencedLeaderEpoch, 5: protocol.None, 6: protocol.UnknownLeaderEpoch}
		if !fencing {
			want = map[int32]protocol.Error{4: protocol.None, 5: protocol.None, 6: protocol.None}
		}
		for ce, code := range want {
			r := h.fetch(2, 0, ce)
			if r.Error != code {
				t.Errorf("fencing=%t fetch with current epoch %d: %v, want %v", fencing, ce, r.Error, code)
			}
			if code != protocol.None && (len(r.Records) != 0 || r.HighWatermark != -1) {
				t.Errorf("fenced fetch served records %v, HW %d", r.Records, r.HighWatermark)
			}
			if o := h.offsetsFor(2, 5, ce); o.Error != code {
				t.Errorf("fencing=%t OffsetsForLeaderEpoch with current epoch %d: %v, want %v", fencing, ce, o.Error, code)
			}
		}
		if r := h.fetch(2, 7, 5); r.Error != protocol.OffsetOutOfRange || r.LogEndOffset != 1 {
			t.Errorf("fetch beyond the LEO: %v with LEO %d, want OFFSET_OUT_OF_RANGE with 1", r.Error, r.LogEndOffset)
		}
		if v := h.state().FollowerLEO[2]; v != 0 {
			t.Errorf("a refused fetch moved the follower's view to %d", v)
		}
	}
}

// The leader answers OffsetsForLeaderEpoch by policy: endOffsetFor under
// LeaderEpoch, the start of the next higher epoch (no epoch) under Kip101.
func TestOffsetsForLeaderEpochAnswerPerPolicy(t *testing.T) {
	for _, tc := range []struct {
		policy string
		epoch  int32
		offset int64
	}{{"LeaderEpoch", 1, 2}, {"Kip101", -1, 2}} {
		h := newHarness(t, func(c *Config) { c.Policy = policyOf(t, tc.policy) })
		h.leaderAndIsr(me, 1, 1)
		h.produce(protocol.AcksLeader, 1)
		h.produce(protocol.AcksLeader, 2)
		h.leaderAndIsr(me, 3, 1)
		h.produce(protocol.AcksLeader, 3)
		// Cache {1: 0, 3: 2}; asked about epoch 2.
		r := h.offsetsFor(2, 2, 3)
		if r.Error != protocol.None || r.LeaderEpoch != tc.epoch || r.EndOffset != tc.offset {
			t.Errorf("%s: answer (%d, %d) %v, want (%d, %d)", tc.policy, r.LeaderEpoch, r.EndOffset, r.Error, tc.epoch, tc.offset)
		}
	}
}
