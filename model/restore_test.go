package model

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// follower2 is cfg's state after r1 (leader of epoch 0) wrote two records
// and r2 copied both and learnt the HW 2 (r2 fetching).
func follower2(t *testing.T, cfg *Config) State {
	t.Helper()
	s := leaderAndFollower(t, cfg)
	if cfg.Truncation != HighWatermark { // 0.10.2 fetches at once
		s = do(t, cfg, s, "SendOffsetsForLeaderEpoch(r2)", "HandleOffsetsForLeaderEpoch(r1,r2)", "HandleOffsetsForLeaderEpochResponse(r2)")
	}
	s = do(t, cfg, s, "Produce(r1)", "Produce(r1)")
	for range 3 {
		s = do(t, cfg, s, "SendFetch(r2)", "HandleFetch(r1,r2)", "UpdateFollowerFetchState(r1,r2)", "HandleFetchResponse(r2)")
	}
	if s.LEO(1) != 2 || s.Hw[1] != 2 || s.FetchState[1] != Fetching {
		t.Fatalf("setup: r2 leo %d hw %d %s, want 2 2 Fetching", s.LEO(1), s.Hw[1], s.FetchState[1])
	}
	return s
}

func withRestore(r Restore) func(*Config) { return func(c *Config) { c.Restore = r } }

