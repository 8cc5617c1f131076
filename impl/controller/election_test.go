package controller

import (
	"errors"
	"slices"
	"testing"
)

func ids(xs ...BrokerID) []BrokerID { return xs }

// Tests of the four algorithms as pure functions, one table each.

func TestOfflinePartitionLeaderElection(t *testing.T) {
	tests := []struct {
		name                  string
		assignment, isr, live []BrokerID
		unclean               bool
		want                  BrokerID
		wantOK                bool
	}{
		{"first live ISR member in assignment order", ids(1, 2, 3), ids(3, 2), ids(2, 3), false, 2, true},
		{"assignment order, not ISR order", ids(3, 1, 2), ids(1, 2, 3), ids(1, 2, 3), false, 3, true},
		{"skips dead ISR member", ids(1, 2, 3), ids(1, 2, 3), ids(2, 3), false, 2, true},
		{"skips live non-ISR replica", ids(1, 2, 3), ids(1, 3), ids(2, 3), false, 3, true},
		{"no live ISR, unclean off", ids(1, 2, 3), ids(1), ids(2, 3), false, NoLeader, false},
		{"no live ISR, unclean on: first live replica", ids(1, 2, 3), ids(1), ids(3, 2), true, 2, true},
		{"unclean on but a live ISR member exists: clean", ids(1, 2, 3), ids(3), ids(2, 3), true, 3, true},
		{"nothing live, unclean on", ids(1, 2, 3), ids(1, 2, 3), nil, true, NoLeader, false},
		{"live broker outside the assignment is ignored", ids(1, 2), ids(1, 2, 9), ids(9), true, NoLeader, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := OfflinePartitionLeaderElection(tc.assignment, tc.isr, tc.live, tc.unclean)
			if got != tc.want || ok != tc.wantOK {
				t.Errorf("got (%d, %t), want (%d, %t)", got, ok, tc.want, tc.wantOK)
			}
		})
	}
}

func TestReassignPartitionLeaderElection(t *testing.T) {
	tests := []struct {
		name              string
		target, isr, live []BrokerID
		want              BrokerID
		wantOK            bool
	}{
		{"first target live and in ISR", ids(4, 2, 1), ids(1, 2, 4), ids(1, 2, 4), 4, true},
		{"target order wins over ISR order", ids(2, 1), ids(1, 2), ids(1, 2), 2, true},
		{"targets not in ISR", ids(4, 5), ids(1, 2), ids(1, 2, 4, 5), NoLeader, false},
		{"first target in ISR is dead", ids(4, 2), ids(2, 4), ids(2), 2, true},
		{"no target live", ids(4, 2), ids(2, 4), ids(1), NoLeader, false},
		{"empty target", nil, ids(1), ids(1), NoLeader, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := ReassignPartitionLeaderElection(tc.target, tc.isr, tc.live)
			if got != tc.want || ok != tc.wantOK {
				t.Errorf("got (%d, %t), want (%d, %t)", got, ok, tc.want, tc.wantOK)
			}
		})
	}
}

func TestPreferredReplicaPartitionLeaderElection(t *testing.T) {
	tests := []struct {
		name                  string
		assignment, isr, live []BrokerID
		want                  BrokerID
		wantOK                bool
	}{
		{"head live and in ISR", ids(1, 2, 3), ids(2, 1), ids(1, 2, 3), 1, true},
		{"head not in ISR: nobody else is tried", ids(1, 2, 3), ids(2, 3), ids(1, 2, 3), NoLeader, false},
		{"head dead: nobody else is tried", ids(1, 2, 3), ids(1, 2, 3), ids(2, 3), NoLeader, false},
		{"empty assignment", nil, ids(1), ids(1), NoLeader, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := PreferredReplicaPartitionLeaderElection(tc.assignment, tc.isr, tc.live)
			if got != tc.want || ok != tc.wantOK {
				t.Errorf("got (%d, %t), want (%d, %t)", got, ok, tc.want, tc.wantOK)
			}
		})
	}
}

