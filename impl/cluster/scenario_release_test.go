package cluster

import (
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/hwepoch/hwepoch/impl/broker"
	"github.com/hwepoch/hwepoch/impl/protocol"
	"github.com/hwepoch/hwepoch/impl/release"
	"github.com/hwepoch/hwepoch/impl/storage"
)

// KIP-101 scenario 2 under 3.9: no truncation phase; A fetches at its LEO
// with lastFetchedEpoch 0, B answers divergingEpoch (0, 1), A truncates to
// 1 and fetches m3.
func TestKip101Scenario2DivergingEpoch(t *testing.T) {
	c := newStepped(t, 2, storage.DivergingEpoch, func(c *Config) { c.UnflushedLoss = true })
	apply(t, c, cat(
		[]Step{S("Elect", A), S("HandleLeaderAndIsr", A)},
		becomeFollower(storage.DivergingEpoch, B, A, 0),
		[]Step{S("Produce", A), S("Produce", A)},
		fetchRound(B, A), fetchRound(B, A), fetchRound(B, A), // both HW 2
		[]Step{S("CheckpointHW", A), S("CheckpointHW", B),
			S("Crash", A, 2), S("Crash", B, 1), // B loses the unflushed m2
			S("Restart", B), S("Elect", B), S("HandleLeaderAndIsr", B),
			S("Produce", B), // m3 at 1
			S("Restart", A), S("HandleLeaderAndIsr", A)},
		[]Step{S("SendFetch", A), S("HandleFetch", B, A)},
	))
	s := c.Snapshot()
	m := s.Network.Inflight[A]
	if m.Type != MsgFetchResponse || !m.Diverging || m.DivergingEpoch != 0 || m.DivergingOffset != 1 || len(m.Records) != 0 {
		t.Fatalf("B's answer %+v, want divergingEpoch (0, 1) and no records\n%s", m, dump(s))
	}
	if v := brokerOf(s, B).Partition.FollowerLEO[A]; v != -1 {
		t.Fatalf("B counted A's diverging fetch: view %d", v)
	}
	apply(t, c, cat([]Step{S("HandleFetchResponse", A)}, fetchRound(A, B), fetchRound(A, B)))
	s = c.Snapshot()
	if got := ids(s, A); !slices.Equal(got, []int64{1, 3}) {
		t.Fatalf("A's log %v, want [1 3]\n%s", got, dump(s))
	}
	if at := diverged(s, A, B); at != -1 {
		t.Fatalf("diverged at %d\n%s", at, dump(s))
	}
}

// A fetch the follower sent before it crashed: the leader still serves and
// counts it under the releases without broker epochs in Fetch; under 3.9
// the crash takes it away.
func TestOrphanFetchPerRelease(t *testing.T) {
	for _, p := range []storage.Policy{storage.LeaderEpoch, storage.DivergingEpoch, storage.EligibleLeader} {
		t.Run(string(p), func(t *testing.T) {
			c := newStepped(t, 2, p, nil)
			apply(t, c, cat(
				[]Step{S("Elect", A), S("HandleLeaderAndIsr", A)},
				becomeFollower(p, B, A, 1),
				[]Step{S("Produce", A)},
				fetchRound(B, A),
				[]Step{S("SendFetch", B), S("Crash", B, 1)},
			))
			s := c.Snapshot()
			m := s.Network.Inflight[B]
			if rel, _ := release.Of(p); !rel.StaleFetchServed {
				if m.Type != MsgNone {
					t.Fatalf("3.9: the crashed follower's fetch survived: %+v", m)
				}
				if err := c.HandleFetch(A, B); err == nil {
					t.Fatal("3.9 served a fetch of a crashed follower")
				}
				return
			}
			if m.Type != MsgFetch || !m.Orphan || m.Offset != 1 {
				t.Fatalf("the orphan fetch: %+v", m)
			}
			apply(t, c, []Step{S("HandleFetch", A, B)})
			if m := c.Snapshot().Network.Inflight[B]; m.Type != MsgFetchRead || !m.Orphan {
				t.Fatalf("the leader's read of the orphan: %+v", m)
			}
			apply(t, c, []Step{S("UpdateFollowerFetchState", A, B)})
			s = c.Snapshot()
			if v := brokerOf(s, A).Partition.FollowerLEO[B]; v != 1 || brokerOf(s, A).Partition.HW != 1 {
				t.Fatalf("the orphan was not counted: view %d HW %d", v, brokerOf(s, A).Partition.HW)
			}
			if m := s.Network.Inflight[B]; m.Type != MsgNone {
				t.Fatalf("the orphan got a response: %+v", m)
			}
		})
	}
}

