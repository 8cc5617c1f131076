package broker

import (
	"time"

	"github.com/hwepoch/hwepoch/impl/protocol"
)

// proposeIsrChange sends an AlterPartition adding or removing f
// (AlterPartitionManager.submit). It returns the request's correlation id.
//
// Under the ZooKeeper releases this is the leader's conditional write of
// the ISR, which the spec takes as one step (ShrinkIsr / ExpandIsr): the
// event is recorded when the answer commits it. Under asynchronous
// AlterPartition (3.9) the proposal is the spec's ShrinkIsr / ExpandIsr
// step, the controller's decision (HandleAlterPartition) and the leader's
// applying of the answer (HandleAlterPartitionResponse) are steps of their
// own.
func (b *Broker) proposeIsrChange(p *Partition, kind isrChangeKind, f int32) (uint64, error) {
	corr := b.nextCorrelationID()
	p.mu.Lock()
	req, err := p.prepareIsrChange(kind, f, corr, b.now())
	if err != nil {
		p.mu.Unlock()
		return 0, err
	}
	req.Lamport = b.clock.Tick()
	var ev *Event
	if b.rel.AsyncIsr {
		// The proposal's event draws its Seq before the request is sent:
		// the controller may decide it at once, and its event must come
		// after this one.
		ev = b.event(p, kind.action(), map[string]int64{"l": int64(b.cfg.BrokerID), "f": int64(f)}, 0)
	}
	id := b.send(b.cfg.ControllerNode, req)
	if ev != nil && id != 0 {
		ev.Sent = []uint64{id}
	}
	p.mu.Unlock()
	b.deliver(ev)
	return corr, nil
}

// retryAlterPartitions resends every AlterPartition whose response is
// overdue, with a new correlation id and the same proposal
// (AlterPartitionManager retries until it gets an answer; the controller
// treats an identical retry of an applied change as applied).
func (b *Broker) retryAlterPartitions(now time.Time) {
	for _, p := range b.rm.all() {
		p.mu.Lock()
		if pd := p.pendingIsr; pd != nil && !pd.answered && now.After(pd.deadline) {
			pd.req.CorrelationID = b.nextCorrelationID()
			p.alterInFlight, p.alterDeadline = pd.req.CorrelationID, now.Add(b.cfg.RequestTimeout)
			pd.req.Lamport = b.clock.Tick()
			pd.deadline = now.Add(b.cfg.RequestTimeout)
			b.send(b.cfg.ControllerNode, pd.req)
		}
		p.mu.Unlock()
	}
}

// recordAlterResult keeps, in stepped mode, the controller's answer to each
// AlterPartition so the driver can tell a refused ShrinkIsr / ExpandIsr.
func (b *Broker) recordAlterResult(r protocol.AlterPartitionResponse) {
	if !b.cfg.Stepped || b.rel.AsyncIsr {
		return // asynchronous answers are a step of their own: nobody waits here
	}
	b.alterMu.Lock()
	defer b.alterMu.Unlock()
	if b.alterResults == nil {
		b.alterResults = map[uint64]protocol.AlterPartitionResponse{}
	}
	b.alterResults[r.CorrelationID] = r
}

// AlterPartitionResult returns (and forgets) the controller's answer to the
// AlterPartition with correlation id corr (stepped mode only).
func (b *Broker) AlterPartitionResult(corr uint64) (protocol.AlterPartitionResponse, bool) {
	b.alterMu.Lock()
	defer b.alterMu.Unlock()
	r, ok := b.alterResults[corr]
	delete(b.alterResults, corr)
	return r, ok
}
