package protocol

import (
	"fmt"
	"slices"
)

// BrokerID identifies a broker (broker.id). Clients and the controller have
// ids too, on the network; as a Fetch's ReplicaID, ConsumerReplicaID marks
// a consumer.
type BrokerID = int32

// NoLeader is LeaderAndIsr.NoLeader.
const NoLeader BrokerID = -1

// ConsumerReplicaID is FetchRequest.CONSUMER_REPLICA_ID: a fetch from a
// client, which reads up to the HW and is not a follower's fetch.
const ConsumerReplicaID BrokerID = -1

// TopicPartition names a partition.
type TopicPartition struct {
	Topic     string
	Partition int32
}

func (tp TopicPartition) String() string { return fmt.Sprintf("%s-%d", tp.Topic, tp.Partition) }

// Header is carried by every message.
type Header struct {
	// CorrelationID pairs a response with its request; unique per sender.
	CorrelationID uint64
	// Lamport is the sender's Lamport clock when it sent the message.
	Lamport uint64
}

// Record is one record on the wire: its offset and leader epoch (set by the
// leader's log) and the producer's record id.
type Record struct {
	Offset      int64
	LeaderEpoch int32
	ID          int64
}

// ---------------------------------------------------------------------------
// Controller -> broker.

// LeaderAndIsrPartition is one partition's state in a LeaderAndIsrRequest
// (LeaderAndIsrRequestData.LeaderAndIsrPartitionState).
type LeaderAndIsrPartition struct {
	TopicPartition
	Leader         BrokerID
	LeaderEpoch    int32
	Isr            []BrokerID
	PartitionEpoch int32
	Replicas       []BrokerID
}

// LeaderAndIsrRequest tells a broker who leads its partitions.
type LeaderAndIsrRequest struct {
	Header
	ControllerID BrokerID
	Partitions   []LeaderAndIsrPartition
}

// LeaderAndIsrResponse acknowledges a LeaderAndIsrRequest, so the
// controller's channel can send the next one (ControllerChannelManager).
type LeaderAndIsrResponse struct {
	Header
	Errors map[TopicPartition]Error
}

// ---------------------------------------------------------------------------
// Follower (or consumer) -> leader: Fetch.

// FetchPartition is one partition of a FetchRequest.
type FetchPartition struct {
	TopicPartition
	FetchOffset int64
	// CurrentLeaderEpoch is the fetcher's leader epoch (KIP-320); -1 when
	// the fetcher does not send one (a consumer).
	CurrentLeaderEpoch int32
	// LastFetchedEpoch is the epoch of the follower's last record (Fetch
	// v12, truncation on fetch, Kafka 2.8+); -1 when it sends none (older
	// releases, a consumer, or a follower with no epoch entries). The
	// zero value is epoch 0: every sender sets it.
	LastFetchedEpoch int32
}

// FetchRequest asks a leader for records.
type FetchRequest struct {
	Header
	ReplicaID BrokerID // the follower, or ConsumerReplicaID
	// ReplicaEpoch is the follower's broker epoch, that of its current
	// registration with the controller (Fetch v15's ReplicaState.ReplicaEpoch,
	// KIP-903); -1 where the release sends none, and for a consumer.
	ReplicaEpoch int64
	Partitions   []FetchPartition
}

// FetchResponsePartition is one partition of a FetchResponse. FetchOffset
// and CurrentLeaderEpoch echo the request (the spec's offset and
// currentEpoch fields), so a response names what it answers.
type FetchResponsePartition struct {
	TopicPartition
	Error              Error
	FetchOffset        int64
	CurrentLeaderEpoch int32
	Records            []Record
	HighWatermark      int64 // -1 with an error or a divergence
	LogEndOffset       int64
	// Diverging says the leader found the follower's log diverging from
	// its own at LastFetchedEpoch (Fetch v12's divergingEpoch): no records,
	// and DivergingEpoch / DivergingEndOffset are the leader's
	// endOffsetFor(LastFetchedEpoch), where the follower truncates.
	Diverging          bool
	DivergingEpoch     int32
	DivergingEndOffset int64
}

// FetchResponse answers a FetchRequest.
type FetchResponse struct {
	Header
	Partitions []FetchResponsePartition
}

// ---------------------------------------------------------------------------
// Follower -> leader: OffsetsForLeaderEpoch.

// OffsetsForLeaderEpochPartition asks where LeaderEpoch ends on the leader.
type OffsetsForLeaderEpochPartition struct {
	TopicPartition
	LeaderEpoch        int32
	CurrentLeaderEpoch int32
}

// OffsetsForLeaderEpochRequest is sent by a follower in its truncation phase.
type OffsetsForLeaderEpochRequest struct {
	Header
	ReplicaID  BrokerID
	Partitions []OffsetsForLeaderEpochPartition
}

