package model

import "testing"

// One test per behaviour the Releases table varies, each on the release that
// differs (docs/spec.md's release table names Kafka's code for each).

// 0.10.2 (Partition.makeFollower returns true only for a new leader): a
// same-leader epoch bump does not truncate to the HW; a new leader does.
func TestHighWatermarkTruncatesOnlyOnLeaderChange(t *testing.T) {
	cfg := cfg2(func(c *Config) { c.Truncation = HighWatermark; c.Fencing = false })
	s := do(t, cfg, Init(cfg), "Elect(r1)", "HandleLeaderAndIsr(r1)", "HandleLeaderAndIsr(r2)",
		"Produce(r1)", "SendFetch(r2)", "HandleFetch(r1,r2)", "UpdateFollowerFetchState(r1,r2)", "HandleFetchResponse(r2)")
	if s.LEO(1) != 1 || s.Hw[1] != 0 {
		t.Fatalf("r2: leo %d hw %d, want 1 and 0", s.LEO(1), s.Hw[1])
	}
	same := do(t, cfg, s, "Elect(r1)", "HandleLeaderAndIsr(r2)") // epoch 1, leader still r1
	if same.LEO(1) != 1 || same.LeaderEpoch[1] != 1 {
		t.Fatalf("same leader, new epoch: r2 leo %d epoch %d, want 1 and 1 (no truncation)", same.LEO(1), same.LeaderEpoch[1])
	}
	moved := do(t, cfg, s, "Elect(r2)", "Elect(r1)", "HandleLeaderAndIsr(r1)", "HandleLeaderAndIsr(r1)")
	if moved.LEO(0) != 0 {
		t.Fatalf("r1 became r2's follower (a new leader): leo %d, want 0 (its HW)", moved.LEO(0))
	}
	if len(moved.EpochCache[0])+len(s.EpochCache[1]) != 0 {
		t.Fatalf("0.10.2 has no epoch cache: %v %v", moved.EpochCache[0], s.EpochCache[1])
	}
}

// 0.11.0 (Log.append assigns; makeLeader does not): a new leader's cache has
// no entry for its epoch until its first append. 2.1 assigns at makeLeader.
func TestKip101LeaderEntryAtFirstAppend(t *testing.T) {
	k := cfg2(func(c *Config) { c.Truncation = Kip101; c.Fencing = false })
	s := do(t, k, Init(k), "Elect(r1)", "HandleLeaderAndIsr(r1)")
	if len(s.EpochCache[0]) != 0 {
		t.Fatalf("0.11 leader before its first append: cache %v, want empty", s.EpochCache[0])
	}
	s = do(t, k, s, "Produce(r1)")
	if !equalEntries(s.EpochCache[0], entries(0, 0)) {
		t.Fatalf("after the first append: %v, want 0@0", s.EpochCache[0])
	}
	le := cfg2(nil)
	s = do(t, le, Init(le), "Elect(r1)", "HandleLeaderAndIsr(r1)")
	if !equalEntries(s.EpochCache[0], entries(0, 0)) {
		t.Fatalf("2.1 leader: %v, want 0@0 at becoming leader", s.EpochCache[0])
	}
}

// Every release (Partition.makeLeader resets views only if isNewLeader): a
// leader re-elected without a break keeps its views and acknowledges the
// acks=all records of its earlier epoch (DelayedProduce checks no epoch).
func TestReelectedLeaderKeepsViewsAndProduceRequests(t *testing.T) {
	cfg := cfg2(nil)
	s := do(t, cfg, leaderAndFollower(t, cfg), "SendOffsetsForLeaderEpoch(r2)", "HandleOffsetsForLeaderEpoch(r1,r2)",
		"HandleOffsetsForLeaderEpochResponse(r2)", "Produce(r1)", "SendFetch(r2)", "HandleFetch(r1,r2)",
		"UpdateFollowerFetchState(r1,r2)", "HandleFetchResponse(r2)", "SendFetch(r2)", "HandleFetch(r1,r2)")
	// r2 has fetched at 0 and its fetch at 1 is read; r1 is re-elected before the update.
	s = do(t, cfg, s, "Elect(r1)", "HandleLeaderAndIsr(r1)")
	if s.FollowerLeo[0][1] != 0 || s.ProduceEpoch[0] != 0 || s.LeaderEpoch[0] != 1 {
		t.Fatalf("re-elected r1: views %v produceEpoch %d epoch %d, want view 0 kept, produceEpoch 0", s.FollowerLeo[0], s.ProduceEpoch[0], s.LeaderEpoch[0])
	}
	s = do(t, cfg, s, "UpdateFollowerFetchState(r1,r2)")
	if s.Hw[0] != 1 || len(s.Acked) != 1 || s.Acked[0] != (OffsetID{0, 1}) {
		t.Fatalf("hw %d acked %v: the epoch-0 record must be acknowledged in epoch 1", s.Hw[0], s.Acked)
	}
}

