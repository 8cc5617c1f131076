package controller

import (
	"errors"
	"slices"
	"testing"
)

// Eligible Leader Replicas (KIP-966), the controller's half: the spec's
// ctrlElr and ctrlLastKnownElr and the actions that change them
// (HandleAlterPartition, Crash, Restart, Elect), as Kafka's
// PartitionChangeBuilder and ReplicationControlManager keep them
// (docs/research/kip966-elr.md).

// elrSetup is one partition's controller state under ELR.
type elrSetup struct {
	assignment   []BrokerID
	leader       BrokerID
	isr          []BrokerID
	elr          []BrokerID
	lastKnownElr []BrokerID
	live         []BrokerID // the others are offline
	minIsr       int
	unclean      bool
	off          bool // ELR off (3.9's KRaft controller)
}

const elrEpoch, elrPartitionEpoch = 4, 9

// elrController builds a controller holding tp0 in the given state.
func elrController(t *testing.T, s elrSetup) *Controller {
	t.Helper()
	cfg := DefaultConfig()
	cfg.FenceFailedReplicas = true
	cfg.EligibleLeaderReplicas = !s.off
	cfg.MinInsyncReplicas = s.minIsr
	cfg.UncleanLeaderElectionEnable = s.unclean
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range s.live {
		if err := c.SetBrokerState(id, BrokerOnline); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.CreateTopic(tp0.Topic, [][]BrokerID{s.assignment}); err != nil {
		t.Fatal(err)
	}
	p := c.partitions[tp0]
	p.LeaderAndIsr = LeaderAndIsr{Leader: s.leader, LeaderEpoch: elrEpoch, Isr: slices.Clone(s.isr), PartitionEpoch: elrPartitionEpoch}
	p.Elr, p.LastKnownElr = slices.Clone(s.elr), slices.Clone(s.lastKnownElr)
	if s.leader != NoLeader && !slices.Contains(s.live, s.leader) {
		c.leaderLost[tp0] = true
		p.Leader = NoLeader
	}
	return c
}

// elrWant is a partition's state after a step.
type elrWant struct {
	leader       BrokerID
	leaderEpoch  int32
	isr          []BrokerID
	elr          []BrokerID
	lastKnownElr []BrokerID
	pe           int32 // partition epoch
}

func checkElrState(t *testing.T, c *Controller, w elrWant) {
	t.Helper()
	p, _ := c.Partition(tp0)
	if p.Leader != w.leader || p.LeaderEpoch != w.leaderEpoch || !slices.Equal(p.Isr, w.isr) ||
		!slices.Equal(p.Elr, w.elr) || !slices.Equal(p.LastKnownElr, w.lastKnownElr) || p.PartitionEpoch != w.pe {
		t.Errorf("leader %d epoch %d ISR %v ELR %v last known leader %v partition epoch %d;\n"+
			"want   leader %d epoch %d ISR %v ELR %v last known leader %v partition epoch %d",
			p.Leader, p.LeaderEpoch, p.Isr, p.Elr, p.LastKnownElr, p.PartitionEpoch,
			w.leader, w.leaderEpoch, w.isr, w.elr, w.lastKnownElr, w.pe)
	}
	if (p.Elr != nil && len(p.Elr) == 0) || (p.LastKnownElr != nil && len(p.LastKnownElr) == 0) {
		t.Errorf("an empty ELR or last known leader is not nil: %#v, %#v", p.Elr, p.LastKnownElr)
	}
	for _, x := range p.Elr {
		if slices.Contains(p.Isr, x) {
			t.Errorf("broker %d is in both the ISR %v and the ELR %v", x, p.Isr, p.Elr)
		}
	}
}

// AlterPartition (spec HandleAlterPartition): ELR' = ElrAfter(ISR, newIsr,
// ELR), PartitionChangeBuilder.maybePopulateTargetElr.
func TestElrAlterPartition(t *testing.T) {
	for _, tc := range []struct {
		name   string
		setup  elrSetup
		newIsr []BrokerID
		want   []BrokerID
	}{
		{"RF 2, min 2: the shrunk follower joins the ELR",
			elrSetup{assignment: ids(1, 2), leader: 1, isr: ids(1, 2), live: ids(1, 2), minIsr: 2}, ids(1), ids(2)},
		{"RF 3, min 3: both shrunk followers join",
			elrSetup{assignment: ids(1, 2, 3), leader: 1, isr: ids(1, 2, 3), live: ids(1, 2, 3), minIsr: 3}, ids(1), ids(2, 3)},
		{"RF 3, min 2: a shrink that stays at the minimum leaves the ELR empty",
			elrSetup{assignment: ids(1, 2, 3), leader: 1, isr: ids(1, 2, 3), live: ids(1, 2, 3), minIsr: 2}, ids(1, 2), nil},
		{"RF 3, min 2: below it, only the replica that leaves now joins",
			elrSetup{assignment: ids(1, 2, 3), leader: 1, isr: ids(1, 2), live: ids(1, 2, 3), minIsr: 2}, ids(1), ids(2)},
		{"members stay while the ISR is below the minimum",
			elrSetup{assignment: ids(1, 2, 3), leader: 1, isr: ids(1, 2), elr: ids(3), live: ids(1, 2, 3), minIsr: 3}, ids(1), ids(2, 3)},
		{"an expansion below the minimum takes the added replica out",
			elrSetup{assignment: ids(1, 2, 3), leader: 1, isr: ids(1), elr: ids(2, 3), live: ids(1, 2, 3), minIsr: 3}, ids(1, 2), ids(3)},
		{"an expansion back to the minimum empties it",
			elrSetup{assignment: ids(1, 2), leader: 1, isr: ids(1), elr: ids(2), live: ids(1, 2), minIsr: 2}, ids(1, 2), nil},
		// The effective minimum is min(min.insync.replicas, replication
		// factor); the cap cannot show in the ELR, which a full ISR leaves
		// empty either way.
		{"min.insync.replicas above the replication factor, a shrink",
			elrSetup{assignment: ids(1, 2, 3), leader: 1, isr: ids(1, 2, 3), live: ids(1, 2, 3), minIsr: 5}, ids(1, 2), ids(3)},
		{"min.insync.replicas above the replication factor, back to the full ISR",
			elrSetup{assignment: ids(1, 2, 3), leader: 1, isr: ids(1), elr: ids(2, 3), live: ids(1, 2, 3), minIsr: 5}, ids(1, 2, 3), nil},
		{"min 1: the ISR cannot drop below it through AlterPartition",
			elrSetup{assignment: ids(1, 2, 3), leader: 1, isr: ids(1, 2, 3), live: ids(1, 2, 3), minIsr: 1}, ids(1), nil},
		{"ELR off (3.9): never an ELR",
			elrSetup{assignment: ids(1, 2), leader: 1, isr: ids(1, 2), live: ids(1, 2), minIsr: 2, off: true}, ids(1), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := elrController(t, tc.setup)
			_, err := c.AlterPartition(AlterPartitionRequest{BrokerID: tc.setup.leader, Partition: tp0,
				LeaderEpoch: elrEpoch, PartitionEpoch: elrPartitionEpoch, NewIsr: tc.newIsr})
			if err != nil {
				t.Fatalf("refused: %v (the controller refuses no shrink)", err)
			}
			checkElrState(t, c, elrWant{leader: tc.setup.leader, leaderEpoch: elrEpoch, isr: tc.newIsr, elr: tc.want,
				lastKnownElr: tc.setup.lastKnownElr, pe: elrPartitionEpoch + 1})
		})
	}
}