// Losing an orphan fetch (the crashed follower's, which nobody waits for)
// is the spec's LoseMessage(f) all the same, and the cluster records it as
// that event: a simulation's model takes its steps from the events, and
// without it kept the orphan the cluster had dropped.
func TestLosingAnOrphanFetchIsAnEvent(t *testing.T) {
	var mu sync.Mutex
	var events []Event
	c := newStepped(t, 2, storage.LeaderEpoch, func(c *Config) {
		c.LossyNetwork = true
		c.Hook = func(e Event) {
			mu.Lock()
			defer mu.Unlock()
			events = append(events, e)
		}
	})
	apply(t, c, cat(
		[]Step{S("Elect", A), S("HandleLeaderAndIsr", A)},
		becomeFollower(storage.LeaderEpoch, B, A, 1),
		[]Step{S("Produce", A)},
		fetchRound(B, A),
		[]Step{S("SendFetch", B), S("Crash", B, 1), S("Restart", B)},
	))
	if m := c.Snapshot().Network.Inflight[B]; m.Type != MsgFetch || !m.Orphan {
		t.Fatalf("the orphan fetch: %+v", m)
	}
	mu.Lock()
	events = nil
	mu.Unlock()
	apply(t, c, []Step{S("LoseMessage", B)})
	if m := c.Snapshot().Network.Inflight[B]; m.Type != MsgNone {
		t.Fatalf("the orphan survived its loss: %+v", m)
	}
	mu.Lock()
	defer mu.Unlock()
	var steps []string
	for _, e := range events {
		if st, ok := StepOf(e); ok {
			steps = append(steps, st.String())
		}
	}
	if want := S("LoseMessage", B).String(); !slices.Equal(steps, []string{want}) {
		t.Fatalf("losing the orphan recorded steps %v, want [%s]", steps, want)
	}
}

// Asynchronous AlterPartition (3.9): the proposal, the controller's
// decision and the leader's applying of it are three steps; the HW moves
// over the maximal ISR meanwhile; the controller bumps the partition
// epoch.
func TestAsyncAlterPartitionSteps(t *testing.T) {
	c := newStepped(t, 2, storage.DivergingEpoch, func(c *Config) { c.MinInsyncReplicas = 1 })
	apply(t, c, cat(
		[]Step{S("Elect", A), S("HandleLeaderAndIsr", A)},
		becomeFollower(storage.DivergingEpoch, B, A, 0),
		[]Step{S("Produce", A)},
		fetchRound(B, A),
		[]Step{S("ShrinkIsr", A, B)},
	))
	s := c.Snapshot()
	a := brokerOf(s, A).Partition
	if !slices.Equal(a.PendingIsr, []int32{A}) || len(a.Isr) != 2 || len(s.Controller.Isr) != 2 {
		t.Fatalf("after the proposal: pending %v ISR %v controller ISR %v", a.PendingIsr, a.Isr, s.Controller.Isr)
	}
	if m := s.Network.AlterPartition[A]; m.Type != "AlterPartition" || !slices.Equal(m.Isr, []int32{A}) || m.PartitionEpoch != 0 {
		t.Fatalf("AlterPartition in flight: %+v", m)
	}
	if err := c.ShrinkIsr(A, B); err == nil {
		t.Fatal("a second proposal while one is pending")
	}
	apply(t, c, []Step{S("HandleAlterPartition", A)})
	s = c.Snapshot()
	if !slices.Equal(s.Controller.Isr, []int32{A}) || s.Controller.PartitionEpoch != 1 {
		t.Fatalf("controller after its decision: %+v", s.Controller)
	}
	if m := s.Network.AlterPartition[A]; m.Type != "AlterPartitionResponse" || m.Error != "NONE" || m.PartitionEpoch != 1 {
		t.Fatalf("response in flight: %+v", m)
	}
	if a := brokerOf(s, A).Partition; len(a.Isr) != 2 || a.PendingIsr == nil {
		t.Fatalf("the leader applied before the response: %+v", a)
	}
	apply(t, c, []Step{S("HandleAlterPartitionResponse", A)})
	s = c.Snapshot()
	if a := brokerOf(s, A).Partition; !slices.Equal(a.Isr, []int32{A}) || a.PendingIsr != nil || a.PartitionEpoch != 1 {
		t.Fatalf("leader after the commit: %+v", a)
	}
	if _, ok := s.Network.AlterPartition[A]; ok {
		t.Fatal("the response is still in flight")
	}
}

