package cluster

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/hwepoch/hwepoch/impl/protocol"
	"github.com/hwepoch/hwepoch/impl/storage"
)

// Many partitions per broker: two topics, six partitions, replication
// factor 2 on three brokers, written under a crash and a restart; every
// partition converges to identical replicas holding every acknowledged
// record.
func TestFreeManyPartitions(t *testing.T) {
	cfg := DefaultConfig(t.TempDir())
	cfg.Mode = Free
	cfg.Brokers = 3
	cfg.Topics = []Topic{{Name: "a", Partitions: 4, ReplicationFactor: 2}, {Name: "b", Partitions: 2}}
	cfg.MinInsyncReplicas = 1
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	acked := map[protocol.TopicPartition][]int64{}
	produce := func(rounds int) {
		for range rounds {
			for _, tp := range c.Partitions() {
				if r, _ := c.Producer().Produce(ctx, tp); r.Acked() {
					acked[tp] = append(acked[tp], r.ID)
				}
			}
		}
	}
	produce(20)
	if err := c.CrashLoseUnflushed(2); err != nil {
		t.Fatal(err)
	}
	produce(20)
	if err := c.Restart(2); err != nil {
		t.Fatal(err)
	}
	produce(10)
	for {
		if converged, why := allConverged(c.Snapshot(), c); converged {
			break
		} else if ctx.Err() != nil {
			t.Fatalf("did not converge: %s", why)
		}
		time.Sleep(10 * time.Millisecond)
	}
	s := c.Snapshot()
	total := 0
	for _, tp := range c.Partitions() {
		for _, b := range s.Brokers {
			for _, p := range b.Partitions {
				if p.Topic != tp.Topic || p.Partition != tp.Partition {
					continue
				}
				var have []int64
				for _, r := range p.Log {
					have = append(have, r.ID)
				}
				for _, id := range acked[tp] {
					if !slices.Contains(have, id) {
						t.Errorf("%s: broker %d lacks acknowledged record %d", tp, b.ID, id)
					}
				}
			}
		}
		total += len(acked[tp])
	}
	if total < 6*40 {
		t.Errorf("only %d records acknowledged over 6 partitions", total)
	}
	if err := c.Err(); err != nil {
		t.Fatal(err)
	}
}

// allConverged: every replica of every partition equals its leader's log,
// with HW = LEO.
func allConverged(s Snapshot, c *Cluster) (bool, string) {
	for _, tp := range c.Partitions() {
		var logs [][]Record
		for _, b := range s.Brokers {
			for _, p := range b.Partitions {
				if p.Topic == tp.Topic && p.Partition == tp.Partition {
					if !b.Alive || p.HW != p.LEO || (p.Role != "Leader" && p.Role != "Follower") {
						return false, tp.String() + " on broker " + p.Role
					}
					logs = append(logs, p.Log)
				}
			}
		}
		for _, l := range logs[1:] {
			if !slices.Equal(l, logs[0]) {
				return false, tp.String() + " replicas differ"
			}
		}
	}
	return true, ""
}

// The event hook, replayed: the events a stepped scenario emits, turned
// into steps and applied to a fresh cluster, rebuild the same state.
func TestEventsReplayToTheSameState(t *testing.T) {
	rec := &recorder{}
	c := newStepped(t, 2, storage.LeaderEpoch, func(cfg *Config) {
		cfg.Hook = rec.hook
		cfg.UnflushedLoss = true
	})
	apply(t, c, cat(
		[]Step{S("Elect", A), S("HandleLeaderAndIsr", A)},
		becomeFollower(storage.LeaderEpoch, B, A, 1),
		[]Step{S("Produce", A), S("Produce", A)},
		fetchRound(B, A), fetchRound(B, A), fetchRound(B, A),
		[]Step{S("CheckpointHW", B), S("Crash", A, 1), S("Elect", B), S("HandleLeaderAndIsr", B), S("Produce", B),
			S("Restart", A)},
		becomeFollower(storage.LeaderEpoch, A, B, 1),
		fetchRound(A, B),
	))
	want := c.Snapshot()
	steps := rec.steps()
	cfg := DefaultConfig(t.TempDir())
	cfg.UnflushedLoss = true
	got, n, err := Replay(cfg, steps)
	if err != nil {
		t.Fatalf("replay stopped after %d of %d steps: %v", n, len(steps), err)
	}
	for i := range want.Brokers {
		w, g := want.Brokers[i].Partition, got.Brokers[i].Partition
		if !slices.Equal(w.Log, g.Log) || w.HW != g.HW || w.LeaderEpoch != g.LeaderEpoch || w.Role != g.Role ||
			!slices.Equal(w.EpochCache, g.EpochCache) || w.HWCheckpoint != g.HWCheckpoint {
			t.Errorf("broker %d: replay differs\nwant %+v\n got %+v", want.Brokers[i].ID, w, g)
		}
	}
	if !slices.Equal(want.Producer.Acked, got.Producer.Acked) || !slices.Equal(want.Committed, got.Committed) {
		t.Errorf("ghosts differ: acked %v vs %v, committed %v vs %v", want.Producer.Acked, got.Producer.Acked, want.Committed, got.Committed)
	}
}
