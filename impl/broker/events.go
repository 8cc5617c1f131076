package broker

import "github.com/hwepoch/hwepoch/impl/protocol"

// The action names of events: the spec's actions.
const (
	ActHandleLeaderAndIsr                  = "HandleLeaderAndIsr"
	ActProduce                             = "Produce"
	ActSendOffsetsForLeaderEpoch           = "SendOffsetsForLeaderEpoch"
	ActHandleOffsetsForLeaderEpoch         = "HandleOffsetsForLeaderEpoch"
	ActHandleOffsetsForLeaderEpochResponse = "HandleOffsetsForLeaderEpochResponse"
	ActSendFetch                           = "SendFetch"
	ActHandleFetch                         = "HandleFetch"
	ActUpdateFollowerFetchState            = "UpdateFollowerFetchState"
	ActHandleFetchResponse                 = "HandleFetchResponse"
	ActShrinkIsr                           = "ShrinkIsr"
	ActExpandIsr                           = "ExpandIsr"
	ActHandleAlterPartitionResponse        = "HandleAlterPartitionResponse"
	ActCheckpointHW                        = "CheckpointHW"
	ActLoseMessage                         = "LoseMessage"
)

// Event is one handled event, for trace validation: who (Broker), what
// (Action and Params, the spec's action and its parameters, e.g. l and f),
// when (Lamport stamp, and the network ids of the message handled and of
// the messages sent) and the broker's local post-state of the partition.
type Event struct {
	Broker    int32
	Action    string
	Params    map[string]int64
	Partition protocol.TopicPartition
	Lamport   uint64
	// Seq orders every event of a process-wide run (Config.Sequence): a
	// total order consistent with real time, hence with causality, which
	// is what a replay needs (a crash drops what is in flight at that
	// moment, which no message stamp tells).
	Seq uint64
	// Received is the netsim id of the message this event handled (0: none).
	Received uint64
	// Sent are the netsim ids of the messages this event sent.
	Sent []uint64
	Post PartitionState
}

// emit stamps and delivers an event; the caller holds p.mu (so events of
// one partition are stamped in the order its state changed).
func (b *Broker) event(p *Partition, action string, params map[string]int64, received uint64) *Event {
	if b.cfg.Hook == nil {
		return nil
	}
	return &Event{
		Broker:    b.cfg.BrokerID,
		Action:    action,
		Params:    params,
		Partition: p.tp,
		Lamport:   b.clock.Tick(),
		Seq:       b.nextSeq(),
		Received:  received,
		Post:      p.stateLocked(),
	}
}

// deliver hands finished events to the hook.
func (b *Broker) deliver(evs ...*Event) {
	if b.cfg.Hook == nil {
		return
	}
	for _, e := range evs {
		if e != nil {
			b.cfg.Hook(*e)
		}
	}
}

// nextSeq draws from the shared event sequence (0 when there is none).
func (b *Broker) nextSeq() uint64 {
	if b.cfg.Sequence == nil {
		return 0
	}
	return b.cfg.Sequence.Add(1)
}
