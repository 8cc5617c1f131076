package model

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
)

// The canonical encoding of a State: every field in VarNames order, every
// integer as a zigzag varint, every sequence and set with its length first,
// every replica name with its length first, every message with its type
// first and then exactly the fields of its type. It is injective: equal
// States (in the TLA+ sense, State.Equal) encode to equal bytes and different
// States to different bytes, so a hash of it is a fingerprint.

// AppendEncoding appends s's canonical encoding to buf.
func AppendEncoding(buf []byte, s *State) []byte {
	e := encoder{buf}
	e.len(len(s.Log))
	for _, lg := range s.Log {
		e.len(len(lg))
		for _, r := range lg {
			e.int(r.ID)
			e.int(r.Epoch)
		}
	}
	e.len(len(s.EpochCache))
	for _, c := range s.EpochCache {
		e.len(len(c))
		for _, x := range c {
			e.int(x.Epoch)
			e.int(x.Start)
		}
	}
	e.ints(s.HwCheckpoint)
	e.len(len(s.Role))
	for _, r := range s.Role {
		e.b = append(e.b, byte(r))
	}
	e.ints(s.LeaderEpoch)
	e.replicas(s.Leader)
	e.ints(s.Hw)
	e.len(len(s.Isr))
	for _, set := range s.Isr {
		e.replicas(set)
	}
	e.len(len(s.FollowerLeo))
	for _, v := range s.FollowerLeo {
		e.ints(v)
	}
	e.len(len(s.FollowerBrokerEpoch))
	for _, v := range s.FollowerBrokerEpoch {
		e.ints(v)
	}
	e.len(len(s.FetchState))
	for _, f := range s.FetchState {
		e.b = append(e.b, byte(f))
	}
	e.ints(s.ProduceEpoch)
	e.ints(s.PartitionEpoch)
	e.len(len(s.PendingIsr))
	for _, set := range s.PendingIsr {
		e.replicas(set)
	}
	e.replica(s.CtrlLeader)
	e.int(s.CtrlEpoch)
	e.replicas(s.CtrlIsr)
	e.int(s.CtrlPartitionEpoch)
	e.replicas(s.CtrlElr)
	e.ints(s.BrokerEpoch)
	e.replicas(s.CtrlLastKnownElr)
	e.len(len(s.ControllerQueue))
	for _, q := range s.ControllerQueue {
		e.len(len(q))
		for _, m := range q {
			e.msg(&m)
		}
	}
	e.len(len(s.Inflight))
	for i := range s.Inflight {
		e.msg(&s.Inflight[i])
	}
	e.len(len(s.AlterPartition))
	for i := range s.AlterPartition {
		e.msg(&s.AlterPartition[i])
	}
	e.int(s.NextId)
	e.int(s.Crashes)
	e.offsetIDs(s.Acked)
	e.offsetIDs(s.Committed)
	return e.b
}

// Encode returns s's canonical encoding.
func Encode(s State) []byte { return AppendEncoding(make([]byte, 0, 256), &s) }

type encoder struct{ b []byte }

// len and int are binary's (zigzag) varints with a fast path for the
// one-byte values nearly all of a state's numbers are.
func (e *encoder) len(n int) {
	if uint(n) < 0x80 {
		e.b = append(e.b, byte(n))
		return
	}
	e.b = binary.AppendUvarint(e.b, uint64(n))
}

func (e *encoder) int(x int) {
	zz := uint64(x<<1) ^ uint64(x>>63)
	if zz < 0x80 {
		e.b = append(e.b, byte(zz))
		return
	}
	e.b = binary.AppendUvarint(e.b, zz)
}

func (e *encoder) ints(xs []int) {
	e.len(len(xs))
	for _, x := range xs {
		e.int(x)
	}
}

func (e *encoder) replica(r Replica) {
	e.len(len(r))
	e.b = append(e.b, r...)
}

func (e *encoder) replicas(rs []Replica) {
	e.len(len(rs))
	for _, r := range rs {
		e.replica(r)
	}
}

func (e *encoder) offsetIDs(xs []OffsetID) {
	e.len(len(xs))
	for _, x := range xs {
		e.int(x.Offset)
		e.int(x.ID)
	}
}

