package broker

import (
	"github.com/hwepoch/hwepoch/impl/netsim"
	"github.com/hwepoch/hwepoch/impl/protocol"
)

// delayedProduce is an acks=all produce request waiting for the HW to pass
// its records (Kafka's DelayedProduce in the produce purgatory).
type delayedProduce struct {
	tp             protocol.TopicPartition
	baseOffset     int64
	requiredOffset int64 // the HW must reach this
	replyTo        netsim.NodeID
	corr           uint64
}

// completeDelayedProduce answers the waiting requests that the HW has
// passed (DelayedProduce.tryComplete -> Partition.checkEnoughReplicasReachOffset,
// which checks no leader epoch: a re-elected leader acknowledges records of
// its earlier epochs): NONE when the maximal ISR still has
// min.insync.replicas members, NOT_ENOUGH_REPLICAS_AFTER_APPEND otherwise
// (spec NewlyAcked). The caller holds p.mu.
func (p *Partition) completeDelayedProduce() {
	keep := p.purgatory[:0]
	for _, d := range p.purgatory {
		if p.hw < d.requiredOffset {
			keep = append(keep, d)
			continue
		}
		code := protocol.None
		if len(p.hwIsr()) < p.b.cfg.MinInsyncReplicas {
			code = protocol.NotEnoughReplicasAfterAppend
		}
		p.b.answerProduce(d, code)
	}
	clear(p.purgatory[len(keep):])
	p.purgatory = keep
}

// failDelayedProduce answers every waiting request with code (leadership
// moved: ReplicaManager.makeFollowers completes the purgatory with
// NOT_LEADER_OR_FOLLOWER). The caller holds p.mu.
func (p *Partition) failDelayedProduce(code protocol.Error) {
	for _, d := range p.purgatory {
		p.b.answerProduce(d, code)
	}
	p.purgatory = nil
}

// answerProduce sends the ProduceResponse of a delayed request.
func (b *Broker) answerProduce(d *delayedProduce, code protocol.Error) {
	resp := protocol.ProduceResponse{
		Header:     protocol.Header{CorrelationID: d.corr, Lamport: b.clock.Tick()},
		Partition:  d.tp,
		Error:      code,
		BaseOffset: d.baseOffset,
	}
	// The records of a delayed request were appended, so its BaseOffset
	// stays set even when it fails (Kafka sends -1): the producer must not
	// hand the record's id out again, or two records would share it.
	b.send(d.replyTo, resp)
}
