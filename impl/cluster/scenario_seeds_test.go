package cluster

import (
	"slices"
	"testing"

	"github.com/hwepoch/hwepoch/impl/protocol"
	"github.com/hwepoch/hwepoch/impl/storage"
)

// The seeds' two scenarios (design.md §6, shared/seeds/000_...): two
// replicas A and B, acks=1, min.insync.replicas=1.

func seedsConfig(c *Config) {
	c.Acks = protocol.AcksLeader
	c.MinInsyncReplicas = 1
}

// Scenario 1: A appends m3 and acknowledges it (acks=1), then fails before
// B fetches it; B is elected; A comes back as a follower and truncates m3
// away. Lost under both policies: acks=1 never promised it.
func TestSeedsDataLossWithAcks1(t *testing.T) {
	for _, policy := range []storage.Policy{storage.HighWatermark, storage.LeaderEpoch, storage.DivergingEpoch} {
		t.Run(string(policy), func(t *testing.T) {
			c := newStepped(t, 2, policy, seedsConfig)
			apply(t, c, cat(
				[]Step{S("Elect", A), S("HandleLeaderAndIsr", A)},
				becomeFollower(policy, B, A, 1),
				[]Step{S("Produce", A), S("Produce", A)},
				fetchRound(B, A), // B has m1 m2; A's HW waits for B's next fetch
				fetchRound(B, A), // A's HW 2, then B's
				[]Step{S("CheckpointHW", A), S("Produce", A), // m3 at offset 2, acknowledged
					S("Crash", A, 3), S("Elect", B), S("HandleLeaderAndIsr", B), S("Restart", A)},
				becomeFollower(policy, A, B, 1),
				divergingRound(policy, A, B), // 3.9: B answers divergingEpoch (0, 2)
				fetchRound(A, B),
			))
			s := c.Snapshot()
			t.Logf("final:\n%s", dump(s))
			if !slices.Contains(s.Producer.Acked, OffsetID{Offset: 2, ID: 3}) {
				t.Fatalf("m3 was not acknowledged at offset 2: acked %v\n%s", s.Producer.Acked, dump(s))
			}
			if got := lostAcked(s); !slices.Equal(got, []OffsetID{{2, 3}}) {
				t.Errorf("lost acknowledged records %v, want [{2 3}]\n%s", got, dump(s))
			}
			for _, r := range []int32{A, B} {
				if got := ids(s, r); !slices.Equal(got, []int64{1, 2}) {
					t.Errorf("broker %d log %v, want [1 2]\n%s", r, got, dump(s))
				}
			}
		})
	}
}

// Scenario 2: A and B both fail with A = [m1 m2 m3], B = [m1 m2], both HW
// 2; B comes back first, is elected and writes m4 at 2; A returns and
// truncates to 2; B fails again before A fetches; A is elected (unclean:
// the ISR is {B}) and writes m5 at 2; B returns with HW 3 and keeps m4.
// Under HighWatermark offset 2 is m4 on B and m5 on A for good; under
// LeaderEpoch B truncates to the end of epoch 0 and fetches m5.
func TestSeedsDivergence(t *testing.T) {
	for _, tc := range []struct {
		policy   storage.Policy
		diverges bool
	}{{storage.HighWatermark, true}, {storage.LeaderEpoch, false}} {
		t.Run(string(tc.policy), func(t *testing.T) {
			policy := tc.policy
			c := newStepped(t, 2, policy, func(c *Config) {
				seedsConfig(c)
				c.UncleanLeaderElectionEnable = true
			})
			apply(t, c, cat(
				[]Step{S("Elect", A), S("HandleLeaderAndIsr", A)},
				becomeFollower(policy, B, A, 1),
				[]Step{S("Produce", A), S("Produce", A)},
				fetchRound(B, A), fetchRound(B, A), fetchRound(B, A), // both HW 2 (B learns A's a round late)
				[]Step{S("Produce", A), // m3 at 2, on A only
					S("CheckpointHW", A), S("CheckpointHW", B),
					S("Crash", A, 3), S("Crash", B, 2),
					S("Restart", B), S("Elect", B), // clean: B is in the ISR; no leader, so no LeaderAndIsr came with the restart
					S("HandleLeaderAndIsr", B), // leader in epoch 1
					S("Produce", B),            // m4 at 2, HW 3
					S("Restart", A)},
				becomeFollower(policy, A, B, 1), // A truncates to 2
				[]Step{S("CheckpointHW", B), S("Crash", B, 3),
					S("Elect", A), S("HandleLeaderAndIsr", A), // unclean, epoch 2
					S("Produce", A), // m5 at 2
					S("Restart", B)},
				becomeFollower(policy, B, A, 1),
				fetchRound(B, A),
			))
			s := c.Snapshot()
			t.Logf("final:\n%s", dump(s))
			a, b := brokerOf(s, A).Partition, brokerOf(s, B).Partition
			if !reconciled(a) || !reconciled(b) || a.LeaderEpoch != b.LeaderEpoch {
				t.Fatalf("A and B are not reconciled in one epoch\n%s", dump(s))
			}
			at := diverged(s, A, B)
			if tc.diverges {
				if at != 2 || !slices.Equal(ids(s, A), []int64{1, 2, 5}) || !slices.Equal(ids(s, B), []int64{1, 2, 4}) {
					t.Errorf("want A [1 2 5] and B [1 2 4] diverging at 2, got divergence at %d\n%s", at, dump(s))
				}
			} else if at != -1 || !slices.Equal(ids(s, A), ids(s, B)) || !slices.Equal(ids(s, B), []int64{1, 2, 5}) {
				t.Errorf("want both logs [1 2 5], got divergence at %d\n%s", at, dump(s))
			}
		})
	}
}
