package broker

import (
	"fmt"

	"github.com/hwepoch/hwepoch/impl/protocol"
	"github.com/hwepoch/hwepoch/impl/storage"
)

// CheckpointHighWatermarks writes the replication-offset-checkpoint
// (ReplicaManager.checkpointHighWatermarks; spec CheckpointHW): the HW of
// every partition this broker leads or follows. A partition still Starting
// keeps the value it has in the file (Kafka would leave it out, which loses
// its checkpoint should the broker crash again; the spec keeps it). Each
// partition whose value changed while it leads or follows gets a
// CheckpointHW event. It returns those partitions.
func (b *Broker) CheckpointHighWatermarks() ([]protocol.TopicPartition, error) {
	rm := b.rm
	rm.ckptMu.Lock()
	defer rm.ckptMu.Unlock()
	// Every partition is held (in sorted order) from reading its HW until
	// its checkpoint value is recorded, so no HW change slips between the
	// value written and the event that says it was written.
	parts := rm.all()
	for _, p := range parts {
		p.mu.Lock()
	}
	entries := make([]storage.TopicPartitionOffset, len(parts))
	for i, p := range parts {
		v := p.hwCheckpoint
		if p.role == Leader || p.role == Follower {
			v = p.hw
		}
		entries[i] = storage.TopicPartitionOffset{Topic: p.tp.Topic, Partition: p.tp.Partition, Offset: v}
	}
	err := storage.WriteReplicationOffsetCheckpoint(rm.checkpointPath(), entries)
	var changed []protocol.TopicPartition
	var evs []*Event
	for i, p := range parts {
		if err == nil && p.hwCheckpoint != entries[i].Offset {
			p.hwCheckpoint = entries[i].Offset
			changed = append(changed, p.tp)
			evs = append(evs, b.event(p, ActCheckpointHW, map[string]int64{"r": int64(b.cfg.BrokerID)}, 0))
		}
		p.mu.Unlock()
	}
	if err != nil {
		return nil, fmt.Errorf("broker %d: %w", b.cfg.BrokerID, err)
	}
	b.deliver(evs...)
	return changed, nil
}
