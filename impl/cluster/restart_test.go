package cluster

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hwepoch/hwepoch/impl/broker"
	"github.com/hwepoch/hwepoch/impl/storage"
)

// A broker restarting while the controller's leader is another, offline,
// broker is first sent the current LeaderAndIsr (Kafka's OnlineReplica
// transition; the spec's Restart queues it) and only then the one of the
// election its return makes possible. Sending only the new one skips a
// step the spec takes: under HighWatermark the skipped request makes the
// broker a follower that truncates to its HW. Free-run validation found
// this (seed 73); this pins the order.
func TestRestartGetsCurrentLeaderAndIsrBeforeElection(t *testing.T) {
	for _, pol := range []storage.Policy{storage.HighWatermark, storage.LeaderEpoch} {
		t.Run(pol.String(), func(t *testing.T) {
			cfg := DefaultConfig(t.TempDir())
			cfg.Mode = Free
			cfg.Policy = pol
			cfg.Timing.ReplicaLagTimeMax = time.Hour // both stay in the ISR: the restarted one must be electable
			var mu sync.Mutex
			var events []Event
			cfg.Hook = func(e Event) {
				mu.Lock()
				events = append(events, e)
				mu.Unlock()
			}
			c, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			for range 5 {
				if r, err := c.Producer().Produce(ctx, c.Focus()); err != nil || !r.Acked() {
					t.Fatalf("produce: %+v, %v", r, err)
				}
			}
			s := c.Snapshot()
			leader, epoch := s.Controller.Leader, s.Controller.Epoch
			if len(s.Controller.Isr) != 2 {
				t.Fatalf("ISR %v, want both brokers", s.Controller.Isr)
			}
			follower := int32(3) - leader
			if err := c.CrashLoseUnflushed(follower); err != nil {
				t.Fatal(err)
			}
			if err := c.CrashLoseUnflushed(leader); err != nil {
				t.Fatal(err)
			}
			if s := c.Snapshot(); s.Controller.Leader != leader || s.Controller.Epoch != epoch {
				t.Fatalf("controller elected with no live ISR member: leader %d epoch %d", s.Controller.Leader, s.Controller.Epoch)
			}
			mu.Lock()
			from := len(events)
			mu.Unlock()
			if err := c.Restart(follower); err != nil {
				t.Fatal(err)
			}
			var got []int32
			for ctx.Err() == nil {
				got = got[:0]
				mu.Lock()
				for _, e := range events[from:] {
					if e.Broker == follower && e.Action == broker.ActHandleLeaderAndIsr {
						got = append(got, e.Post.LeaderEpoch)
					}
				}
				mu.Unlock()
				if len(got) >= 2 {
					break
				}
				time.Sleep(5 * time.Millisecond)
			}
			if want := []int32{epoch, epoch + 1}; len(got) < 2 || !slices.Equal(got[:2], want) {
				t.Fatalf("broker %d applied LeaderAndIsr epochs %v after its restart, want %v first", follower, got, want)
			}
			if err := c.Err(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// A broker whose leader-epoch-checkpoint no longer matches its records'
// epochs does not come back: Restart fails naming the file and the entry
// (storage's recovery check), and the broker stays down.
func TestRestartRefusesAnEpochCacheThatDoesNotMatchTheLog(t *testing.T) {
	cfg := DefaultConfig(t.TempDir())
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	steps := []Step{S(ActElect, 1), S(broker.ActHandleLeaderAndIsr, 1), S(broker.ActHandleLeaderAndIsr, 2),
		S(broker.ActProduce, 1), S(broker.ActProduce, 1), S(ActCrash, 1, 2)}
	if err := c.ApplyAll(steps); err != nil {
		t.Fatal(err)
	}
	ckpt := filepath.Join(cfg.Dir, "broker-1", "t-0", storage.LeaderEpochCheckpointFilename)
	if err := storage.WriteLeaderEpochCheckpoint(ckpt, []storage.EpochEntry{{Epoch: 5, StartOffset: 0}}); err != nil {
		t.Fatal(err)
	}
	err = c.Restart(1)
	if err == nil || !strings.Contains(err.Error(), ckpt) || !strings.Contains(err.Error(), "entry (epoch 5, start offset 0) covers offset 0, whose record has epoch 0") {
		t.Fatalf("restart over a checkpoint (5, 0) of a log of epoch 0: %v", err)
	}
	if c.Alive(1) {
		t.Fatal("the broker came back anyway")
	}
}