func TestControlledShutdownPartitionLeaderElection(t *testing.T) {
	tests := []struct {
		name                                string
		assignment, isr, live, shuttingDown []BrokerID
		want                                BrokerID
		wantOK                              bool
	}{
		{"skips the shutting-down leader", ids(1, 2, 3), ids(1, 2, 3), ids(1, 2, 3), ids(1), 2, true},
		{"skips non-ISR and shutting down", ids(1, 2, 3), ids(1, 3), ids(1, 2, 3), ids(1), 3, true},
		{"every ISR member shutting down", ids(1, 2, 3), ids(1, 2), ids(1, 2, 3), ids(1, 2), NoLeader, false},
		{"remaining ISR member dead", ids(1, 2, 3), ids(1, 2), ids(1, 3), ids(1), NoLeader, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := ControlledShutdownPartitionLeaderElection(tc.assignment, tc.isr, tc.live, tc.shuttingDown)
			if got != tc.want || ok != tc.wantOK {
				t.Errorf("got (%d, %t), want (%d, %t)", got, ok, tc.want, tc.wantOK)
			}
		})
	}
}

// ---------------------------------------------------------------------------
// Elections through the controller: leader, ISR, epochs, errors.

var tp0 = TopicPartition{Topic: "t", Partition: 0}

type partitionSetup struct {
	assignment []BrokerID
	target     []BrokerID
	leader     BrokerID
	epoch      int32
	isr        []BrokerID
	states     map[BrokerID]BrokerState // brokers not listed are offline
	unclean    bool
}

// setup builds a controller holding tp0 in the given state directly, so
// each case states exactly the situation it tests.
func setup(t *testing.T, s partitionSetup) *Controller {
	t.Helper()
	cfg := DefaultConfig()
	cfg.UncleanLeaderElectionEnable = s.unclean
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for id, st := range s.states {
		if err := c.SetBrokerState(id, st); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.CreateTopic(tp0.Topic, [][]BrokerID{s.assignment}); err != nil {
		t.Fatal(err)
	}
	p := c.partitions[tp0]
	p.TargetReplicas = slices.Clone(s.target)
	p.LeaderAndIsr = LeaderAndIsr{Leader: s.leader, LeaderEpoch: s.epoch, Isr: slices.Clone(s.isr), PartitionEpoch: s.epoch + 10}
	return c
}

func online(xs ...BrokerID) map[BrokerID]BrokerState {
	m := make(map[BrokerID]BrokerState)
	for _, x := range xs {
		m[x] = BrokerOnline
	}
	return m
}

func with(m map[BrokerID]BrokerState, id BrokerID, s BrokerState) map[BrokerID]BrokerState {
	m[id] = s
	return m
}

type electionCase struct {
	name        string
	setup       partitionSetup
	strategy    ElectionStrategy
	wantLeader  BrokerID
	wantIsr     []BrokerID
	wantUnclean bool
	wantErr     ErrorCode // 0: success
	wantReason  Reason
}

func runElectionCases(t *testing.T, cases []electionCase, elect func(c *Controller) (ElectionResult, error)) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := setup(t, tc.setup)
			before, _ := c.Partition(tp0)
			r, err := elect(c)
			after, _ := c.Partition(tp0)
			if tc.wantErr != 0 {
				var e *Error
				if !errors.As(err, &e) || !errors.Is(err, tc.wantErr) {
					t.Fatalf("err = %v, want %v", err, tc.wantErr)
				}
				if tc.wantReason != ReasonUnspecified && e.Reason != tc.wantReason {
					t.Errorf("reason = %v, want %v", e.Reason, tc.wantReason)
				}
				if !equalState(before, after) {
					t.Errorf("a refused election changed the state: %v -> %v", before, after)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error %v", err)
			}
			want := LeaderAndIsr{
				Leader:         tc.wantLeader,
				LeaderEpoch:    before.LeaderEpoch + 1,
				Isr:            tc.wantIsr,
				PartitionEpoch: before.PartitionEpoch + 1,
			}
			if !equalLeaderAndIsr(after.LeaderAndIsr, want) {
				t.Errorf("state %v, want %v", after.LeaderAndIsr, want)
			}
			if !equalLeaderAndIsr(r.Elected, after.LeaderAndIsr) || !equalLeaderAndIsr(r.Previous, before.LeaderAndIsr) {
				t.Errorf("result %+v does not match the transition %v -> %v", r, before.LeaderAndIsr, after.LeaderAndIsr)
			}
			if r.Unclean != tc.wantUnclean {
				t.Errorf("unclean = %t, want %t", r.Unclean, tc.wantUnclean)
			}
			if !slices.Equal(before.Assignment, after.Assignment) || !slices.Equal(before.TargetReplicas, after.TargetReplicas) {
				t.Errorf("an election changed the assignment: %v -> %v", before, after)
			}
		})
	}
}

func equalLeaderAndIsr(a, b LeaderAndIsr) bool {
	return a.Leader == b.Leader && a.LeaderEpoch == b.LeaderEpoch && a.PartitionEpoch == b.PartitionEpoch && slices.Equal(a.Isr, b.Isr)
}

