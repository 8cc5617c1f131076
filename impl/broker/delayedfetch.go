package broker

import (
	"sync"
	"time"

	"github.com/hwepoch/hwepoch/impl/fetcher"
	"github.com/hwepoch/hwepoch/impl/netsim"
	"github.com/hwepoch/hwepoch/impl/protocol"
	"github.com/hwepoch/hwepoch/impl/release"
)

// delayedFetches is the fetch purgatory (Kafka's DelayedFetch), free mode
// only: a follower's fetch that would read nothing and teach the leader
// nothing is held for up to replica.fetch.wait.max.ms, until the leader has
// something new (an append, a HW move, a leadership change). Completing it
// handles it from scratch, as if it had just arrived, so holding it is
// indistinguishable from a slower network: the fetch is then read and
// updated as any other (the spec's HandleFetch and
// UpdateFollowerFetchState).
type delayedFetches struct {
	mu      sync.Mutex
	pending []delayedFetch
}

type delayedFetch struct {
	m        netsim.Message
	req      protocol.FetchRequest
	deadline time.Time
}

// shouldDelay reports whether a follower's fetch can wait: every partition
// is led here in the request's epoch, asks for the LEO, and the leader
// already knows the follower is there.
func (b *Broker) shouldDelay(req protocol.FetchRequest) bool {
	if b.cfg.Stepped || b.cfg.ReplicaFetchWaitMax <= 0 || req.ReplicaID == protocol.ConsumerReplicaID || len(req.Partitions) == 0 {
		return false
	}
	for _, fp := range req.Partitions {
		p, ok := b.rm.get(fp.TopicPartition)
		if !ok {
			return false
		}
		p.mu.Lock()
		rr, known := p.remotes[req.ReplicaID]
		idle := p.requestError(fp.CurrentLeaderEpoch) == protocol.None && fp.FetchOffset == p.leo() &&
			known && rr.leo == fp.FetchOffset
		if idle && p.b.rel.Reconcile == release.ReconcileDivergingEpoch {
			// A divergence is answered at once (ReplicaManager.fetchMessages).
			_, diverging := fetcher.DivergingEpoch(p.log.EpochCache(), p.leo(), fp.FetchOffset, fp.LastFetchedEpoch)
			idle = !diverging
		}
		p.mu.Unlock()
		if !idle {
			return false
		}
	}
	return true
}

func (b *Broker) delayFetch(m netsim.Message, req protocol.FetchRequest) {
	b.fetchWait.mu.Lock()
	b.fetchWait.pending = append(b.fetchWait.pending, delayedFetch{m: m, req: req, deadline: b.now().Add(b.cfg.ReplicaFetchWaitMax)})
	b.fetchWait.mu.Unlock()
}

// completeDelayedFetches answers the held fetches: all of them (something
// changed), or only the expired ones.
func (b *Broker) completeDelayedFetches(onlyExpired bool) {
	now := b.now()
	b.fetchWait.mu.Lock()
	var due, keep []delayedFetch
	for _, d := range b.fetchWait.pending {
		if onlyExpired && now.Before(d.deadline) {
			keep = append(keep, d)
		} else {
			due = append(due, d)
		}
	}
	b.fetchWait.pending = keep
	b.fetchWait.mu.Unlock()
	for _, d := range due {
		// A fetch held while its sender crashed belongs to a dead
		// connection: answering it would let the leader take the dead
		// incarnation's fetch offset as the follower's LEO (the request
		// handler makes the same check before holding it).
		if b.fromDeadConnection(d.req.ReplicaID, d.req.Lamport) {
			continue
		}
		b.answerFetch(d.m, d.req)
	}
}
