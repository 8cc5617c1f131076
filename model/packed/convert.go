package packed

import (
	"fmt"

	"github.com/hwepoch/hwepoch/model"
)

// index is replica r's index in cfg, None for model.None.
func index(cfg *model.Config, r model.Replica) (int8, error) {
	if r == model.None {
		return None, nil
	}
	if i := cfg.Index(r); i >= 0 {
		return int8(i), nil
	}
	return 0, fmt.Errorf("replica %q is not in the configuration", r)
}

func setOf(cfg *model.Config, rs []model.Replica) (Set, error) {
	var s Set
	for _, r := range rs {
		i := cfg.Index(r)
		if i < 0 {
			return 0, fmt.Errorf("replica %q is not in the configuration", r)
		}
		s |= 1 << uint(i)
	}
	return s, nil
}

// small converts an int of the model into the struct's int8, refusing what
// does not fit (no bound of the explorer's configurations comes near).
func small(x int) (int8, error) {
	if x < -128 || x > 127 {
		return 0, fmt.Errorf("value %d does not fit the packed state", x)
	}
	return int8(x), nil
}

// FromModel converts s into p. It fails when s exceeds a maximum of the
// fixed-size arrays or names a replica the configuration lacks.
func FromModel(cfg *model.Config, s *model.State, p *State) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("packing state: %v", r)
		}
	}()
	*p = State{}
	n := cfg.N()
	if n > MaxReplicas {
		return fmt.Errorf("%d replicas: the packed state holds at most %d", n, MaxReplicas)
	}
	must := func(x int8, e error) int8 {
		if e != nil {
			panic(e)
		}
		return x
	}
	num := func(x int) int8 { return must(small(x)) }
	rep := func(r model.Replica) int8 { return must(index(cfg, r)) }
	set := func(rs []model.Replica) Set {
		s, e := setOf(cfg, rs)
		if e != nil {
			panic(e)
		}
		return s
	}
	for i := range n {
		r := &p.R[i]
		if len(s.Log[i]) > MaxLog {
			return fmt.Errorf("replica %s: a log of %d records; the packed state holds %d", cfg.Replicas[i], len(s.Log[i]), MaxLog)
		}
		r.LogLen = int8(len(s.Log[i]))
		for k, x := range s.Log[i] {
			r.Log[k] = Record{num(x.ID), num(x.Epoch)}
		}
		if len(s.EpochCache[i]) > MaxCache {
			return fmt.Errorf("replica %s: %d epoch cache entries; the packed state holds %d", cfg.Replicas[i], len(s.EpochCache[i]), MaxCache)
		}
		r.CacheLen = int8(len(s.EpochCache[i]))
		for k, x := range s.EpochCache[i] {
			r.Cache[k] = Entry{num(x.Epoch), num(x.Start)}
		}
		r.HwCheckpoint = num(s.HwCheckpoint[i])
		r.Role = s.Role[i]
		r.LeaderEpoch = num(s.LeaderEpoch[i])
		r.Leader = rep(s.Leader[i])
		r.Hw = num(s.Hw[i])
		r.Isr = set(s.Isr[i])
		if len(s.FollowerLeo[i]) != n {
			return fmt.Errorf("replica %s: followerLeo has %d entries, want %d", cfg.Replicas[i], len(s.FollowerLeo[i]), n)
		}
		for k, v := range s.FollowerLeo[i] {
			r.FollowerLeo[k] = num(v)
		}
		if len(s.FollowerBrokerEpoch[i]) != n {
			return fmt.Errorf("replica %s: followerBrokerEpoch has %d entries, want %d", cfg.Replicas[i], len(s.FollowerBrokerEpoch[i]), n)
		}
		for k, v := range s.FollowerBrokerEpoch[i] {
			r.FollowerBrokerEpoch[k] = num(v)
		}
		r.BrokerEpoch = num(s.BrokerEpoch[i])
		r.FetchState = s.FetchState[i]
		r.ProduceEpoch = num(s.ProduceEpoch[i])
		r.PartEpoch = num(s.PartitionEpoch[i])
		r.PendingIsr = set(s.PendingIsr[i])
		if len(s.ControllerQueue[i]) > MaxQueue {
			return fmt.Errorf("replica %s: %d requests in its controller queue; the packed state holds %d", cfg.Replicas[i], len(s.ControllerQueue[i]), MaxQueue)
		}
		r.QueueLen = int8(len(s.ControllerQueue[i]))
		for k := range s.ControllerQueue[i] {
			if err := msgFrom(cfg, &s.ControllerQueue[i][k], &r.Queue[k]); err != nil {
				return err
			}
		}
		if err := msgFrom(cfg, &s.Inflight[i], &r.Inflight); err != nil {
			return err
		}
		if err := msgFrom(cfg, &s.AlterPartition[i], &r.AlterPartition); err != nil {
			return err
		}
	}
	p.CtrlLeader = rep(s.CtrlLeader)
	p.CtrlEpoch = num(s.CtrlEpoch)
	p.CtrlIsr = set(s.CtrlIsr)
	p.CtrlPartitionEpoch = num(s.CtrlPartitionEpoch)
	p.CtrlElr = set(s.CtrlElr)
	p.CtrlLastKnownElr = set(s.CtrlLastKnownElr)
	p.NextID = num(s.NextId)
	p.Crashes = num(s.Crashes)
	for _, x := range s.Acked {
		b, err := offsetIDBit(x)
		if err != nil {
			return err
		}
		p.Acked |= b
	}
	for _, x := range s.Committed {
		b, err := offsetIDBit(x)
		if err != nil {
			return err
		}
		p.Committed |= b
	}
	return nil
}