// A follower that dies is fenced by the KRaft controller (partition epoch
// +1, the same leader epoch, the leader told); the leader's proposal on the
// old partition epoch is refused INVALID_UPDATE_VERSION and stays pending
// until that LeaderAndIsr. With the stale-partition-epoch mutant the
// controller takes it (C restarts first, so the proposal's ISR, which
// still has C, is not refused as INELIGIBLE_REPLICA instead).
func TestStalePartitionEpoch(t *testing.T) {
	for _, mutant := range []bool{false, true} {
		c := newStepped(t, 3, storage.DivergingEpoch, func(c *Config) {
			if mutant {
				c.Mutants = []broker.Mutant{broker.MutantStalePartitionEpoch}
			}
		})
		const C = 3
		apply(t, c, cat(
			[]Step{S("Elect", A), S("HandleLeaderAndIsr", A)},
			becomeFollower(storage.DivergingEpoch, B, A, 0),
			becomeFollower(storage.DivergingEpoch, C, A, 0),
			[]Step{S("ShrinkIsr", A, B), S("Crash", C, 0), S("Restart", C)},
		))
		s := c.Snapshot()
		if !slices.Equal(s.Controller.Isr, []int32{A, B}) || s.Controller.PartitionEpoch != 1 || s.Controller.Epoch != 0 {
			t.Fatalf("mutant=%t: controller after C died: %+v", mutant, s.Controller)
		}
		if q := s.Network.ControllerQueue[A]; len(q) != 1 || q[0].PartitionEpoch != 1 || q[0].Epoch != 0 {
			t.Fatalf("mutant=%t: the leader's queue %+v", mutant, q)
		}
		apply(t, c, []Step{S("HandleAlterPartition", A)})
		m := c.Snapshot().Network.AlterPartition[A]
		if mutant {
			if m.Error != "NONE" {
				t.Fatalf("mutant: %+v, want the stale proposal accepted", m)
			}
			continue
		}
		if m.Error != protocol.InvalidUpdateVersion.String() {
			t.Fatalf("answer %+v, want INVALID_UPDATE_VERSION", m)
		}
		apply(t, c, []Step{S("HandleAlterPartitionResponse", A)})
		if a := brokerOf(c.Snapshot(), A).Partition; a.PendingIsr == nil || !strings.Contains(dump(c.Snapshot()), "isr [1 2 3]") {
			t.Fatalf("after INVALID_UPDATE_VERSION: %+v, want still pending with the old ISR", a)
		}
		apply(t, c, []Step{S("HandleLeaderAndIsr", A)})
		if a := brokerOf(c.Snapshot(), A).Partition; a.PendingIsr != nil || !slices.Equal(a.Isr, []int32{A, B}) || a.PartitionEpoch != 1 {
			t.Fatalf("after the controller's LeaderAndIsr: %+v", a)
		}
	}
}

// The issue-10 scenarios, on the implementation: under 0.10.2 a
// same-leader epoch bump neither truncates the follower nor restarts its
// fetcher; a re-elected leader keeps its views of its followers and so its
// HW; and the follower learns the leader's HW a round late (the split
// fetch).
func TestPerReleaseScenarios(t *testing.T) {
	t.Run("HighWatermark same-leader bump", func(t *testing.T) {
		c := newStepped(t, 2, storage.HighWatermark, nil)
		apply(t, c, cat(
			[]Step{S("Elect", A), S("HandleLeaderAndIsr", A), S("HandleLeaderAndIsr", B)},
			[]Step{S("Produce", A), S("Produce", A)},
			fetchRound(B, A), // B holds both records, HW 0
			[]Step{S("Elect", A), S("HandleLeaderAndIsr", A), S("HandleLeaderAndIsr", B)},
		))
		b := brokerOf(c.Snapshot(), B).Partition
		if b.LEO != 2 || b.HW != 0 || b.LeaderEpoch != 1 || b.FetchState != "Fetching" {
			t.Fatalf("B after the same-leader bump: LEO %d HW %d epoch %d %s; want 2, 0, 1, Fetching (no truncation)",
				b.LEO, b.HW, b.LeaderEpoch, b.FetchState)
		}
	})
	t.Run("LeaderEpoch re-election keeps views", func(t *testing.T) {
		c := newStepped(t, 2, storage.LeaderEpoch, nil)
		apply(t, c, cat(
			[]Step{S("Elect", A), S("HandleLeaderAndIsr", A)},
			becomeFollower(storage.LeaderEpoch, B, A, 1),
			[]Step{S("Produce", A)},
			fetchRound(B, A), fetchRound(B, A), // A's view of B: 1, HW 1
			[]Step{S("Elect", A), S("HandleLeaderAndIsr", A)},
		))
		a := brokerOf(c.Snapshot(), A).Partition
		if a.FollowerLEO[B] != 1 || a.HW != 1 || a.LeaderEpoch != 1 {
			t.Fatalf("A re-elected: view of B %d, HW %d, epoch %d; want 1, 1, 1", a.FollowerLEO[B], a.HW, a.LeaderEpoch)
		}
		apply(t, c, []Step{S("Produce", A)})
		if a := brokerOf(c.Snapshot(), A).Partition; a.HW != 1 {
			t.Fatalf("HW %d, want 1 until B fetches the new record", a.HW)
		}
	})
	t.Run("DivergingEpoch follower HW lags a round", func(t *testing.T) {
		c := newStepped(t, 2, storage.DivergingEpoch, nil)
		apply(t, c, cat(
			[]Step{S("Elect", A), S("HandleLeaderAndIsr", A), S("HandleLeaderAndIsr", B), S("Produce", A)},
			fetchRound(B, A), // B gets the record; A's view of B is 0
			fetchRound(B, A), // A's HW becomes 1 at the update; the response carries 0
		))
		s := c.Snapshot()
		if a, b := brokerOf(s, A).Partition, brokerOf(s, B).Partition; a.HW != 1 || b.HW != 0 {
			t.Fatalf("after two rounds: leader HW %d, follower HW %d; want 1, 0", a.HW, b.HW)
		}
		apply(t, c, fetchRound(B, A))
		if b := brokerOf(c.Snapshot(), B).Partition; b.HW != 1 {
			t.Fatalf("after the third round: follower HW %d, want 1", b.HW)
		}
	})
}
