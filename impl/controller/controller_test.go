package controller

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
)

// A new partition is the spec's Init: ctrlLeader = None, ctrlEpoch = -1,
// ctrlIsr = Replicas; the first election gives epoch 0.
func TestNewPartitionIsSpecInit(t *testing.T) {
	c := mustNew(t, DefaultConfig(), 1, 2, 3)
	if err := c.CreateTopic("t", [][]BrokerID{{1, 2, 3}}); err != nil {
		t.Fatal(err)
	}
	p, ok := c.Partition(tp0)
	if !ok {
		t.Fatal("partition missing")
	}
	want := LeaderAndIsr{Leader: NoLeader, LeaderEpoch: -1, Isr: ids(1, 2, 3), PartitionEpoch: -1}
	if !equalLeaderAndIsr(p.LeaderAndIsr, want) {
		t.Fatalf("new partition %v, want %v", p.LeaderAndIsr, want)
	}
	if got := c.OfflinePartitions(); !slices.Equal(got, []TopicPartition{tp0}) {
		t.Fatalf("new partition not offline: %v", got)
	}
	r, err := c.Elect(tp0, OfflinePartitionLeaderElectionStrategy)
	if err != nil {
		t.Fatal(err)
	}
	if want := (LeaderAndIsr{Leader: 1, LeaderEpoch: 0, Isr: ids(1, 2, 3), PartitionEpoch: 0}); !equalLeaderAndIsr(r.Elected, want) {
		t.Fatalf("first election %v, want %v", r.Elected, want)
	}
}

// A leader that fails and restarts has lost its leadership: the partition
// stays offline until an election, and the restarted broker cannot alter
// the ISR with its old epoch.
func TestRestartedLeaderNeedsElection(t *testing.T) {
	c := mustNew(t, DefaultConfig(), 1, 2)
	if err := c.CreateTopic("t", [][]BrokerID{{1, 2}}); err != nil {
		t.Fatal(err)
	}
	electAll(t, c)
	_ = c.SetBrokerState(1, BrokerOffline)
	_ = c.SetBrokerState(1, BrokerOnline)
	if got := c.OfflinePartitions(); !slices.Equal(got, []TopicPartition{tp0}) {
		t.Fatalf("offline partitions %v", got)
	}
	if s := c.Snapshot(); !slices.Equal(s.OfflinePartitions, []TopicPartition{tp0}) {
		t.Fatalf("snapshot offline partitions %v", s.OfflinePartitions)
	}
	_, err := c.AlterPartition(AlterPartitionRequest{BrokerID: 1, Partition: tp0, LeaderEpoch: 0, PartitionEpoch: 0, NewIsr: ids(1)})
	if !errors.Is(err, ErrFencedLeaderEpoch) {
		t.Fatalf("restarted leader's AlterPartition: %v", err)
	}
	r, err := c.ElectReplica(tp0, 1)
	if err != nil || r.Elected.LeaderEpoch != 1 {
		t.Fatalf("re-election: %v %v", r, err)
	}
	if got := c.OfflinePartitions(); got != nil {
		t.Fatalf("still offline after election: %v", got)
	}
	if _, err := c.AlterPartition(AlterPartitionRequest{BrokerID: 1, Partition: tp0, LeaderEpoch: 1, PartitionEpoch: 1, NewIsr: ids(1)}); err != nil {
		t.Fatalf("AlterPartition after re-election: %v", err)
	}
}

func TestCreateTopicValidation(t *testing.T) {
	tests := []struct {
		name       string
		topic      string
		assignment [][]BrokerID
		want       ErrorCode
	}{
		{"empty name", "", [][]BrokerID{{1}}, ErrInvalidTopic},
		{"no partitions", "t", nil, ErrInvalidPartitions},
		{"empty replica list", "t", [][]BrokerID{{}}, ErrInvalidReplicaAssignment},
		{"duplicate replica", "t", [][]BrokerID{{1, 2, 1}}, ErrInvalidReplicaAssignment},
		{"negative broker", "t", [][]BrokerID{{1, -2}}, ErrInvalidReplicaAssignment},
		{"mixed replication factors", "t", [][]BrokerID{{1, 2}, {1}}, ErrInvalidReplicaAssignment},
		{"exists", "x", [][]BrokerID{{1}}, ErrTopicAlreadyExists},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := mustNew(t, DefaultConfig())
			if err := c.CreateTopic("x", [][]BrokerID{{1}}); err != nil {
				t.Fatal(err)
			}
			if err := c.CreateTopic(tc.topic, tc.assignment); !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if len(c.Partitions()) != 1 {
				t.Fatalf("a refused CreateTopic added partitions: %v", c.Partitions())
			}
		})
	}
}

