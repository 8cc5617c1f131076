package cluster

import (
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/hwepoch/hwepoch/impl/broker"
)

// The ISR's lag rule on the simulated clock. The spec's ShrinkIsr may drop
// any follower at any time, so no trace and no model validation can tell
// when the implementation drops one: these checks hold the leader to
// Kafka's rule itself (Partition.getOutOfSyncReplicas: a follower leaves
// once now - lastCaughtUpTimeMs > replica.lag.time.max.ms;
// Replica.updateFetchState: lastCaughtUpTimeMs is the fetch's time when it
// reaches the leader's LEO, the previous fetch's time when it reaches the
// LEO the leader had then). They step a three-broker cluster (broker 1
// leads [1 2 3], acks=all, min.insync.replicas=2, replica.lag.time.max.ms
// 30ms) with a clock they move themselves, fire the isr-expiration timer,
// and return what went wrong, if anything. mutants seeds bugs (the
// mutation check's); none otherwise.

// lagCluster starts the cluster both checks use, with both followers
// caught up at time 0, a record produced, and follower 2 holding it and
// fetching at the LEO: the ISR is [1 2 3] and the acks=all write waits for
// follower 3.
func lagCluster(dir string, now *atomic.Int64, mutants []broker.Mutant) (*Cluster, error) {
	cfg := DefaultConfig(dir)
	cfg.Brokers, cfg.MinInsyncReplicas, cfg.Simulated, cfg.LossyNetwork = 3, 2, true, true
	cfg.Timing.ReplicaLagTimeMax = 30 * time.Millisecond
	cfg.Now = func() time.Time { return simEpoch.Add(time.Duration(now.Load())) }
	cfg.Mutants = mutants
	c, err := New(cfg)
	if err != nil {
		return nil, err
	}
	steps := []Step{S(broker.ActHandleLeaderAndIsr, 1), S(broker.ActHandleLeaderAndIsr, 2), S(broker.ActHandleLeaderAndIsr, 3)}
	for _, f := range []int64{2, 3} {
		steps = append(steps, S(broker.ActSendOffsetsForLeaderEpoch, f), S(broker.ActHandleOffsetsForLeaderEpoch, 1, f),
			S(broker.ActHandleOffsetsForLeaderEpochResponse, f), S(broker.ActSendFetch, f), S(broker.ActHandleFetch, 1, f),
			S(broker.ActHandleFetchResponse, f))
	}
	// Both followers have fetched at the LEO (0) at time 0: caught up.
	steps = append(steps, S(broker.ActProduce, 1))
	for range 2 { // follower 2 fetches the record, then fetches at the LEO
		steps = append(steps, S(broker.ActSendFetch, 2), S(broker.ActHandleFetch, 1, 2), S(broker.ActHandleFetchResponse, 2))
	}
	if err := c.ApplyAll(steps); err != nil {
		c.Close()
		return nil, err
	}
	if got, acked := c.Snapshot().Controller.Isr, len(c.Producer().Acked()); !slices.Equal(got, []int32{1, 2, 3}) || acked != 0 {
		c.Close()
		return nil, fmt.Errorf("setup: ISR %v, %d acknowledged; want [1 2 3] and none (3 lacks the record)", got, acked)
	}
	return c, nil
}

// CheckIsrLagFromCaughtUp: follower 3 keeps fetching from offset 0, below
// the LEO 1, every 10ms (each response lost), so it never catches up
// again after time 0. Up to replica.lag.time.max.ms it stays in the ISR;
// past it the timer removes it and the acks=all write completes. Measuring
// the lag from the last fetch (the lag-from-last-fetch seeded bug) keeps
// it in for ever; counting it caught up at its fetch at 10ms, which
// reached the LEO of its fetch at 0 (caught-up-now), keeps it in at 40ms.
func CheckIsrLagFromCaughtUp(dir string, mutants ...broker.Mutant) error {
	var now atomic.Int64
	c, err := lagCluster(dir, &now, mutants)
	if err != nil {
		return err
	}
	defer c.Close()
	lagMax := c.cfg.Timing.ReplicaLagTimeMax
	for i := 1; i <= 5; i++ {
		now.Store(int64(time.Duration(i) * 10 * time.Millisecond))
		if err := c.ApplyAll([]Step{S(broker.ActSendFetch, 2), S(broker.ActHandleFetch, 1, 2), S(broker.ActHandleFetchResponse, 2),
			S(broker.ActSendFetch, 3), S(broker.ActHandleFetch, 1, 3), S(broker.ActLoseMessage, 3)}); err != nil {
			return err
		}
		if err := checkLag(c, time.Duration(now.Load()), time.Duration(now.Load()) > lagMax, "3 fetching below the LEO since 0"); err != nil {
			return err
		}
	}
	return nil
}

