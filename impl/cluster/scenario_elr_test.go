package cluster

import (
	"slices"
	"testing"

	"github.com/hwepoch/hwepoch/impl/protocol"
	"github.com/hwepoch/hwepoch/impl/storage"
)

// Eligible Leader Replicas (KIP-966) on the stepped cluster: the spec's
// Crash, Restart, HandleAlterPartition and Elect under the EligibleLeader
// release, and the 3.9 behaviour they replace.

// ctrlState is the controller's ISR, ELR and last known leader.
func ctrlState(s Snapshot) (isr, elr, lastKnown []int32) {
	return s.Controller.Isr, s.Controller.Elr, s.Controller.LastKnownElr
}

// docs/research/kip966-elr.md §5, "the last replica standing": two
// replicas, acks=all, min.insync.replicas=2, a crash that loses the
// unflushed tail. The follower is shrunk out after m1 was acknowledged, so
// the leader is the ISR's last member when it crashes and loses m1. Under
// 3.9 the controller keeps it in the ISR and re-elects it, cleanly, when it
// restarts: m1 is lost. Under 4.1 with ELR the shrunk follower went to the
// ELR, the crash empties the ISR, the restart takes the crashed broker out
// of the ELR, and only the follower, which holds m1, may lead.
func TestLastReplicaStanding(t *testing.T) {
	prefix := func(p storage.Policy) []Step {
		return cat(
			[]Step{S("Elect", A), S("HandleLeaderAndIsr", A), S("HandleLeaderAndIsr", B), S("Produce", A)},
			fetchRound(B, A), // B holds m1
			[]Step{S("SendFetch", B), S("HandleFetch", A, B), S("UpdateFollowerFetchState", A, B), S("HandleFetchResponse", B)},
			[]Step{S("ShrinkIsr", A, B), S("HandleAlterPartition", A), S("HandleAlterPartitionResponse", A)},
		)
	}
	setup := func(c *Config) { c.MinInsyncReplicas, c.UnflushedLoss = 2, true }

	t.Run("DivergingEpoch loses the acknowledged record", func(t *testing.T) {
		c := newStepped(t, 2, storage.DivergingEpoch, setup)
		apply(t, c, prefix(storage.DivergingEpoch))
		if s := c.Snapshot(); len(s.Producer.Acked) != 1 || !slices.Equal(s.Controller.Isr, []int32{A}) || len(s.Controller.Elr) != 0 {
			t.Fatalf("set-up: acked %v, controller ISR %v ELR %v\n%s", s.Producer.Acked, s.Controller.Isr, s.Controller.Elr, dump(s))
		}
		apply(t, c, []Step{S("Crash", A, 0), S("Restart", A)})
		if s := c.Snapshot(); !slices.Equal(s.Controller.Isr, []int32{A}) || s.Controller.PartitionEpoch != 1 {
			t.Fatalf("3.9 fenced its last ISR member: ISR %v partition epoch %d", s.Controller.Isr, s.Controller.PartitionEpoch)
		}
		if err := c.Elect(B); err == nil {
			t.Fatal("3.9 elected the follower outside the ISR with unclean election off")
		}
		apply(t, c, []Step{S("Elect", A)})
		if lost := lostAcked(c.Snapshot()); len(lost) != 1 {
			t.Fatalf("lost %v, want m1: the spec's de-unflushed-min2 counterexample\n%s", lost, dump(c.Snapshot()))
		}
	})

	t.Run("EligibleLeader elects the ELR member", func(t *testing.T) {
		c := newStepped(t, 2, storage.EligibleLeader, setup)
		apply(t, c, prefix(storage.EligibleLeader))
		s := c.Snapshot()
		if isr, elr, lke := ctrlState(s); len(s.Producer.Acked) != 1 || !slices.Equal(isr, []int32{A}) ||
			!slices.Equal(elr, []int32{B}) || len(lke) != 0 || s.Controller.PartitionEpoch != 1 {
			t.Fatalf("after the shrink: acked %v, ISR %v ELR %v last known %v partition epoch %d; want ELR [%d]",
				s.Producer.Acked, isr, elr, lke, s.Controller.PartitionEpoch, B)
		}
		if b := brokerOf(s, A).Partition; b.HW != 1 {
			t.Fatalf("leader HW %d", b.HW)
		}
		if err := c.Produce(A); err == nil {
			t.Fatal("acks=all produce accepted below min.insync.replicas")
		}
		// The leader, the ISR's last member, crashes and loses m1.
		apply(t, c, []Step{S("Crash", A, 0)})
		s = c.Snapshot()
		if isr, elr, lke := ctrlState(s); len(isr) != 0 || !slices.Equal(elr, []int32{A, B}) || !slices.Equal(lke, []int32{A}) ||
			s.Controller.Leader != -1 || s.Controller.PartitionEpoch != 2 {
			t.Fatalf("after the crash: leader %d ISR %v ELR %v last known %v partition epoch %d; want none, [], [%d %d], [%d], 2",
				s.Controller.Leader, isr, elr, lke, s.Controller.PartitionEpoch, A, B, A)
		}
		if q := s.Network.ControllerQueue[B]; len(q) != 0 {
			t.Fatalf("a LeaderAndIsr without a leader was sent: %v", q)
		}
		// Its restart is an unclean shutdown: it leaves the ELR (a new
		// partition epoch), stays the last known leader, gets nothing (no
		// leader).
		apply(t, c, []Step{S("Restart", A)})
		s = c.Snapshot()
		if isr, elr, lke := ctrlState(s); len(isr) != 0 || !slices.Equal(elr, []int32{B}) || !slices.Equal(lke, []int32{A}) ||
			s.Controller.PartitionEpoch != 3 || len(s.Network.ControllerQueue[A]) != 0 {
			t.Fatalf("after the restart: ISR %v ELR %v last known %v partition epoch %d queue %v",
				isr, elr, lke, s.Controller.PartitionEpoch, s.Network.ControllerQueue[A])
		}
		if err := c.Elect(A); err == nil {
			t.Fatal("elected the last known leader while the ELR holds a live member")
		}
		apply(t, c, []Step{S("Elect", B), S("HandleLeaderAndIsr", A), S("HandleLeaderAndIsr", B)})
		s = c.Snapshot()
		if isr, elr, lke := ctrlState(s); !slices.Equal(isr, []int32{B}) || len(elr) != 0 || len(lke) != 0 || s.Controller.Leader != B {
			t.Fatalf("after the ELR election: leader %d ISR %v ELR %v last known %v", s.Controller.Leader, isr, elr, lke)
		}
		if lost := lostAcked(s); len(lost) != 0 {
			t.Fatalf("lost %v\n%s", lost, dump(s))
		}
		// A catches up from B and rejoins; the HW moves again at the minimum.
		apply(t, c, cat(fetchRound(A, B), fetchRound(A, B), []Step{S("ExpandIsr", B, A), S("HandleAlterPartition", B),
			S("HandleAlterPartitionResponse", B), S("Produce", B)}, fetchRound(A, B), fetchRound(A, B)))
		s = c.Snapshot()
		if isr, elr, _ := ctrlState(s); !slices.Equal(isr, []int32{A, B}) || len(elr) != 0 || len(s.Producer.Acked) != 2 || len(lostAcked(s)) != 0 {
			t.Fatalf("after the rejoin: ISR %v ELR %v acked %v\n%s", isr, elr, s.Producer.Acked, dump(s))
		}
	})
}