func equalState(a, b PartitionState) bool {
	return equalLeaderAndIsr(a.LeaderAndIsr, b.LeaderAndIsr) && slices.Equal(a.Assignment, b.Assignment) && slices.Equal(a.TargetReplicas, b.TargetReplicas)
}

func TestElectOffline(t *testing.T) {
	cases := []electionCase{
		{name: "first election of a new partition", strategy: OfflinePartitionLeaderElectionStrategy,
			setup:      partitionSetup{assignment: ids(1, 2, 3), leader: NoLeader, epoch: -1, isr: ids(1, 2, 3), states: online(2, 3)},
			wantLeader: 2, wantIsr: ids(2, 3)},
		{name: "failover: assignment order picks, ISR filtered to live brokers in its own order", strategy: OfflinePartitionLeaderElectionStrategy,
			setup:      partitionSetup{assignment: ids(1, 2, 3), leader: 1, epoch: 4, isr: ids(1, 3, 2), states: online(2, 3)},
			wantLeader: 2, wantIsr: ids(3, 2)},
		{name: "dead ISR member dropped from ISR", strategy: OfflinePartitionLeaderElectionStrategy,
			setup:      partitionSetup{assignment: ids(1, 2, 3), leader: 1, epoch: 4, isr: ids(1, 2, 3), states: online(3)},
			wantLeader: 3, wantIsr: ids(3)},
		{name: "no live ISR member, unclean off", strategy: OfflinePartitionLeaderElectionStrategy,
			setup:   partitionSetup{assignment: ids(1, 2, 3), leader: 1, epoch: 4, isr: ids(1), states: online(2, 3)},
			wantErr: ErrEligibleLeadersNotAvailable, wantReason: ReasonNoEligibleReplica},
		{name: "no live ISR member, unclean on: ISR reset to leader", strategy: OfflinePartitionLeaderElectionStrategy,
			setup:      partitionSetup{assignment: ids(1, 2, 3), leader: 1, epoch: 4, isr: ids(1), states: online(3, 2), unclean: true},
			wantLeader: 2, wantIsr: ids(2), wantUnclean: true},
		{name: "unclean on, a live ISR member exists: clean", strategy: OfflinePartitionLeaderElectionStrategy,
			setup:      partitionSetup{assignment: ids(1, 2, 3), leader: 1, epoch: 4, isr: ids(1, 3), states: online(2, 3), unclean: true},
			wantLeader: 3, wantIsr: ids(3)},
		{name: "nothing live", strategy: OfflinePartitionLeaderElectionStrategy,
			setup:   partitionSetup{assignment: ids(1, 2, 3), leader: 1, epoch: 4, isr: ids(1, 2, 3), unclean: true},
			wantErr: ErrEligibleLeadersNotAvailable},
		{name: "shutting-down replica is not live", strategy: OfflinePartitionLeaderElectionStrategy,
			setup:      partitionSetup{assignment: ids(1, 2, 3), leader: 1, epoch: 4, isr: ids(1, 2, 3), states: with(online(3), 2, BrokerShuttingDown)},
			wantLeader: 3, wantIsr: ids(3)},
		{name: "leader live: not needed", strategy: OfflinePartitionLeaderElectionStrategy,
			setup:   partitionSetup{assignment: ids(1, 2, 3), leader: 1, epoch: 4, isr: ids(1, 2, 3), states: online(1, 2, 3)},
			wantErr: ErrElectionNotNeeded, wantReason: ReasonLeaderLive},
		{name: "during a reassignment the target heads the order", strategy: OfflinePartitionLeaderElectionStrategy,
			setup:      partitionSetup{assignment: ids(1, 2, 3), target: ids(3, 4), leader: 1, epoch: 4, isr: ids(1, 2, 3), states: online(2, 3)},
			wantLeader: 3, wantIsr: ids(2, 3)},
	}
	runElectionCases(t, cases, func(c *Controller) (ElectionResult, error) {
		return c.Elect(tp0, OfflinePartitionLeaderElectionStrategy)
	})
}

