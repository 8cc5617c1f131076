package cluster

import (
	"maps"
	"slices"

	"github.com/hwepoch/hwepoch/impl/broker"
	"github.com/hwepoch/hwepoch/impl/client"
	"github.com/hwepoch/hwepoch/impl/controller"
	"github.com/hwepoch/hwepoch/impl/netsim"
	"github.com/hwepoch/hwepoch/impl/protocol"
)

// Snapshot is the whole cluster as plain values, for the refinement
// checker's abstraction function. Field names follow spec/Replication.tla's
// variables; the per-broker and network fields are about the focus
// partition unless they say otherwise.
type Snapshot struct {
	Focus      protocol.TopicPartition
	Brokers    []BrokerSnapshot // by id
	Controller ControllerSnapshot
	Network    NetworkSnapshot
	Producer   ProducerSnapshot
	// Committed is the spec's committed: every (offset, id) that was ever
	// below a leader's HW, sorted.
	Committed []OffsetID
	// Crashes is the spec's crashes.
	Crashes int
}

// BrokerSnapshot is one broker.
type BrokerSnapshot struct {
	ID    int32
	Alive bool
	// Role is role[r] for the focus partition: "Offline", "Starting",
	// "Leader" or "Follower".
	Role string
	// Partition is the focus partition's replica on this broker.
	Partition PartitionSnapshot
	// Partitions are all its replicas, sorted (the focus one included).
	Partitions []PartitionSnapshot
}

// Record is a record of a log (the spec's [id, epoch] at its offset).
type Record struct {
	Offset int64
	Epoch  int32
	ID     int64
}

// EpochEntry is an epoch cache entry (the spec's [epoch, start]).
type EpochEntry struct {
	Epoch int32
	Start int64
}

// PartitionSnapshot is one replica: the spec's per-replica variables. An
// offline broker shows its files (log, epochCache, hwCheckpoint) and the
// spec's fixed volatile values (HW 0, epoch -1, no leader, ...).
type PartitionSnapshot struct {
	Topic        string
	Partition    int32
	Role         string
	Log          []Record     // log
	EpochCache   []EpochEntry // epochCache
	HW           int64        // hw
	HWCheckpoint int64        // hwCheckpoint, as in the file
	LEO          int64
	LeaderEpoch  int32 // leaderEpoch, -1 if none
	Leader       int32 // leader, -1 if none
	Isr          []int32
	// FollowerLEO is followerLeo[r]: one entry per replica, -1 unknown.
	FollowerLEO map[int32]int64
	// FollowerBrokerEpoch is followerBrokerEpoch[r]: one entry per
	// replica, -1 unknown (KIP-903).
	FollowerBrokerEpoch map[int32]int64
	FetchState          string // "None", "Truncating" or "Fetching"
	// partitionEpoch (-1 unless leader) and pendingIsr (asynchronous
	// AlterPartition), and, not in the spec, the correlation id holding the
	// fetcher slot.
	PartitionEpoch int32
	FetchInFlight  uint64
	PendingIsr     []int32
	// ProduceEpoch is produceEpoch[r] (-1 unless leader).
	ProduceEpoch int32
	// RecoveryPoint is the log's recovery point, not in the spec: the
	// records below it are fsynced (what a power loss keeps).
	RecoveryPoint int64
}

// ControllerSnapshot is ctrlLeader, ctrlEpoch, ctrlIsr, ctrlPartitionEpoch,
// ctrlElr and ctrlLastKnownElr.
type ControllerSnapshot struct {
	Leader         int32 // -1 before the first election
	Epoch          int32 // -1 before the first election
	Isr            []int32
	PartitionEpoch int32
	// Elr is the Eligible Leader Replicas (KIP-966), sorted, empty unless
	// the release has them; LastKnownElr the last known leader (at most
	// one broker).
	Elr          []int32
	LastKnownElr []int32
	// BrokerEpochs is brokerEpoch: every broker's registration epoch
	// (KIP-903; 0 for all where the release has none).
	BrokerEpochs map[int32]int64
	// OfflinePartition: the leader went down since its election (Kafka's
	// OfflinePartition state).
	OfflinePartition bool
}