// A failed broker (spec Crash; ReplicationControlManager.handleBrokerFenced)
// under ELR leaves the ISR whether it leads or not, the ISR may become
// empty, below the minimum it joins the ELR, and an emptied ISR records it
// as the last known leader. FenceReplica alone (the stepped cluster's
// Crash: no election).
func TestElrFencing(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup elrSetup
		fail  BrokerID
		want  elrWant
		moved bool // FenceReplica reports the partition
	}{
		{"the leader, the ISR's last member, with min 2: the ISR empties, it joins the ELR and is the last known leader",
			elrSetup{assignment: ids(1, 2), leader: 1, isr: ids(1), elr: ids(2), live: ids(1, 2), minIsr: 2}, 1,
			elrWant{leader: NoLeader, leaderEpoch: elrEpoch, isr: ids(), elr: ids(1, 2), lastKnownElr: ids(1), pe: elrPartitionEpoch + 1}, true},
		{"a follower below the minimum joins the ELR, the leader stays",
			elrSetup{assignment: ids(1, 2), leader: 1, isr: ids(1, 2), live: ids(1, 2), minIsr: 2}, 2,
			elrWant{leader: 1, leaderEpoch: elrEpoch, isr: ids(1), elr: ids(2), pe: elrPartitionEpoch + 1}, true},
		{"the leader, the ISR at the minimum after: out of the ISR, no ELR",
			elrSetup{assignment: ids(1, 2, 3), leader: 1, isr: ids(1, 2, 3), live: ids(1, 2, 3), minIsr: 2}, 1,
			elrWant{leader: NoLeader, leaderEpoch: elrEpoch, isr: ids(2, 3), pe: elrPartitionEpoch + 1}, true},
		{"the last ISR member of a partition without a leader",
			elrSetup{assignment: ids(1, 2, 3), leader: NoLeader, isr: ids(2), elr: ids(3), live: ids(2), minIsr: 2}, 2,
			elrWant{leader: NoLeader, leaderEpoch: elrEpoch, isr: ids(), elr: ids(2, 3), lastKnownElr: ids(2), pe: elrPartitionEpoch + 1}, true},
		{"min 1: the last member joins the ELR as the ISR empties",
			elrSetup{assignment: ids(1, 2), leader: 1, isr: ids(1), live: ids(1, 2), minIsr: 1}, 1,
			elrWant{leader: NoLeader, leaderEpoch: elrEpoch, isr: ids(), elr: ids(1), lastKnownElr: ids(1), pe: elrPartitionEpoch + 1}, true},
		{"an ELR member outside the ISR stays in the ELR, nothing changes",
			elrSetup{assignment: ids(1, 2), leader: 1, isr: ids(1), elr: ids(2), live: ids(1, 2), minIsr: 2}, 2,
			elrWant{leader: 1, leaderEpoch: elrEpoch, isr: ids(1), elr: ids(2), pe: elrPartitionEpoch}, false},
		{"ELR off (3.9): the leader is not fenced, the ISR keeps it",
			elrSetup{assignment: ids(1, 2), leader: 1, isr: ids(1), live: ids(1, 2), minIsr: 2, off: true}, 1,
			elrWant{leader: NoLeader, leaderEpoch: elrEpoch, isr: ids(1), pe: elrPartitionEpoch}, false},
		{"ELR off (3.9): a follower is fenced, no ELR",
			elrSetup{assignment: ids(1, 2), leader: 1, isr: ids(1, 2), live: ids(1, 2), minIsr: 2, off: true}, 2,
			elrWant{leader: 1, leaderEpoch: elrEpoch, isr: ids(1), pe: elrPartitionEpoch + 1}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := elrController(t, tc.setup)
			if err := c.SetBrokerState(tc.fail, BrokerOffline); err != nil {
				t.Fatal(err)
			}
			moved := c.FenceReplica(tc.fail)
			if got := len(moved) == 1; got != tc.moved {
				t.Errorf("FenceReplica changed %v", moved)
			}
			checkElrState(t, c, tc.want)
			if tc.want.leader == NoLeader && !slices.Contains(c.OfflinePartitions(), tp0) {
				t.Errorf("a partition without a leader is not offline")
			}
		})
	}
}