func TestElectReassign(t *testing.T) {
	cases := []electionCase{
		{name: "first target live and in ISR; ISR unchanged",
			setup:      partitionSetup{assignment: ids(1, 2, 3), target: ids(3, 2, 4), leader: 1, epoch: 2, isr: ids(1, 2, 3), states: online(1, 2, 3, 4)},
			wantLeader: 3, wantIsr: ids(1, 2, 3)},
		{name: "target replicas not in ISR",
			setup:   partitionSetup{assignment: ids(1, 2, 3), target: ids(4, 5), leader: 1, epoch: 2, isr: ids(1, 2, 3), states: online(1, 2, 3, 4, 5)},
			wantErr: ErrEligibleLeadersNotAvailable},
		{name: "first target dead, second eligible",
			setup:      partitionSetup{assignment: ids(1, 2, 3), target: ids(3, 2), leader: 1, epoch: 2, isr: ids(1, 2, 3), states: online(1, 2)},
			wantLeader: 2, wantIsr: ids(1, 2, 3)},
		{name: "no reassignment",
			setup:   partitionSetup{assignment: ids(1, 2, 3), leader: 1, epoch: 2, isr: ids(1, 2, 3), states: online(1, 2, 3)},
			wantErr: ErrNoReassignmentInProgress},
	}
	runElectionCases(t, cases, func(c *Controller) (ElectionResult, error) {
		return c.Elect(tp0, ReassignPartitionLeaderElectionStrategy)
	})
}

func TestElectPreferred(t *testing.T) {
	cases := []electionCase{
		{name: "preferred back in ISR: elected, ISR unchanged",
			setup:      partitionSetup{assignment: ids(1, 2, 3), leader: 2, epoch: 1, isr: ids(2, 3, 1), states: online(1, 2, 3)},
			wantLeader: 1, wantIsr: ids(2, 3, 1)},
		{name: "preferred live but not in ISR",
			setup:   partitionSetup{assignment: ids(1, 2, 3), leader: 2, epoch: 1, isr: ids(2, 3), states: online(1, 2, 3)},
			wantErr: ErrPreferredLeaderNotAvailable},
		{name: "preferred dead",
			setup:   partitionSetup{assignment: ids(1, 2, 3), leader: 2, epoch: 1, isr: ids(1, 2, 3), states: online(2, 3)},
			wantErr: ErrPreferredLeaderNotAvailable},
		{name: "preferred shutting down",
			setup:   partitionSetup{assignment: ids(1, 2, 3), leader: 2, epoch: 1, isr: ids(1, 2, 3), states: with(online(2, 3), 1, BrokerShuttingDown)},
			wantErr: ErrPreferredLeaderNotAvailable},
		{name: "preferred already leads",
			setup:   partitionSetup{assignment: ids(1, 2, 3), leader: 1, epoch: 1, isr: ids(1, 2, 3), states: online(1, 2, 3)},
			wantErr: ErrElectionNotNeeded, wantReason: ReasonAlreadyLeader},
		{name: "offline partition with preferred eligible",
			setup:      partitionSetup{assignment: ids(1, 2, 3), leader: NoLeader, epoch: 3, isr: ids(1), states: online(1)},
			wantLeader: 1, wantIsr: ids(1)},
	}
	runElectionCases(t, cases, func(c *Controller) (ElectionResult, error) {
		return c.Elect(tp0, PreferredReplicaPartitionLeaderElectionStrategy)
	})
}

func TestElectControlledShutdown(t *testing.T) {
	cases := []electionCase{
		{name: "shutting-down leader replaced, removed from ISR",
			setup:      partitionSetup{assignment: ids(1, 2, 3), leader: 1, epoch: 5, isr: ids(1, 2, 3), states: with(online(2, 3), 1, BrokerShuttingDown)},
			wantLeader: 2, wantIsr: ids(2, 3)},
		{name: "every shutting-down broker leaves the ISR",
			setup:      partitionSetup{assignment: ids(1, 2, 3), leader: 1, epoch: 5, isr: ids(1, 2, 3), states: with(with(online(3), 1, BrokerShuttingDown), 2, BrokerShuttingDown)},
			wantLeader: 3, wantIsr: ids(3)},
		{name: "no other live ISR member",
			setup:   partitionSetup{assignment: ids(1, 2, 3), leader: 1, epoch: 5, isr: ids(1, 2), states: with(online(3), 1, BrokerShuttingDown)},
			wantErr: ErrEligibleLeadersNotAvailable},
		{name: "leader not shutting down",
			setup:   partitionSetup{assignment: ids(1, 2, 3), leader: 1, epoch: 5, isr: ids(1, 2, 3), states: with(online(1, 3), 2, BrokerShuttingDown)},
			wantErr: ErrElectionNotNeeded, wantReason: ReasonLeaderNotShuttingDown},
	}
	runElectionCases(t, cases, func(c *Controller) (ElectionResult, error) {
		return c.Elect(tp0, ControlledShutdownPartitionLeaderElectionStrategy)
	})
}