func TestConfigAndBrokerValidation(t *testing.T) {
	cfg := DefaultConfig()
	if cfg.UncleanLeaderElectionEnable || !cfg.AutoLeaderRebalanceEnable || cfg.LeaderImbalancePerBrokerPercentage != 10 {
		t.Fatalf("defaults differ from Kafka's: %+v", cfg)
	}
	cfg.LeaderImbalancePerBrokerPercentage = -1
	if _, err := New(cfg); !errors.Is(err, ErrInvalidConfig) {
		t.Fatalf("negative percentage: %v", err)
	}
	c := mustNew(t, DefaultConfig())
	if err := c.SetConfig(cfg); !errors.Is(err, ErrInvalidConfig) {
		t.Fatalf("SetConfig negative percentage: %v", err)
	}
	if err := c.SetBrokerState(-1, BrokerOnline); !errors.Is(err, ErrInvalidRequest) {
		t.Fatalf("negative broker: %v", err)
	}
	if err := c.SetBrokerState(1, BrokerState(42)); !errors.Is(err, ErrInvalidRequest) {
		t.Fatalf("bad state: %v", err)
	}
	if c.BrokerState(7) != BrokerOffline || c.IsLive(7) {
		t.Fatal("an unknown broker must be offline")
	}
	_ = c.SetBrokerState(2, BrokerOnline)
	_ = c.SetBrokerState(1, BrokerShuttingDown)
	if got := c.LiveBrokers(); !slices.Equal(got, ids(2)) {
		t.Fatalf("live brokers %v: shutting-down brokers are not live", got)
	}
}

func TestControlledShutdown(t *testing.T) {
	c := mustNew(t, DefaultConfig(), 1, 2, 3)
	if err := c.CreateTopic("a", [][]BrokerID{{1, 2, 3}, {1, 3, 2}, {2, 1, 3}}); err != nil {
		t.Fatal(err)
	}
	if err := c.CreateTopic("single", [][]BrokerID{{1}}); err != nil {
		t.Fatal(err)
	}
	if err := c.CreateTopic("lonely", [][]BrokerID{{1, 2}}); err != nil {
		t.Fatal(err)
	}
	electAll(t, c)
	// lonely-0: broker 2 dropped out of the ISR.
	lonely := TopicPartition{"lonely", 0}
	p, _ := c.Partition(lonely)
	if _, err := c.AlterPartition(AlterPartitionRequest{BrokerID: 1, Partition: lonely, LeaderEpoch: p.LeaderEpoch, PartitionEpoch: p.PartitionEpoch, NewIsr: ids(1)}); err != nil {
		t.Fatal(err)
	}

	results, remaining, err := c.ControlledShutdown(1)
	if err != nil {
		t.Fatal(err)
	}
	if c.BrokerState(1) != BrokerShuttingDown {
		t.Fatalf("state %v", c.BrokerState(1))
	}
	got := map[TopicPartition]LeaderAndIsr{}
	for _, r := range results {
		if r.Strategy != ControlledShutdownPartitionLeaderElectionStrategy {
			t.Errorf("strategy %v", r.Strategy)
		}
		got[r.Partition] = r.Elected
	}
	want := map[TopicPartition]LeaderAndIsr{
		{"a", 0}: {Leader: 2, LeaderEpoch: 1, Isr: ids(2, 3), PartitionEpoch: 1},
		{"a", 1}: {Leader: 3, LeaderEpoch: 1, Isr: ids(3, 2), PartitionEpoch: 1},
	}
	if len(got) != len(want) {
		t.Fatalf("elections %v, want %v", got, want)
	}
	for tp, w := range want {
		if !equalLeaderAndIsr(got[tp], w) {
			t.Errorf("%s: %v, want %v", tp, got[tp], w)
		}
	}
	// single-0 has one replica (Kafka skips it); lonely-0 has nobody else.
	if !slices.Equal(remaining, []TopicPartition{lonely}) {
		t.Fatalf("remaining %v", remaining)
	}
	if _, _, err := c.ControlledShutdown(9); !errors.Is(err, ErrBrokerNotAvailable) {
		t.Fatalf("unknown broker: %v", err)
	}
}

