package model

import "slices"

// State has one field per TLA+ variable, in the order of the spec's VARIABLES.
// Per-replica fields are indexed by position in Config.Replicas.
//
// A State is a value: functions in this package never modify the slices of a
// State they are given, they copy what they change (copy-on-write), so
// successors share unchanged slices with their parent and that is safe.
type State struct {
	// durable, per replica
	Log          [][]Record // log
	EpochCache   [][]Entry  // epochCache
	HwCheckpoint []int      // hwCheckpoint
	// volatile, per replica
	Role        []Role      // role
	LeaderEpoch []int       // leaderEpoch
	Leader      []Replica   // leader
	Hw          []int       // hw
	Isr         [][]Replica // isr (each a sorted set)
	FollowerLeo [][]int     // followerLeo: [leader][follower]
	// FollowerBrokerEpoch: a leader's view of each follower's broker epoch
	// (KIP-903), [leader][follower], -1 unknown.
	FollowerBrokerEpoch [][]int      // followerBrokerEpoch
	FetchState          []FetchState // fetchState
	// ProduceEpoch: a leader's first epoch of uninterrupted leadership (-1 unless leader)
	ProduceEpoch   []int       // produceEpoch
	PartitionEpoch []int       // partitionEpoch (-1 unless leader)
	PendingIsr     [][]Replica // pendingIsr (each a sorted set; empty when none)
	// the controller
	CtrlLeader         Replica   // ctrlLeader
	CtrlEpoch          int       // ctrlEpoch
	CtrlIsr            []Replica // ctrlIsr (sorted set)
	CtrlPartitionEpoch int       // ctrlPartitionEpoch
	// CtrlElr: the Eligible Leader Replicas (KIP-966; sorted set, empty
	// unless the release has ELR).
	CtrlElr []Replica // ctrlElr
	// BrokerEpoch: each broker's registration epoch (KIP-903; bumped when
	// it registers again after a restart, 0 without Rel.IsrBrokerEpochs).
	BrokerEpoch []int // brokerEpoch
	// CtrlLastKnownElr: Kafka's LastKnownElr field, the last known leader
	// (at most one replica; empty while the ISR is not).
	CtrlLastKnownElr []Replica // ctrlLastKnownElr
	// the network
	ControllerQueue [][]Msg // controllerQueue
	Inflight        []Msg   // inflight
	AlterPartition  []Msg   // alterPartition
	// ghost
	NextId    int        // nextId
	Crashes   int        // crashes
	Acked     []OffsetID // acked (sorted set)
	Committed []OffsetID // committed (sorted set)
}

// VarNames are the TLA+ variables in the spec's order.
var VarNames = []string{"log", "epochCache", "hwCheckpoint", "role", "leaderEpoch", "leader",
	"hw", "isr", "followerLeo", "followerBrokerEpoch", "fetchState", "produceEpoch", "partitionEpoch", "pendingIsr",
	"ctrlLeader", "ctrlEpoch", "ctrlIsr", "ctrlPartitionEpoch", "ctrlElr", "brokerEpoch", "ctrlLastKnownElr",
	"controllerQueue", "inflight", "alterPartition", "nextId", "crashes", "acked", "committed"}

// NoViews mirrors NoViews == [r \in Replicas |-> -1].
func NoViews(cfg *Config) []int {
	v := make([]int, cfg.N())
	for i := range v {
		v[i] = -1
	}
	return v
}