// The fetch is split: a leader that stops leading between its read and the
// update keeps no view, and the response still goes out.
func TestUpdateSkippedWhenNoLongerLeader(t *testing.T) {
	cfg := cfg2(nil)
	s := do(t, cfg, leaderAndFollower(t, cfg), "SendOffsetsForLeaderEpoch(r2)", "HandleOffsetsForLeaderEpoch(r1,r2)",
		"HandleOffsetsForLeaderEpochResponse(r2)", "SendFetch(r2)", "HandleFetch(r1,r2)",
		"Elect(r2)", "HandleLeaderAndIsr(r1)", "UpdateFollowerFetchState(r1,r2)")
	if s.Role[0] != Follower || s.FollowerLeo[0][1] != -1 || s.Inflight[1].Type != MsgFetchResponse {
		t.Fatalf("r1 %s views %v slot %v", s.Role[0], s.FollowerLeo[0], s.Inflight[1])
	}
}

// A broker applies a LeaderAndIsr whose leader has died since (KRaft always
// steps down; a ZooKeeper broker's metadata cache still lists an elected
// leader, issue 25): it follows the dead leader, fetching nothing. A dead
// leader is no longer the controller's: a restarted broker waits for an
// election.
func TestDeadLeader(t *testing.T) {
	cfg := cfg2(nil)
	s := do(t, cfg, Init(cfg), "Elect(r1)", "HandleLeaderAndIsr(r1)", "Crash(r1,0)")
	if s.CtrlLeader != None {
		t.Fatalf("controller's leader after its crash: %s, want None", s.CtrlLeader)
	}
	s = do(t, cfg, s, "HandleLeaderAndIsr(r2)") // LeaderAndIsr(r1, 0): r1 is down
	if s.Role[1] != Follower || s.LeaderEpoch[1] != 0 || s.Leader[1] != "r1" {
		t.Fatalf("r2 did not step down to follow r1, which died: %s epoch %d leader %s", s.Role[1], s.LeaderEpoch[1], s.Leader[1])
	}
	s = do(t, cfg, s, "Restart(r1)")
	if len(s.ControllerQueue[0]) != 0 {
		t.Fatalf("restart with no leader: queue %v, want empty", s.ControllerQueue[0])
	}
}

// A fetch sent before its sender crashed is still served and counted where
// the release has no broker epoch in Fetch (KIP-903); under 3.9 it is lost.
func TestOrphanFetch(t *testing.T) {
	for _, c := range []struct {
		policy string
		orphan bool
	}{{LeaderEpoch, true}, {DivergingEpoch, false}} {
		cfg := cfg2(func(x *Config) { x.Truncation = c.policy; x.MaxPartitionEpoch = 2 })
		s := do(t, cfg, Init(cfg), "Elect(r1)", "HandleLeaderAndIsr(r1)", "HandleLeaderAndIsr(r2)")
		if c.policy == LeaderEpoch {
			s = do(t, cfg, s, "SendOffsetsForLeaderEpoch(r2)", "HandleOffsetsForLeaderEpoch(r1,r2)", "HandleOffsetsForLeaderEpochResponse(r2)")
		}
		s = do(t, cfg, s, "Produce(r1)", "SendFetch(r2)", "Crash(r2,0)")
		if got := s.Inflight[1].Type == MsgFetch && s.Inflight[1].Orphan; got != c.orphan {
			t.Fatalf("%s: slot %v, orphan %t want %t", c.policy, s.Inflight[1], got, c.orphan)
		}
		if !c.orphan {
			continue
		}
		s = do(t, cfg, s, "HandleFetch(r1,r2)", "UpdateFollowerFetchState(r1,r2)")
		if s.FollowerLeo[0][1] != 0 || s.Inflight[1].Type != MsgNone {
			t.Fatalf("orphan served: view %v slot %v", s.FollowerLeo[0], s.Inflight[1])
		}
	}
}

// 3.9: the follower fetches at once with lastFetchedEpoch; a leader whose
// log diverges answers divergingEpoch and does not count the fetch; the
// follower truncates and fetches again.
func TestDivergingEpoch(t *testing.T) {
	cfg := cfg2(func(c *Config) {
		c.Truncation = DivergingEpoch
		c.MaxPartitionEpoch = 2
		c.MinInsyncReplicas = 1
		c.MaxCrashes = 2
	})
	// r1 writes m1 in epoch 0 and crashes before r2 fetches it; r2 leads epoch 1 and writes m2.
	s := do(t, cfg, Init(cfg), "Elect(r1)", "HandleLeaderAndIsr(r1)", "HandleLeaderAndIsr(r2)", "Produce(r1)",
		"Crash(r1,1)", "Elect(r2)", "HandleLeaderAndIsr(r2)", "Produce(r2)", "Restart(r1)", "HandleLeaderAndIsr(r1)")
	if s.Role[0] != Follower || s.FetchState[0] != Truncating || enabled(cfg, s, "SendOffsetsForLeaderEpoch(r1)") {
		t.Fatalf("r1 follows, fetching at once but not yet reconciled (no OffsetsForLeaderEpoch): %s %s", s.Role[0], s.FetchState[0])
	}
	s = do(t, cfg, s, "SendFetch(r1)")
	if m := s.Inflight[0]; m.Offset != 1 || m.LastFetchedEpoch != 0 {
		t.Fatalf("fetch %v, want offset 1 lastFetchedEpoch 0", m)
	}
	s = do(t, cfg, s, "HandleFetch(r2,r1)")
	m := s.Inflight[0]
	if m.Type != MsgFetchResponse || !m.Diverging || m.DivergingEpoch != (EpochOffset{0, 0}) || s.FollowerLeo[1][0] != -1 {
		t.Fatalf("response %v views %v: want divergingEpoch (0, 0) and no view", m, s.FollowerLeo[1])
	}
	s = do(t, cfg, s, "HandleFetchResponse(r1)")
	if s.LEO(0) != 0 || s.FetchState[0] != Truncating {
		t.Fatalf("r1 truncates to 0 and fetches on, not yet reconciled: leo %d %s", s.LEO(0), s.FetchState[0])
	}
	s = do(t, cfg, s, "SendFetch(r1)", "HandleFetch(r2,r1)", "UpdateFollowerFetchState(r2,r1)", "HandleFetchResponse(r1)")
	if s.LEO(0) != 1 || s.Log[0][0] != s.Log[1][0] || s.FetchState[0] != Fetching {
		t.Fatalf("r1 %v, r2 %v: want the same log", s.Log[0], s.Log[1])
	}
}

