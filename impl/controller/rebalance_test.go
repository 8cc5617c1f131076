package controller

import (
	"errors"
	"fmt"
	"slices"
	"testing"
)

func mustNew(t *testing.T, cfg Config, live ...BrokerID) *Controller {
	t.Helper()
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range live {
		if err := c.SetBrokerState(id, BrokerOnline); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

func electAll(t *testing.T, c *Controller) {
	t.Helper()
	if _, errs := c.ElectLeaders(c.OfflinePartitions(), OfflinePartitionLeaderElectionStrategy); errs != nil {
		t.Fatalf("initial elections: %v", errs)
	}
}

// expandIsr has each leader add the given broker back to its ISR, as the
// leaders' AlterPartition would once the broker has caught up.
func expandIsr(t *testing.T, c *Controller, b BrokerID) {
	t.Helper()
	for _, tp := range c.Partitions() {
		p, _ := c.Partition(tp)
		if slices.Contains(p.Isr, b) || !slices.Contains(p.Replicas(), b) || p.Leader == NoLeader {
			continue
		}
		_, err := c.AlterPartition(AlterPartitionRequest{BrokerID: p.Leader, Partition: tp,
			LeaderEpoch: p.LeaderEpoch, PartitionEpoch: p.PartitionEpoch, NewIsr: append(p.Isr, b)})
		if err != nil {
			t.Fatalf("expand %s: %v", tp, err)
		}
	}
}

func imbalanceOf(c *Controller, b BrokerID) BrokerImbalance {
	for _, x := range c.LeaderImbalance() {
		if x.Broker == b {
			return x
		}
	}
	return BrokerImbalance{Broker: b}
}

// 3 brokers, 6 partitions, each broker preferred for two; broker 0 fails
// over and comes back.
func TestRebalanceAfterFailover(t *testing.T) {
	c := mustNew(t, DefaultConfig(), 0, 1, 2)
	assignment := [][]BrokerID{{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {1, 0, 2}, {2, 1, 0}}
	if err := c.CreateTopic("t", assignment); err != nil {
		t.Fatal(err)
	}
	electAll(t, c)
	for _, b := range c.LeaderImbalance() {
		if b.Preferred != 2 || len(b.NotLeading) != 0 {
			t.Fatalf("balanced start: %+v", b)
		}
	}

	results, errs, err := c.OnBrokerFailure(0)
	if err != nil || errs != nil {
		t.Fatal(err, errs)
	}
	p0 := TopicPartition{"t", 0}
	p3 := TopicPartition{"t", 3}
	if len(results) != 2 || results[0].Partition != p0 || results[0].Elected.Leader != 1 ||
		results[1].Partition != p3 || results[1].Elected.Leader != 2 {
		t.Fatalf("failover elections: %+v", results)
	}
	b0 := imbalanceOf(c, 0)
	if b0.Preferred != 2 || !slices.Equal(b0.NotLeading, []TopicPartition{p0, p3}) || b0.Ratio() != 1.0 {
		t.Fatalf("broker 0 after failover: %+v ratio %v", b0, b0.Ratio())
	}
	for _, b := range []BrokerID{1, 2} {
		if x := imbalanceOf(c, b); x.Ratio() != 0 || x.Preferred != 2 {
			t.Fatalf("broker %d: %+v", b, x)
		}
	}

	// Broker 0 is down: imbalanced, but it cannot lead.
	if rs, es := c.CheckImbalance(); rs != nil || es != nil {
		t.Fatalf("rebalance towards a dead broker: %v %v", rs, es)
	}
	// Back, but not yet in the ISRs of p0 and p3: still nothing.
	if rs, es, err := c.OnBrokerStartup(0); rs != nil || es != nil || err != nil {
		t.Fatalf("startup: %v %v %v", rs, es, err)
	}
	if rs, es := c.CheckImbalance(); rs != nil || es != nil {
		t.Fatalf("rebalance towards a broker outside the ISR: %v %v", rs, es)
	}
	// Caught up: the leaders add it back; now the rebalance moves p0 and p3.
	expandIsr(t, c, 0)
	rs, es := c.CheckImbalance()
	if es != nil || len(rs) != 2 {
		t.Fatalf("rebalance: %v %v", rs, es)
	}
	for i, tp := range []TopicPartition{p0, p3} {
		r := rs[i]
		if r.Partition != tp || r.Strategy != PreferredReplicaPartitionLeaderElectionStrategy || r.Elected.Leader != 0 ||
			r.Elected.LeaderEpoch != 2 || r.Previous.LeaderEpoch != 1 {
			t.Errorf("election %d: %+v", i, r)
		}
	}
	for _, b := range c.LeaderImbalance() {
		if len(b.NotLeading) != 0 {
			t.Errorf("still imbalanced: %+v", b)
		}
	}
	if rs, es := c.CheckImbalance(); rs != nil || es != nil {
		t.Fatalf("second check not a no-op: %v %v", rs, es)
	}
}

// Ten partitions preferred by broker 0; k of them led by broker 1.
func TestRebalanceThreshold(t *testing.T) {
	tests := []struct {
		percentage, notLeading int
		wantElections          int
	}{
		{10, 0, 0},
		{10, 1, 0}, // ratio 0.1 is not above 10%
		{10, 2, 2},
		{25, 2, 0},
		{25, 3, 3},
		{0, 1, 1},
		{100, 10, 0}, // a ratio cannot exceed 100%
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%d%%_%d_of_10", tc.percentage, tc.notLeading), func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.LeaderImbalancePerBrokerPercentage = tc.percentage
			c := mustNew(t, cfg, 0, 1)
			assignment := make([][]BrokerID, 10)
			for i := range assignment {
				assignment[i] = []BrokerID{0, 1}
			}
			if err := c.CreateTopic("t", assignment); err != nil {
				t.Fatal(err)
			}
			electAll(t, c)
			for i := range tc.notLeading {
				if _, err := c.ElectReplica(TopicPartition{"t", int32(i)}, 1); err != nil {
					t.Fatal(err)
				}
			}
			b := imbalanceOf(c, 0)
			if want := float64(tc.notLeading) / 10; b.Ratio() != want {
				t.Fatalf("ratio %v, want %v", b.Ratio(), want)
			}
			rs, es := c.CheckImbalance()
			if es != nil || len(rs) != tc.wantElections {
				t.Fatalf("elections %d (%v), want %d", len(rs), es, tc.wantElections)
			}
			for _, r := range rs {
				if r.Elected.Leader != 0 {
					t.Errorf("%+v", r)
				}
			}
		})
	}
}

func TestRebalanceDisabledAndNeverElected(t *testing.T) {
	cfg := DefaultConfig()
	cfg.AutoLeaderRebalanceEnable = false
	c := mustNew(t, cfg, 0, 1)
	if err := c.CreateTopic("t", [][]BrokerID{{0, 1}, {0, 1}}); err != nil {
		t.Fatal(err)
	}
	// Partition 0 elected with 1 leading; partition 1 never elected.
	if _, err := c.ElectReplica(TopicPartition{"t", 0}, 1); err != nil {
		t.Fatal(err)
	}
	b := imbalanceOf(c, 0)
	if b.Preferred != 2 || len(b.NotLeading) != 1 || b.Ratio() != 0.5 {
		t.Fatalf("never-elected partition must count only in the denominator: %+v", b)
	}
	if rs, es := c.CheckImbalance(); rs != nil || es != nil {
		t.Fatalf("auto.leader.rebalance.enable=false but elections ran: %v", rs)
	}
	cfg.AutoLeaderRebalanceEnable = true
	if err := c.SetConfig(cfg); err != nil {
		t.Fatal(err)
	}
	if rs, _ := c.CheckImbalance(); len(rs) != 1 || rs[0].Partition != (TopicPartition{"t", 0}) {
		t.Fatalf("enabled: %v", rs)
	}
}

// Many topics, partitions and brokers: a broker fails, returns, catches up;
// one rebalance restores every preferred leader, and only those move.
func TestRebalanceAtScale(t *testing.T) {
	const brokers, topics, partitions = 7, 20, 30
	all := make([]BrokerID, brokers)
	for i := range all {
		all[i] = BrokerID(i)
	}
	c := mustNew(t, DefaultConfig(), all...)
	preferredBy := make(map[BrokerID]int)
	for ti := range topics {
		a := make([][]BrokerID, partitions)
		for p := range a {
			head := BrokerID((ti + p) % brokers)
			a[p] = []BrokerID{head, (head + 1) % brokers, (head + 3) % brokers}
			preferredBy[head]++
		}
		if err := c.CreateTopic(fmt.Sprintf("topic-%02d", ti), a); err != nil {
			t.Fatal(err)
		}
	}
	electAll(t, c)
	const victim = 3
	moved, errs, err := c.OnBrokerFailure(victim)
	if err != nil || errs != nil {
		t.Fatal(err, errs)
	}
	if len(moved) != preferredBy[victim] {
		t.Fatalf("failover moved %d partitions, broker %d led %d", len(moved), victim, preferredBy[victim])
	}
	for _, b := range c.LeaderImbalance() {
		want := 0.0
		if b.Broker == victim {
			want = 1
		}
		if b.Ratio() != want || b.Preferred != preferredBy[b.Broker] {
			t.Fatalf("broker %d: ratio %v preferred %d", b.Broker, b.Ratio(), b.Preferred)
		}
	}
	if _, _, err := c.OnBrokerStartup(victim); err != nil {
		t.Fatal(err)
	}
	expandIsr(t, c, victim)
	before := c.Snapshot()
	rs, es := c.CheckImbalance()
	if es != nil || len(rs) != preferredBy[victim] {
		t.Fatalf("rebalance made %d elections (%v), want %d", len(rs), es, preferredBy[victim])
	}
	after := c.Snapshot()
	for tp, p := range after.Partitions {
		if p.Leader != p.PreferredReplica() {
			t.Errorf("%s led by %d, prefers %d", tp, p.Leader, p.PreferredReplica())
		}
		if b := before.Partitions[tp]; b.PreferredReplica() != victim && b.LeaderEpoch != p.LeaderEpoch {
			t.Errorf("%s moved although not preferred by %d", tp, victim)
		}
	}
}

func TestOnBrokerFailureWithoutEligibleLeader(t *testing.T) {
	c := mustNew(t, DefaultConfig(), 0, 1)
	if err := c.CreateTopic("t", [][]BrokerID{{0}}); err != nil {
		t.Fatal(err)
	}
	if err := c.CreateTopic("u", [][]BrokerID{{0, 1}}); err != nil {
		t.Fatal(err)
	}
	electAll(t, c)
	_, errs, err := c.OnBrokerFailure(0)
	if err != nil {
		t.Fatal(err)
	}
	if e := errs[TopicPartition{"t", 0}]; !errors.Is(e, ErrEligibleLeadersNotAvailable) || len(errs) != 1 {
		t.Fatalf("errs = %v", errs)
	}
	if got := c.OfflinePartitions(); !slices.Equal(got, []TopicPartition{{"t", 0}}) {
		t.Fatalf("offline partitions %v", got)
	}
	// The dead leader is unset (the spec's ctrlLeader = None; Kafka's
	// NoLeader) and the epochs stay until an election.
	if p, _ := c.Partition(TopicPartition{"t", 0}); p.Leader != NoLeader || p.LeaderEpoch != 0 || p.PartitionEpoch != 0 {
		t.Fatalf("failed election: %v, want no leader in epoch 0", p)
	}
	rs, errs, err := c.OnBrokerStartup(0)
	if err != nil || errs != nil || len(rs) != 1 || rs[0].Elected.Leader != 0 || rs[0].Elected.LeaderEpoch != 1 {
		t.Fatalf("restart elections: %v %v %v", rs, errs, err)
	}
}