// ELR tolerates min.insync.replicas - 1 lossy crashes (§5, "what ELR does
// not save"): with min 2, both replicas crash one after the other and lose
// m1; each restart takes its broker out of the ELR, and the last known
// leader is then elected uncleanly although unclean.leader.election.enable
// is off (canElectLastKnownLeader): m1 is lost. Only the last known leader
// may be elected.
func TestLastKnownLeaderElection(t *testing.T) {
	c := newStepped(t, 2, storage.EligibleLeader, func(c *Config) { c.MinInsyncReplicas, c.UnflushedLoss = 2, true })
	apply(t, c, cat(
		[]Step{S("Elect", A), S("HandleLeaderAndIsr", A), S("HandleLeaderAndIsr", B), S("Produce", A)},
		fetchRound(B, A),
		[]Step{S("SendFetch", B), S("HandleFetch", A, B), S("UpdateFollowerFetchState", A, B), S("HandleFetchResponse", B)},
		[]Step{S("Crash", B, 0)}, // the follower: fenced into the ELR
	))
	s := c.Snapshot()
	if isr, elr, _ := ctrlState(s); len(s.Producer.Acked) != 1 || !slices.Equal(isr, []int32{A}) || !slices.Equal(elr, []int32{B}) {
		t.Fatalf("after the follower's crash: acked %v ISR %v ELR %v", s.Producer.Acked, isr, elr)
	}
	// The fencing reached the leader, which applies the new partition epoch.
	if q := s.Network.ControllerQueue[A]; len(q) != 1 || q[0].Leader != A || !slices.Equal(q[0].Isr, []int32{A}) || q[0].PartitionEpoch != 1 {
		t.Fatalf("the leader's queue %v", q)
	}
	apply(t, c, []Step{S("HandleLeaderAndIsr", A), S("Restart", B), S("Crash", A, 0), S("Restart", A)})
	s = c.Snapshot()
	if isr, elr, lke := ctrlState(s); len(isr) != 0 || len(elr) != 0 || !slices.Equal(lke, []int32{A}) {
		t.Fatalf("both restarted: ISR %v ELR %v last known %v", isr, elr, lke)
	}
	if err := c.Elect(B); err == nil {
		t.Fatal("elected a replica that is not the last known leader, unclean election off")
	}
	apply(t, c, []Step{S("Elect", A)})
	s = c.Snapshot()
	if isr, elr, lke := ctrlState(s); !slices.Equal(isr, []int32{A}) || len(elr) != 0 || len(lke) != 0 {
		t.Fatalf("after the last known leader's election: ISR %v ELR %v last known %v", isr, elr, lke)
	}
	if lost := lostAcked(s); len(lost) != 1 {
		t.Fatalf("lost %v, want m1 (two lossy crashes at min 2)", lost)
	}
}

