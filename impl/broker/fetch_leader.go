package broker

import (
	"fmt"
	"slices"
	"sync"

	"github.com/hwepoch/hwepoch/impl/netsim"
	"github.com/hwepoch/hwepoch/impl/protocol"
)

// A leader serves a Fetch in two steps, as Kafka does
// (ReplicaManager.fetchMessages -> readFromLocalLog, then
// updateFollowerFetchState; Partition.fetchRecords in 3.x): it reads the
// records and its HW under the partition lock, lets the lock go, then
// records the follower's fetch offset as its LEO (and maybe moves its HW
// and the ISR), then answers with what it read. So the response carries
// the HW from before this fetch's update, and other requests may be
// handled between the two steps. They are the spec's HandleFetch and
// UpdateFollowerFetchState.
//
// Free mode does both at once on the request handler goroutine (other
// goroutines may still interleave, between the partition locks). In
// stepped mode the read is parked (servedRead) and the second step waits
// for the driver's UpdateFollowerFetchState.

// servedRead is a follower's fetch whose read is done and whose update and
// response are still to come (the spec's FetchRead message).
type servedRead struct {
	m   netsim.Message
	req protocol.FetchRequest
	// parts are the partitions' reads, in request order; update says which
	// get updateFollowerFetchState.
	parts  []protocol.FetchResponsePartition
	update []bool
	// orphan: the follower crashed after sending the fetch; the update
	// still happens (releases without broker epochs in Fetch), the response
	// goes nowhere.
	orphan bool
}

// servedReads holds the parked reads of stepped mode.
type servedReads struct {
	mu      sync.Mutex
	pending []*servedRead
}

// FetchRead describes a parked read, for snapshots: the spec's FetchRead
// message for one partition.
type FetchRead struct {
	Follower  int32
	Partition protocol.FetchResponsePartition
	Orphan    bool
}

// handleFetch is KafkaApis.handleFetchRequest -> ReplicaManager.fetchMessages
// (spec HandleFetch for a follower).
func (b *Broker) handleFetch(m netsim.Message, req protocol.FetchRequest) {
	b.clock.Witness(req.Lamport)
	if b.shouldDelay(req) {
		b.delayFetch(m, req)
		return
	}
	b.answerFetch(m, req)
}

// answerFetch reads every partition of a fetch now, then completes it at
// once, or, in stepped mode, parks it for UpdateFollowerFetchState when a
// follower's fetch state is to be updated.
func (b *Broker) answerFetch(m netsim.Message, req protocol.FetchRequest) {
	follower := req.ReplicaID != protocol.ConsumerReplicaID
	r := &servedRead{m: m, req: req, orphan: follower && b.fromDeadConnection(req.ReplicaID, req.Lamport)}
	var evs []*Event
	anyUpdate := false
	for _, fp := range req.Partitions {
		p, ok := b.rm.get(fp.TopicPartition)
		if !ok {
			r.parts = append(r.parts, protocol.FetchResponsePartition{
				TopicPartition: fp.TopicPartition, Error: protocol.NotLeaderOrFollower,
				FetchOffset: fp.FetchOffset, CurrentLeaderEpoch: fp.CurrentLeaderEpoch, HighWatermark: -1,
			})
			r.update = append(r.update, false)
			continue
		}
		p.mu.Lock()
		part, update := p.readAsLeader(req.ReplicaID, fp)
		if follower {
			evs = append(evs, b.event(p, ActHandleFetch,
				map[string]int64{"l": int64(b.cfg.BrokerID), "f": int64(req.ReplicaID)}, uint64(m.ID)))
		}
		p.mu.Unlock()
		r.parts = append(r.parts, part)
		r.update = append(r.update, update)
		anyUpdate = anyUpdate || update
	}
	// Stepped mode parks the read until UpdateFollowerFetchState; the
	// simulation completes it at once (two events, one decision).
	if anyUpdate && b.cfg.Stepped && !b.cfg.Simulated {
		b.reads.mu.Lock()
		b.reads.pending = append(b.reads.pending, r)
		b.reads.mu.Unlock()
		b.deliver(evs...)
		return
	}
	if !anyUpdate {
		// Nothing to update: answered with the read (spec HandleFetch's
		// error and divergence branches).
		id := b.respondFetch(r)
		for _, e := range evs {
			if e != nil && id != 0 {
				e.Sent = []uint64{id}
			}
		}
		b.deliver(evs...)
		return
	}
	b.deliver(evs...)
	b.completeRead(r)
}

// respondFetch sends a fetch's response, unless it is an orphan's. It
// returns the message id (0 if none).
func (b *Broker) respondFetch(r *servedRead) uint64 {
	if r.orphan {
		return 0
	}
	resp := protocol.FetchResponse{Partitions: r.parts}
	resp.Header = protocol.Header{CorrelationID: r.req.CorrelationID, Lamport: b.clock.Tick()}
	return b.send(r.m.From, resp)
}