// successors lists the enabled actions named name (any choice) and their
// successors.
func successors(t *testing.T, cfg *Config, s State, name string) map[string]State {
	t.Helper()
	out := map[string]State{}
	if err := Next(cfg, s, func(a Action, u State) bool {
		if strings.HasPrefix(a.String(), name) {
			out[a.String()] = u
		}
		return true
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// hw-above-leo: a truncation below the HW leaves the HW (up to 2.1), and a
// new leader whose HW is past its log end starts from the log start.
func TestRestoreHWAboveLEO(t *testing.T) {
	for _, restore := range []Restore{"", RestoreHWAboveLEO} {
		cfg := cfg2(withRestore(restore))
		s := follower2(t, cfg)
		// r2 asks again (as after a new epoch) and is told to truncate to 1.
		s.FetchState = with(s.FetchState, 1, Truncating)
		s.Inflight = with(s.Inflight, 1, OffsetsResp("r1", "r2", ErrNone, 0, 1, 0))
		s = do(t, cfg, s, "HandleOffsetsForLeaderEpochResponse(r2)")
		wantHW := 1
		if restore != "" {
			wantHW = 2
		}
		if s.LEO(1) != 1 || s.Hw[1] != wantHW {
			t.Fatalf("restore %q: after truncating to 1: leo %d hw %d, want 1 %d", restore, s.LEO(1), s.Hw[1], wantHW)
		}
		if got := HWBelowLEO(cfg, s); got != (restore == "") {
			t.Errorf("restore %q: HWBelowLEO = %t", restore, got)
		}
		// CommittedPrefixesAgree compares below min(HW, LEO): no index past the log.
		if !CommittedPrefixesAgree(cfg, s) || !NoDivergence(cfg, s) {
			t.Errorf("restore %q: prefixes disagree below min(HW, LEO)", restore)
		}
		// r2 is made leader: its HW 2 is past its log end 1.
		u := s
		BecomeLeader(cfg, &s, &u, 1, LeaderAndIsrMsg("r2", 1, []Replica{"r2"}, 0))
		wantHW = 1 // the ISR is r2 alone: the HW becomes its LEO
		if u.Hw[1] != wantHW {
			t.Errorf("restore %q: new leader's hw %d, want %d", restore, u.Hw[1], wantHW)
		}
		BecomeLeader(cfg, &s, &u, 1, LeaderAndIsrMsg("r2", 1, []Replica{"r1", "r2"}, 0))
		wantHW = 1 // the spec keeps min(HW, LEO) = 1
		if restore != "" {
			wantHW = 0 // Kafka 2.1: convertHWToLocalOffsetMetadata falls back to the log start
		}
		if u.Hw[1] != wantHW {
			t.Errorf("restore %q: new leader (ISR r1, r2, no views yet): hw %d, want %d", restore, u.Hw[1], wantHW)
		}
	}
}

// out-of-range-later-leo: OFFSET_OUT_OF_RANGE with the leader's LEO 0 below
// the follower's 2 truncates to any later LEO of the leader: 0, 1, or not at
// all once it reached 2.
func TestRestoreOutOfRangeLaterLEO(t *testing.T) {
	for _, restore := range []Restore{"", RestoreOutOfRangeLaterLEO} {
		cfg := cfg2(func(c *Config) { c.Truncation = HighWatermark; c.Fencing = false; c.Restore = restore })
		s := follower2(t, cfg)
		s.Inflight = with(s.Inflight, 1, FetchResp("r1", "r2", ErrOffsetOutOfRange, 2, nil, -1, 0, false, NoDivergence0, 0))
		got := map[string]int{}
		for name, u := range successors(t, cfg, s, "HandleFetchResponse(r2)") {
			got[name] = u.LEO(1)
			if u.Inflight[1].Type != MsgNone {
				t.Errorf("%s: the response is not consumed", name)
			}
		}
		want := map[string]int{"HandleFetchResponse(r2)": 0}
		if restore != "" {
			want["HandleFetchResponse(r2)[choice 1]"] = 1
			want["HandleFetchResponse(r2)[choice 2]"] = 2
		}
		if !mapsEqual(got, want) {
			t.Errorf("restore %q: successors (action: follower's LEO) %v, want %v", restore, got, want)
		}
		// Every successor replays from its action (the explorer rebuilds traces so).
		for name, u := range successors(t, cfg, s, "HandleFetchResponse(r2)") {
			a := find(t, cfg, s, name)
			v, err := Apply(cfg, s, a)
			if err != nil || v.LEO(1) != u.LEO(1) {
				t.Errorf("Apply(%s): leo %d err %v, want leo %d", name, v.LEO(1), err, u.LEO(1))
			}
		}
	}
	// A choice is refused where the configuration restores nothing.
	cfg := cfg2(nil)
	if _, err := Apply(cfg, Init(cfg), Action{Kind: HandleFetchResponse, F: "r2", Keep: 1}); err == nil {
		t.Error("Apply took a choice the configuration does not have")
	}
}

// undefined-to-fetch-offset: an UNDEFINED answer truncates to the HW or,
// as after a KIP-279 round that did not complete, to the LEO.
func TestRestoreUndefinedToFetchOffset(t *testing.T) {
	for _, restore := range []Restore{"", RestoreUndefinedToFetchOffset} {
		cfg := cfg2(withRestore(restore))
		s := follower2(t, cfg)
		s.FetchState = with(s.FetchState, 1, Truncating)
		s.Hw = with(s.Hw, 1, 1)
		s.Inflight = with(s.Inflight, 1, OffsetsResp("r1", "r2", ErrNone, -1, -1, 0))
		got := map[string]int{}
		for name, u := range successors(t, cfg, s, "HandleOffsetsForLeaderEpochResponse(r2)") {
			got[name] = u.LEO(1)
			if u.FetchState[1] != Fetching {
				t.Errorf("%s: %s, want Fetching", name, u.FetchState[1])
			}
		}
		want := map[string]int{"HandleOffsetsForLeaderEpochResponse(r2)": 1}
		if restore != "" {
			want["HandleOffsetsForLeaderEpochResponse(r2)[choice 1]"] = 2
		}
		if !mapsEqual(got, want) {
			t.Errorf("restore %q: successors %v, want %v", restore, got, want)
		}
		// With the HW at the LEO the two fetch offsets are one: one successor.
		s.Hw = with(s.Hw, 1, 2)
		if n := len(successors(t, cfg, s, "HandleOffsetsForLeaderEpochResponse(r2)")); n != 1 {
			t.Errorf("restore %q: HW = LEO: %d successors, want 1", restore, n)
		}
		// A defined answer has one rule.
		s.Inflight = with(s.Inflight, 1, OffsetsResp("r1", "r2", ErrNone, 0, 1, 0))
		if n := len(successors(t, cfg, s, "HandleOffsetsForLeaderEpochResponse(r2)")); n != 1 {
			t.Errorf("restore %q: a defined answer: %d successors, want 1", restore, n)
		}
	}
}

func mapsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// A restoration names its releases; any other is refused, as is an unknown one.
func TestRestoreValidate(t *testing.T) {
	for _, r := range Restores {
		info := RestoreInfos[r]
		for _, p := range []string{HighWatermark, Kip101, LeaderEpoch, DivergingEpoch, EligibleLeader} {
			c := &Config{Replicas: []Replica{"r1", "r2"}, Truncation: p, Fencing: true, Acks: "all", MinInsyncReplicas: 1, Restore: r}
			err := c.Validate()
			if ok := slices.Contains(info.Policies, p); ok != (err == nil) {
				t.Errorf("restore %s on %s: Validate = %v", r, p, err)
			}
		}
	}
	c := &Config{Replicas: []Replica{"r1"}, Truncation: LeaderEpoch, Acks: "all", MinInsyncReplicas: 1, Restore: "no-such"}
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "no such Kafka behaviour") {
		t.Errorf("unknown restore: %v", err)
	}
}

// Each restoration's patch applies to the spec as often as it says, and a
// spec that no longer holds the patched text is refused.
func TestRestoreSpecPatches(t *testing.T) {
	spec, err := os.ReadFile("../spec/Replication.tla")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range Restores {
		b, err := RestoreSpec(spec, r)
		if err != nil {
			t.Errorf("%s: %v", r, err)
			continue
		}
		if n := strings.Count(string(b), "restored ("+string(r)+")"); n == 0 {
			t.Errorf("%s: the patched spec marks no restored text", r)
		}
	}
	if _, err := RestoreSpec(spec, "no-such"); err == nil {
		t.Error("RestoreSpec took an unknown behaviour")
	}
	if _, err := RestoreSpec([]byte("---- MODULE Replication ----\n===="), RestoreHWAboveLEO); err == nil {
		t.Error("RestoreSpec patched a spec without the text")
	}
}

// delayed-fetch-hw: an empty response is read again while its leader leads
// the epoch, and carries the leader's HW (and records) of that moment.
func TestRestoreDelayedFetchHW(t *testing.T) {
	for _, restore := range []Restore{"", RestoreDelayedFetchHW} {
		cfg := cfg2(func(c *Config) { c.Restore = restore; c.MaxRecords = 3 })
		s := follower2(t, cfg)
		// r2's fetch at 1 read nothing new and an old HW 1.
		s.Inflight = with(s.Inflight, 1, FetchResp("r1", "r2", ErrNone, 2, nil, 1, 2, false, NoDivergence0, 0))
		got := successors(t, cfg, s, "CompleteDelayedFetch")
		if restore == "" {
			if len(got) != 0 {
				t.Errorf("CompleteDelayedFetch without the restoration: %v", got)
			}
			if _, err := Apply(cfg, s, Action{Kind: CompleteDelayedFetch, L: "r1", F: "r2"}); err == nil {
				t.Error("Apply took CompleteDelayedFetch without the restoration")
			}
			continue
		}
		u, ok := got["CompleteDelayedFetch(r1,r2)"]
		if len(got) != 1 || !ok || u.Inflight[1].Hw != 2 || len(u.Inflight[1].Records) != 0 {
			t.Fatalf("successors %v, want CompleteDelayedFetch(r1,r2) carrying HW 2", got)
		}
		if len(successors(t, cfg, u, "CompleteDelayedFetch")) != 0 {
			t.Error("a completion that changes nothing is enabled")
		}
		// New records complete it with them.
		v := do(t, cfg, u, "Produce(r1)", "CompleteDelayedFetch(r1,r2)")
		if m := v.Inflight[1]; len(m.Records) != 1 || m.Leo != 3 || m.Offset != 2 {
			t.Errorf("after a produce: %v, want the record at 2", m)
		}
		// Not once r1 no longer leads the epoch.
		w := s
		w.LeaderEpoch = with(s.LeaderEpoch, 0, 1)
		if len(successors(t, cfg, w, "CompleteDelayedFetch")) != 0 {
			t.Error("completed for a leader of another epoch")
		}
		// Not for a response with records or an error.
		w = s
		w.Inflight = with(s.Inflight, 1, FetchResp("r1", "r2", ErrNotLeaderOrFollower, 2, nil, -1, 2, false, NoDivergence0, 0))
		if len(successors(t, cfg, w, "CompleteDelayedFetch")) != 0 {
			t.Error("completed an error response")
		}
	}
}

// kraft-isr-rules: 3.9's controller fences its leader out of the ISR when
// another member remains, and checks every proposed member's broker epoch.
func TestRestoreKRaftIsrRules(t *testing.T) {
	for _, restore := range []Restore{"", RestoreKRaftIsrRules} {
		cfg := cfg2(func(c *Config) {
			c.Truncation = DivergingEpoch
			c.Restore = restore
			c.MaxPartitionEpoch = 2
			c.MaxCrashes = 2
		})
		s := leaderAndFollower(t, cfg)
		u := do(t, cfg, s, "Crash(r1,0)")
		wantIsr := []Replica{"r1", "r2"}
		if restore != "" {
			wantIsr = []Replica{"r2"}
		}
		if !slices.Equal(u.CtrlIsr, wantIsr) || u.CtrlLeader != None {
			t.Errorf("restore %q: the leader crashed: ctrl isr %v leader %s, want %v None", restore, u.CtrlIsr, u.CtrlLeader, wantIsr)
		}
		// The last member is never fenced out.
		v := do(t, cfg, u, "Restart(r1)", "Crash(r2,0)")
		if len(v.CtrlIsr) == 0 {
			t.Errorf("restore %q: the ISR emptied without ELR", restore)
		}
		// A proposal keeping r2 with a broker epoch not its own.
		w := s
		w.BrokerEpoch = with(s.BrokerEpoch, 1, 1)
		w.AlterPartition = with(s.AlterPartition, 0, AlterPartitionReq(0, 0, []Replica{"r1", "r2"}, []int{-1, 0}))
		w = do(t, cfg, w, "HandleAlterPartition(r1)")
		wantErr := ErrNone
		if restore != "" {
			wantErr = ErrIneligibleReplica
		}
		if got := w.AlterPartition[0].Error; got != wantErr {
			t.Errorf("restore %q: a stale epoch of a kept member: %s, want %s", restore, got, wantErr)
		}
	}
}