// A broker that registers after an unclean shutdown (spec Restart;
// ReplicationControlManager.handleBrokerUncleanShutdown) leaves the ELR, a
// change that bumps the partition epoch; it stays the last known leader.
func TestElrUncleanShutdown(t *testing.T) {
	for _, tc := range []struct {
		name    string
		setup   elrSetup
		restart BrokerID
		want    elrWant
	}{
		{"an ELR member leaves it; the partition epoch is bumped",
			elrSetup{assignment: ids(1, 2, 3), leader: 1, isr: ids(1), elr: ids(2, 3), live: ids(1), minIsr: 3}, 2,
			elrWant{leader: 1, leaderEpoch: elrEpoch, isr: ids(1), elr: ids(3), pe: elrPartitionEpoch + 1}},
		{"the last known leader stays one, leaving the ELR empty",
			elrSetup{assignment: ids(1, 2), leader: NoLeader, isr: ids(), elr: ids(1), lastKnownElr: ids(1), minIsr: 2}, 1,
			elrWant{leader: NoLeader, leaderEpoch: elrEpoch, isr: ids(), lastKnownElr: ids(1), pe: elrPartitionEpoch + 1}},
		{"a broker outside the ELR: nothing",
			elrSetup{assignment: ids(1, 2, 3), leader: 1, isr: ids(1), elr: ids(2), live: ids(1), minIsr: 2}, 3,
			elrWant{leader: 1, leaderEpoch: elrEpoch, isr: ids(1), elr: ids(2), pe: elrPartitionEpoch}},
		{"ELR off: nothing",
			elrSetup{assignment: ids(1, 2), leader: 1, isr: ids(1), live: ids(1), minIsr: 2, off: true}, 2,
			elrWant{leader: 1, leaderEpoch: elrEpoch, isr: ids(1), pe: elrPartitionEpoch}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := elrController(t, tc.setup)
			moved := c.UncleanShutdown(tc.restart)
			if got, want := len(moved), int(tc.want.pe-elrPartitionEpoch); got != want {
				t.Errorf("UncleanShutdown changed %v, want %d partitions", moved, want)
			}
			checkElrState(t, c, tc.want)
		})
	}
}