// completeRead is the second step: updateFollowerFetchState for each
// partition read for it, skipped where this broker is no longer the
// leader (its remote replica states are gone), then the response (spec
// UpdateFollowerFetchState). In free mode a follower now in sync is
// proposed for the ISR (Partition.maybeExpandIsr).
func (b *Broker) completeRead(r *servedRead) {
	now := b.now()
	var evs []*Event
	var expand []*Partition
	// 3.7+ (KAFKA-15221) refuses the update of a fetch whose sender has
	// restarted since (its broker epoch is stale).
	stale := !b.staleFetchServed() && b.fromDeadConnection(r.req.ReplicaID, r.req.Lamport)
	for i, part := range r.parts {
		if !r.update[i] {
			continue
		}
		p, ok := b.rm.get(part.TopicPartition)
		if !ok {
			continue
		}
		p.mu.Lock()
		if p.role == Leader && !stale {
			p.updateFollowerFetchState(r.req.ReplicaID, r.req.ReplicaEpoch, part.FetchOffset, part.LogEndOffset, now)
			if !p.b.mutant(MutantHWNotAdvancedOnFetch) { // mutant hook: the fetch does not move the HW
				p.maybeIncrementLeaderHW()
			}
			if p.b.mutant(MutantFetchHWAfterUpdate) { // mutant hook: the response carries the updated HW
				r.parts[i].HighWatermark = p.hw
			}
			if !slices.Contains(p.isr, r.req.ReplicaID) && p.isFollowerInSync(r.req.ReplicaID) && (!b.cfg.Stepped || b.cfg.Simulated) {
				expand = append(expand, p)
			}
		}
		// It completes the request HandleFetch read for (the spec's FetchRead
		// is that request, turned): it names it as the message handled.
		evs = append(evs, b.event(p, ActUpdateFollowerFetchState,
			map[string]int64{"l": int64(b.cfg.BrokerID), "f": int64(r.req.ReplicaID)}, uint64(r.m.ID)))
		p.mu.Unlock()
	}
	id := b.respondFetch(r)
	for _, e := range evs {
		if e != nil && id != 0 {
			e.Sent = []uint64{id}
		}
	}
	b.deliver(evs...)
	for _, p := range expand {
		b.proposeIsrChange(p, isrExpand, r.req.ReplicaID) // refused if one is pending: fine
	}
	b.completeDelayedFetches(false) // the HW may have moved
}

// UpdateFollowerFetchState completes the parked read of follower f's fetch
// of tp (stepped mode; spec UpdateFollowerFetchState(l, f) on this leader
// l): the leader updates its view of f and answers.
func (b *Broker) UpdateFollowerFetchState(tp protocol.TopicPartition, f int32) error {
	b.connMu.RLock()
	defer b.connMu.RUnlock()
	b.reads.mu.Lock()
	var r *servedRead
	for i, x := range b.reads.pending {
		if x.req.ReplicaID == f && slices.ContainsFunc(x.req.Partitions, func(fp protocol.FetchPartition) bool { return fp.TopicPartition == tp }) {
			r = x
			b.reads.pending = slices.Delete(b.reads.pending, i, i+1)
			break
		}
	}
	b.reads.mu.Unlock()
	if r == nil {
		return fmt.Errorf("broker %d: no fetch of %s from %d read and waiting", b.cfg.BrokerID, tp, f)
	}
	b.completeRead(r)
	return nil
}

// FetchReads lists the parked reads of tp (stepped mode), in arrival order.
func (b *Broker) FetchReads(tp protocol.TopicPartition) []FetchRead {
	b.reads.mu.Lock()
	defer b.reads.mu.Unlock()
	var out []FetchRead
	for _, r := range b.reads.pending {
		for _, part := range r.parts {
			if part.TopicPartition == tp {
				out = append(out, FetchRead{Follower: r.req.ReplicaID, Partition: part, Orphan: r.orphan})
			}
		}
	}
	return out
}

// peerCrashed updates the parked reads of a peer that crashed: they become
// orphans where the release serves a stale fetch, and are dropped where it
// does not (spec Crash's AfterCrash). The caller holds connMu exclusively.
func (b *Broker) peerCrashed(peer int32) {
	b.reads.mu.Lock()
	defer b.reads.mu.Unlock()
	keep := b.reads.pending[:0]
	for _, r := range b.reads.pending {
		if r.req.ReplicaID == peer {
			if !b.staleFetchServed() {
				continue
			}
			r.orphan = true
		}
		keep = append(keep, r)
	}
	clear(b.reads.pending[len(keep):])
	b.reads.pending = keep
}