func offsetIDBit(x model.OffsetID) (uint32, error) {
	if x.Offset < 0 || x.Offset >= MaxLog || x.ID < 0 || x.ID > MaxLog {
		return 0, fmt.Errorf("[offset %d, id %d] is outside the packed state's bounds", x.Offset, x.ID)
	}
	return OffsetIDBit(x.Offset, x.ID), nil
}

func msgFrom(cfg *model.Config, m *model.Msg, p *Msg) error {
	*p = Msg{}
	if len(m.Records) > MaxLog {
		return fmt.Errorf("a message of %d records; the packed state holds %d", len(m.Records), MaxLog)
	}
	vals := []int{m.Epoch, m.PartitionEpoch, m.LeaderEpoch, m.CurrentEpoch, m.Offset, m.Hw, m.Leo,
		m.LastFetchedEpoch, m.DivergingEpoch.Epoch, m.DivergingEpoch.Offset}
	var out [10]int8
	for k, v := range vals {
		x, err := small(v)
		if err != nil {
			return err
		}
		out[k] = x
	}
	var err error
	p.Type = m.Type
	if m.Type == model.MsgLeaderAndIsr {
		if p.Leader, err = index(cfg, m.Leader); err != nil {
			return err
		}
	}
	if m.Src != "" {
		if p.Src, err = index(cfg, m.Src); err != nil {
			return err
		}
	}
	if m.Dst != "" {
		if p.Dst, err = index(cfg, m.Dst); err != nil {
			return err
		}
	}
	if p.Isr, err = setOf(cfg, m.Isr); err != nil {
		return err
	}
	p.Epoch, p.PartitionEpoch, p.LeaderEpoch, p.CurrentEpoch, p.Offset = out[0], out[1], out[2], out[3], out[4]
	p.Hw, p.Leo, p.LastFetchedEpoch, p.DivEpoch, p.DivOffset = out[5], out[6], out[7], out[8], out[9]
	p.Error = m.Error
	p.NRecords = int8(len(m.Records))
	for k, r := range m.Records {
		id, err1 := small(r.ID)
		ep, err2 := small(r.Epoch)
		if err1 != nil || err2 != nil {
			return fmt.Errorf("record %v does not fit the packed state", r)
		}
		p.Records[k] = Record{id, ep}
	}
	p.Orphan, p.Diverging = m.Orphan, m.Diverging
	// An AlterPartition gives every replica a broker epoch; no other type
	// has the field (ToModel gives it back so).
	switch n := cfg.N(); {
	case m.Type == model.MsgAlterPartition && len(m.BrokerEpochs) != n:
		return fmt.Errorf("an AlterPartition with %d broker epochs, want %d", len(m.BrokerEpochs), n)
	case m.Type != model.MsgAlterPartition && len(m.BrokerEpochs) != 0:
		return fmt.Errorf("a %s with broker epochs", m.Type)
	}
	for k, v := range m.BrokerEpochs {
		x, err := small(v)
		if err != nil {
			return err
		}
		p.BrokerEpochs[k] = x
	}
	return nil
}