// The spec's Elect(r) (ElectReplica): electable in the order ISR, then the
// ELR when the ISR is empty, then the last known leader when both are
// empty (even with unclean.leader.election.enable=false), then unclean
// only when no live replica is electable otherwise. Every election forgets
// the last known leader.
func TestElectReplicaElr(t *testing.T) {
	ok := func(leader BrokerID, isr, elr []BrokerID) elrWant {
		return elrWant{leader: leader, leaderEpoch: elrEpoch + 1, isr: isr, elr: elr, pe: elrPartitionEpoch + 1}
	}
	for _, tc := range []struct {
		name        string
		setup       elrSetup
		r           BrokerID
		want        elrWant
		wantUnclean bool
		wantReason  Reason // refused, when set
	}{
		{"ISR empty: an ELR member, a clean election, leaves the ELR",
			elrSetup{assignment: ids(1, 2, 3), leader: NoLeader, isr: ids(), elr: ids(1, 2, 3), lastKnownElr: ids(1), live: ids(2, 3), minIsr: 3}, 3,
			ok(3, ids(3), ids(1, 2)), false, 0},
		{"ISR empty: the ELR's only member",
			elrSetup{assignment: ids(1, 2), leader: NoLeader, isr: ids(), elr: ids(2), lastKnownElr: ids(1), live: ids(2), minIsr: 2}, 2,
			ok(2, ids(2), nil), false, 0},
		{"ISR not empty: an ELR member is not electable",
			elrSetup{assignment: ids(1, 2, 3), leader: NoLeader, isr: ids(1), elr: ids(2), live: ids(1, 2), minIsr: 3}, 2,
			elrWant{}, false, ReasonNotInIsr},
		{"ISR and ELR empty: the last known leader, unclean election disabled",
			elrSetup{assignment: ids(1, 2), leader: NoLeader, isr: ids(), lastKnownElr: ids(1), live: ids(1, 2), minIsr: 2}, 1,
			ok(1, ids(1), nil), true, 0},
		{"ISR and ELR empty: another replica, unclean election disabled",
			elrSetup{assignment: ids(1, 2), leader: NoLeader, isr: ids(), lastKnownElr: ids(1), live: ids(1, 2), minIsr: 2}, 2,
			elrWant{}, false, ReasonNotInIsr},
		{"the ELR not empty: the last known leader is not electable",
			elrSetup{assignment: ids(1, 2, 3), leader: NoLeader, isr: ids(), elr: ids(3), lastKnownElr: ids(1), live: ids(1, 2), minIsr: 3}, 1,
			elrWant{}, false, ReasonNotInIsr},
		{"unclean refused while a live ELR member exists",
			elrSetup{assignment: ids(1, 2, 3), leader: NoLeader, isr: ids(), elr: ids(2), lastKnownElr: ids(1), live: ids(2, 3), minIsr: 2, unclean: true}, 3,
			elrWant{}, false, ReasonLiveEligibleLeader},
		{"unclean refused while the last known leader is live",
			elrSetup{assignment: ids(1, 2, 3), leader: NoLeader, isr: ids(), lastKnownElr: ids(1), live: ids(1, 3), minIsr: 2, unclean: true}, 3,
			elrWant{}, false, ReasonLiveEligibleLeader},
		{"unclean refused while an ISR member is live",
			elrSetup{assignment: ids(1, 2, 3), leader: NoLeader, isr: ids(1), live: ids(1, 3), minIsr: 2, unclean: true}, 3,
			elrWant{}, false, ReasonLiveIsrMember},
		{"unclean: the ELR member is down; the ELR is emptied",
			elrSetup{assignment: ids(1, 2, 3), leader: NoLeader, isr: ids(), elr: ids(2), lastKnownElr: ids(1), live: ids(3), minIsr: 2, unclean: true}, 3,
			ok(3, ids(3), nil), true, 0},
		{"unclean: the last known leader is down (KAFKA-19522)",
			elrSetup{assignment: ids(1, 2, 3), leader: NoLeader, isr: ids(), lastKnownElr: ids(1), live: ids(3), minIsr: 2, unclean: true}, 3,
			ok(3, ids(3), nil), true, 0},
		{"clean from the ISR: the ELR follows the ISR below the minimum",
			elrSetup{assignment: ids(1, 2, 3), leader: 1, isr: ids(1, 2), elr: ids(3), live: ids(1, 2), minIsr: 3}, 2,
			ok(2, ids(1, 2), ids(3)), false, 0},
		{"clean from the ISR: a dead member moves to the ELR below the minimum",
			elrSetup{assignment: ids(1, 2, 3), leader: NoLeader, isr: ids(1, 2), live: ids(1, 3), minIsr: 2}, 1,
			ok(1, ids(1), ids(2)), false, 0},
		{"not live",
			elrSetup{assignment: ids(1, 2), leader: NoLeader, isr: ids(), elr: ids(2), lastKnownElr: ids(1), live: ids(1), minIsr: 2}, 2,
			elrWant{}, false, ReasonNotLive},
		{"ELR off: an emptied ISR is impossible, outside the ISR only unclean",
			elrSetup{assignment: ids(1, 2), leader: NoLeader, isr: ids(1), live: ids(2), minIsr: 2, off: true}, 2,
			elrWant{}, false, ReasonNotInIsr},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := elrController(t, tc.setup)
			before, _ := c.Partition(tp0)
			res, err := c.ElectReplica(tp0, tc.r)
			if tc.wantReason != 0 {
				var e *Error
				if !errors.As(err, &e) || e.Reason != tc.wantReason || !errors.Is(err, ErrEligibleLeadersNotAvailable) {
					t.Fatalf("err = %v, want ELIGIBLE_LEADERS_NOT_AVAILABLE: %v", err, tc.wantReason)
				}
				after, _ := c.Partition(tp0)
				if !equalState(before, after) || !slices.Equal(before.Elr, after.Elr) || !slices.Equal(before.LastKnownElr, after.LastKnownElr) {
					t.Errorf("a refused election changed the state: %+v -> %+v", before, after)
				}
				return
			}
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			if res.Unclean != tc.wantUnclean {
				t.Errorf("unclean = %t, want %t", res.Unclean, tc.wantUnclean)
			}
			checkElrState(t, c, tc.want)
		})
	}
}

