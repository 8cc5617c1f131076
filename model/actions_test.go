package model

import (
	"strings"
	"testing"
)

func cfg2(mod func(*Config)) *Config {
	c := &Config{Replicas: []Replica{"r1", "r2"}, Truncation: LeaderEpoch, Fencing: true, Acks: "all",
		MinInsyncReplicas: 1, MaxRecords: 2, MaxEpoch: 2, MaxCrashes: 1}
	if mod != nil {
		mod(c)
	}
	if err := c.Validate(); err != nil {
		panic(err)
	}
	return c
}

// do applies actions written as Action.String() ("Elect(r1)", "Crash(r2,0)").
func do(t *testing.T, cfg *Config, s State, acts ...string) State {
	t.Helper()
	for _, name := range acts {
		a := find(t, cfg, s, name)
		next, err := Apply(cfg, s, a)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		s = next
	}
	return s
}

func find(t *testing.T, cfg *Config, s State, name string) Action {
	t.Helper()
	for _, a := range Enabled(cfg, s) {
		if a.String() == name {
			return a
		}
	}
	t.Fatalf("%s is not enabled; enabled: %v", name, Enabled(cfg, s))
	return Action{}
}

func enabled(cfg *Config, s State, name string) bool {
	for _, a := range Enabled(cfg, s) {
		if a.String() == name {
			return true
		}
	}
	return false
}

// expect asserts which of names are enabled in s.
func expect(t *testing.T, cfg *Config, s State, want bool, names ...string) {
	t.Helper()
	for _, n := range names {
		if got := enabled(cfg, s, n); got != want {
			t.Errorf("%s enabled = %t, want %t (enabled: %v)", n, got, want, Enabled(cfg, s))
		}
	}
}

// leaderAndFollower: r1 leads epoch 0 with r2 following.
func leaderAndFollower(t *testing.T, cfg *Config) State {
	return do(t, cfg, Init(cfg), "Elect(r1)", "HandleLeaderAndIsr(r1)", "HandleLeaderAndIsr(r2)")
}

// Enabled lists bindings in Next's order.
func TestInitEnabled(t *testing.T) {
	cfg := cfg2(nil)
	if got, want := fmtActions(Enabled(cfg, Init(cfg))), "[Elect(r1) Elect(r2) Crash(r1,0) Crash(r2,0)]"; got != want {
		t.Errorf("Enabled(Init) = %s, want %s", got, want)
	}
}