// ToModel converts p into s, a fresh model.State that shares nothing with p.
// Its slices are carved out of one allocation per element type (toModelArena),
// each capped at its length, so that an append to one copies it rather than
// writing into its neighbour: the differential tests convert every successor.
func ToModel(cfg *model.Config, p *State) model.State {
	n := cfg.N()
	a := newToModelArena(cfg, p)
	s := model.State{
		Log:                 a.recSlices.take(n),
		EpochCache:          a.entSlices.take(n),
		HwCheckpoint:        a.ints.take(n),
		Role:                make([]model.Role, n),
		LeaderEpoch:         a.ints.take(n),
		Leader:              a.reps.take(n),
		Hw:                  a.ints.take(n),
		Isr:                 a.repSlices.take(n),
		FollowerLeo:         a.intSlices.take(n),
		FollowerBrokerEpoch: a.intSlices.take(n),
		FetchState:          make([]model.FetchState, n),
		ProduceEpoch:        a.ints.take(n),
		PartitionEpoch:      a.ints.take(n),
		PendingIsr:          a.repSlices.take(n),
		BrokerEpoch:         a.ints.take(n),
		ControllerQueue:     a.msgSlices.take(n),
		Inflight:            a.msgs.take(n),
		AlterPartition:      a.msgs.take(n),
	}
	for i := range n {
		r := &p.R[i]
		if r.LogLen > 0 {
			s.Log[i] = a.recs.take(int(r.LogLen))
			for k := range s.Log[i] {
				s.Log[i][k] = model.Record{ID: int(r.Log[k].ID), Epoch: int(r.Log[k].Epoch)}
			}
		}
		if r.CacheLen > 0 {
			s.EpochCache[i] = a.ents.take(int(r.CacheLen))
			for k := range s.EpochCache[i] {
				s.EpochCache[i][k] = model.Entry{Epoch: int(r.Cache[k].Epoch), Start: int(r.Cache[k].Start)}
			}
		}
		s.HwCheckpoint[i] = int(r.HwCheckpoint)
		s.Role[i] = r.Role
		s.LeaderEpoch[i] = int(r.LeaderEpoch)
		s.Leader[i] = name(cfg, r.Leader)
		s.Hw[i] = int(r.Hw)
		s.Isr[i] = a.members(cfg, r.Isr)
		s.FollowerLeo[i] = a.ints.take(n)
		s.FollowerBrokerEpoch[i] = a.ints.take(n)
		for k := range n {
			s.FollowerLeo[i][k] = int(r.FollowerLeo[k])
			s.FollowerBrokerEpoch[i][k] = int(r.FollowerBrokerEpoch[k])
		}
		s.BrokerEpoch[i] = int(r.BrokerEpoch)
		s.FetchState[i] = r.FetchState
		s.ProduceEpoch[i] = int(r.ProduceEpoch)
		s.PartitionEpoch[i] = int(r.PartEpoch)
		s.PendingIsr[i] = a.members(cfg, r.PendingIsr)
		if r.QueueLen > 0 {
			s.ControllerQueue[i] = a.msgs.take(int(r.QueueLen))
			for k := range s.ControllerQueue[i] {
				s.ControllerQueue[i][k] = a.msgTo(cfg, &r.Queue[k])
			}
		}
		s.Inflight[i] = a.msgTo(cfg, &r.Inflight)
		s.AlterPartition[i] = a.msgTo(cfg, &r.AlterPartition)
	}
	s.CtrlLeader = name(cfg, p.CtrlLeader)
	s.CtrlEpoch = int(p.CtrlEpoch)
	s.CtrlIsr = a.members(cfg, p.CtrlIsr)
	s.CtrlPartitionEpoch = int(p.CtrlPartitionEpoch)
	s.CtrlElr = a.members(cfg, p.CtrlElr)
	s.CtrlLastKnownElr = a.members(cfg, p.CtrlLastKnownElr)
	s.NextId = int(p.NextID)
	s.Crashes = int(p.Crashes)
	s.Acked = offsetIDs(p.Acked)
	s.Committed = offsetIDs(p.Committed)
	return s
}

// arena is storage ToModel carves slices out of, front to back.
type arena[T any] []T

// take is the next k elements, capped at k.
func (a *arena[T]) take(k int) []T {
	out := (*a)[:k:k]
	*a = (*a)[k:]
	return out
}