// msg writes the type and then the fields of that type's record (MsgFields).
func (e *encoder) msg(m *Msg) {
	e.b = append(e.b, byte(m.Type))
	switch m.Type {
	case MsgLeaderAndIsr:
		e.replica(m.Leader)
		e.int(m.Epoch)
		e.replicas(m.Isr)
		e.int(m.PartitionEpoch)
	case MsgOffsetsForLeaderEpoch:
		e.replica(m.Src)
		e.replica(m.Dst)
		e.int(m.Epoch)
		e.int(m.CurrentEpoch)
	case MsgOffsetsForLeaderEpochResponse:
		e.replica(m.Src)
		e.replica(m.Dst)
		e.b = append(e.b, byte(m.Error))
		e.int(m.Epoch)
		e.int(m.Offset)
		e.int(m.CurrentEpoch)
	case MsgFetch:
		e.replica(m.Src)
		e.replica(m.Dst)
		e.int(m.Offset)
		e.int(m.LastFetchedEpoch)
		e.int(m.CurrentEpoch)
		e.bool(m.Orphan)
	case MsgFetchRead:
		e.replica(m.Src)
		e.replica(m.Dst)
		e.int(m.Offset)
		e.records(m.Records)
		e.int(m.Hw)
		e.int(m.Leo)
		e.int(m.CurrentEpoch)
		e.bool(m.Orphan)
	case MsgFetchResponse:
		e.replica(m.Src)
		e.replica(m.Dst)
		e.b = append(e.b, byte(m.Error))
		e.int(m.Offset)
		e.records(m.Records)
		e.int(m.Hw)
		e.int(m.Leo)
		e.bool(m.Diverging)
		e.int(m.DivergingEpoch.Epoch)
		e.int(m.DivergingEpoch.Offset)
		e.int(m.CurrentEpoch)
	case MsgAlterPartition:
		e.int(m.LeaderEpoch)
		e.int(m.PartitionEpoch)
		e.replicas(m.Isr)
		e.ints(m.BrokerEpochs)
	case MsgAlterPartitionResponse:
		e.b = append(e.b, byte(m.Error))
		e.int(m.LeaderEpoch)
		e.int(m.PartitionEpoch)
		e.replicas(m.Isr)
	}
}

func (e *encoder) records(rs []Record) {
	e.len(len(rs))
	for _, r := range rs {
		e.int(r.ID)
		e.int(r.Epoch)
	}
}

func (e *encoder) bool(b bool) {
	if b {
		e.b = append(e.b, 1)
	} else {
		e.b = append(e.b, 0)
	}
}

// Fingerprint is a 64-bit hash of s's canonical encoding. Like TLC's
// fingerprints, two distinct states collide with probability about 2^-64 per
// pair; the explorer reports the resulting bound.
func Fingerprint(s State) uint64 { return Hash64(Encode(s)) }

// Hash64 is XXH64 with seed 0: fast on short inputs, well distributed, and
// the same on every run (package model has no randomness).
func Hash64(b []byte) uint64 {
	const (
		p1 = 11400714785074694791
		p2 = 14029467366897019727
		p3 = 1609587929392839161
		p4 = 9650029242287828579
		p5 = 2870177450012600261
	)
	round := func(acc, in uint64) uint64 {
		acc += in * p2
		acc = bits.RotateLeft64(acc, 31)
		return acc * p1
	}
	merge := func(acc, v uint64) uint64 {
		acc ^= round(0, v)
		return acc*p1 + p4
	}
	n := len(b)
	var h uint64
	if n >= 32 {
		var prime1, prime2 uint64 = p1, p2 // variables: the seed arithmetic wraps
		v1, v2, v3, v4 := prime1+prime2, prime2, uint64(0), -prime1
		for len(b) >= 32 {
			v1 = round(v1, binary.LittleEndian.Uint64(b[0:]))
			v2 = round(v2, binary.LittleEndian.Uint64(b[8:]))
			v3 = round(v3, binary.LittleEndian.Uint64(b[16:]))
			v4 = round(v4, binary.LittleEndian.Uint64(b[24:]))
			b = b[32:]
		}
		h = bits.RotateLeft64(v1, 1) + bits.RotateLeft64(v2, 7) + bits.RotateLeft64(v3, 12) + bits.RotateLeft64(v4, 18)
		h = merge(h, v1)
		h = merge(h, v2)
		h = merge(h, v3)
		h = merge(h, v4)
	} else {
		h = p5
	}
	h += uint64(n)
	for ; len(b) >= 8; b = b[8:] {
		h ^= round(0, binary.LittleEndian.Uint64(b))
		h = bits.RotateLeft64(h, 27)*p1 + p4
	}
	if len(b) >= 4 {
		h ^= uint64(binary.LittleEndian.Uint32(b)) * p1
		h = bits.RotateLeft64(h, 23)*p2 + p3
		b = b[4:]
	}
	for _, c := range b {
		h ^= uint64(c) * p5
		h = bits.RotateLeft64(h, 11) * p1
	}
	h ^= h >> 33
	h *= p2
	h ^= h >> 29
	h *= p3
	h ^= h >> 32
	return h
}