func fmtActions(as []Action) string {
	parts := make([]string, len(as))
	for i, a := range as {
		parts[i] = a.String()
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func TestElectEnabling(t *testing.T) {
	cfg := cfg2(func(c *Config) { c.MaxEpoch = 0 })
	s := do(t, cfg, Init(cfg), "Elect(r1)")
	expect(t, cfg, s, false, "Elect(r1)", "Elect(r2)") // ctrlEpoch = MaxEpoch
	cfg = cfg2(nil)
	s = do(t, cfg, Init(cfg), "Crash(r1,0)")
	expect(t, cfg, s, false, "Elect(r1)") // not Up
	expect(t, cfg, s, true, "Elect(r2)")
	if t2 := do(t, cfg, s, "Elect(r2)"); len(t2.CtrlIsr) != 1 || t2.CtrlIsr[0] != "r2" {
		t.Errorf("clean election keeps the live ISR members: %v", t2.CtrlIsr)
	}
}

func TestUncleanElection(t *testing.T) {
	for _, unclean := range []bool{false, true} {
		cfg := cfg2(func(c *Config) { c.UncleanLeaderElectionEnable = unclean; c.MaxCrashes = 2 })
		s := leaderAndFollower(t, cfg)
		s = do(t, cfg, s, "ShrinkIsr(r1,r2)", "Crash(r1,0)") // ISR {r1}, r1 down
		if got := enabled(cfg, s, "Elect(r2)"); got != unclean {
			t.Errorf("unclean=%t: Elect(r2) enabled = %t", unclean, got)
		}
		if unclean {
			s = do(t, cfg, s, "Elect(r2)")
			if len(s.CtrlIsr) != 1 || s.CtrlIsr[0] != "r2" {
				t.Errorf("unclean election resets the ISR to the leader: %v", s.CtrlIsr)
			}
		}
	}
}

func TestHandleLeaderAndIsr(t *testing.T) {
	cfg := cfg2(nil)
	s := Init(cfg)
	expect(t, cfg, s, false, "HandleLeaderAndIsr(r1)")
	s = do(t, cfg, s, "Elect(r1)", "Elect(r1)", "HandleLeaderAndIsr(r1)", "HandleLeaderAndIsr(r1)")
	// epoch 0 then epoch 1: the second is newer and applied.
	if s.LeaderEpoch[0] != 1 || s.Role[0] != Leader {
		t.Fatalf("r1: role %s epoch %d", s.Role[0], s.LeaderEpoch[0])
	}
	s2 := do(t, cfg, Init(cfg), "Elect(r1)", "Elect(r2)", "HandleLeaderAndIsr(r1)")
	s2 = do(t, cfg, s2, "HandleLeaderAndIsr(r1)") // epoch 1 names r2: r1 follows
	if s2.Role[0] != Follower || s2.FetchState[0] != Truncating || s2.Leader[0] != "r2" {
		t.Fatalf("r1 should follow r2 and truncate first: %s %s %s", s2.Role[0], s2.FetchState[0], s2.Leader[0])
	}
}

func TestRestartAndStaleLeaderAndIsr(t *testing.T) {
	cfg := cfg2(nil)
	s := do(t, cfg, Init(cfg), "Elect(r1)", "Elect(r1)", "HandleLeaderAndIsr(r2)", "HandleLeaderAndIsr(r2)")
	if s.LeaderEpoch[1] != 1 {
		t.Fatal(s.LeaderEpoch[1])
	}
	// r2 crashes (losing its queue) and restarts: it gets the current
	// LeaderAndIsr (epoch 1) from the controller.
	s = do(t, cfg, Init(cfg), "Elect(r1)", "Elect(r1)", "Crash(r2,0)")
	expect(t, cfg, s, true, "Restart(r2)")
	expect(t, cfg, s, false, "Restart(r1)", "HandleLeaderAndIsr(r2)", "Crash(r1,0)") // r1 up; r2's queue lost; crashes = MaxCrashes
	s = do(t, cfg, s, "Restart(r2)")
	if s.Role[1] != Starting || len(s.ControllerQueue[1]) != 1 || s.ControllerQueue[1][0].Epoch != 1 {
		t.Fatalf("restart: role %s queue %v", s.Role[1], s.ControllerQueue[1])
	}
}

func TestProduceEnabling(t *testing.T) {
	cfg := cfg2(func(c *Config) { c.MinInsyncReplicas = 2 })
	s := do(t, cfg, Init(cfg), "Elect(r1)")
	expect(t, cfg, s, false, "Produce(r1)") // not yet leader
	s = do(t, cfg, s, "HandleLeaderAndIsr(r1)")
	expect(t, cfg, s, true, "Produce(r1)") // ISR {r1, r2}
	expect(t, cfg, s, false, "Produce(r2)")
	s2 := do(t, cfg, s, "ShrinkIsr(r1,r2)")
	expect(t, cfg, s2, false, "Produce(r1)") // acks=all refused below min.insync
	s = do(t, cfg, s, "Produce(r1)", "Produce(r1)")
	expect(t, cfg, s, false, "Produce(r1)") // nextId > MaxRecords
	acks1 := cfg2(func(c *Config) { c.MinInsyncReplicas = 2; c.Acks = "1" })
	s3 := do(t, acks1, Init(acks1), "Elect(r1)", "HandleLeaderAndIsr(r1)", "ShrinkIsr(r1,r2)", "Produce(r1)")
	if len(s3.Acked) != 1 || s3.Acked[0] != (OffsetID{0, 1}) {
		t.Fatalf("acks=1 acknowledges at once: %v", s3.Acked)
	}
}

func TestOffsetsForLeaderEpochRoundTrip(t *testing.T) {
	cfg := cfg2(nil)
	s := leaderAndFollower(t, cfg)
	expect(t, cfg, s, true, "SendOffsetsForLeaderEpoch(r2)")
	expect(t, cfg, s, false, "SendOffsetsForLeaderEpoch(r1)", "SendFetch(r2)", "HandleOffsetsForLeaderEpoch(r1,r2)")
	s = do(t, cfg, s, "SendOffsetsForLeaderEpoch(r2)")
	expect(t, cfg, s, false, "SendOffsetsForLeaderEpoch(r2)", "HandleOffsetsForLeaderEpoch(r2,r2)", "HandleOffsetsForLeaderEpochResponse(r2)")
	s = do(t, cfg, s, "HandleOffsetsForLeaderEpoch(r1,r2)")
	m := s.Inflight[1]
	if m.Type != MsgOffsetsForLeaderEpochResponse || m.Error != ErrNone || m.Epoch != -1 || m.Offset != -1 {
		t.Fatalf("response %v (the follower knows no epoch: -1)", m)
	}
	s = do(t, cfg, s, "HandleOffsetsForLeaderEpochResponse(r2)")
	if s.FetchState[1] != Fetching || s.Inflight[1].Type != MsgNone {
		t.Fatalf("after the response: %s %v", s.FetchState[1], s.Inflight[1])
	}
	// HighWatermark: a follower fetches at once, never asks.
	hw := cfg2(func(c *Config) { c.Truncation = HighWatermark })
	s = leaderAndFollower(t, hw)
	expect(t, hw, s, false, "SendOffsetsForLeaderEpoch(r2)")
	expect(t, hw, s, true, "SendFetch(r2)")
}

func TestFencing(t *testing.T) {
	for _, fencing := range []bool{false, true} {
		cfg := cfg2(func(c *Config) { c.Fencing = fencing })
		// r2 asks r1 in epoch 0; r1 meanwhile becomes leader of epoch 1.
		s := do(t, cfg, Init(cfg), "Elect(r1)", "HandleLeaderAndIsr(r1)", "HandleLeaderAndIsr(r2)",
			"SendOffsetsForLeaderEpoch(r2)", "Elect(r1)", "HandleLeaderAndIsr(r1)", "HandleOffsetsForLeaderEpoch(r1,r2)")
		want := ErrNone
		if fencing {
			want = ErrFencedLeaderEpoch
		}
		if got := s.Inflight[1].Error; got != want {
			t.Errorf("fencing=%t: error %s, want %s", fencing, got, want)
		}
	}
}

func TestFetchAndHW(t *testing.T) {
	cfg := cfg2(nil)
	s := do(t, cfg, leaderAndFollower(t, cfg), "SendOffsetsForLeaderEpoch(r2)", "HandleOffsetsForLeaderEpoch(r1,r2)",
		"HandleOffsetsForLeaderEpochResponse(r2)", "Produce(r1)")
	expect(t, cfg, s, true, "SendFetch(r2)")
	s = do(t, cfg, s, "SendFetch(r2)")
	expect(t, cfg, s, false, "SendFetch(r2)", "HandleFetchResponse(r2)", "HandleFetch(r2,r2)")
	s = do(t, cfg, s, "HandleFetch(r1,r2)") // the read: records and the HW before the update
	if s.Inflight[1].Type != MsgFetchRead || len(s.Inflight[1].Records) != 1 || s.Inflight[1].Hw != 0 {
		t.Fatalf("read %v", s.Inflight[1])
	}
	expect(t, cfg, s, false, "HandleFetchResponse(r2)", "UpdateFollowerFetchState(r2,r2)")
	s = do(t, cfg, s, "UpdateFollowerFetchState(r1,r2)") // r2 fetched at 0: HW = min(1, 0) = 0
	if s.Hw[0] != 0 || s.Inflight[1].Type != MsgFetchResponse || len(s.Inflight[1].Records) != 1 {
		t.Fatalf("hw %d response %v", s.Hw[0], s.Inflight[1])
	}
	s = do(t, cfg, s, "HandleFetchResponse(r2)", "SendFetch(r2)", "HandleFetch(r1,r2)", "UpdateFollowerFetchState(r1,r2)")
	if s.Hw[0] != 1 || len(s.Committed) != 1 || len(s.Acked) != 1 {
		t.Fatalf("r2 fetched at 1: hw %d committed %v acked %v", s.Hw[0], s.Committed, s.Acked)
	}
	if s.Hw[1] != 0 || s.Inflight[1].Hw != 0 {
		t.Fatalf("the response carries the HW from before this fetch's update: follower %d, response %d", s.Hw[1], s.Inflight[1].Hw)
	}
	s = do(t, cfg, s, "HandleFetchResponse(r2)")
	if s.Hw[1] != 0 || s.LEO(1) != 1 {
		t.Fatalf("follower hw %d leo %d: a round behind", s.Hw[1], s.LEO(1))
	}
	s = do(t, cfg, s, "SendFetch(r2)", "HandleFetch(r1,r2)", "UpdateFollowerFetchState(r1,r2)", "HandleFetchResponse(r2)")
	if s.Hw[1] != 1 {
		t.Fatalf("follower hw %d, want 1 two rounds later", s.Hw[1])
	}
}

func TestIsrChanges(t *testing.T) {
	cfg := cfg2(nil)
	s := leaderAndFollower(t, cfg)
	expect(t, cfg, s, true, "ShrinkIsr(r1,r2)")
	expect(t, cfg, s, false, "ShrinkIsr(r1,r1)", "ShrinkIsr(r2,r1)", "ExpandIsr(r1,r2)")
	s = do(t, cfg, s, "ShrinkIsr(r1,r2)")
	expect(t, cfg, s, false, "ExpandIsr(r1,r2)") // r1 has no view of r2's LEO yet (-1)
	s = do(t, cfg, s, "SendOffsetsForLeaderEpoch(r2)", "HandleOffsetsForLeaderEpoch(r1,r2)",
		"HandleOffsetsForLeaderEpochResponse(r2)", "SendFetch(r2)", "HandleFetch(r1,r2)", "UpdateFollowerFetchState(r1,r2)")
	expect(t, cfg, s, true, "ExpandIsr(r1,r2)")
	// Only the controller's current leader may change the ISR.
	s = do(t, cfg, s, "Elect(r1)")
	expect(t, cfg, s, false, "ExpandIsr(r1,r2)")
}

func TestCheckpointCrashRestartLose(t *testing.T) {
	cfg := cfg2(func(c *Config) { c.UnflushedLoss = true; c.LossyNetwork = true; c.MinInsyncReplicas = 1 })
	s := do(t, cfg, leaderAndFollower(t, cfg), "ShrinkIsr(r1,r2)", "Produce(r1)")
	expect(t, cfg, s, true, "CheckpointHW(r1)") // hw 1, checkpoint 0
	expect(t, cfg, s, false, "CheckpointHW(r2)")
	expect(t, cfg, s, true, "Crash(r1,0)", "Crash(r1,1)")
	expect(t, cfg, s, false, "Crash(r1,2)")
	expect(t, cfg, s, false, "LoseMessage(r2)")
	s2 := do(t, cfg, s, "SendOffsetsForLeaderEpoch(r2)")
	expect(t, cfg, s2, true, "LoseMessage(r2)")
	// Crashing the leader drops the follower's request to it.
	s3 := do(t, cfg, s2, "Crash(r1,0)")
	if s3.Inflight[1].Type != MsgNone || s3.LEO(0) != 0 || len(s3.EpochCache[0]) != 1 {
		t.Fatalf("after the crash: slot %v leo %d cache %v (the cache is truncated at restart)", s3.Inflight[1], s3.LEO(0), s3.EpochCache[0])
	}
	s3 = do(t, cfg, s3, "Restart(r1)")
	if len(s3.EpochCache[0]) != 0 || s3.Hw[0] != 0 || len(s3.ControllerQueue[0]) != 0 {
		t.Fatalf("restart of the elected leader: cache %v hw %d queue %v", s3.EpochCache[0], s3.Hw[0], s3.ControllerQueue[0])
	}
	noLoss := cfg2(nil)
	s = do(t, noLoss, leaderAndFollower(t, noLoss), "Produce(r1)")
	expect(t, noLoss, s, false, "Crash(r1,0)", "LoseMessage(r2)")
	expect(t, noLoss, s, true, "Crash(r1,1)")
}

func TestApplyErrors(t *testing.T) {
	cfg := cfg2(nil)
	s := Init(cfg)
	for _, a := range []Action{
		{Kind: Produce, L: "r1"},              // not enabled
		{Kind: Elect, R: "r9"},                // not a replica
		{Kind: Crash, R: "r1", Keep: 7},       // keep outside Offsets
		{Kind: NoAction},                      // no such action
		{Kind: HandleFetch, L: "r1", F: "r2"}, // nothing in flight
	} {
		if _, err := Apply(cfg, s, a); err == nil {
			t.Errorf("Apply(%v) succeeded", a)
		}
	}
	if _, err := Apply(cfg, State{}, Action{Kind: Elect, R: "r1"}); err == nil {
		t.Error("Apply on a state of another shape succeeded")
	}
}
