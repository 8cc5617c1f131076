package broker

import (
	"slices"
	"testing"

	"github.com/hwepoch/hwepoch/impl/protocol"
	"github.com/hwepoch/hwepoch/impl/storage"
)

// A LeaderAndIsr that keeps the same leader in a higher epoch restarts the
// fetcher only from 2.1 (KAFKA-7164 / KIP-320): 0.10.2 neither truncates
// nor restarts, 0.11 does not re-enter the truncation phase.
func TestSameLeaderEpochBumpPerRelease(t *testing.T) {
	for _, c := range []struct {
		p         storage.Policy
		wantLEO   int64
		wantState FetchState
	}{
		{storage.HighWatermark, 1, Fetching},    // truncated to HW 1 at epoch 1, not again
		{storage.Kip101, 3, Fetching},           // still fetching after its round trip
		{storage.LeaderEpoch, 3, Truncating},    // every new epoch restarts the phase
		{storage.DivergingEpoch, 3, Truncating}, // restarted: fetching at once, reported Truncating until a fetch is answered without divergence
		{storage.EligibleLeader, 3, Truncating}, // 4.1's brokers are 3.9's
	} {
		t.Run(string(c.p), func(t *testing.T) {
			h := followerWithLog(t, c.p, 3, 1, 1)
			if c.p == storage.Kip101 || c.p == storage.LeaderEpoch {
				// Complete the truncation phase: the leader knows epoch 0 to 3.
				req := h.sendOffsets()
				h.answerOffsets(req, 0, 3, protocol.None)
				if st := h.state(); st.FetchState != Fetching || st.LEO != 3 {
					t.Fatalf("after the round trip: %+v", st)
				}
			}
			if c.p == storage.HighWatermark {
				// Grow the log past the HW again, as fetching would.
				p, _ := h.b.Partition(tp)
				p.mu.Lock()
				err := p.log.AppendAsFollower([]storage.Record{{Offset: 1, LeaderEpoch: 1, ID: 7}, {Offset: 2, LeaderEpoch: 1, ID: 8}})
				p.mu.Unlock()
				if err != nil {
					t.Fatal(err)
				}
				c.wantLEO = 3
			}
			h.leaderAndIsr(2, 2, 2, 1) // the same leader, epoch 2
			st := h.state()
			if st.LeaderEpoch != 2 || st.Leader != 2 || st.LEO != c.wantLEO || st.FetchState != c.wantState {
				t.Errorf("after the bump: epoch %d leader %d LEO %d %s; want 2, 2, %d, %s",
					st.LeaderEpoch, st.Leader, st.LEO, st.FetchState, c.wantLEO, c.wantState)
			}
			// A new leader restarts every release's fetcher.
			h.leaderAndIsr(3, 3, 3, 1)
			st = h.state()
			want := Truncating
			if c.p == storage.HighWatermark {
				want = Fetching // 3.9 fetches too, but is reported Truncating until a fetch is answered without divergence
			}
			if st.FetchState != want {
				t.Errorf("after a new leader: %s, want %s", st.FetchState, want)
			}
			if c.p == storage.HighWatermark && st.LEO != 1 {
				t.Errorf("0.10.2 did not truncate to the HW for the new leader: LEO %d", st.LEO)
			}
		})
	}
}

// A LeaderAndIsr with a newer epoch is applied even when its leader has
// died since (KRaft's applyLocalFollowersDelta always steps down; a
// ZooKeeper broker's metadata cache still lists an elected leader): the
// broker follows it, fetching nothing. The skip-dead-leader mutant skips it,
// keeping the old epoch.
func TestLeaderAndIsrNamingADeadLeaderIsApplied(t *testing.T) {
	h := newHarness(t, nil)
	h.b.ConnectionLost(2, 1)
	h.leaderAndIsr(2, 1, 2, 1)
	if st := h.state(); st.Role != Follower || st.LeaderEpoch != 1 || st.Leader != 2 {
		t.Fatalf("did not step down to follow broker 2, which died: %+v", st)
	}
	h.b.PeerStarted(2, 1)
	h.leaderAndIsr(2, 2, 2, 1)
	if st := h.state(); st.Role != Follower || st.LeaderEpoch != 2 || st.Leader != 2 {
		t.Fatalf("did not follow live broker 2: %+v", st)
	}
	// Leading needs no one else alive.
	h.b.ConnectionLost(2, 2)
	h.leaderAndIsr(me, 3, 1)
	if st := h.state(); st.Role != Leader || st.LeaderEpoch != 3 {
		t.Fatalf("did not lead: %+v", st)
	}
}