// errShort is returned by Decode on truncated input.
var errShort = errors.New("encoding ends early")

// Decode is the inverse of Encode: Decode(Encode(s)) equals s. The explorer
// keeps its frontier encoded (pointer-free, so the garbage collector has
// nothing to scan) and decodes each state once, to expand it; so Decode
// carves the state's slices out of a few shared arrays instead of allocating
// each one.
func Decode(b []byte) (s State, err error) {
	err = DecodeInto(b, &s, nil)
	return s, err
}

// Scratch is storage DecodeInto may reuse from one call to the next. A
// state decoded into it is valid until the next DecodeInto with the same
// Scratch: the explorer decodes each frontier state, expands it, keeps only
// its successors' encodings and moves on, so one Scratch per worker saves
// the allocation (and the garbage collector's scan) of one backing per state.
type Scratch struct {
	bk backing
}

// DecodeInto is Decode into *s, with its slices carved from sc when sc is
// not nil (see Scratch).
func DecodeInto(b []byte, s *State, sc *Scratch) (err error) {
	*s = State{}
	d := decoder{b: b}
	defer func() {
		if p := recover(); p != nil {
			*s = State{}
			err = fmt.Errorf("decoding state: %v", p)
		}
	}()
	n := d.len()
	if n > len(b) {
		panic(errShort)
	}
	// One allocation backs the per-replica slices of a state with up to
	// four replicas; larger states fall back to one allocation per slice.
	var bk *backing
	if n <= maxBacked {
		if sc != nil {
			bk = &sc.bk
			d.names = bk.names[:0]
		} else {
			bk = new(backing)
		}
		d.ints0 = bk.ints[:0]
		d.recs0 = bk.recs[:0]
		d.ents0 = bk.ents[:0]
		d.reps0 = bk.reps[:0]
		s.Log = bk.log[:n:n]
	} else {
		d.ints0 = make([]int, 0, 8*n+8)
		d.recs0 = make([]Record, 0, 4*n+4)
		s.Log = make([][]Record, n)
	}
	for i := range s.Log {
		s.Log[i] = d.records()
	}
	if k := d.len(); k != n {
		panic("per-replica fields of different lengths")
	}
	if bk != nil {
		s.EpochCache = bk.cache[:n:n]
	} else {
		s.EpochCache = make([][]Entry, n)
	}
	for i := range s.EpochCache {
		s.EpochCache[i] = d.entries()
	}
	s.HwCheckpoint = d.ints()
	s.Role = carve(&d, bk, func(b *backing) []Role { return b.role[:] })
	for i := range s.Role {
		s.Role[i] = Role(d.byte())
	}
	s.LeaderEpoch = d.ints()
	s.Leader = d.replicas()
	s.Hw = d.ints()
	s.Isr = carve(&d, bk, func(b *backing) [][]Replica { return b.isr[:] })
	for i := range s.Isr {
		s.Isr[i] = d.replicas()
	}
	s.FollowerLeo = carve(&d, bk, func(b *backing) [][]int { return b.views[:] })
	for i := range s.FollowerLeo {
		s.FollowerLeo[i] = d.ints()
	}
	s.FollowerBrokerEpoch = carve(&d, bk, func(b *backing) [][]int { return b.bviews[:] })
	for i := range s.FollowerBrokerEpoch {
		s.FollowerBrokerEpoch[i] = d.ints()
	}
	s.FetchState = carve(&d, bk, func(b *backing) []FetchState { return b.fetch[:] })
	for i := range s.FetchState {
		s.FetchState[i] = FetchState(d.byte())
	}
	s.ProduceEpoch = d.ints()
	s.PartitionEpoch = d.ints()
	s.PendingIsr = carve(&d, bk, func(b *backing) [][]Replica { return b.pending[:] })
	for i := range s.PendingIsr {
		s.PendingIsr[i] = d.replicas()
	}
	s.CtrlLeader = d.replica()
	s.CtrlEpoch = d.int()
	s.CtrlIsr = d.replicas()
	s.CtrlPartitionEpoch = d.int()
	s.CtrlElr = d.replicas()
	s.BrokerEpoch = d.ints()
	s.CtrlLastKnownElr = d.replicas()
	s.ControllerQueue = carve(&d, bk, func(b *backing) [][]Msg { return b.queue[:] })
	for i := range s.ControllerQueue {
		k := d.len()
		if k > len(d.b) {
			panic(errShort)
		}
		s.ControllerQueue[i] = nil // a reused Scratch holds the last state's queue here
		if k > 0 {
			s.ControllerQueue[i] = make([]Msg, k)
			for j := range k {
				s.ControllerQueue[i][j] = d.msg()
			}
		}
	}
	s.Inflight = carve(&d, bk, func(b *backing) []Msg { return b.inflight[:] })
	for i := range s.Inflight {
		s.Inflight[i] = d.msg()
	}
	s.AlterPartition = carve(&d, bk, func(b *backing) []Msg { return b.alter[:] })
	for i := range s.AlterPartition {
		s.AlterPartition[i] = d.msg()
	}
	s.NextId = d.int()
	s.Crashes = d.int()
	s.Acked = d.offsetIDs()
	s.Committed = d.offsetIDs()
	if len(d.b) != 0 {
		*s = State{}
		return fmt.Errorf("decoding state: %d bytes left over", len(d.b))
	}
	return nil
}

