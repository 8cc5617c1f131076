package cluster

import (
	"slices"
	"testing"

	"github.com/hwepoch/hwepoch/impl/protocol"
	"github.com/hwepoch/hwepoch/impl/storage"
)

// KIP-101 scenario 1 (design.md §6): B leads with [m1 m2], HW 2; A has
// [m1 m2] but HW 1, the response carrying HW 2 not yet arrived. A restarts
// and, as follower, truncates to its HW: [m1]. B fails; A is elected; the
// acknowledged m2 is gone. Under LeaderEpoch A asks B where epoch 0 ends,
// gets 2, and keeps m2.
func TestKip101Scenario1(t *testing.T) {
	for _, tc := range []struct {
		policy storage.Policy
		lost   []OffsetID
		log    []int64
	}{
		{storage.HighWatermark, []OffsetID{{1, 2}}, []int64{1}},
		{storage.LeaderEpoch, nil, []int64{1, 2}},
	} {
		t.Run(string(tc.policy), func(t *testing.T) {
			policy := tc.policy
			c := newStepped(t, 2, policy, func(c *Config) { c.Acks = protocol.AcksAll })
			apply(t, c, cat(
				[]Step{S("Elect", B), S("HandleLeaderAndIsr", B)},
				becomeFollower(policy, A, B, 1),
				[]Step{S("Produce", B)},
				fetchRound(A, B), fetchRound(A, B), // m1 acknowledged; A's HW 1
				[]Step{S("Produce", B)},
				fetchRound(A, B), // A has m2, HW 1
				[]Step{S("SendFetch", A), S("HandleFetch", B, A), S("UpdateFollowerFetchState", B, A), // B's HW 2: m2 acknowledged
					S("CheckpointHW", A), S("Crash", A, 2), S("Restart", A)},
				becomeFollower(policy, A, B, 1),
				[]Step{S("Crash", B, 2), S("Elect", A), S("HandleLeaderAndIsr", A)},
			))
			s := c.Snapshot()
			t.Logf("final:\n%s", dump(s))
			if !slices.Equal(s.Producer.Acked, []OffsetID{{0, 1}, {1, 2}}) {
				t.Fatalf("acked %v, want m1 and m2\n%s", s.Producer.Acked, dump(s))
			}
			if s.Controller.Leader != A || brokerOf(s, A).Role != "Leader" {
				t.Fatalf("A does not lead\n%s", dump(s))
			}
			if got := lostAcked(s); !slices.Equal(got, tc.lost) {
				t.Errorf("lost acknowledged %v, want %v\n%s", got, tc.lost, dump(s))
			}
			if got := ids(s, A); !slices.Equal(got, tc.log) {
				t.Errorf("A's log %v, want %v", got, tc.log)
			}
		})
	}
}

// KIP-101 scenario 2: A leads with [m1 m2], HW 2; B has m2 unflushed.
// Power loss: B restarts with [m1], is elected (epoch 1) and writes m3 at
// offset 1. A restarts as follower and, under HighWatermark, truncates to
// its HW 2 (nothing) and fetches from 2: offset 1 is m2 on A and m3 on B
// for good. Under LeaderEpoch A asks where epoch 0 ends, gets 1, truncates
// to 1 and fetches m3.
func TestKip101Scenario2(t *testing.T) {
	for _, tc := range []struct {
		policy   storage.Policy
		diverges bool
	}{{storage.HighWatermark, true}, {storage.LeaderEpoch, false}} {
		t.Run(string(tc.policy), func(t *testing.T) {
			policy := tc.policy
			c := newStepped(t, 2, policy, func(c *Config) { c.UnflushedLoss = true })
			apply(t, c, cat(
				[]Step{S("Elect", A), S("HandleLeaderAndIsr", A)},
				becomeFollower(policy, B, A, 1),
				[]Step{S("Produce", A), S("Produce", A)},
				fetchRound(B, A), fetchRound(B, A), fetchRound(B, A), // both HW 2 (B learns A's a round late)
				[]Step{S("CheckpointHW", A), S("CheckpointHW", B),
					S("Crash", A, 2), S("Crash", B, 1), // B loses the unflushed m2
					S("Restart", B), S("Elect", B), // no leader: the restart brought no LeaderAndIsr
					S("HandleLeaderAndIsr", B), // leader in epoch 1
					S("Produce", B),            // m3 at 1
					S("Restart", A)},
				becomeFollower(policy, A, B, 1),
				fetchRound(A, B),
			))
			s := c.Snapshot()
			t.Logf("final:\n%s", dump(s))
			a, b := brokerOf(s, A).Partition, brokerOf(s, B).Partition
			if !reconciled(a) || !reconciled(b) || a.LeaderEpoch != b.LeaderEpoch || a.HW != 2 || b.HW != 2 {
				t.Fatalf("A and B are not reconciled in one epoch with HW 2\n%s", dump(s))
			}
			at := diverged(s, A, B)
			if tc.diverges {
				if at != 1 || !slices.Equal(ids(s, A), []int64{1, 2}) || !slices.Equal(ids(s, B), []int64{1, 3}) {
					t.Errorf("want A [1 2] and B [1 3] diverging at 1, got %d\n%s", at, dump(s))
				}
			} else if at != -1 || !slices.Equal(ids(s, A), []int64{1, 3}) || !slices.Equal(ids(s, B), []int64{1, 3}) {
				t.Errorf("want both [1 3], got divergence at %d\n%s", at, dump(s))
			}
		})
	}
}

