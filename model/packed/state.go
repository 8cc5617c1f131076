// Package packed is the explorer's working form of a model.State: a
// fixed-size, pointer-free struct of small integers, copied by value and
// changed in place, so that a successor costs a copy of a few hundred bytes
// and no allocation. Its successor relation (Next) is a second rendering of
// the spec's actions, held equal to model.NextPtr's on every reachable state
// of every ci configuration by a differential test; model.State stays the
// readable form for replay, refinement and counterexamples.
//
// Bounds. Arrays are sized by the maxima below, not by the configuration;
// Layout (layout.go) packs the struct into 64-bit words sized from the
// configuration's bounds for storage and hashing. A configuration beyond the
// maxima is refused by NewLayout (the explorer then searches on model.State),
// and a state that would exceed one (a controller queue longer than
// MaxQueue) makes Next fail with an error, never a silent truncation.
package packed

import "github.com/hwepoch/hwepoch/model"

// The maxima of the fixed-size arrays.
const (
	MaxReplicas = 4 // replicas; a replica set is a bitset over their indices
	MaxLog      = 4 // records in a log or a message (MaxRecords)
	MaxCache    = 6 // leader-epoch-checkpoint entries (MaxEpoch + 2)
	MaxQueue    = 6 // LeaderAndIsr requests waiting for one broker
	MaxOffsetID = 4 * 5
)

// None is the replica index of model.None (no leader).
const None int8 = -1

// Set is a set of replicas, bit i for replica index i.
type Set uint8

// Has reports whether replica index i is in s.
func (s Set) Has(i int) bool { return s&(1<<uint(i)) != 0 }

// Record is a model.Record.
type Record struct{ ID, Epoch int8 }

// Entry is a model.Entry.
type Entry struct{ Epoch, Start int8 }

// Msg is a model.Msg: replicas by index (None for none), sets as bitsets,
// records in a fixed array. As in model.Msg, the fields its Type does not
// have stay zero, so that == is the spec's record equality.
type Msg struct {
	Type             model.MsgType
	Leader           int8
	Epoch            int8
	Isr              Set
	PartitionEpoch   int8
	LeaderEpoch      int8
	Src, Dst         int8
	CurrentEpoch     int8
	Error            model.ErrorCode
	Offset           int8
	NRecords         int8
	Records          [MaxLog]Record
	Hw               int8
	Leo              int8
	LastFetchedEpoch int8
	Orphan           bool
	Diverging        bool
	DivEpoch         int8 // DivergingEpoch.Epoch
	DivOffset        int8 // DivergingEpoch.Offset
	// BrokerEpochs: an AlterPartition's broker epoch of each replica, by
	// index (-1 for a non-member; entries beyond the configuration's
	// replicas 0, as every field of another type).
	BrokerEpochs [MaxReplicas]int8
}

// Replica is what one replica holds, durable and volatile.
type Replica struct {
	LogLen       int8
	Log          [MaxLog]Record
	CacheLen     int8
	Cache        [MaxCache]Entry
	HwCheckpoint int8
	Role         model.Role
	LeaderEpoch  int8
	Leader       int8
	Hw           int8
	Isr          Set
	FollowerLeo  [MaxReplicas]int8 // as leader: its view of each replica's LEO
	// FollowerBrokerEpoch: as leader, its view of each replica's broker
	// epoch (KIP-903), -1 unknown (followerBrokerEpoch).
	FollowerBrokerEpoch [MaxReplicas]int8
	// BrokerEpoch: the controller's registration epoch of this broker (the
	// spec's brokerEpoch, a controller variable kept here so that renaming
	// carries it with its replica).
	BrokerEpoch    int8
	FetchState     model.FetchState
	ProduceEpoch   int8
	PartEpoch      int8 // partitionEpoch
	PendingIsr     Set  // empty when none, as in the model (a proposal is never empty)
	QueueLen       int8
	Queue          [MaxQueue]Msg // controllerQueue
	Inflight       Msg
	AlterPartition Msg
}

// State is a model.State in fixed size. Replica i of the configuration is
// R[i]; entries beyond the configuration's replicas stay zero.
type State struct {
	R                  [MaxReplicas]Replica
	CtrlLeader         int8
	CtrlEpoch          int8
	CtrlIsr            Set
	CtrlPartitionEpoch int8
	CtrlElr            Set // the Eligible Leader Replicas (KIP-966)
	CtrlLastKnownElr   Set // the last known leader (at most one member)
	NextID             int8
	Crashes            int8
	// Acked and Committed are sets of [offset, id] pairs: bit
	// offset*(MaxLog+1)+id.
	Acked, Committed uint32
}

// OffsetIDBit is the bit of [offset, id] in State.Acked and State.Committed.
func OffsetIDBit(offset, id int) uint32 { return 1 << uint(offset*(MaxLog+1)+id) }