// 3.9: an ISR change is an AlterPartition proposal; the HW counts the
// maximal ISR while it is pending; a stale partition epoch is rejected and
// the proposal stays pending until the next LeaderAndIsr.
func TestAsyncAlterPartition(t *testing.T) {
	cfg := cfg2(func(c *Config) {
		c.Truncation = DivergingEpoch
		c.MaxPartitionEpoch = 3
		c.Replicas = []Replica{"r1", "r2", "r3"}
	})
	s := do(t, cfg, Init(cfg), "Elect(r1)", "HandleLeaderAndIsr(r1)", "HandleLeaderAndIsr(r2)", "HandleLeaderAndIsr(r3)",
		"ShrinkIsr(r1,r2)")
	if len(s.PendingIsr[0]) != 2 || len(s.Isr[0]) != 3 || s.AlterPartition[0].Type != MsgAlterPartition {
		t.Fatalf("pending %v isr %v slot %v", s.PendingIsr[0], s.Isr[0], s.AlterPartition[0])
	}
	expect(t, cfg, s, false, "ShrinkIsr(r1,r3)") // one proposal at a time
	// r3 dies: the controller fences it out of the ISR (partition epoch 1),
	// so r1's proposal at partition epoch 0 is stale.
	s = do(t, cfg, s, "Crash(r3,0)", "HandleAlterPartition(r1)")
	if m := s.AlterPartition[0]; m.Error != ErrInvalidUpdateVersion {
		t.Fatalf("response %v, want INVALID_UPDATE_VERSION", m)
	}
	s = do(t, cfg, s, "HandleAlterPartitionResponse(r1)")
	if len(s.PendingIsr[0]) != 2 {
		t.Fatalf("a stale proposal stays pending: %v", s.PendingIsr[0])
	}
	s = do(t, cfg, s, "HandleLeaderAndIsr(r1)") // epoch 0, partition epoch 1, ISR {r1, r2}
	if len(s.PendingIsr[0]) != 0 || len(s.Isr[0]) != 2 || s.PartitionEpoch[0] != 1 {
		t.Fatalf("after the LeaderAndIsr: pending %v isr %v pe %d", s.PendingIsr[0], s.Isr[0], s.PartitionEpoch[0])
	}
	s = do(t, cfg, s, "ShrinkIsr(r1,r2)", "HandleAlterPartition(r1)", "HandleAlterPartitionResponse(r1)")
	if len(s.Isr[0]) != 1 || s.PartitionEpoch[0] != 2 || s.CtrlPartitionEpoch != 2 {
		t.Fatalf("committed shrink: isr %v pe %d ctrl pe %d", s.Isr[0], s.PartitionEpoch[0], s.CtrlPartitionEpoch)
	}
}

// 3.9: while an expansion is pending, the HW is the minimum over the
// maximal ISR, the new member included.
func TestHWOverMaximalIsr(t *testing.T) {
	cfg := cfg2(func(c *Config) { c.Truncation = DivergingEpoch; c.MaxPartitionEpoch = 3 })
	s := do(t, cfg, Init(cfg), "Elect(r1)", "HandleLeaderAndIsr(r1)", "HandleLeaderAndIsr(r2)",
		"ShrinkIsr(r1,r2)", "HandleAlterPartition(r1)", "HandleAlterPartitionResponse(r1)",
		"SendFetch(r2)", "HandleFetch(r1,r2)", "UpdateFollowerFetchState(r1,r2)", "ExpandIsr(r1,r2)")
	if len(s.PendingIsr[0]) != 2 || len(s.Isr[0]) != 1 {
		t.Fatalf("pending %v isr %v", s.PendingIsr[0], s.Isr[0])
	}
	s = do(t, cfg, s, "Produce(r1)")
	if s.Hw[0] != 0 {
		t.Fatalf("hw %d: r2 (pending) has not fetched the record, the HW must wait", s.Hw[0])
	}
}