func TestReassignment(t *testing.T) {
	c := mustNew(t, DefaultConfig(), 1, 2, 3, 4, 5)
	if err := c.CreateTopic("t", [][]BrokerID{{1, 2, 3}}); err != nil {
		t.Fatal(err)
	}
	electAll(t, c)
	if err := c.AlterPartitionReassignment(tp0, ids(4, 5, 2)); err != nil {
		t.Fatal(err)
	}
	p, _ := c.Partition(tp0)
	if !slices.Equal(p.Replicas(), ids(4, 5, 2, 1, 3)) || p.PreferredReplica() != 4 || p.PartitionEpoch != 1 {
		t.Fatalf("during reassignment: replicas %v preferred %d epoch %d", p.Replicas(), p.PreferredReplica(), p.PartitionEpoch)
	}
	if err := c.AlterPartitionReassignment(tp0, ids(5)); !errors.Is(err, ErrReassignmentInProgress) {
		t.Fatalf("second reassignment: %v", err)
	}
	// Only 2 of the targets is in the ISR: the reassignment election picks it.
	r, err := c.Elect(tp0, ReassignPartitionLeaderElectionStrategy)
	if err != nil || r.Elected.Leader != 2 || !slices.Equal(r.Elected.Isr, ids(1, 2, 3)) {
		t.Fatalf("reassign election: %+v %v", r, err)
	}
	if _, err := c.CompleteReassignment(tp0); !errors.Is(err, ErrReassignmentInProgress) {
		t.Fatalf("complete before the targets caught up: %v", err)
	}
	expandIsr(t, c, 4)
	expandIsr(t, c, 5)
	r, err = c.CompleteReassignment(tp0)
	if err != nil {
		t.Fatal(err)
	}
	p, _ = c.Partition(tp0)
	if p.Leader != 2 || !sameSet(p.Isr, ids(2, 4, 5)) || !slices.Equal(p.Assignment, ids(4, 5, 2)) || p.TargetReplicas != nil ||
		p.LeaderEpoch != r.Previous.LeaderEpoch+1 {
		t.Fatalf("after completion: %+v", p)
	}
	if _, err := c.CompleteReassignment(tp0); !errors.Is(err, ErrNoReassignmentInProgress) {
		t.Fatalf("complete twice: %v", err)
	}
	// The completed assignment's head is the new preferred leader.
	if rs, _ := c.CheckImbalance(); len(rs) != 1 || rs[0].Elected.Leader != 4 {
		t.Fatalf("rebalance after reassignment: %v", rs)
	}
	if err := c.AlterPartitionReassignment(tp0, ids(1, 1)); !errors.Is(err, ErrInvalidReplicaAssignment) {
		t.Fatalf("bad target: %v", err)
	}
}

// The leader of a completed reassignment moves when it is not a target.
func TestCompleteReassignmentMovesLeader(t *testing.T) {
	c := mustNew(t, DefaultConfig(), 1, 2, 3)
	if err := c.CreateTopic("t", [][]BrokerID{{1, 2}}); err != nil {
		t.Fatal(err)
	}
	electAll(t, c)
	if err := c.AlterPartitionReassignment(tp0, ids(3, 2)); err != nil {
		t.Fatal(err)
	}
	expandIsr(t, c, 3)
	r, err := c.CompleteReassignment(tp0)
	if err != nil {
		t.Fatal(err)
	}
	if r.Elected.Leader != 3 || !slices.Equal(r.Elected.Isr, ids(2, 3)) || r.Elected.LeaderEpoch != 1 {
		t.Fatalf("%+v", r)
	}
}

