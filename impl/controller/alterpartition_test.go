package controller

import (
	"errors"
	"slices"
	"testing"
)

func TestAlterPartition(t *testing.T) {
	// Every case starts from: assignment [1 2 3], leader 1, leader epoch 4,
	// ISR [1 2 3], partition epoch 14, brokers 1..3 online, 4 online but
	// not a replica.
	base := partitionSetup{assignment: ids(1, 2, 3), leader: 1, epoch: 4, isr: ids(1, 2, 3), states: online(1, 2, 3, 4)}
	tests := []struct {
		name       string
		req        AlterPartitionRequest
		rejectInel bool
		offline    []BrokerID
		isr        []BrokerID // overrides the base ISR
		want       LeaderAndIsr
		wantErr    ErrorCode
	}{
		{name: "shrink: partition epoch bumped, leader epoch kept",
			req:  AlterPartitionRequest{BrokerID: 1, LeaderEpoch: 4, PartitionEpoch: 14, NewIsr: ids(1, 3)},
			want: LeaderAndIsr{Leader: 1, LeaderEpoch: 4, Isr: ids(1, 3), PartitionEpoch: 15}},
		{name: "expand",
			isr:  ids(1),
			req:  AlterPartitionRequest{BrokerID: 1, LeaderEpoch: 4, PartitionEpoch: 14, NewIsr: ids(1, 2)},
			want: LeaderAndIsr{Leader: 1, LeaderEpoch: 4, Isr: ids(1, 2), PartitionEpoch: 15}},
		{name: "same set: no change, no bump",
			req:  AlterPartitionRequest{BrokerID: 1, LeaderEpoch: 4, PartitionEpoch: 14, NewIsr: ids(3, 2, 1)},
			want: LeaderAndIsr{Leader: 1, LeaderEpoch: 4, Isr: ids(1, 2, 3), PartitionEpoch: 14}},
		{name: "zombie leader: stale leader epoch",
			req:     AlterPartitionRequest{BrokerID: 1, LeaderEpoch: 3, PartitionEpoch: 14, NewIsr: ids(1)},
			wantErr: ErrFencedLeaderEpoch},
		{name: "stale partition epoch",
			req:     AlterPartitionRequest{BrokerID: 1, LeaderEpoch: 4, PartitionEpoch: 13, NewIsr: ids(1)},
			wantErr: ErrInvalidUpdateVersion},
		{name: "stale partition epoch, ISR already the one proposed: a retry, answered with the current state",
			req:  AlterPartitionRequest{BrokerID: 1, LeaderEpoch: 4, PartitionEpoch: 13, NewIsr: ids(3, 1, 2)},
			want: LeaderAndIsr{Leader: 1, LeaderEpoch: 4, Isr: ids(1, 2, 3), PartitionEpoch: 14}},
		{name: "stale partition epoch, duplicate member: not mistaken for the current ISR",
			req:     AlterPartitionRequest{BrokerID: 1, LeaderEpoch: 4, PartitionEpoch: 13, NewIsr: ids(1, 1, 3)},
			wantErr: ErrInvalidUpdateVersion},
		{name: "not the leader",
			req:     AlterPartitionRequest{BrokerID: 2, LeaderEpoch: 4, PartitionEpoch: 14, NewIsr: ids(2)},
			wantErr: ErrNotLeaderOrFollower},
		{name: "leader epoch from the future",
			req:     AlterPartitionRequest{BrokerID: 1, LeaderEpoch: 5, PartitionEpoch: 14, NewIsr: ids(1)},
			wantErr: ErrNotController},
		{name: "partition epoch from the future",
			req:     AlterPartitionRequest{BrokerID: 1, LeaderEpoch: 4, PartitionEpoch: 15, NewIsr: ids(1)},
			wantErr: ErrNotController},
		{name: "ISR without the leader",
			req:     AlterPartitionRequest{BrokerID: 1, LeaderEpoch: 4, PartitionEpoch: 14, NewIsr: ids(2, 3)},
			wantErr: ErrInvalidRequest},
		{name: "empty ISR",
			req:     AlterPartitionRequest{BrokerID: 1, LeaderEpoch: 4, PartitionEpoch: 14},
			wantErr: ErrInvalidRequest},
		{name: "duplicate member",
			req:     AlterPartitionRequest{BrokerID: 1, LeaderEpoch: 4, PartitionEpoch: 14, NewIsr: ids(1, 2, 2)},
			wantErr: ErrInvalidRequest},
		{name: "non-replica member",
			req:     AlterPartitionRequest{BrokerID: 1, LeaderEpoch: 4, PartitionEpoch: 14, NewIsr: ids(1, 4)},
			wantErr: ErrInvalidRequest},
		{name: "KIP-841 off: an offline broker may be added (the spec's ExpandIsr)",
			isr: ids(1), offline: ids(2),
			req:  AlterPartitionRequest{BrokerID: 1, LeaderEpoch: 4, PartitionEpoch: 14, NewIsr: ids(1, 2)},
			want: LeaderAndIsr{Leader: 1, LeaderEpoch: 4, Isr: ids(1, 2), PartitionEpoch: 15}},
		{name: "KIP-841 on: adding an offline broker is refused",
			isr: ids(1), offline: ids(2), rejectInel: true,
			req:     AlterPartitionRequest{BrokerID: 1, LeaderEpoch: 4, PartitionEpoch: 14, NewIsr: ids(1, 2)},
			wantErr: ErrIneligibleReplica},
		{name: "KIP-841 on: an offline member already in the ISR does not block a shrink",
			offline: ids(2), rejectInel: true,
			req:  AlterPartitionRequest{BrokerID: 1, LeaderEpoch: 4, PartitionEpoch: 14, NewIsr: ids(1, 2)},
			want: LeaderAndIsr{Leader: 1, LeaderEpoch: 4, Isr: ids(1, 2), PartitionEpoch: 15}},
		{name: "unknown partition",
			req:     AlterPartitionRequest{BrokerID: 1, Partition: TopicPartition{Topic: "nope"}, LeaderEpoch: 4, PartitionEpoch: 14, NewIsr: ids(1)},
			wantErr: ErrUnknownTopicOrPartition},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := base
			s.states = online(1, 2, 3, 4)
			if tc.isr != nil {
				s.isr = tc.isr
			}
			c := setup(t, s)
			for _, id := range tc.offline {
				_ = c.SetBrokerState(id, BrokerOffline)
			}
			cfg := c.Config()
			cfg.RejectIneligibleReplicas = tc.rejectInel
			if err := c.SetConfig(cfg); err != nil {
				t.Fatal(err)
			}
			if tc.req.Partition == (TopicPartition{}) {
				tc.req.Partition = tp0
			}
			before, _ := c.Partition(tp0)
			got, err := c.AlterPartition(tc.req)
			after, _ := c.Partition(tp0)
			if tc.wantErr != 0 {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("err = %v, want %v", err, tc.wantErr)
				}
				if !equalState(before, after) {
					t.Errorf("refused request changed the state: %v -> %v", before, after)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error %v", err)
			}
			if !equalLeaderAndIsr(got, tc.want) || !equalLeaderAndIsr(after.LeaderAndIsr, tc.want) {
				t.Errorf("returned %v, state %v, want %v", got, after.LeaderAndIsr, tc.want)
			}
		})
	}
}