// A restart that takes a broker out of the ELR is a partition change the
// leader must learn (spec Restart): otherwise its next AlterPartition
// would carry a stale partition epoch. Three replicas, min 3: the leader
// shrinks both followers out (ELR {2, 3}); follower 3 crashes (it is not
// in the ISR: nothing changes) and restarts (ELR {2}, a new partition
// epoch sent to the live brokers).
func TestUncleanRestartReachesTheLeader(t *testing.T) {
	c := newStepped(t, 3, storage.EligibleLeader, func(c *Config) { c.MinInsyncReplicas = 3 })
	apply(t, c, []Step{S("Elect", 1), S("HandleLeaderAndIsr", 1), S("HandleLeaderAndIsr", 2), S("HandleLeaderAndIsr", 3),
		S("ShrinkIsr", 1, 2), S("HandleAlterPartition", 1), S("HandleAlterPartitionResponse", 1),
		S("ShrinkIsr", 1, 3), S("HandleAlterPartition", 1), S("HandleAlterPartitionResponse", 1)})
	s := c.Snapshot()
	if isr, elr, _ := ctrlState(s); !slices.Equal(isr, []int32{1}) || !slices.Equal(elr, []int32{2, 3}) || s.Controller.PartitionEpoch != 2 {
		t.Fatalf("after the shrinks: ISR %v ELR %v partition epoch %d", isr, elr, s.Controller.PartitionEpoch)
	}
	apply(t, c, []Step{S("Crash", 3, 0)})
	if s := c.Snapshot(); s.Controller.PartitionEpoch != 2 || !slices.Equal(s.Controller.Elr, []int32{2, 3}) {
		t.Fatalf("a crash outside the ISR changed the partition: %+v", s.Controller)
	}
	apply(t, c, []Step{S("Restart", 3)})
	s = c.Snapshot()
	if !slices.Equal(s.Controller.Elr, []int32{2}) || s.Controller.PartitionEpoch != 3 {
		t.Fatalf("after the restart: ELR %v partition epoch %d", s.Controller.Elr, s.Controller.PartitionEpoch)
	}
	want := LeaderAndIsrMsg{Leader: 1, Epoch: 0, Isr: []int32{1}, PartitionEpoch: 3}
	for _, r := range []int32{1, 2, 3} {
		q := s.Network.ControllerQueue[r]
		if len(q) != 1 || q[0].Leader != want.Leader || q[0].Epoch != want.Epoch || !slices.Equal(q[0].Isr, want.Isr) || q[0].PartitionEpoch != 3 {
			t.Errorf("broker %d's queue %v, want [%v]", r, q, want)
		}
	}
	// The leader applies it; its next proposal is at partition epoch 3.
	apply(t, c, []Step{S("HandleLeaderAndIsr", 1), S("HandleLeaderAndIsr", 2), S("HandleLeaderAndIsr", 3)})
	if p := brokerOf(c.Snapshot(), 1).Partition; p.PartitionEpoch != 3 {
		t.Fatalf("leader's partition epoch %d, want 3", p.PartitionEpoch)
	}
}