// KIP-279's fast leader changes: two brokers, acks=1, unclean elections,
// leadership alternating with writes in epochs 0..4 leaves A = [e0 e2 e2
// e2 e4 e4] and B = [e0 e1 e3]. B asks about epoch 3. Kip101 (0.11.0)
// answers 4, the start of the next higher epoch, beyond B's LEO: B
// truncates nothing and offsets 1-2 diverge for good. LeaderEpoch answers
// (2, 4); B does not know epoch 2, truncates to its own end of epoch 1 (2)
// and asks about epoch 1; A answers (0, 1); B truncates to 1 and fetches.
func TestKip279FastLeaderChanges(t *testing.T) {
	for _, tc := range []struct {
		policy   storage.Policy
		rounds   int
		diverges bool
	}{{storage.Kip101, 1, true}, {storage.LeaderEpoch, 2, false}} {
		t.Run(string(tc.policy), func(t *testing.T) {
			policy := tc.policy
			c := newStepped(t, 2, policy, func(c *Config) {
				c.Acks = protocol.AcksLeader
				c.UncleanLeaderElectionEnable = true
			})
			lead := func(r int64, writes int) []Step {
				// The leader died: the restart brought no LeaderAndIsr, the
				// election brings one.
				steps := []Step{S("Elect", r), S("HandleLeaderAndIsr", r)}
				for range writes {
					steps = append(steps, S("Produce", r))
				}
				return steps
			}
			apply(t, c, cat(
				[]Step{S("Elect", A), S("HandleLeaderAndIsr", A)},
				becomeFollower(policy, B, A, 1),
				[]Step{S("Produce", A)}, fetchRound(B, A), // both [e0]
				[]Step{S("Crash", A, 1), S("Elect", B), S("HandleLeaderAndIsr", B), S("Produce", B)}, // B: e1 at 1
				[]Step{S("Crash", B, 2), S("Restart", A)}, lead(A, 3),                                // A: e2 at 1..3
				[]Step{S("Crash", A, 4), S("Restart", B)}, lead(B, 1), // B: e3 at 2
				[]Step{S("Crash", B, 3), S("Restart", A)}, lead(A, 2), // A: e4 at 4..5
				[]Step{S("Restart", B)},
				becomeFollower(policy, B, A, tc.rounds),
				fetchRound(B, A),
			))
			s := c.Snapshot()
			t.Logf("final:\n%s", dump(s))
			epochs := func(r int32) []int32 {
				var out []int32
				for _, x := range brokerOf(s, r).Partition.Log {
					out = append(out, x.Epoch)
				}
				return out
			}
			if got := epochs(A); !slices.Equal(got, []int32{0, 2, 2, 2, 4, 4}) {
				t.Fatalf("A's epochs %v, want [0 2 2 2 4 4]\n%s", got, dump(s))
			}
			a, b := brokerOf(s, A).Partition, brokerOf(s, B).Partition
			if !reconciled(a) || !reconciled(b) || a.LeaderEpoch != b.LeaderEpoch {
				t.Fatalf("not reconciled\n%s", dump(s))
			}
			at := diverged(s, A, B)
			if tc.diverges {
				if at != 1 || !slices.Equal(epochs(B), []int32{0, 1, 3, 2, 4, 4}) {
					t.Errorf("want B [e0 e1 e3 e2 e4 e4] diverging at 1, got %v, divergence at %d\n%s", epochs(B), at, dump(s))
				}
			} else if at != -1 || !slices.Equal(ids(s, A), ids(s, B)) {
				t.Errorf("want equal logs, divergence at %d\n%s", at, dump(s))
			}
		})
	}
}