// Two leaders' requests built on the same state: the first wins, the second
// is refused; after an election, the old leader is fenced.
func TestAlterPartitionCompareAndSet(t *testing.T) {
	c := setup(t, partitionSetup{assignment: ids(1, 2, 3), leader: 1, epoch: 0, isr: ids(1, 2, 3), states: online(1, 2, 3)})
	p, _ := c.Partition(tp0)
	first := AlterPartitionRequest{BrokerID: 1, Partition: tp0, LeaderEpoch: p.LeaderEpoch, PartitionEpoch: p.PartitionEpoch, NewIsr: ids(1, 2)}
	second := first
	second.NewIsr = ids(1, 3)
	got, err := c.AlterPartition(first)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.AlterPartition(second); !errors.Is(err, ErrInvalidUpdateVersion) {
		t.Fatalf("second request on the same version: err = %v", err)
	}
	// Retrying with the returned version succeeds.
	second.PartitionEpoch = got.PartitionEpoch
	if _, err := c.AlterPartition(second); err != nil {
		t.Fatalf("retry: %v", err)
	}

	// Broker 1 fails; 3 is elected; 1 comes back still believing it leads.
	_ = c.SetBrokerState(1, BrokerOffline)
	if _, err := c.ElectReplica(tp0, 3); err != nil {
		t.Fatal(err)
	}
	_ = c.SetBrokerState(1, BrokerOnline)
	p, _ = c.Partition(tp0)
	zombie := AlterPartitionRequest{BrokerID: 1, Partition: tp0, LeaderEpoch: p.LeaderEpoch - 1, PartitionEpoch: p.PartitionEpoch, NewIsr: ids(1)}
	if _, err := c.AlterPartition(zombie); !errors.Is(err, ErrFencedLeaderEpoch) {
		t.Fatalf("zombie leader: err = %v", err)
	}
	// Even with the right epochs, broker 1 is not the leader.
	zombie.LeaderEpoch = p.LeaderEpoch
	if _, err := c.AlterPartition(zombie); !errors.Is(err, ErrNotLeaderOrFollower) {
		t.Fatalf("non-leader with current epochs: err = %v", err)
	}
}

