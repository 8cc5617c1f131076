package broker

import "github.com/hwepoch/hwepoch/impl/protocol"

// Role is a replica's role for one partition: the spec's role values.
type Role string

const (
	// Offline: the broker is down (only in snapshots of a crashed broker).
	Offline Role = "Offline"
	// Starting: restarted (or never started a role), no LeaderAndIsr applied.
	Starting Role = "Starting"
	Leader   Role = "Leader"
	Follower Role = "Follower"
)

// FetchState is a follower's fetcher state for a partition (Kafka's
// PartitionFetchState.state; the spec's fetchState).
type FetchState string

const (
	FetchNone FetchState = "None"
	// Truncating: OffsetsForLeaderEpoch phase (epoch policies).
	Truncating FetchState = "Truncating"
	Fetching   FetchState = "Fetching"
)

// EpochEntry is one leader epoch cache entry (the spec's [epoch, start]).
type EpochEntry struct {
	Epoch int32
	Start int64
}

// PartitionState is one replica of one partition as plain values, named
// after the spec's variables. It holds no pointer into the broker.
type PartitionState struct {
	Topic     string
	Partition int32
	Role      Role
	// Log is the spec's log[r]: records in offset order.
	Log []protocol.Record
	// EpochCache is epochCache[r] (leader-epoch-checkpoint).
	EpochCache []EpochEntry
	// HW is hw[r]; HWCheckpoint is hwCheckpoint[r], the value in the
	// replication-offset-checkpoint file.
	HW           int64
	HWCheckpoint int64
	LEO          int64
	// RecoveryPoint is the log's recovery point (not in the spec): the
	// records below it are fsynced. It never exceeds the LEO.
	RecoveryPoint int64
	// LeaderEpoch is leaderEpoch[r] (-1 if none), Leader leader[r]
	// (protocol.NoLeader if none).
	LeaderEpoch int32
	Leader      int32
	// PartitionEpoch is partitionEpoch[r]: a leader's partition epoch, from
	// its LeaderAndIsr or a committed AlterPartition; -1 unless leader.
	PartitionEpoch int32
	// ProduceEpoch is produceEpoch[r]: the first epoch of the leader's
	// uninterrupted leadership, -1 unless leader.
	ProduceEpoch int32
	// Isr is isr[r]: the leader's ISR view, sorted; empty on non-leaders.
	Isr []int32
	// FollowerLEO is followerLeo[r]: a leader's view of each replica's LEO
	// (the fetch offset of its last fetch in this epoch), -1 unknown; every
	// replica of the partition has an entry (all -1 on non-leaders).
	FollowerLEO map[int32]int64
	// FollowerBrokerEpoch is followerBrokerEpoch[r]: a leader's view of
	// each replica's broker epoch, that of its last fetch counted (KIP-903),
	// -1 unknown, where the release has none, and on a replica that does
	// not lead.
	FollowerBrokerEpoch map[int32]int64
	// FetchState is fetchState[r].
	FetchState FetchState
	// FetchInFlight is the correlation id of the fetcher request that holds
	// this replica's one request slot (0: none).
	FetchInFlight uint64
	// PendingIsr is the ISR of an AlterPartition in flight, nil if none
	// (pendingIsr[r] under asynchronous AlterPartition; a proposal refused
	// FENCED_LEADER_EPOCH or INVALID_UPDATE_VERSION stays until the next
	// LeaderAndIsr).
	PendingIsr []int32
}

// BrokerState is a running broker's state.
type BrokerState struct {
	ID         int32
	Partitions []PartitionState // sorted by topic, partition
}
