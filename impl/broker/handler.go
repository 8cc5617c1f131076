package broker

import (
	"github.com/hwepoch/hwepoch/impl/netsim"
	"github.com/hwepoch/hwepoch/impl/protocol"
)

// serve is the request handler loop (KafkaRequestHandler + KafkaApis): one
// goroutine that takes messages from the broker's address and handles each
// to completion before taking the next, so the network's idle detection
// covers the whole handling.
func (b *Broker) serve() {
	defer b.wg.Done()
	defer b.ep.Done()
	for {
		m, err := b.ep.Recv(b.ctx)
		if err != nil || b.ctx.Err() != nil {
			return
		}
		b.handle(m)
	}
}

func (b *Broker) handle(m netsim.Message) {
	b.connMu.RLock()
	defer b.connMu.RUnlock()
	switch req := m.Payload.(type) {
	case protocol.FetchRequest:
		// A follower's fetch sent before it crashed is an orphan: releases
		// without broker epochs in Fetch still serve and count it (the
		// KIP-903 case; its response goes nowhere); 3.7+ rejects it
		// (KAFKA-15221's stale broker epoch).
		if req.ReplicaID != protocol.ConsumerReplicaID && b.fromDeadConnection(req.ReplicaID, req.Lamport) && !b.staleFetchServed() {
			return
		}
	case protocol.OffsetsForLeaderEpochRequest:
		if b.fromDeadConnection(req.ReplicaID, req.Lamport) {
			return
		}
	}
	switch req := m.Payload.(type) {
	case protocol.LeaderAndIsrRequest:
		b.handleLeaderAndIsr(m, req)
	case protocol.FetchRequest:
		b.handleFetch(m, req)
	case protocol.OffsetsForLeaderEpochRequest:
		b.handleOffsetsForLeaderEpoch(m, req)
	case protocol.ProduceRequest:
		b.handleProduce(m, req)
	case protocol.AlterPartitionResponse:
		b.handleAlterPartitionResponse(m, req)
	}
	// Anything else is not for a broker; a real one would close the
	// connection. Dropping it is the same to the sender.
}

// handleLeaderAndIsr is ReplicaManager.becomeLeaderOrFollower (spec
// HandleLeaderAndIsr): each partition's state is applied only if its
// leader epoch is newer than the replica's, and as a follower only if the
// leader it names is alive (makeFollowers skips a partition whose leader
// the metadata cache does not list as alive: its state does not change at
// all). A request of the leader's own epoch with a newer partition epoch
// updates its ISR (the controller fenced a follower). Then the fetchers
// follow the new leaders (ReplicaFetcherManager.addFetcherForPartitions /
// removeFetcherForPartitions) where the release restarts them. The
// response lets the controller send its next request.
func (b *Broker) handleLeaderAndIsr(m netsim.Message, req protocol.LeaderAndIsrRequest) {
	b.clock.Witness(req.Lamport)
	me := b.cfg.BrokerID
	resp := protocol.LeaderAndIsrResponse{Errors: map[protocol.TopicPartition]protocol.Error{}}
	if req.CorrelationID != 0 && req.CorrelationID <= b.lastLeaderAndIsr && !b.mutant(MutantStaleLeaderAndIsr) { // mutant hook: resends pass
		// The controller resent a request we applied (our answer was
		// lost): answer again, change nothing, record nothing.
		resp.Header = protocol.Header{CorrelationID: req.CorrelationID, Lamport: b.clock.Tick()}
		b.send(m.From, resp)
		return
	}
	b.lastLeaderAndIsr = req.CorrelationID
	var evs []*Event
	for _, st := range req.Partitions {
		p, err := b.rm.getOrCreate(st.TopicPartition, st.Replicas)
		if err != nil {
			b.fail(err)
			resp.Errors[st.TopicPartition] = protocol.UnknownTopicOrPartition
			continue
		}
		p.mu.Lock()
		newer := st.LeaderEpoch > p.epoch
		if b.mutant(MutantStaleLeaderAndIsr) { // mutant hook: >= instead of >
			newer = st.LeaderEpoch >= p.epoch
		}
		restart := false
		switch {
		case newer && st.Leader == me:
			err = p.makeLeader(st, b.now())
		case newer && (!b.mutant(MutantSkipDeadLeader) || b.brokerAlive(st.Leader)): // mutant hook: a dead leader is not followed
			restart, err = p.makeFollower(st)
		case st.LeaderEpoch == p.epoch && st.Leader == me && p.role == Leader && st.PartitionEpoch > p.partitionEpoch:
			p.updateIsr(st)
		}
		evs = append(evs, b.event(p, ActHandleLeaderAndIsr, map[string]int64{"r": int64(me)}, uint64(m.ID)))
		role := p.role
		p.mu.Unlock()
		b.fail(err)
		resp.Errors[st.TopicPartition] = protocol.None
		switch {
		case role == Leader:
			b.fetchers.removePartition(st.TopicPartition)
		case restart:
			b.fetchers.addPartition(st.TopicPartition, st.Leader)
		}
	}
	resp.Header = protocol.Header{CorrelationID: req.CorrelationID, Lamport: b.clock.Tick()}
	id := b.send(m.From, resp)
	for _, e := range evs {
		if e != nil {
			e.Sent = []uint64{id}
		}
	}
	b.deliver(evs...)
	b.completeDelayedFetches(false)
}