// ElectReplica is the spec's Elect(r): enabled exactly when r is up and
// either in the ISR, or unclean is on and no ISR member is up.
func TestElectReplica(t *testing.T) {
	cases := []struct {
		electionCase
		r BrokerID
	}{
		{electionCase{name: "clean, not the first in assignment order",
			setup:      partitionSetup{assignment: ids(1, 2, 3), leader: 1, epoch: 0, isr: ids(1, 2, 3), states: online(2, 3)},
			wantLeader: 3, wantIsr: ids(2, 3)}, 3},
		{electionCase{name: "re-elect the current leader: epoch bump",
			setup:      partitionSetup{assignment: ids(1, 2, 3), leader: 2, epoch: 7, isr: ids(2, 3), states: online(1, 2, 3)},
			wantLeader: 2, wantIsr: ids(2, 3)}, 2},
		{electionCase{name: "first election, spec Init",
			setup:      partitionSetup{assignment: ids(1, 2, 3), leader: NoLeader, epoch: -1, isr: ids(1, 2, 3), states: online(1, 2, 3)},
			wantLeader: 3, wantIsr: ids(1, 2, 3)}, 3},
		{electionCase{name: "not live",
			setup:   partitionSetup{assignment: ids(1, 2, 3), leader: 1, epoch: 0, isr: ids(1, 2, 3), states: online(1, 2)},
			wantErr: ErrEligibleLeadersNotAvailable, wantReason: ReasonNotLive}, 3},
		{electionCase{name: "shutting down is not live",
			setup:   partitionSetup{assignment: ids(1, 2, 3), leader: 1, epoch: 0, isr: ids(1, 2, 3), states: with(online(1, 2), 3, BrokerShuttingDown)},
			wantErr: ErrEligibleLeadersNotAvailable, wantReason: ReasonNotLive}, 3},
		{electionCase{name: "not in ISR, unclean off",
			setup:   partitionSetup{assignment: ids(1, 2, 3), leader: 1, epoch: 0, isr: ids(1), states: online(2, 3)},
			wantErr: ErrEligibleLeadersNotAvailable, wantReason: ReasonNotInIsr}, 3},
		{electionCase{name: "not in ISR, unclean on, an ISR member live",
			setup:   partitionSetup{assignment: ids(1, 2, 3), leader: 1, epoch: 0, isr: ids(1, 2), states: online(2, 3), unclean: true},
			wantErr: ErrEligibleLeadersNotAvailable, wantReason: ReasonLiveIsrMember}, 3},
		{electionCase{name: "unclean: no ISR member live",
			setup:      partitionSetup{assignment: ids(1, 2, 3), leader: 1, epoch: 0, isr: ids(1, 2), states: online(3), unclean: true},
			wantLeader: 3, wantIsr: ids(3), wantUnclean: true}, 3},
		{electionCase{name: "not a replica",
			setup:   partitionSetup{assignment: ids(1, 2, 3), leader: 1, epoch: 0, isr: ids(1, 2, 3), states: online(1, 2, 3, 9)},
			wantErr: ErrInvalidReplicaAssignment, wantReason: ReasonNotAReplica}, 9},
	}
	for _, tc := range cases {
		r := tc.r
		runElectionCases(t, []electionCase{tc.electionCase}, func(c *Controller) (ElectionResult, error) {
			res, err := c.ElectReplica(tp0, r)
			var e *Error
			if errors.As(err, &e) && e.Candidate != r {
				t.Errorf("error names candidate %d, want %d", e.Candidate, r)
			}
			return res, err
		})
	}
}

func TestElectUnknownPartitionAndStrategy(t *testing.T) {
	c, _ := New(DefaultConfig())
	for _, s := range []ElectionStrategy{OfflinePartitionLeaderElectionStrategy, ReassignPartitionLeaderElectionStrategy,
		PreferredReplicaPartitionLeaderElectionStrategy, ControlledShutdownPartitionLeaderElectionStrategy} {
		if _, err := c.Elect(tp0, s); !errors.Is(err, ErrUnknownTopicOrPartition) {
			t.Errorf("%v: err = %v", s, err)
		}
	}
	if _, err := c.ElectReplica(tp0, 1); !errors.Is(err, ErrUnknownTopicOrPartition) {
		t.Errorf("ElectReplica: err = %v", err)
	}
	if err := c.CreateTopic("t", [][]BrokerID{{1}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Elect(tp0, ElectionStrategy(99)); !errors.Is(err, ErrInvalidRequest) {
		t.Errorf("bad strategy: err = %v", err)
	}
}
