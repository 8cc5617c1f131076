package refine

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/hwepoch/hwepoch/impl/cluster"
	"github.com/hwepoch/hwepoch/model"
)

// Abstract maps a snapshot of the implementation onto the model's state:
// the abstraction function of the refinement. Every model field is computed
// from the snapshot field named after the same spec variable (docs/mapping.md
// has the table); replica i of cfg is broker i+1 (see ids.go).
//
// It is strict: a snapshot that has no model counterpart (a broker the
// configuration lacks, a record at the wrong offset, an error code the spec
// does not know, two fetcher messages of one follower in flight) is an
// error naming the broker and field, never a silently "close enough" state.
func Abstract(cfg *model.Config, snap cluster.Snapshot) (model.State, error) {
	a := &abstractor{cfg: cfg}
	s := a.state(snap)
	if a.err != nil {
		return model.State{}, a.err
	}
	return s, nil
}

// abstractor keeps the first error, so the field code reads straight.
type abstractor struct {
	cfg *model.Config
	err error
}

func (a *abstractor) fail(format string, args ...any) {
	if a.err == nil {
		a.err = fmt.Errorf("abstraction: "+format, args...)
	}
}

// replica is the replica broker id plays; None for -1 when allowNone.
func (a *abstractor) replica(field string, id int32, allowNone bool) model.Replica {
	if id == -1 && allowNone {
		return model.None
	}
	r, err := ReplicaOf(a.cfg, id)
	if err != nil {
		a.fail("%s: %v", field, err)
	}
	return r
}

// index is the replica index of broker id (replica i is broker i+1).
func (a *abstractor) index(field string, id int32) int {
	if _, err := ReplicaOf(a.cfg, id); err != nil {
		a.fail("%s: %v", field, err)
		return 0
	}
	return int(id - 1)
}

// replicas is a set of broker ids as the model's set of replicas (sorted by
// name, which need not be id order).
func (a *abstractor) replicas(field string, ids []int32) []model.Replica {
	out := make([]model.Replica, 0, len(ids))
	for _, id := range ids {
		out = append(out, a.replica(field, id, false))
	}
	set := model.SetOf(out...)
	if len(set) != len(out) {
		a.fail("%s: %v lists a broker twice", field, ids)
	}
	return set
}

// optionalReplicas is replicas for a set the model keeps nil when empty
// (ctrlElr, ctrlLastKnownElr: {} for every release without ELR).
func (a *abstractor) optionalReplicas(field string, ids []int32) []model.Replica {
	if len(ids) == 0 {
		return nil
	}
	return a.replicas(field, ids)
}