// The leader's AlterPartition is applied but the answer is lost; the leader
// retries the same request. The controller answers with the current state
// (Kafka's ZooKeeper controller, LeaderAndIsr.equalsAllowStalePartitionEpoch)
// instead of INVALID_UPDATE_VERSION, which would leave the leader behind the
// controller's ISR. Only the leader, in the current leader epoch, proposing
// exactly the current ISR gets that answer.
func TestAlterPartitionRetryIsIdempotent(t *testing.T) {
	c := setup(t, partitionSetup{assignment: ids(1, 2, 3), leader: 1, epoch: 4, isr: ids(1, 2, 3), states: online(1, 2, 3, 4)})
	shrink := AlterPartitionRequest{BrokerID: 1, Partition: tp0, LeaderEpoch: 4, PartitionEpoch: 14, NewIsr: ids(1, 3)}
	applied, err := c.AlterPartition(shrink)
	if err != nil {
		t.Fatal(err)
	}
	want := LeaderAndIsr{Leader: 1, LeaderEpoch: 4, Isr: ids(1, 3), PartitionEpoch: 15}
	if !equalLeaderAndIsr(applied, want) {
		t.Fatalf("applied %v, want %v", applied, want)
	}
	retry := shrink
	retry.NewIsr = ids(3, 1) // the same set, in another order
	for range 2 {
		got, err := c.AlterPartition(retry)
		if err != nil {
			t.Fatalf("retry of an applied change: %v", err)
		}
		if !equalLeaderAndIsr(got, want) {
			t.Fatalf("retry answered %v, want %v", got, want)
		}
		if p, _ := c.Partition(tp0); !equalLeaderAndIsr(p.LeaderAndIsr, want) {
			t.Fatalf("retry changed the state to %v", p.LeaderAndIsr)
		}
	}

	// Still a retry after an unrelated partition-epoch bump: the answer is
	// the state now, newer than the one the change produced.
	if err := c.AlterPartitionReassignment(tp0, ids(1, 3)); err != nil {
		t.Fatal(err)
	}
	got, err := c.AlterPartition(retry)
	if want := (LeaderAndIsr{Leader: 1, LeaderEpoch: 4, Isr: ids(1, 3), PartitionEpoch: 16}); err != nil || !equalLeaderAndIsr(got, want) {
		t.Fatalf("retry after a reassignment bump: %v, %v; want %v", got, err, want)
	}

	before, _ := c.Partition(tp0)
	for _, tc := range []struct {
		name    string
		req     AlterPartitionRequest
		wantErr ErrorCode
	}{
		{"another ISR on the stale version",
			AlterPartitionRequest{BrokerID: 1, LeaderEpoch: 4, PartitionEpoch: 14, NewIsr: ids(1)}, ErrInvalidUpdateVersion},
		{"a superset of the current ISR",
			AlterPartitionRequest{BrokerID: 1, LeaderEpoch: 4, PartitionEpoch: 14, NewIsr: ids(1, 2, 3)}, ErrInvalidUpdateVersion},
		{"not the leader, even with the current ISR",
			AlterPartitionRequest{BrokerID: 3, LeaderEpoch: 4, PartitionEpoch: 14, NewIsr: ids(1, 3)}, ErrNotLeaderOrFollower},
		{"an older leader epoch, even with the current ISR",
			AlterPartitionRequest{BrokerID: 1, LeaderEpoch: 3, PartitionEpoch: 14, NewIsr: ids(1, 3)}, ErrFencedLeaderEpoch},
	} {
		tc.req.Partition = tp0
		if _, err := c.AlterPartition(tc.req); !errors.Is(err, tc.wantErr) {
			t.Errorf("%s: err = %v, want %v", tc.name, err, tc.wantErr)
		}
	}
	if after, _ := c.Partition(tp0); !equalState(before, after) {
		t.Fatalf("refused requests changed the state: %v -> %v", before, after)
	}

	// A leader that went offline since its election is fenced, retry or not.
	_ = c.SetBrokerState(1, BrokerOffline)
	_ = c.SetBrokerState(1, BrokerOnline)
	if _, err := c.AlterPartition(retry); !errors.Is(err, ErrFencedLeaderEpoch) {
		t.Fatalf("retry from a leader lost since its election: err = %v", err)
	}
}