func TestSnapshotAndPartitionAreCopies(t *testing.T) {
	c := mustNew(t, DefaultConfig(), 1, 2)
	if err := c.CreateTopic("t", [][]BrokerID{{1, 2}}); err != nil {
		t.Fatal(err)
	}
	electAll(t, c)
	s := c.Snapshot()
	sp := s.Partitions[tp0]
	sp.Isr[0] = 99
	sp.Assignment[0] = 99
	p, _ := c.Partition(tp0)
	p.Isr[1] = 98
	r, _ := c.ElectReplica(tp0, 2)
	r.Elected.Isr[0] = 97
	s.Brokers[1] = BrokerOffline
	p, _ = c.Partition(tp0)
	if slices.Contains(p.Isr, 99) || slices.Contains(p.Isr, 98) || slices.Contains(p.Isr, 97) || p.Assignment[0] != 1 || !c.IsLive(1) {
		t.Fatalf("controller state aliased: %+v", p)
	}
}

func TestErrorFormatting(t *testing.T) {
	c := mustNew(t, DefaultConfig(), 1)
	if err := c.CreateTopic("t", [][]BrokerID{{1, 2}}); err != nil {
		t.Fatal(err)
	}
	_, err := c.ElectReplica(tp0, 2)
	var e *Error
	if !errors.As(err, &e) || e.Code != ErrEligibleLeadersNotAvailable || e.Reason != ReasonNotLive || e.Candidate != 2 || e.Partition != tp0 {
		t.Fatalf("%#v", err)
	}
	if got := err.Error(); got != "ELIGIBLE_LEADERS_NOT_AVAILABLE t-0: not live: broker 2 is Offline" {
		t.Fatalf("message %q", got)
	}
	if ErrFencedLeaderEpoch.Error() != "FENCED_LEADER_EPOCH" || int16(ErrFencedLeaderEpoch) != 74 || int16(ErrInvalidUpdateVersion) != 95 {
		t.Fatal("Kafka names or codes changed")
	}
}

// Many goroutines on the wrapper: leaders altering ISRs, elections,
// broker flaps and rebalances. Run with -race; the final state must still
// satisfy the controller's invariants.
func TestSynchronizedConcurrent(t *testing.T) {
	s, err := NewSynchronized(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	for b := range BrokerID(4) {
		if err := s.SetBrokerState(b, BrokerOnline); err != nil {
			t.Fatal(err)
		}
	}
	const parts = 16
	a := make([][]BrokerID, parts)
	for i := range a {
		h := BrokerID(i % 4)
		a[i] = []BrokerID{h, (h + 1) % 4, (h + 2) % 4}
	}
	if err := s.CreateTopic("t", a); err != nil {
		t.Fatal(err)
	}
	s.Do(func(c *Controller) { c.ElectLeaders(c.OfflinePartitions(), OfflinePartitionLeaderElectionStrategy) })

	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 300 {
				tp := TopicPartition{"t", int32((g + i) % parts)}
				switch i % 5 {
				case 0, 1:
					p, ok := s.Partition(tp)
					if !ok || p.Leader == NoLeader {
						continue
					}
					isr := []BrokerID{p.Leader}
					for _, r := range p.Assignment {
						if r != p.Leader && (i+int(r))%2 == 0 {
							isr = append(isr, r)
						}
					}
					_, _ = s.AlterPartition(AlterPartitionRequest{BrokerID: p.Leader, Partition: tp,
						LeaderEpoch: p.LeaderEpoch, PartitionEpoch: p.PartitionEpoch, NewIsr: isr})
				case 2:
					_, _ = s.ElectReplica(tp, BrokerID(i%4))
				case 3:
					if i%30 == 3 {
						b := BrokerID(g % 4)
						_, _, _ = s.OnBrokerFailure(b)
						_, _, _ = s.OnBrokerStartup(b)
					}
				case 4:
					_, _ = s.CheckImbalance()
				}
			}
		}()
	}
	wg.Wait()
	snap := s.Snapshot()
	for tp, p := range snap.Partitions {
		if p.Leader != NoLeader && !slices.Contains(p.Isr, p.Leader) {
			t.Errorf("%s: leader %d not in ISR %v", tp, p.Leader, p.Isr)
		}
		for _, r := range p.Isr {
			if !slices.Contains(p.Replicas(), r) {
				t.Errorf("%s: ISR member %d not a replica", tp, r)
			}
		}
		if p.LeaderEpoch > p.PartitionEpoch {
			t.Errorf("%s: leader epoch %d above partition epoch %d", tp, p.LeaderEpoch, p.PartitionEpoch)
		}
	}
	if len(snap.Partitions) != parts {
		t.Fatal(fmt.Sprint(len(snap.Partitions)))
	}
}