func (a *abstractor) state(snap cluster.Snapshot) model.State {
	n := a.cfg.N()
	if len(snap.Brokers) != n {
		a.fail("the snapshot has %d brokers, the configuration %d replicas %v", len(snap.Brokers), n, a.cfg.Replicas)
		return model.State{}
	}
	s := model.State{
		Log: make([][]model.Record, n), EpochCache: make([][]model.Entry, n), HwCheckpoint: make([]int, n),
		Role: make([]model.Role, n), LeaderEpoch: make([]int, n), Leader: make([]model.Replica, n),
		Hw: make([]int, n), Isr: make([][]model.Replica, n), FollowerLeo: make([][]int, n), FollowerBrokerEpoch: make([][]int, n),
		FetchState: make([]model.FetchState, n), ControllerQueue: make([][]model.Msg, n), Inflight: make([]model.Msg, n),
		ProduceEpoch: make([]int, n), PartitionEpoch: make([]int, n), PendingIsr: make([][]model.Replica, n),
		AlterPartition: make([]model.Msg, n),
	}
	for i, b := range snap.Brokers {
		if b.ID != int32(i+1) {
			a.fail("broker #%d has id %d; brokers must be 1..%d in order", i, b.ID, n)
			return model.State{}
		}
		a.replicaState(&s, i, b, snap)
	}
	ctl := snap.Controller
	s.CtrlLeader = a.replica("controller leader", ctl.Leader, true)
	s.CtrlEpoch = int(ctl.Epoch)
	s.CtrlIsr = a.replicas("controller ISR", ctl.Isr)
	s.CtrlPartitionEpoch = int(ctl.PartitionEpoch)
	s.CtrlElr = a.optionalReplicas("controller ELR", ctl.Elr)
	s.BrokerEpoch = make([]int, n)
	if len(ctl.BrokerEpochs) != n {
		a.fail("controller: broker epochs %v, want one per replica (%d)", ctl.BrokerEpochs, n)
	}
	for id, e := range ctl.BrokerEpochs {
		s.BrokerEpoch[a.index("controller broker epochs", id)] = int(e)
	}
	s.CtrlLastKnownElr = a.optionalReplicas("controller last known leader", ctl.LastKnownElr)
	for i := range n {
		id := int32(i + 1)
		for _, m := range snap.Network.ControllerQueue[id] {
			s.ControllerQueue[i] = append(s.ControllerQueue[i],
				model.LeaderAndIsrMsg(a.replica(fmt.Sprintf("broker %d: LeaderAndIsr leader", id), m.Leader, false),
					int(m.Epoch), a.replicas(fmt.Sprintf("broker %d: LeaderAndIsr ISR", id), m.Isr), int(m.PartitionEpoch)))
		}
		s.Inflight[i] = a.message(id, snap.Network.Inflight[id])
		s.AlterPartition[i] = a.alterPartition(id, snap.Network.AlterPartition[id])
	}
	if snap.Network.Extra != 0 {
		a.fail("network: %d fetcher messages beyond one per follower are in flight; the spec's inflight holds one per follower", snap.Network.Extra)
	}
	s.NextId = int(snap.Producer.NextID)
	s.Crashes = snap.Crashes
	s.Acked = a.offsetIDs(snap.Producer.Acked)
	s.Committed = a.offsetIDs(snap.Committed)
	return s
}

// replicaState fills replica i's per-replica variables from its broker.
func (a *abstractor) replicaState(s *model.State, i int, b cluster.BrokerSnapshot, snap cluster.Snapshot) {
	p := b.Partition
	where := fmt.Sprintf("broker %d", b.ID)
	if p.Topic != snap.Focus.Topic || p.Partition != snap.Focus.Partition {
		a.fail("%s: its partition snapshot is %s-%d, not the focus %s", where, p.Topic, p.Partition, snap.Focus)
		return
	}
	st, err := AbstractReplica(a.cfg, p)
	if err != nil {
		a.fail("%s: %v", where, err)
		return
	}
	if (b.Role != p.Role) || (!b.Alive && st.Role != model.Offline) {
		a.fail("%s: broker role %q, alive %t, but partition role %q", where, b.Role, b.Alive, p.Role)
	}
	s.Log[i], s.EpochCache[i], s.HwCheckpoint[i] = st.Log, st.EpochCache, st.HwCheckpoint
	s.Role[i], s.LeaderEpoch[i], s.Leader[i] = st.Role, st.LeaderEpoch, st.Leader
	s.Hw[i], s.Isr[i], s.FollowerLeo[i], s.FetchState[i] = st.Hw, st.Isr, st.FollowerLeo, st.FetchState
	s.FollowerBrokerEpoch[i] = st.FollowerBrokerEpoch
	s.ProduceEpoch[i], s.PartitionEpoch[i], s.PendingIsr[i] = st.ProduceEpoch, st.PartitionEpoch, st.PendingIsr
}

// Local is one replica's own variables: the part of the state a broker
// holds (and what a free run's events carry as post-state).
type Local struct {
	Log          []model.Record
	EpochCache   []model.Entry
	HwCheckpoint int
	Role         model.Role
	LeaderEpoch  int
	Leader       model.Replica
	Hw           int
	Isr          []model.Replica
	FollowerLeo  []int
	// FollowerBrokerEpoch: a leader's view of its followers' broker epochs
	// (KIP-903), -1 unknown.
	FollowerBrokerEpoch []int
	FetchState          model.FetchState
	// A leader's alone (-1, -1, {} on other replicas, as in the spec).
	ProduceEpoch   int
	PartitionEpoch int
	PendingIsr     []model.Replica
}