// KRaft's handleBrokerFenced (FenceFailedReplicas): a failed follower
// leaves the ISR with a partition epoch bump, the leader epoch unchanged;
// a failed leader is unset; off, nothing but the leader changes.
func TestFenceReplica(t *testing.T) {
	for _, fence := range []bool{false, true} {
		cfg := DefaultConfig()
		cfg.FenceFailedReplicas = fence
		c := mustNew(t, cfg, 1, 2, 3)
		if err := c.CreateTopic("t", [][]BrokerID{{1, 2, 3}}); err != nil {
			t.Fatal(err)
		}
		electAll(t, c)
		before, _ := c.Partition(TopicPartition{"t", 0})
		_, _, fenced, err := c.OnBrokerFailureFencing(3)
		if err != nil {
			t.Fatal(err)
		}
		after, _ := c.Partition(TopicPartition{"t", 0})
		if !fence {
			if len(fenced) != 0 || !slices.Equal(after.Isr, before.Isr) || after.PartitionEpoch != before.PartitionEpoch {
				t.Fatalf("ZooKeeper release fenced: %v -> %v", before, after)
			}
			continue
		}
		if !slices.Equal(fenced, []TopicPartition{{"t", 0}}) || slices.Contains(after.Isr, 3) ||
			after.PartitionEpoch != before.PartitionEpoch+1 || after.LeaderEpoch != before.LeaderEpoch || after.Leader != before.Leader {
			t.Fatalf("fenced %v: %v -> %v", fenced, before, after)
		}
		// The leader's AlterPartition on the old partition epoch is stale.
		_, err = c.AlterPartition(AlterPartitionRequest{BrokerID: before.Leader, Partition: TopicPartition{"t", 0},
			LeaderEpoch: before.LeaderEpoch, PartitionEpoch: before.PartitionEpoch, NewIsr: []BrokerID{before.Leader}})
		if !errors.Is(err, ErrInvalidUpdateVersion) {
			t.Fatalf("stale AlterPartition: %v, want INVALID_UPDATE_VERSION", err)
		}
		// The seeded bug takes it.
		cfg.AcceptStalePartitionEpoch = true
		if err := c.SetConfig(cfg); err != nil {
			t.Fatal(err)
		}
		if _, err := c.AlterPartition(AlterPartitionRequest{BrokerID: before.Leader, Partition: TopicPartition{"t", 0},
			LeaderEpoch: before.LeaderEpoch, PartitionEpoch: before.PartitionEpoch, NewIsr: []BrokerID{before.Leader}}); err != nil {
			t.Fatalf("mutant refused the stale request: %v", err)
		}
		// A failed leader is not fenced: the partition gets a new leader.
		_, _, fenced, _ = c.OnBrokerFailureFencing(before.Leader)
		if p, _ := c.Partition(TopicPartition{"t", 0}); len(fenced) != 0 || p.Leader == before.Leader {
			t.Fatalf("after the leader failed: %v, fenced %v", p, fenced)
		}
	}
}