type decoder struct {
	b     []byte
	ints0 []int     // arena the int slices are carved from
	recs0 []Record  // arena the record slices are carved from
	ents0 []Entry   // arena the epoch cache slices are carved from
	reps0 []Replica // arena the replica sets are carved from
	names []Replica // replica names seen so far
}

// maxBacked is the most replicas a backing holds.
const maxBacked = 4

// backing is the storage of one decoded state with up to maxBacked
// replicas: Decode carves the state's slices out of it, so decoding costs
// one allocation instead of dozens. The arenas have room for typical
// states; a state that needs more spills into fresh allocations.
type backing struct {
	log      [maxBacked][]Record
	cache    [maxBacked][]Entry
	isr      [maxBacked][]Replica
	pending  [maxBacked][]Replica
	views    [maxBacked][]int
	bviews   [maxBacked][]int
	queue    [maxBacked][]Msg
	inflight [maxBacked]Msg
	alter    [maxBacked]Msg
	role     [maxBacked]Role
	fetch    [maxBacked]FetchState
	ints     [7*maxBacked + 2*maxBacked*maxBacked + 4]int
	recs     [16]Record
	ents     [12]Entry
	reps     [24]Replica
	names    [maxBacked + 1]Replica // the decoder's interned names
}

// carve reads a length and returns a slice of that length, from the
// backing when there is one.
func carve[T any](d *decoder, bk *backing, field func(*backing) []T) []T {
	k := d.len()
	if bk != nil {
		if f := field(bk); k <= len(f) {
			return f[:k:k]
		}
	}
	return make([]T, k)
}

func (d *decoder) entries() []Entry {
	k := d.len()
	if k == 0 {
		return nil
	}
	if cap(d.ents0)-len(d.ents0) < k {
		d.ents0 = make([]Entry, 0, max(k, 8))
	}
	lo := len(d.ents0)
	for range k {
		d.ents0 = append(d.ents0, Entry{Epoch: d.int(), Start: d.int()})
	}
	return d.ents0[lo:len(d.ents0):len(d.ents0)]
}

func (d *decoder) bool() bool {
	switch d.byte() {
	case 0:
		return false
	case 1:
		return true
	}
	panic("a boolean that is neither 0 nor 1")
}