// The skip-dead-leader mutant is the spec's rule before issue 25: the
// request naming a dead leader changes nothing, not even the epoch.
func TestSkipDeadLeaderMutantKeepsTheEpoch(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.Mutants = []Mutant{MutantSkipDeadLeader} })
	h.b.ConnectionLost(2, 1)
	h.leaderAndIsr(2, 1, 2, 1)
	if st := h.state(); st.Role != Starting || st.LeaderEpoch != -1 {
		t.Fatalf("the mutant applied a LeaderAndIsr naming dead broker 2: %+v", st)
	}
}

// DelayedProduce checks no epoch: a leader re-elected without a break
// acknowledges an acks=all record of its earlier epoch once the HW passes
// it; a leader that lost leadership in between answered it
// NOT_LEADER_OR_FOLLOWER.
func TestDelayedProduceAcrossReelection(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.MinInsyncReplicas = 2 })
	h.leaderAndIsr(me, 0, 1, 2)
	if r := h.produce(protocol.AcksAll, 1); len(r) != 0 {
		t.Fatalf("answered before replication: %v", r)
	}
	h.leaderAndIsr(me, 1, 1, 2) // re-elected: the request waits on
	if r := h.produceResponses(); len(r) != 0 {
		t.Fatalf("the re-election answered the waiting request: %v", r)
	}
	h.fetch(2, 1, 1)
	if r := h.produceResponses(); len(r) != 1 || r[0].Error != protocol.None || r[0].BaseOffset != 0 {
		t.Fatalf("answer %v, want NONE at 0 in epoch 1", r)
	}
}

// The leader's epoch enters its cache at makeLeader from 2.1 (KAFKA-7415),
// at its first append under 0.11, never under 0.10.2.
func TestLeaderEntryPerRelease(t *testing.T) {
	for _, c := range []struct {
		p                  storage.Policy
		atElect, atProduce []EpochEntry
	}{
		{storage.HighWatermark, nil, nil},
		{storage.Kip101, nil, []EpochEntry{{0, 0}}},
		{storage.LeaderEpoch, []EpochEntry{{0, 0}}, []EpochEntry{{0, 0}}},
		{storage.DivergingEpoch, []EpochEntry{{0, 0}}, []EpochEntry{{0, 0}}},
		{storage.EligibleLeader, []EpochEntry{{0, 0}}, []EpochEntry{{0, 0}}},
	} {
		h := newHarness(t, func(cfg *Config) { cfg.Policy = c.p })
		h.leaderAndIsr(me, 0, 1, 2)
		if got := h.state().EpochCache; !slices.Equal(got, c.atElect) {
			t.Errorf("%s: cache %v after becoming leader, want %v", c.p, got, c.atElect)
		}
		h.produce(protocol.AcksLeader, 1)
		if got := h.state().EpochCache; !slices.Equal(got, c.atProduce) {
			t.Errorf("%s: cache %v after the first append, want %v", c.p, got, c.atProduce)
		}
	}
}

// A LeaderAndIsr of the leader's own epoch with a newer partition epoch
// updates its ISR and drops a pending proposal (spec UpdateIsr); one with
// an older or equal partition epoch changes nothing.
func TestUpdateIsrFromController(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.Policy = storage.DivergingEpoch })
	h.leaderAndIsr(me, 0, 1, 2, 3) // partition epoch 0
	h.produce(protocol.AcksLeader, 1)
	h.fetch(2, 1, 0)
	if _, err := h.b.ShrinkIsr(tp, 3); err != nil {
		t.Fatal(err)
	}
	h.idle()
	h.take(ctrlNode)
	if st := h.state(); len(st.PendingIsr) == 0 || st.HW != 0 {
		t.Fatalf("pending shrink: %+v", st)
	}
	send := func(pe int32, isr ...int32) {
		h.deliver(ctrlNode, Node(me), protocol.LeaderAndIsrRequest{Header: protocol.Header{CorrelationID: h.next()},
			Partitions: []protocol.LeaderAndIsrPartition{{TopicPartition: tp, Leader: me, LeaderEpoch: 0, Isr: isr,
				PartitionEpoch: pe, Replicas: []int32{1, 2, 3}}}})
		h.take(ctrlNode)
	}
	send(0, 1, 2)
	if st := h.state(); len(st.Isr) != 3 || len(st.PendingIsr) == 0 {
		t.Fatalf("same partition epoch applied: %+v", st)
	}
	send(1, 1, 2) // the controller fenced broker 3
	st := h.state()
	if len(st.Isr) != 2 || st.PendingIsr != nil || st.PartitionEpoch != 1 || st.HW != 1 {
		t.Fatalf("after the controller's ISR: ISR %v pending %v partition epoch %d HW %d; want [1 2], none, 1, 1",
			st.Isr, st.PendingIsr, st.PartitionEpoch, st.HW)
	}
}