// KIP-903 (isrBrokerEpochs, 3.9 and 4.1): a follower that restarted joins
// the ISR only after a fetch of its new incarnation; the leader's
// AlterPartition carries the broker epoch of its last counted fetch, and
// the controller refuses one that is not the follower's current
// registration's. 2.1 has no broker epochs.
func TestIsrBrokerEpochs(t *testing.T) {
	for _, p := range []storage.Policy{storage.LeaderEpoch, storage.DivergingEpoch, storage.EligibleLeader} {
		t.Run(string(p), func(t *testing.T) {
			c := newStepped(t, 2, p, func(c *Config) { c.MinInsyncReplicas = 1 })
			apply(t, c, cat(
				[]Step{S("Elect", A), S("HandleLeaderAndIsr", A)},
				becomeFollower(p, B, A, 1),
				[]Step{S("Produce", A)},
				fetchRound(B, A), fetchRound(B, A),
			))
			s := c.Snapshot()
			kip903 := c.Release().IsrBrokerEpochs
			wantEpoch := map[bool]int64{true: 0, false: -1}[kip903]
			if v := brokerOf(s, A).Partition.FollowerBrokerEpoch[B]; v != wantEpoch {
				t.Fatalf("leader's view of B's broker epoch %d, want %d", v, wantEpoch)
			}
			if p == storage.LeaderEpoch {
				return
			}
			// Shrink B out; B crashes and restarts (broker epoch 1); the
			// leader still holds the view of its old incarnation.
			apply(t, c, []Step{S("ShrinkIsr", A, B), S("HandleAlterPartition", A), S("HandleAlterPartitionResponse", A),
				S("Crash", B, 1), S("Restart", B)})
			s = c.Snapshot()
			if got := s.Controller.BrokerEpochs; got[A] != 0 || got[B] != 1 {
				t.Fatalf("broker epochs %v, want A 0, B 1", got)
			}
			if err := c.ExpandIsr(A, B); err == nil {
				t.Fatal("proposed a restarted follower for the ISR on a fetch of its previous incarnation")
			}
			// A fetch of the new incarnation makes it eligible.
			apply(t, c, cat([]Step{S("HandleLeaderAndIsr", B)}, fetchRound(B, A), []Step{S("ExpandIsr", A, B)}))
			s = c.Snapshot()
			if am := s.Network.AlterPartition[A]; am.Type != "AlterPartition" || am.BrokerEpochs[B] != 1 || len(am.BrokerEpochs) != 1 {
				t.Fatalf("the proposal %+v, want B's broker epoch 1 (and none for the leader)", am)
			}
			apply(t, c, []Step{S("HandleAlterPartition", A), S("HandleAlterPartitionResponse", A)})
			if isr := c.Snapshot().Controller.Isr; !slices.Equal(isr, []int32{A, B}) {
				t.Fatalf("ISR %v after the expansion", isr)
			}
		})
	}
}

// The controller refuses an AlterPartition that adds a broker with a stale
// broker epoch (ReplicationControlManager.ineligibleReplicasForIsr): a
// leader that proposes B on the view of B's previous incarnation, sent
// before B restarted, is answered INELIGIBLE_REPLICA.
func TestStaleBrokerEpochIsIneligible(t *testing.T) {
	c := newStepped(t, 2, storage.EligibleLeader, func(c *Config) { c.MinInsyncReplicas = 1 })
	apply(t, c, cat(
		[]Step{S("Elect", A), S("HandleLeaderAndIsr", A), S("HandleLeaderAndIsr", B), S("Produce", A)},
		fetchRound(B, A), fetchRound(B, A),
		[]Step{S("ShrinkIsr", A, B), S("HandleAlterPartition", A), S("HandleAlterPartitionResponse", A)},
		fetchRound(B, A),
		[]Step{S("ExpandIsr", A, B)}, // B's epoch 0, current
		[]Step{S("Crash", B, 1), S("Restart", B)},
	))
	// The request in flight names B's epoch 0; B is live again at epoch 1.
	apply(t, c, []Step{S("HandleAlterPartition", A)})
	s := c.Snapshot()
	if am := s.Network.AlterPartition[A]; am.Type != "AlterPartitionResponse" || am.Error != protocol.IneligibleReplica.String() {
		t.Fatalf("the answer %+v, want INELIGIBLE_REPLICA", am)
	}
	if !slices.Equal(s.Controller.Isr, []int32{A}) {
		t.Fatalf("ISR %v", s.Controller.Isr)
	}
}