// Init mirrors Init: the one initial state.
func Init(cfg *Config) State {
	n := cfg.N()
	s := State{
		Log:                 make([][]Record, n),
		EpochCache:          make([][]Entry, n),
		HwCheckpoint:        make([]int, n),
		Role:                make([]Role, n),
		LeaderEpoch:         make([]int, n),
		Leader:              make([]Replica, n),
		Hw:                  make([]int, n),
		Isr:                 make([][]Replica, n),
		FollowerLeo:         make([][]int, n),
		FollowerBrokerEpoch: make([][]int, n),
		FetchState:          make([]FetchState, n),
		ProduceEpoch:        make([]int, n),
		PartitionEpoch:      make([]int, n),
		PendingIsr:          make([][]Replica, n),
		CtrlLeader:          None,
		CtrlEpoch:           -1,
		CtrlIsr:             slices.Clone(cfg.Replicas),
		CtrlPartitionEpoch:  -1,
		BrokerEpoch:         make([]int, n),
		ControllerQueue:     make([][]Msg, n),
		Inflight:            make([]Msg, n),
		AlterPartition:      make([]Msg, n),
		NextId:              1,
	}
	views := NoViews(cfg)
	for i := range n {
		s.Role[i] = Starting
		s.LeaderEpoch[i] = -1
		s.Leader[i] = None
		s.FollowerLeo[i] = views
		s.FollowerBrokerEpoch[i] = views
		s.FetchState[i] = FetchNone
		s.ProduceEpoch[i] = -1
		s.PartitionEpoch[i] = -1
		s.Inflight[i] = NoMsg
		s.AlterPartition[i] = NoMsg
	}
	return s
}

// LEO mirrors LEO(r) == Len(log[r]), by replica index.
func (s *State) LEO(i int) int { return len(s.Log[i]) }

// Up mirrors Up(r) == role[r] # "Offline", by replica index.
func (s *State) Up(i int) bool { return s.Role[i] != Offline }

// Equal is TLA+ equality of states (what TLC's fingerprints distinguish).
func (s State) Equal(t State) bool {
	return slices.EqualFunc(s.Log, t.Log, slices.Equal) &&
		slices.EqualFunc(s.EpochCache, t.EpochCache, slices.Equal) &&
		slices.Equal(s.HwCheckpoint, t.HwCheckpoint) &&
		slices.Equal(s.Role, t.Role) &&
		slices.Equal(s.LeaderEpoch, t.LeaderEpoch) &&
		slices.Equal(s.Leader, t.Leader) &&
		slices.Equal(s.Hw, t.Hw) &&
		slices.EqualFunc(s.Isr, t.Isr, slices.Equal) &&
		slices.EqualFunc(s.FollowerLeo, t.FollowerLeo, slices.Equal) &&
		slices.EqualFunc(s.FollowerBrokerEpoch, t.FollowerBrokerEpoch, slices.Equal) &&
		slices.Equal(s.FetchState, t.FetchState) &&
		slices.Equal(s.ProduceEpoch, t.ProduceEpoch) &&
		slices.Equal(s.PartitionEpoch, t.PartitionEpoch) &&
		slices.EqualFunc(s.PendingIsr, t.PendingIsr, slices.Equal) &&
		s.CtrlLeader == t.CtrlLeader && s.CtrlEpoch == t.CtrlEpoch &&
		slices.Equal(s.CtrlIsr, t.CtrlIsr) && s.CtrlPartitionEpoch == t.CtrlPartitionEpoch &&
		slices.Equal(s.CtrlElr, t.CtrlElr) && slices.Equal(s.BrokerEpoch, t.BrokerEpoch) &&
		slices.Equal(s.CtrlLastKnownElr, t.CtrlLastKnownElr) &&
		slices.EqualFunc(s.ControllerQueue, t.ControllerQueue, func(a, b []Msg) bool {
			return slices.EqualFunc(a, b, Msg.Equal)
		}) &&
		slices.EqualFunc(s.Inflight, t.Inflight, Msg.Equal) &&
		slices.EqualFunc(s.AlterPartition, t.AlterPartition, Msg.Equal) &&
		s.NextId == t.NextId && s.Crashes == t.Crashes &&
		slices.Equal(s.Acked, t.Acked) && slices.Equal(s.Committed, t.Committed)
}

// with returns a copy of xs with xs[i] = v: the copy-on-write EXCEPT ![i] = v.
func with[T any](xs []T, i int, v T) []T {
	c := slices.Clone(xs)
	c[i] = v
	return c
}
