package controller

import (
	"maps"
	"slices"
)

// BrokerImbalance is one broker's line of the auto leader rebalance check.
type BrokerImbalance struct {
	Broker BrokerID
	// Preferred counts the partitions whose preferred replica (head of
	// Replicas()) is this broker.
	Preferred int
	// NotLeading lists those of them that have been elected at least once
	// and are not led by this broker (led by another broker or by nobody),
	// sorted. Kafka counts only partitions with leadership info, so a
	// partition never elected is in Preferred but not here.
	NotLeading []TopicPartition
}

// Ratio is Kafka's imbalance ratio, len(NotLeading) / Preferred.
func (b BrokerImbalance) Ratio() float64 {
	if b.Preferred == 0 {
		return 0
	}
	return float64(len(b.NotLeading)) / float64(b.Preferred)
}

// Exceeds reports whether the ratio is strictly above percentage/100, as
// Kafka's `imbalanceRatio > leaderImbalancePerBrokerPercentage / 100`. It
// compares integers (notLeading*100 > percentage*preferred), which is the
// same test without rounding.
func (b BrokerImbalance) Exceeds(percentage int) bool {
	return int64(len(b.NotLeading))*100 > int64(percentage)*int64(b.Preferred)
}

// LeaderImbalance computes every broker's imbalance, ordered by broker id.
// Only brokers that are the preferred replica of some partition appear.
func (c *Controller) LeaderImbalance() []BrokerImbalance {
	byBroker := make(map[BrokerID]*BrokerImbalance)
	for _, tp := range c.Partitions() {
		p := c.partitions[tp]
		preferred := p.PreferredReplica()
		b := byBroker[preferred]
		if b == nil {
			b = &BrokerImbalance{Broker: preferred}
			byBroker[preferred] = b
		}
		b.Preferred++
		// LeaderEpoch < 0: never elected, so Kafka has no leadership info.
		if p.LeaderEpoch >= 0 && p.Leader != preferred {
			b.NotLeading = append(b.NotLeading, tp)
		}
	}
	out := make([]BrokerImbalance, 0, len(byBroker))
	for _, id := range slices.Sorted(maps.Keys(byBroker)) {
		out = append(out, *byBroker[id])
	}
	return out
}

// CheckImbalance is one run of Kafka's checkAndTriggerAutoLeaderRebalance:
// for every broker whose imbalance ratio exceeds
// leader.imbalance.per.broker.percentage, a preferred election for each of
// its partitions that it does not lead and where it can lead (it is live
// and in the ISR: canPreferredReplicaBeLeader). Nothing happens when
// auto.leader.rebalance.enable is false. The periodic trigger
// (leader.imbalance.check.interval.seconds) belongs to the caller. Returns
// the elections made, ordered by broker then partition, and the failures
// (nil if none).
func (c *Controller) CheckImbalance() ([]ElectionResult, map[TopicPartition]error) {
	if !c.cfg.AutoLeaderRebalanceEnable {
		return nil, nil
	}
	var results []ElectionResult
	var errs map[TopicPartition]error
	for _, b := range c.LeaderImbalance() {
		if !b.Exceeds(c.cfg.LeaderImbalancePerBrokerPercentage) {
			continue
		}
		var candidates []TopicPartition
		for _, tp := range b.NotLeading {
			p := c.partitions[tp]
			replicas := p.Replicas()
			if _, ok := PreferredReplicaPartitionLeaderElection(replicas, p.Isr, c.filterLive(replicas)); ok {
				candidates = append(candidates, tp)
			}
		}
		rs, es := c.ElectLeaders(candidates, PreferredReplicaPartitionLeaderElectionStrategy)
		results = append(results, rs...)
		for tp, err := range es {
			if errs == nil {
				errs = make(map[TopicPartition]error)
			}
			errs[tp] = err
		}
	}
	return results, errs
}