// EpochEndOffset is one partition of an OffsetsForLeaderEpochResponse
// (OffsetForLeaderEpochResponseData.EpochEndOffset). CurrentLeaderEpoch
// echoes the request.
type EpochEndOffset struct {
	TopicPartition
	Error              Error
	LeaderEpoch        int32
	EndOffset          int64
	CurrentLeaderEpoch int32
}

// OffsetsForLeaderEpochResponse answers an OffsetsForLeaderEpochRequest.
type OffsetsForLeaderEpochResponse struct {
	Header
	Partitions []EpochEndOffset
}

// ---------------------------------------------------------------------------
// Producer -> leader.

// Acks is the producer's acks setting: 0, 1 or -1 ("all").
type Acks int8

const (
	AcksNone   Acks = 0
	AcksLeader Acks = 1
	AcksAll    Acks = -1
)

// ParseAcks reads Kafka's spelling: "0", "1", "all" or "-1".
func ParseAcks(s string) (Acks, error) {
	switch s {
	case "0":
		return AcksNone, nil
	case "1":
		return AcksLeader, nil
	case "all", "-1":
		return AcksAll, nil
	}
	return 0, fmt.Errorf("protocol: acks must be 0, 1 or all, not %q", s)
}

func (a Acks) String() string {
	switch a {
	case AcksNone:
		return "0"
	case AcksLeader:
		return "1"
	case AcksAll:
		return "all"
	}
	return fmt.Sprintf("Acks(%d)", int8(a))
}

// ProduceRecord is a record as the producer sends it.
type ProduceRecord struct {
	ID      int64
	Payload []byte
}

// ProduceRequest writes records to one partition (Kafka batches many; one
// is all the implementation needs).
type ProduceRequest struct {
	Header
	Acks      Acks
	Partition TopicPartition
	Records   []ProduceRecord
}

// ProduceResponse answers a ProduceRequest (never sent for acks=0).
type ProduceResponse struct {
	Header
	Partition  TopicPartition
	Error      Error
	BaseOffset int64 // -1 unless the records were appended (a delayed request failing after its append keeps it)
}

// ---------------------------------------------------------------------------
// Leader -> controller: AlterPartition.

// AlterPartitionRequest proposes a new ISR (one partition).
type AlterPartitionRequest struct {
	Header
	BrokerID       BrokerID
	Partition      TopicPartition
	LeaderEpoch    int32
	PartitionEpoch int32
	NewIsr         []BrokerID
	// NewIsrBrokerEpochs are the broker epochs of NewIsr's members, in its
	// order (AlterPartition v3's NewIsrWithEpochs, KIP-903): for each
	// follower the epoch of its last fetch the leader counted, -1 for one
	// the leader knows none of, for the leader itself, and where the
	// release sends none (nil: all -1). -1 skips the controller's check.
	NewIsrBrokerEpochs []int64
	// Proposal is the correlation id of the proposal's first send, kept by
	// its resends. Not on Kafka's wire: this implementation's controller
	// answers a resend of a proposal it decided with that decision (see
	// cluster's controllerNode.handleAlterPartition), and must tell a
	// resend from a new proposal of the same ISR at the same epochs, which
	// a leader makes after an INELIGIBLE_REPLICA refusal.
	Proposal uint64
}

// AlterPartitionResponse carries the controller's verdict and, on success,
// the partition state it now holds.
type AlterPartitionResponse struct {
	Header
	Partition      TopicPartition
	Error          Error
	ErrorMessage   string
	Leader         BrokerID
	LeaderEpoch    int32
	Isr            []BrokerID
	PartitionEpoch int32
	// TraceSeq is the trace order the controller gave the change when it
	// applied it (0 if none): the leader's ShrinkIsr / ExpandIsr event takes
	// its place there, where the ISR really changed.
	TraceSeq uint64
}

// HeaderOf returns the header of any message of this package.
func HeaderOf(m any) (Header, bool) {
	switch m := m.(type) {
	case LeaderAndIsrRequest:
		return m.Header, true
	case LeaderAndIsrResponse:
		return m.Header, true
	case FetchRequest:
		return m.Header, true
	case FetchResponse:
		return m.Header, true
	case OffsetsForLeaderEpochRequest:
		return m.Header, true
	case OffsetsForLeaderEpochResponse:
		return m.Header, true
	case ProduceRequest:
		return m.Header, true
	case ProduceResponse:
		return m.Header, true
	case AlterPartitionRequest:
		return m.Header, true
	case AlterPartitionResponse:
		return m.Header, true
	}
	return Header{}, false
}

// SortedIDs returns a sorted copy of ids.
func SortedIDs(ids []BrokerID) []BrokerID {
	out := slices.Clone(ids)
	slices.Sort(out)
	return out
}