// LeaderAndIsrMsg is a LeaderAndIsr request for the focus partition.
type LeaderAndIsrMsg struct {
	Leader         int32
	Epoch          int32
	Isr            []int32
	PartitionEpoch int32
}

// Message types of the spec's inflight records.
const (
	MsgNone                          = "None"
	MsgFetch                         = "Fetch"
	MsgFetchRead                     = "FetchRead"
	MsgFetchResponse                 = "FetchResponse"
	MsgOffsetsForLeaderEpoch         = "OffsetsForLeaderEpoch"
	MsgOffsetsForLeaderEpochResponse = "OffsetsForLeaderEpochResponse"
)

// Message is a fetcher request or response (the spec's message records;
// fields not of its type are zero). Corr is the request's correlation id.
type Message struct {
	Type         string
	Src, Dst     int32
	Error        string
	Epoch        int32
	Offset       int64
	Records      []Record
	HW           int64
	LEO          int64
	CurrentEpoch int32
	Corr         uint64
	// LastFetchedEpoch is a Fetch's (-1 none).
	LastFetchedEpoch int32
	// Diverging, DivergingEpoch, DivergingOffset: a FetchResponse's
	// divergingEpoch.
	Diverging       bool
	DivergingEpoch  int32
	DivergingOffset int64
	// Orphan: a Fetch, or a leader's read of one (FetchRead), whose sender
	// crashed since; it may still be served, its response goes nowhere.
	Orphan bool
}

// AlterPartitionMsg is a leader's AlterPartition request for the focus
// partition, or the controller's response to it (the spec's
// alterPartition[l]).
type AlterPartitionMsg struct {
	Type           string // "AlterPartition" or "AlterPartitionResponse"
	Error          string // the response's
	LeaderEpoch    int32
	PartitionEpoch int32
	Isr            []int32
	// BrokerEpochs is a request's brokerEpochs: the broker epoch it gives
	// each ISR member (KIP-903), those it gives none (-1) absent.
	BrokerEpochs map[int32]int64
}

// NetworkSnapshot is controllerQueue and inflight.
type NetworkSnapshot struct {
	// ControllerQueue: per broker, the LeaderAndIsr requests for the focus
	// partition sent or queued, not yet applied, in order.
	ControllerQueue map[int32][]LeaderAndIsrMsg
	// Inflight: per broker (as follower), its fetcher request or the
	// response to it; Type "None" when there is none.
	Inflight map[int32]Message
	// Extra counts further fetcher messages about the focus partition
	// (none in stepped mode; late or duplicated ones in free mode).
	Extra int
	// AlterPartition: per leader, its AlterPartition in flight or the
	// response to it, under asynchronous AlterPartition (the ZooKeeper
	// releases' conditional write is never in flight between steps).
	AlterPartition map[int32]AlterPartitionMsg
}

// ProducerSnapshot is nextId and acked.
type ProducerSnapshot struct {
	NextID int64
	Acked  []OffsetID
}

// Snapshot captures the cluster. In stepped mode it is exact; in free mode
// each part is read at a slightly different time.
func (c *Cluster) Snapshot() Snapshot {
	c.opMu.Lock()
	defer c.opMu.Unlock()
	return c.snapshot()
}

func (c *Cluster) snapshot() Snapshot {
	s := Snapshot{Focus: c.focus, Committed: c.history.list(c.focus)}
	c.mu.Lock()
	s.Crashes = c.crashes
	type view struct {
		id      int32
		b       *broker.Broker
		offline map[protocol.TopicPartition]broker.PartitionState
	}
	var views []view
	for _, id := range sortedKeys(c.slots) {
		sl := c.slots[id]
		views = append(views, view{id, sl.b, sl.offline})
	}
	c.mu.Unlock()
	for _, v := range views {
		bs := BrokerSnapshot{ID: v.id, Alive: v.b != nil, Role: string(broker.Offline)}
		var parts []broker.PartitionState
		if v.b != nil {
			parts = v.b.State().Partitions
		} else {
			for _, tp := range c.partitionsOf(v.id) {
				parts = append(parts, v.offline[tp])
			}
		}
		for _, p := range parts {
			ps := c.partitionSnapshot(p)
			bs.Partitions = append(bs.Partitions, ps)
			if p.Topic == c.focus.Topic && p.Partition == c.focus.Partition {
				bs.Partition = ps
				bs.Role = ps.Role
			}
		}
		s.Brokers = append(s.Brokers, bs)
	}
	s.Controller = c.controllerSnapshot()
	s.Network = c.networkSnapshot()
	s.Producer = ProducerSnapshot{NextID: c.producer.NextID(), Acked: offsetIDs(c.producer.Acked())}
	return s
}