// toModelArena is what ToModel's state is made of, sized for p exactly.
type toModelArena struct {
	ints      arena[int]
	reps      arena[model.Replica]
	recs      arena[model.Record]
	ents      arena[model.Entry]
	msgs      arena[model.Msg]
	intSlices arena[[]int]
	repSlices arena[[]model.Replica]
	recSlices arena[[]model.Record]
	entSlices arena[[]model.Entry]
	msgSlices arena[[]model.Msg]
}

func newToModelArena(cfg *model.Config, p *State) *toModelArena {
	n := cfg.N()
	ints, reps, recs, ents, msgs := 6*n+2*n*n, n, 0, 0, 2*n
	msg := func(m *Msg) {
		reps += m.Isr.size()
		recs += int(m.NRecords)
		if m.Type == model.MsgAlterPartition {
			ints += n
		}
	}
	for i := range n {
		r := &p.R[i]
		recs += int(r.LogLen)
		ents += int(r.CacheLen)
		msgs += int(r.QueueLen)
		reps += r.Isr.size() + r.PendingIsr.size()
		for k := range r.QueueLen {
			msg(&r.Queue[k])
		}
		msg(&r.Inflight)
		msg(&r.AlterPartition)
	}
	reps += p.CtrlIsr.size() + p.CtrlElr.size() + p.CtrlLastKnownElr.size()
	return &toModelArena{
		ints: make([]int, ints), reps: make([]model.Replica, reps), recs: make([]model.Record, recs),
		ents: make([]model.Entry, ents), msgs: make([]model.Msg, msgs),
		intSlices: make([][]int, 2*n), repSlices: make([][]model.Replica, 2*n),
		recSlices: make([][]model.Record, n), entSlices: make([][]model.Entry, n), msgSlices: make([][]model.Msg, n),
	}
}

func name(cfg *model.Config, i int8) model.Replica {
	if i == None {
		return model.None
	}
	return cfg.Replicas[i]
}

// members is the sorted set of s's replicas (nil when empty, as the model
// keeps an empty set).
func (a *toModelArena) members(cfg *model.Config, s Set) []model.Replica {
	if s == 0 {
		return nil
	}
	out := a.reps.take(s.size())
	k := 0
	for i := range cfg.N() {
		if s.Has(i) {
			out[k] = cfg.Replicas[i]
			k++
		}
	}
	return out
}

// offsetIDs lists a set of [offset, id] pairs in the model's order (by
// offset, then id).
func offsetIDs(b uint32) []model.OffsetID {
	var out []model.OffsetID
	for o := range MaxLog {
		for id := 0; id <= MaxLog; id++ {
			if b&OffsetIDBit(o, id) != 0 {
				out = append(out, model.OffsetID{Offset: o, ID: id})
			}
		}
	}
	return out
}

func (a *toModelArena) msgTo(cfg *model.Config, p *Msg) model.Msg {
	m := model.Msg{Type: p.Type, Epoch: int(p.Epoch), PartitionEpoch: int(p.PartitionEpoch),
		LeaderEpoch: int(p.LeaderEpoch), CurrentEpoch: int(p.CurrentEpoch), Error: p.Error,
		Offset: int(p.Offset), Hw: int(p.Hw), Leo: int(p.Leo), LastFetchedEpoch: int(p.LastFetchedEpoch),
		Orphan: p.Orphan, Diverging: p.Diverging,
		DivergingEpoch: model.EpochOffset{Epoch: int(p.DivEpoch), Offset: int(p.DivOffset)}}
	m.Isr = a.members(cfg, p.Isr)
	if p.Type == model.MsgLeaderAndIsr {
		m.Leader = name(cfg, p.Leader)
	}
	if hasSrcDst(p.Type) {
		m.Src, m.Dst = name(cfg, p.Src), name(cfg, p.Dst)
	}
	if p.Type == model.MsgAlterPartition {
		m.BrokerEpochs = a.ints.take(cfg.N())
		for k := range m.BrokerEpochs {
			m.BrokerEpochs[k] = int(p.BrokerEpochs[k])
		}
	}
	if p.NRecords > 0 {
		m.Records = a.recs.take(int(p.NRecords))
		for k := range m.Records {
			m.Records[k] = model.Record{ID: int(p.Records[k].ID), Epoch: int(p.Records[k].Epoch)}
		}
	}
	return m
}

func hasSrcDst(t model.MsgType) bool {
	switch t {
	case model.MsgOffsetsForLeaderEpoch, model.MsgOffsetsForLeaderEpochResponse, model.MsgFetch,
		model.MsgFetchRead, model.MsgFetchResponse:
		return true
	}
	return false
}
