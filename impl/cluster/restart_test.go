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

// A leader that dies is unset at once (Kafka's NoLeader), so a broker
// restarting while it is down is not told to follow it (the spec's Restart
// queues nothing then): the first LeaderAndIsr it applies is the one of
// the election its return makes possible. (Under 3.9 the follower that
// died first was fenced out of the ISR, so its return makes no election
// possible: TestKRaftFencedFollowerIsNotElected.)
func TestRestartWithoutLeaderWaitsForElection(t *testing.T) {
	for _, pol := range []storage.Policy{storage.HighWatermark, storage.Kip101, storage.LeaderEpoch} {
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
			if s := c.Snapshot(); s.Controller.Leader != -1 || s.Controller.Epoch != epoch {
				t.Fatalf("after the leader died: leader %d epoch %d, want none in epoch %d", s.Controller.Leader, s.Controller.Epoch, epoch)
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
				if len(got) >= 1 {
					break
				}
				time.Sleep(5 * time.Millisecond)
			}
			if want := []int32{epoch + 1}; len(got) < 1 || !slices.Equal(got[:1], want) {
				t.Fatalf("broker %d applied LeaderAndIsr epochs %v after its restart, want %v first", follower, got, want)
			}
			if err := c.Err(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// Under 3.9 (KRaft) a follower that dies leaves the ISR at once
// (handleBrokerFenced); when the leader then dies too, the partition has
// no leader and, without unclean election, the follower's return does not
// make it electable: the partition waits for the last ISR member.
func TestKRaftFencedFollowerIsNotElected(t *testing.T) {
	c := newStepped(t, 2, storage.DivergingEpoch, nil)
	apply(t, c, []Step{S("Elect", A), S("HandleLeaderAndIsr", A), S("HandleLeaderAndIsr", B), S("Crash", B, 0)})
	s := c.Snapshot()
	if !slices.Equal(s.Controller.Isr, []int32{A}) || s.Controller.PartitionEpoch != 1 || s.Controller.Epoch != 0 {
		t.Fatalf("after the follower died: controller %+v, want ISR [A], partition epoch 1, leader epoch 0", s.Controller)
	}
	apply(t, c, []Step{S("HandleLeaderAndIsr", A), S("Crash", A, 0), S("Restart", B)})
	s = c.Snapshot()
	if s.Controller.Leader != -1 || len(s.Network.ControllerQueue[B]) != 0 {
		t.Fatalf("after the leader died and the follower returned: %+v, queue %v", s.Controller, s.Network.ControllerQueue[B])
	}
	if err := c.Elect(B); err == nil {
		t.Fatal("the fenced follower was elected (unclean election is off)")
	}
	apply(t, c, []Step{S("Restart", A), S("Elect", A), S("HandleLeaderAndIsr", A), S("HandleLeaderAndIsr", B)})
	if s := c.Snapshot(); brokerOf(s, A).Role != "Leader" || brokerOf(s, B).Role != "Follower" {
		t.Fatalf("after the last ISR member returned:\n%s", dump(s))
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