func (c *Cluster) partitionSnapshot(p broker.PartitionState) PartitionSnapshot {
	tp := protocol.TopicPartition{Topic: p.Topic, Partition: p.Partition}
	return PartitionSnapshotOf(p, c.assign[tp])
}

// PartitionSnapshotOf is a broker's partition state as a snapshot: the
// spec's per-replica variables with their defaults filled in (a crashed
// broker's role is Offline, its fetch state None, every replica of
// replicas has a followerLeo entry, -1 when unknown). A free run's events
// carry the broker's state; the validator abstracts it through this.
func PartitionSnapshotOf(p broker.PartitionState, replicas []int32) PartitionSnapshot {
	ps := PartitionSnapshot{
		Topic: p.Topic, Partition: p.Partition, Role: string(p.Role),
		Log: make([]Record, len(p.Log)), EpochCache: make([]EpochEntry, len(p.EpochCache)),
		HW: p.HW, HWCheckpoint: p.HWCheckpoint, LEO: p.LEO, LeaderEpoch: p.LeaderEpoch, Leader: p.Leader,
		Isr: slices.Clone(p.Isr), FollowerLEO: maps.Clone(p.FollowerLEO), FollowerBrokerEpoch: maps.Clone(p.FollowerBrokerEpoch),
		FetchState:     string(p.FetchState),
		PartitionEpoch: p.PartitionEpoch, FetchInFlight: p.FetchInFlight, PendingIsr: slices.Clone(p.PendingIsr),
		ProduceEpoch: p.ProduceEpoch, RecoveryPoint: p.RecoveryPoint,
	}
	if ps.Role == "" {
		ps.Role = string(broker.Offline)
	}
	if ps.FetchState == "" {
		ps.FetchState = string(broker.FetchNone)
	}
	if ps.Isr == nil {
		ps.Isr = []int32{}
	}
	if ps.FollowerLEO == nil {
		ps.FollowerLEO = map[int32]int64{}
	}
	if ps.FollowerBrokerEpoch == nil {
		ps.FollowerBrokerEpoch = map[int32]int64{}
	}
	for _, r := range replicas {
		if _, ok := ps.FollowerLEO[r]; !ok {
			ps.FollowerLEO[r] = -1
		}
		if _, ok := ps.FollowerBrokerEpoch[r]; !ok {
			ps.FollowerBrokerEpoch[r] = -1
		}
	}
	for i, r := range p.Log {
		ps.Log[i] = Record{Offset: r.Offset, Epoch: r.LeaderEpoch, ID: r.ID}
	}
	for i, e := range p.EpochCache {
		ps.EpochCache[i] = EpochEntry{Epoch: e.Epoch, Start: e.Start}
	}
	return ps
}

func (c *Cluster) controllerSnapshot() ControllerSnapshot {
	st, ok := c.ctrl.partition(c.focus)
	if !ok {
		return ControllerSnapshot{Leader: -1, Epoch: -1, Isr: []int32{}, Elr: []int32{}, LastKnownElr: []int32{}, BrokerEpochs: map[int32]int64{}}
	}
	cs := ControllerSnapshot{Leader: int32(st.Leader), Epoch: st.LeaderEpoch, Isr: toInt32(st.Isr), PartitionEpoch: st.PartitionEpoch,
		Elr: toInt32(st.Elr), LastKnownElr: toInt32(st.LastKnownElr), BrokerEpochs: map[int32]int64{}}
	var offline bool
	ids := c.BrokerIDs()
	c.ctrl.do(func() {
		for _, id := range ids {
			cs.BrokerEpochs[id] = c.ctrl.ctrl.BrokerEpoch(controller.BrokerID(id))
		}
		for _, tp := range c.ctrl.ctrl.OfflinePartitions() {
			if tp.Topic == c.focus.Topic && tp.Partition == c.focus.Partition {
				offline = true
			}
		}
	})
	cs.OfflinePartition = offline && st.LeaderEpoch >= 0
	return cs
}

