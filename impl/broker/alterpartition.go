package broker

import (
	"time"

	"github.com/hwepoch/hwepoch/impl/protocol"
)

// proposeIsrChange sends an AlterPartition adding or removing f
// (AlterPartitionManager.submit). It returns the request's correlation id.
func (b *Broker) proposeIsrChange(p *Partition, kind isrChangeKind, f int32) (uint64, error) {
	corr := b.nextCorrelationID()
	p.mu.Lock()
	defer p.mu.Unlock()
	req, err := p.prepareIsrChange(kind, f, corr, b.now())
	if err != nil {
		return 0, err
	}
	req.Lamport = b.clock.Tick()
	b.send(b.cfg.ControllerNode, req)
	return corr, nil
}

// retryAlterPartitions resends every AlterPartition whose response is
// overdue, with a new correlation id and the same proposal
// (AlterPartitionManager retries until it gets an answer; the controller
// treats an identical retry of an applied change as applied).
func (b *Broker) retryAlterPartitions(now time.Time) {
	for _, p := range b.rm.all() {
		p.mu.Lock()
		if pd := p.pendingIsr; pd != nil && now.After(pd.deadline) {
			pd.req.CorrelationID = b.nextCorrelationID()
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
	if !b.cfg.Stepped {
		return
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