// LocalOf projects replica i's variables out of a model state.
func LocalOf(s *model.State, i int) Local {
	return Local{Log: s.Log[i], EpochCache: s.EpochCache[i], HwCheckpoint: s.HwCheckpoint[i], Role: s.Role[i],
		LeaderEpoch: s.LeaderEpoch[i], Leader: s.Leader[i], Hw: s.Hw[i], Isr: s.Isr[i],
		FollowerLeo: s.FollowerLeo[i], FollowerBrokerEpoch: s.FollowerBrokerEpoch[i], FetchState: s.FetchState[i],
		ProduceEpoch: s.ProduceEpoch[i], PartitionEpoch: s.PartitionEpoch[i], PendingIsr: s.PendingIsr[i]}
}

// AbstractReplica maps one replica's partition snapshot onto the model's
// per-replica variables.
func AbstractReplica(cfg *model.Config, p cluster.PartitionSnapshot) (Local, error) {
	a := &abstractor{cfg: cfg}
	l := a.local(p)
	return l, a.err
}

func (a *abstractor) local(p cluster.PartitionSnapshot) Local {
	var l Local
	for o, r := range p.Log {
		if r.Offset != int64(o) {
			a.fail("log: the record at index %d has offset %d", o, r.Offset)
		}
		l.Log = append(l.Log, model.Record{ID: int(r.ID), Epoch: int(r.Epoch)})
	}
	if p.LEO != int64(len(p.Log)) {
		a.fail("LEO %d but %d records", p.LEO, len(p.Log))
	}
	for _, e := range p.EpochCache {
		l.EpochCache = append(l.EpochCache, model.Entry{Epoch: int(e.Epoch), Start: int(e.Start)})
	}
	l.HwCheckpoint = int(p.HWCheckpoint)
	role, err := model.ParseRole(p.Role)
	if err != nil {
		a.fail("role: %v", err)
	}
	l.Role = role
	l.LeaderEpoch = int(p.LeaderEpoch)
	l.Leader = a.replica("leader", p.Leader, true)
	l.Hw = int(p.HW)
	l.Isr = a.replicas("ISR", p.Isr)
	l.FollowerLeo = a.perBroker("followerLeo", p.FollowerLEO)
	l.FollowerBrokerEpoch = a.perBroker("followerBrokerEpoch", p.FollowerBrokerEpoch)
	fs, err := model.ParseFetchState(p.FetchState)
	if err != nil {
		a.fail("fetchState: %v", err)
	}
	l.FetchState = fs
	// The spec keeps these for a leader only; the implementation's
	// partition remembers its partition epoch as a follower too.
	l.ProduceEpoch, l.PartitionEpoch = -1, -1
	if role == model.Leader {
		l.ProduceEpoch, l.PartitionEpoch = int(p.ProduceEpoch), int(p.PartitionEpoch)
		l.PendingIsr = a.replicas("pending ISR", p.PendingIsr)
	}
	return l
}

// alterPartition maps leader id's AlterPartition request or response (or
// its absence) onto the spec's alterPartition[l].
func (a *abstractor) alterPartition(id int32, m cluster.AlterPartitionMsg) model.Msg {
	where := fmt.Sprintf("broker %d's AlterPartition", id)
	isr := func() []model.Replica { return a.replicas(where+" ISR", m.Isr) }
	switch m.Type {
	case "", "None":
		return model.NoMsg
	case "AlterPartition":
		// brokerEpochs: KIP-903's epoch of each ISR member, by replica
		// index, -1 for a non-member and where the request gives none.
		be := make([]int, a.cfg.N())
		for i := range be {
			be[i] = -1
		}
		for id, e := range m.BrokerEpochs {
			if !slices.Contains(m.Isr, id) {
				a.fail("%s: a broker epoch for broker %d, not in its ISR %v", where, id, m.Isr)
				continue
			}
			be[a.index(where+" broker epochs", id)] = int(e)
		}
		return model.AlterPartitionReq(int(m.LeaderEpoch), int(m.PartitionEpoch), isr(), be)
	case "AlterPartitionResponse":
		e, err := model.ParseErrorCode(m.Error)
		if err != nil {
			a.fail("%s: error: %v", where, err)
		}
		return model.AlterPartitionResp(e, int(m.LeaderEpoch), int(m.PartitionEpoch), isr())
	}
	a.fail("%s: type %q is not one of the spec's", where, m.Type)
	return model.NoMsg
}