func (c *Cluster) networkSnapshot() NetworkSnapshot {
	ns := NetworkSnapshot{ControllerQueue: map[int32][]LeaderAndIsrMsg{}, Inflight: map[int32]Message{}}
	for _, id := range c.BrokerIDs() {
		ns.ControllerQueue[id] = []LeaderAndIsrMsg{}
		ns.Inflight[id] = Message{Type: MsgNone}
	}
	for b, q := range c.ctrl.queues() {
		for _, req := range q {
			for _, p := range req.Partitions {
				if p.TopicPartition == c.focus {
					ns.ControllerQueue[b] = append(ns.ControllerQueue[b], LeaderAndIsrMsg{Leader: p.Leader, Epoch: p.LeaderEpoch,
						Isr: protocol.SortedIDs(p.Isr), PartitionEpoch: p.PartitionEpoch})
				}
			}
		}
	}
	ns.AlterPartition = map[int32]AlterPartitionMsg{}
	var msgs []Message
	for _, m := range c.net.InFlight() {
		if am, l, ok := c.alterPartitionMessage(m); ok {
			ns.AlterPartition[l] = am
			continue
		}
		if wm, ok := c.wireMessage(m); ok {
			msgs = append(msgs, wm)
		}
	}
	// The reads leaders hold between HandleFetch and
	// UpdateFollowerFetchState.
	for _, l := range c.BrokerIDs() {
		b, err := c.broker(l)
		if err != nil {
			continue
		}
		for _, r := range b.FetchReads(c.focus) {
			x := r.Partition
			msgs = append(msgs, Message{Type: MsgFetchRead, Src: l, Dst: r.Follower, Offset: x.FetchOffset,
				Records: recordsOf(x.Records), HW: x.HighWatermark, LEO: x.LogEndOffset, CurrentEpoch: x.CurrentLeaderEpoch,
				Orphan: r.Orphan})
		}
	}
	for _, wm := range msgs {
		owner := wm.Src
		if !isRequest(wm.Type) {
			owner = wm.Dst
		}
		if ns.Inflight[owner].Type != MsgNone {
			ns.Extra++
			continue
		}
		ns.Inflight[owner] = wm
	}
	return ns
}

// alterPartitionMessage turns an AlterPartition request or response about
// the focus partition into the spec's alterPartition[l] record.
func (c *Cluster) alterPartitionMessage(m netsim.Message) (AlterPartitionMsg, int32, bool) {
	switch p := m.Payload.(type) {
	case protocol.AlterPartitionRequest:
		if l, ok := brokerOfNode(m.From); ok && p.Partition == c.focus {
			am := AlterPartitionMsg{Type: "AlterPartition", LeaderEpoch: p.LeaderEpoch, PartitionEpoch: p.PartitionEpoch,
				Isr: protocol.SortedIDs(p.NewIsr), BrokerEpochs: map[int32]int64{}}
			for i, e := range p.NewIsrBrokerEpochs {
				if e != -1 && i < len(p.NewIsr) {
					am.BrokerEpochs[p.NewIsr[i]] = e
				}
			}
			return am, l, true
		}
	case protocol.AlterPartitionResponse:
		if l, ok := brokerOfNode(m.To); ok && p.Partition == c.focus {
			return AlterPartitionMsg{Type: "AlterPartitionResponse", Error: p.Error.String(), LeaderEpoch: p.LeaderEpoch,
				PartitionEpoch: p.PartitionEpoch, Isr: protocol.SortedIDs(p.Isr)}, l, true
		}
	}
	return AlterPartitionMsg{}, 0, false
}

func offsetIDs(xs []client.OffsetID) []OffsetID {
	out := make([]OffsetID, len(xs))
	for i, x := range xs {
		out[i] = OffsetID{Offset: x.Offset, ID: x.ID}
	}
	return out
}
