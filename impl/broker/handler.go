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
		if req.ReplicaID != protocol.ConsumerReplicaID && b.fromDeadConnection(req.ReplicaID, req.Lamport) {
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
// HandleLeaderAndIsr): each partition's state is applied only if its leader
// epoch is newer than the replica's; then the fetchers follow the new
// leaders (ReplicaFetcherManager.addFetcherForPartitions /
// removeFetcherForPartitions). The response lets the controller send its
// next request.
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
		applied := st.LeaderEpoch > p.epoch
		if b.mutant(MutantStaleLeaderAndIsr) { // mutant hook: >= instead of >
			applied = st.LeaderEpoch >= p.epoch
		}
		if applied {
			if st.Leader == me {
				err = p.makeLeader(st, b.now())
			} else {
				err = p.makeFollower(st)
			}
		}
		evs = append(evs, b.event(p, ActHandleLeaderAndIsr, map[string]int64{"r": int64(me)}, uint64(m.ID)))
		p.mu.Unlock()
		b.fail(err)
		resp.Errors[st.TopicPartition] = protocol.None
		switch {
		case !applied:
		case st.Leader == me:
			b.fetchers.removePartition(st.TopicPartition)
		default:
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

// handleFetch is KafkaApis.handleFetchRequest -> ReplicaManager.fetchMessages
// (spec HandleFetch for a follower). In free mode a follower that has caught
// up is proposed for the ISR (Partition.maybeExpandIsr).
func (b *Broker) handleFetch(m netsim.Message, req protocol.FetchRequest) {
	b.clock.Witness(req.Lamport)
	if b.shouldDelay(req) {
		b.delayFetch(m, req)
		return
	}
	b.answerFetch(m, req)
}

// answerFetch handles a fetch now.
func (b *Broker) answerFetch(m netsim.Message, req protocol.FetchRequest) {
	resp := protocol.FetchResponse{}
	var evs []*Event
	var expand []*Partition
	for _, fp := range req.Partitions {
		p, ok := b.rm.get(fp.TopicPartition)
		if !ok {
			resp.Partitions = append(resp.Partitions, protocol.FetchResponsePartition{
				TopicPartition: fp.TopicPartition, Error: protocol.NotLeaderOrFollower,
				FetchOffset: fp.FetchOffset, CurrentLeaderEpoch: fp.CurrentLeaderEpoch, HighWatermark: -1,
			})
			continue
		}
		p.mu.Lock()
		part, inSync := p.fetchAsLeader(req.ReplicaID, fp, b.now())
		if req.ReplicaID != protocol.ConsumerReplicaID {
			evs = append(evs, b.event(p, ActHandleFetch,
				map[string]int64{"l": int64(b.cfg.BrokerID), "f": int64(req.ReplicaID)}, uint64(m.ID)))
		}
		p.mu.Unlock()
		resp.Partitions = append(resp.Partitions, part)
		if inSync && (!b.cfg.Stepped || b.cfg.Simulated) {
			expand = append(expand, p)
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
	for _, p := range expand {
		b.proposeIsrChange(p, isrExpand, req.ReplicaID) // refused if one is pending: fine
	}
	if req.ReplicaID != protocol.ConsumerReplicaID {
		b.completeDelayedFetches(false) // the HW may have moved
	}
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

// handleAlterPartitionResponse completes an ISR change (spec ShrinkIsr /
// ExpandIsr, whose post-state is this one).
func (b *Broker) handleAlterPartitionResponse(m netsim.Message, r protocol.AlterPartitionResponse) {
	b.clock.Witness(r.Lamport)
	p, ok := b.rm.get(r.Partition)
	if !ok {
		return
	}
	p.mu.Lock()
	kind, f, _ := p.applyAlterPartitionResponse(r)
	var ev *Event
	if kind != 0 {
		ev = b.event(p, kind.action(), map[string]int64{"l": int64(b.cfg.BrokerID), "f": int64(f)}, uint64(m.ID))
		if ev != nil && r.TraceSeq != 0 {
			ev.Seq = r.TraceSeq
		}
	}
	p.mu.Unlock()
	b.recordAlterResult(r)
	b.deliver(ev)
}