// The controller's own offline election (the simulation's: broker failure
// and startup) under ELR: PartitionChangeBuilder.electAnyLeader's order.
func TestEligibleLeaderElection(t *testing.T) {
	for _, tc := range []struct {
		name                       string
		assignment, isr, elr, lke  []BrokerID
		live                       []BrokerID
		unclean                    bool
		want                       BrokerID
		wantUnclean, wantElectable bool
	}{
		{"ISR first, in assignment order", ids(3, 1, 2), ids(1, 2), nil, nil, ids(1, 2, 3), false, 1, false, true},
		{"a dead ISR member is skipped", ids(1, 2, 3), ids(1, 2), nil, nil, ids(2, 3), false, 2, false, true},
		{"the ELR only with an empty ISR", ids(1, 2, 3), ids(1), ids(2), nil, ids(2, 3), false, NoLeader, false, false},
		{"the ELR, in assignment order", ids(3, 2, 1), nil, ids(1, 2), ids(3), ids(1, 2, 3), false, 2, false, true},
		{"the last known leader, unclean off", ids(1, 2, 3), nil, nil, ids(3), ids(1, 3), false, 3, true, true},
		{"the last known leader down, unclean off", ids(1, 2, 3), nil, nil, ids(3), ids(1, 2), false, NoLeader, false, false},
		{"the last known leader down, unclean on", ids(1, 2, 3), nil, nil, ids(3), ids(2), true, 2, true, true},
		{"a dead ELR member blocks the last known leader", ids(1, 2, 3), nil, ids(2), ids(3), ids(3), false, NoLeader, false, false},
		{"a dead ELR member, unclean on", ids(1, 2, 3), nil, ids(2), ids(3), ids(3), true, 3, true, true},
		{"nobody live", ids(1, 2, 3), nil, ids(2), ids(3), nil, true, NoLeader, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, unclean, ok := EligibleLeaderElection(tc.assignment, tc.isr, tc.elr, tc.lke, tc.live, tc.unclean)
			if got != tc.want || unclean != tc.wantUnclean || ok != tc.wantElectable {
				t.Errorf("got (%d, unclean %t, %t), want (%d, %t, %t)", got, unclean, ok, tc.want, tc.wantUnclean, tc.wantElectable)
			}
		})
	}
}