// handleOffsetsForLeaderEpoch is KafkaApis.handleOffsetForLeaderEpochRequest
// (spec HandleOffsetsForLeaderEpoch).
func (b *Broker) handleOffsetsForLeaderEpoch(m netsim.Message, req protocol.OffsetsForLeaderEpochRequest) {
	b.clock.Witness(req.Lamport)
	resp := protocol.OffsetsForLeaderEpochResponse{}
	var evs []*Event
	for _, op := range req.Partitions {
		p, ok := b.rm.get(op.TopicPartition)
		if !ok {
			resp.Partitions = append(resp.Partitions, protocol.EpochEndOffset{
				TopicPartition: op.TopicPartition, Error: protocol.NotLeaderOrFollower,
				LeaderEpoch: -1, EndOffset: -1, CurrentLeaderEpoch: op.CurrentLeaderEpoch,
			})
			continue
		}
		p.mu.Lock()
		resp.Partitions = append(resp.Partitions, p.lastOffsetForLeaderEpoch(op))
		evs = append(evs, b.event(p, ActHandleOffsetsForLeaderEpoch,
			map[string]int64{"l": int64(b.cfg.BrokerID), "f": int64(req.ReplicaID)}, uint64(m.ID)))
		p.mu.Unlock()
	}
	resp.Header = protocol.Header{CorrelationID: req.CorrelationID, Lamport: b.clock.Tick()}
	id := b.send(m.From, resp)
	for _, e := range evs {
		if e != nil {
			e.Sent = []uint64{id}
		}
	}
	b.deliver(evs...)
}

// handleProduce is KafkaApis.handleProduceRequest -> ReplicaManager.appendRecords
// (spec Produce). acks=1 is answered after the append, acks=all when the HW
// passes the records (the purgatory), acks=0 never — except that a refusal
// is answered whatever acks says (Kafka closes an acks=0 producer's
// connection instead, which tells it the same).
func (b *Broker) handleProduce(m netsim.Message, req protocol.ProduceRequest) {
	b.clock.Witness(req.Lamport)
	answer := func(code protocol.Error, base int64) uint64 {
		return b.send(m.From, protocol.ProduceResponse{
			Header:    protocol.Header{CorrelationID: req.CorrelationID, Lamport: b.clock.Tick()},
			Partition: req.Partition, Error: code, BaseOffset: base,
		})
	}
	if req.Acks != protocol.AcksNone && req.Acks != protocol.AcksLeader && req.Acks != protocol.AcksAll {
		answer(protocol.InvalidRequiredAcks, -1)
		return
	}
	p, ok := b.rm.get(req.Partition)
	if !ok {
		answer(protocol.NotLeaderOrFollower, -1)
		return
	}
	var d *delayedProduce
	if req.Acks == protocol.AcksAll {
		d = &delayedProduce{tp: req.Partition, replyTo: m.From, corr: req.CorrelationID}
	}
	p.mu.Lock()
	base, code, err := p.appendRecordsToLeader(req, d)
	var ev *Event
	if code == protocol.None && err == nil {
		ev = b.event(p, ActProduce, map[string]int64{"l": int64(b.cfg.BrokerID)}, uint64(m.ID))
	}
	p.mu.Unlock()
	b.fail(err)
	switch {
	case code != protocol.None:
		answer(code, -1)
	case req.Acks == protocol.AcksLeader:
		if id := answer(protocol.None, base); ev != nil {
			ev.Sent = []uint64{id}
		}
	}
	b.deliver(ev)
	if code == protocol.None {
		b.completeDelayedFetches(false)
	}
}

// handleAlterPartitionResponse applies the controller's answer to an ISR
// change (spec ShrinkIsr / ExpandIsr under the ZooKeeper releases, whose
// post-state is this one; HandleAlterPartitionResponse under asynchronous
// AlterPartition).
func (b *Broker) handleAlterPartitionResponse(m netsim.Message, r protocol.AlterPartitionResponse) {
	b.clock.Witness(r.Lamport)
	p, ok := b.rm.get(r.Partition)
	if !ok {
		return
	}
	p.mu.Lock()
	kind, f, _ := p.applyAlterPartitionResponse(r)
	var ev *Event
	switch {
	case b.rel.AsyncIsr:
		// Consumed whatever it finds: a proposal a LeaderAndIsr has
		// dropped since is not changed by it.
		ev = b.event(p, ActHandleAlterPartitionResponse, map[string]int64{"l": int64(b.cfg.BrokerID)}, uint64(m.ID))
	case !b.rel.AsyncIsr && kind != 0:
		ev = b.event(p, kind.action(), map[string]int64{"l": int64(b.cfg.BrokerID), "f": int64(f)}, uint64(m.ID))
		if ev != nil && r.TraceSeq != 0 {
			ev.Seq = r.TraceSeq
		}
	}
	p.mu.Unlock()
	b.recordAlterResult(r)
	b.deliver(ev)
}
