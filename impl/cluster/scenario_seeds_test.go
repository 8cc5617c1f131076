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
	for _, policy := range []storage.Policy{storage.HighWatermark, storage.LeaderEpoch} {
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