// message maps follower id's fetcher message (or its absence) onto the
// spec's record, built with the model's own constructors so that the fields
// a type does not have stay zero, as model.Msg requires.
func (a *abstractor) message(id int32, m cluster.Message) model.Msg {
	where := fmt.Sprintf("broker %d: inflight", id)
	if m.Type == "" || m.Type == cluster.MsgNone {
		return model.NoMsg
	}
	src := a.replica(where+" src", m.Src, false)
	dst := a.replica(where+" dst", m.Dst, false)
	owner := m.Src
	if m.Type == cluster.MsgFetchResponse || m.Type == cluster.MsgOffsetsForLeaderEpochResponse || m.Type == cluster.MsgFetchRead {
		owner = m.Dst
	}
	if owner != id {
		a.fail("%s: a %s from %d to %d is not follower %d's", where, m.Type, m.Src, m.Dst, id)
	}
	errCode := func() model.ErrorCode {
		e, err := model.ParseErrorCode(m.Error)
		if err != nil {
			a.fail("%s: %s error: %v (the spec knows only %v)", where, m.Type, err, knownErrors())
		}
		return e
	}
	switch m.Type {
	case cluster.MsgFetch:
		return model.FetchReq(src, dst, int(m.Offset), int(m.LastFetchedEpoch), int(m.CurrentEpoch), m.Orphan)
	case cluster.MsgFetchRead:
		return model.FetchRead(src, dst, int(m.Offset), a.records(where, m), int(m.HW), int(m.LEO), int(m.CurrentEpoch), m.Orphan)
	case cluster.MsgOffsetsForLeaderEpoch:
		return model.OffsetsReq(src, dst, int(m.Epoch), int(m.CurrentEpoch))
	case cluster.MsgOffsetsForLeaderEpochResponse:
		return model.OffsetsResp(src, dst, errCode(), int(m.Epoch), int(m.Offset), int(m.CurrentEpoch))
	case cluster.MsgFetchResponse:
		dv := model.NoDivergence0
		if m.Diverging {
			dv = model.EpochOffset{Epoch: int(m.DivergingEpoch), Offset: int(m.DivergingOffset)}
		}
		return model.FetchResp(src, dst, errCode(), int(m.Offset), a.records(where, m), int(m.HW), int(m.LEO), m.Diverging, dv, int(m.CurrentEpoch))
	}
	a.fail("%s: message type %q is not one of the spec's", where, m.Type)
	return model.NoMsg
}

// records maps a fetch read's or response's records, checking their offsets.
func (a *abstractor) records(where string, m cluster.Message) []model.Record {
	var recs []model.Record
	for k, r := range m.Records {
		if r.Offset != m.Offset+int64(k) {
			a.fail("%s: record #%d of a %s from offset %d has offset %d", where, k, m.Type, m.Offset, r.Offset)
		}
		recs = append(recs, model.Record{ID: int(r.ID), Epoch: int(r.Epoch)})
	}
	return recs
}

func knownErrors() []string {
	var out []string
	for e := model.ErrNone; ; e++ {
		s := e.String()
		if _, err := model.ParseErrorCode(s); err != nil {
			return out
		}
		out = append(out, s)
	}
}

// offsetIDs maps a ghost set, sorted and deduplicated as the model keeps it.
func (a *abstractor) offsetIDs(xs []cluster.OffsetID) []model.OffsetID {
	out := make([]model.OffsetID, len(xs))
	for i, x := range xs {
		out[i] = model.OffsetID{Offset: int(x.Offset), ID: int(x.ID)}
	}
	slices.SortFunc(out, func(p, q model.OffsetID) int {
		return cmp.Or(cmp.Compare(p.Offset, q.Offset), cmp.Compare(p.ID, q.ID))
	})
	return slices.Compact(out)
}

// perBroker is a leader's per-follower view (one entry per broker, keyed by
// broker id) as the model's slice indexed by replica position.
func (a *abstractor) perBroker(field string, m map[int32]int64) []int {
	n := a.cfg.N()
	if len(m) != n {
		a.fail("%s has %d entries %v, want one per replica (%d)", field, len(m), m, n)
	}
	out := make([]int, n)
	for j := range n {
		v, ok := m[int32(j+1)]
		if !ok {
			a.fail("%s has no entry for broker %d", field, j+1)
		}
		out[j] = int(v)
	}
	return out
}