// docs/research/kip966-elr.md §5, the controller's side: RF 2, min 2,
// acks=all. The follower is shrunk out (ELR {2}); the leader fails, the
// ISR empties and the fencing's election picks the ELR member, which holds
// every committed record; the failed broker's unclean restart takes it out
// of the ELR. Then two lossy failures in a row end in the last known
// leader's election, unclean election disabled: ELR tolerates
// min.insync.replicas - 1 of them.
func TestElrLastReplicaStanding(t *testing.T) {
	cfg := DefaultConfig()
	cfg.FenceFailedReplicas, cfg.EligibleLeaderReplicas, cfg.MinInsyncReplicas = true, true, 2
	c := mustNew(t, cfg, 1, 2)
	if err := c.CreateTopic(tp0.Topic, [][]BrokerID{{1, 2}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ElectReplica(tp0, 1); err != nil {
		t.Fatal(err)
	}
	checkElrState(t, c, elrWant{leader: 1, leaderEpoch: 0, isr: ids(1, 2), pe: 0})
	if _, err := c.AlterPartition(AlterPartitionRequest{BrokerID: 1, Partition: tp0, LeaderEpoch: 0, PartitionEpoch: 0, NewIsr: ids(1)}); err != nil {
		t.Fatal(err)
	}
	checkElrState(t, c, elrWant{leader: 1, leaderEpoch: 0, isr: ids(1), elr: ids(2), pe: 1})
	rs, errs, fenced, err := c.OnBrokerFailureFencing(1)
	if err != nil || len(errs) != 0 || len(rs) != 1 || len(fenced) != 1 || rs[0].Unclean {
		t.Fatalf("the leader's failure: elections %v, errors %v, fenced %v, %v", rs, errs, fenced, err)
	}
	// Fenced (partition epoch 2): ISR {}, ELR {1, 2}, last known leader 1;
	// then elected from the ELR (epoch 1, partition epoch 3).
	checkElrState(t, c, elrWant{leader: 2, leaderEpoch: 1, isr: ids(2), elr: ids(1), pe: 3})
	if moved := c.UncleanShutdown(1); len(moved) != 1 {
		t.Fatalf("broker 1's unclean shutdown changed %v", moved)
	}
	if _, _, err := c.OnBrokerStartup(1); err != nil {
		t.Fatal(err)
	}
	checkElrState(t, c, elrWant{leader: 2, leaderEpoch: 1, isr: ids(2), pe: 4})

	// Broker 1 rejoins; then both fail, one after the other.
	if _, err := c.AlterPartition(AlterPartitionRequest{BrokerID: 2, Partition: tp0, LeaderEpoch: 1, PartitionEpoch: 4, NewIsr: ids(1, 2)}); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := c.OnBrokerFailureFencing(1); err != nil { // the follower
		t.Fatal(err)
	}
	checkElrState(t, c, elrWant{leader: 2, leaderEpoch: 1, isr: ids(2), elr: ids(1), pe: 6})
	c.UncleanShutdown(1)
	if _, _, err := c.OnBrokerStartup(1); err != nil {
		t.Fatal(err)
	}
	checkElrState(t, c, elrWant{leader: 2, leaderEpoch: 1, isr: ids(2), pe: 7})
	if rs, errs, _, err := c.OnBrokerFailureFencing(2); err != nil || len(rs) != 0 || len(errs) != 1 {
		t.Fatalf("the leader's failure, the other replica out of ISR and ELR: elections %v, errors %v, %v", rs, errs, err)
	}
	checkElrState(t, c, elrWant{leader: NoLeader, leaderEpoch: 1, isr: ids(), elr: ids(2), lastKnownElr: ids(2), pe: 8})
	c.UncleanShutdown(2)
	rs, _, err = c.OnBrokerStartup(2)
	if err != nil || len(rs) != 1 || !rs[0].Unclean {
		t.Fatalf("the last known leader's restart: elections %v, %v; want its unclean election", rs, err)
	}
	checkElrState(t, c, elrWant{leader: 2, leaderEpoch: 2, isr: ids(2), pe: 10})
}

func TestElrConfigValidation(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edit  func(*Config)
		valid bool
	}{
		{"ELR with fencing and min 2", func(c *Config) { c.EligibleLeaderReplicas, c.FenceFailedReplicas, c.MinInsyncReplicas = true, true, 2 }, true},
		{"ELR without KRaft's fencing", func(c *Config) { c.EligibleLeaderReplicas = true }, false},
		{"ELR with min 0", func(c *Config) { c.EligibleLeaderReplicas, c.FenceFailedReplicas, c.MinInsyncReplicas = true, true, 0 }, false},
		{"negative min", func(c *Config) { c.MinInsyncReplicas = -1 }, false},
		{"no ELR, min unset", func(c *Config) { c.MinInsyncReplicas = 0 }, true},
	} {
		cfg := DefaultConfig()
		tc.edit(&cfg)
		_, err := New(cfg)
		if (err == nil) != tc.valid || (err != nil && !errors.Is(err, ErrInvalidConfig)) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}