// CheckIsrLagFromPreviousFetch: follower 3 fetches at 20, 40 and 60ms,
// each fetch reaching exactly the LEO the leader had at its previous fetch
// and never the LEO now (a record is written after each), then stops.
// Kafka counts it caught up as of its previous fetch each time: 20ms back
// at most while it fetches, so it stays in the ISR; caught up last as of
// 40ms (its fetch at 60), it leaves at 80ms, and every record is then
// acknowledged. Counting it caught up at the fetch itself (the
// caught-up-now seeded bug), or measuring the lag from the last fetch
// (lag-from-last-fetch), keeps it in until 100ms.
func CheckIsrLagFromPreviousFetch(dir string, mutants ...broker.Mutant) error {
	var now atomic.Int64
	c, err := lagCluster(dir, &now, mutants)
	if err != nil {
		return err
	}
	defer c.Close()
	fetch2 := []Step{S(broker.ActSendFetch, 2), S(broker.ActHandleFetch, 1, 2), S(broker.ActHandleFetchResponse, 2)}
	caughtUp := time.Duration(0) // Kafka's lastCaughtUpTimeMs of follower 3
	var lastFetch time.Duration  // and its last fetch's time
	lagMax := c.cfg.Timing.ReplicaLagTimeMax
	for ms := 10; ms <= 80; ms += 10 {
		t := time.Duration(ms) * time.Millisecond
		now.Store(int64(t))
		var steps []Step
		if ms == 20 || ms == 40 || ms == 60 {
			// Its fetch offset is the LEO of its previous fetch: caught up
			// as of that fetch. The response brings the record written
			// since; another is written after it.
			caughtUp, lastFetch = lastFetch, t
			steps = append(steps, S(broker.ActSendFetch, 3), S(broker.ActHandleFetch, 1, 3), S(broker.ActHandleFetchResponse, 3),
				S(broker.ActProduce, 1))
		}
		// Follower 2 fetches twice: the new record (if any), then at the LEO.
		steps = append(steps, fetch2...)
		steps = append(steps, fetch2...)
		if err := c.ApplyAll(steps); err != nil {
			return err
		}
		why := fmt.Sprintf("3 reached at its fetch at %v the LEO of %v", lastFetch, caughtUp)
		if err := checkLag(c, t, t-caughtUp > lagMax, why); err != nil {
			return err
		}
	}
	return nil
}

// checkLag fires the leader's isr-expiration timer at now and checks the
// ISR: [1 2 3] while follower 3 is within the limit, [1 2] with every
// record of the leader acknowledged once it is past it.
func checkLag(c *Cluster, now time.Duration, lagging bool, why string) error {
	if err := c.FireTimer(1, broker.TimerIsrExpiration); err != nil {
		return err
	}
	lagMax := c.cfg.Timing.ReplicaLagTimeMax
	switch got, acked := c.Snapshot().Controller.Isr, len(c.Producer().Acked()); {
	case !lagging && !slices.Equal(got, []int32{1, 2, 3}):
		return fmt.Errorf("at %v, within replica.lag.time.max.ms %v (%s), the ISR is %v: 3 left too early", now, lagMax, why, got)
	case lagging && !slices.Equal(got, []int32{1, 2}):
		return fmt.Errorf("at %v, past replica.lag.time.max.ms %v (%s), the ISR is %v, want [1 2]", now, lagMax, why, got)
	case lagging && int64(acked) != c.Snapshot().Brokers[0].Partition.LEO:
		return fmt.Errorf("at %v 3 left the ISR but only %d acks=all writes of %d were acknowledged", now, acked, c.Snapshot().Brokers[0].Partition.LEO)
	}
	return nil
}