func (d *decoder) byte() byte {
	if len(d.b) == 0 {
		panic(errShort)
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *decoder) len() int {
	if len(d.b) > 0 && d.b[0] < 0x80 {
		v := int(d.b[0])
		if v > len(d.b) {
			panic(errShort)
		}
		d.b = d.b[1:]
		return v
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 || v > uint64(len(d.b)) {
		// every element takes at least one byte
		panic(errShort)
	}
	d.b = d.b[n:]
	return int(v)
}

func (d *decoder) int() int {
	if len(d.b) > 0 && d.b[0] < 0x80 {
		zz := uint64(d.b[0])
		d.b = d.b[1:]
		return int(zz>>1) ^ -int(zz&1)
	}
	v, n := binary.Varint(d.b)
	if n <= 0 {
		panic(errShort)
	}
	d.b = d.b[n:]
	return int(v)
}

// ints carves a slice from the arena, capped so that appending to it copies.
func (d *decoder) ints() []int {
	k := d.len()
	if cap(d.ints0)-len(d.ints0) < k {
		d.ints0 = make([]int, 0, max(k, 16))
	}
	lo := len(d.ints0)
	for range k {
		d.ints0 = append(d.ints0, d.int())
	}
	return d.ints0[lo:len(d.ints0):len(d.ints0)]
}

func (d *decoder) records() []Record {
	k := d.len()
	if k == 0 {
		return nil
	}
	if cap(d.recs0)-len(d.recs0) < k {
		d.recs0 = make([]Record, 0, max(k, 8))
	}
	lo := len(d.recs0)
	for range k {
		d.recs0 = append(d.recs0, Record{ID: d.int(), Epoch: d.int()})
	}
	return d.recs0[lo:len(d.recs0):len(d.recs0)]
}

// replica interns the names it has seen in this state, so that decoding
// does not allocate a string per replica reference.
func (d *decoder) replica() Replica {
	n := d.len()
	if n > len(d.b) {
		panic(errShort)
	}
	raw := d.b[:n]
	d.b = d.b[n:]
	for _, r := range d.names {
		if string(r) == string(raw) {
			return r
		}
	}
	r := Replica(raw)
	d.names = append(d.names, r)
	return r
}

func (d *decoder) replicas() []Replica {
	n := d.len()
	if n == 0 {
		return nil
	}
	if cap(d.reps0)-len(d.reps0) < n {
		d.reps0 = make([]Replica, 0, max(n, 8))
	}
	lo := len(d.reps0)
	for range n {
		d.reps0 = append(d.reps0, d.replica())
	}
	return d.reps0[lo:len(d.reps0):len(d.reps0)]
}

func (d *decoder) offsetIDs() []OffsetID {
	n := d.len()
	if n == 0 {
		return nil
	}
	xs := make([]OffsetID, n)
	for i := range xs {
		xs[i] = OffsetID{Offset: d.int(), ID: d.int()}
	}
	return xs
}

func (d *decoder) msg() Msg {
	m := Msg{Type: MsgType(d.byte())}
	switch m.Type {
	case MsgNone:
	case MsgLeaderAndIsr:
		m.Leader, m.Epoch, m.Isr, m.PartitionEpoch = d.replica(), d.int(), d.replicas(), d.int()
	case MsgOffsetsForLeaderEpoch:
		m.Src, m.Dst, m.Epoch, m.CurrentEpoch = d.replica(), d.replica(), d.int(), d.int()
	case MsgOffsetsForLeaderEpochResponse:
		m.Src, m.Dst, m.Error = d.replica(), d.replica(), ErrorCode(d.byte())
		m.Epoch, m.Offset, m.CurrentEpoch = d.int(), d.int(), d.int()
	case MsgFetch:
		m.Src, m.Dst, m.Offset = d.replica(), d.replica(), d.int()
		m.LastFetchedEpoch, m.CurrentEpoch, m.Orphan = d.int(), d.int(), d.bool()
	case MsgFetchRead:
		m.Src, m.Dst, m.Offset = d.replica(), d.replica(), d.int()
		m.Records = d.records()
		m.Hw, m.Leo, m.CurrentEpoch, m.Orphan = d.int(), d.int(), d.int(), d.bool()
	case MsgFetchResponse:
		m.Src, m.Dst, m.Error, m.Offset = d.replica(), d.replica(), ErrorCode(d.byte()), d.int()
		m.Records = d.records()
		m.Hw, m.Leo, m.Diverging = d.int(), d.int(), d.bool()
		m.DivergingEpoch.Epoch, m.DivergingEpoch.Offset, m.CurrentEpoch = d.int(), d.int(), d.int()
	case MsgAlterPartition:
		m.LeaderEpoch, m.PartitionEpoch, m.Isr = d.int(), d.int(), d.replicas()
		if be := d.ints(); len(be) > 0 {
			m.BrokerEpochs = be
		}
	case MsgAlterPartitionResponse:
		m.Error, m.LeaderEpoch, m.PartitionEpoch, m.Isr = ErrorCode(d.byte()), d.int(), d.int(), d.replicas()
	default:
		panic(fmt.Sprintf("unknown message type %d", m.Type))
	}
	return m
}
