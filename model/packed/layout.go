package packed

import (
	"fmt"
	"math/bits"
	"unsafe"

	"github.com/hwepoch/hwepoch/model"
)

// Layout is a configuration's storage form of a State: every field as a bit
// field just wide enough for the values the configuration can reach, laid
// end to end in 64-bit words. The explorer keeps frontier states and writes
// them to disk in this form, and fingerprints them with Hash.
//
// The ranges come from the spec's actions under the configuration's bounds
// (R = MaxRecords, E = MaxEpoch, C = MaxCrashes, P = MaxPartitionEpoch):
//
//   - offsets, HWs, LEOs and log lengths are 0..R (a record's id names one
//     offset, so no log is longer than R); record ids 1..R, epochs 0..E,
//     leader epochs and epochs asked or answered -1..E, views -1..R;
//   - an epoch cache holds at most one entry per epoch, epochs increasing,
//     so it is stored as a start (or none) for each epoch 0..E;
//   - the controller's partition epoch is -1..E under the synchronous ISR
//     releases (only elections bump it); under the asynchronous ones at most
//     P+E+C (an AlterPartition is accepted only below P, after which up to
//     E more elections and C fences may bump it), and with ELR P+E+2C (a
//     restart that takes its broker out of the ELR bumps it too);
//   - a controller queue holds at most E+1 LeaderAndIsr requests (one per
//     election), plus C (fences) under the asynchronous releases and 2C
//     (fences and restarts leaving the ELR) with ELR: a restart replaces
//     the restarted broker's queue with one request, a crash empties it
//     (partitionBounds derives both);
//   - broker epochs are 0..C (KIP-903: one bump per restart), a leader's
//     views of them and an AlterPartition's -1..C; without the release
//     field they are constant (0, -1) and take no bits, nor do the ELR and
//     the last known leader without ELR;
//   - messages are stored by type, each slot a union as wide as its widest
//     type: a fetcher slot holds only the types its release sends, without
//     the end that is the slot's own replica; an ISR-change slot exists only
//     under the asynchronous release with P > 0.
//
// A few facts of the spec save bits, and Pack checks each: a replica's views
// of itself (LEO and broker epoch) are -1 (it never fetches from itself), and
// so is the broker epoch an AlterPartition gives its own leader; a
// LeaderAndIsr's ISR holds its leader; a fetcher message's own end is its
// slot's replica. A value outside its field's range is a bug of the model or
// of these bounds: Pack panics with a *RangeError (Check's, naming the
// field), never wraps.
type Layout struct {
	n     int // replicas
	bits  int // bits Pack writes
	words int

	records    int // R: log and message record slots
	cacheSlots int // E+1 epochs, or 0 without a cache
	queueSlots int
	pairBits   int // R*R: [offset, id] for offset 0..R-1, id 1..R

	// A fetcher's slot (inflight) and an ISR-change slot (alterPartition):
	// a type code, then the type's fields, padded to the widest type's.
	inCode, apCode   [numMsgTypes]int8 // type -> code, -1 when the slot never holds it
	inTypes, apTypes [numMsgTypes]model.MsgType
	inWidth, apWidth [numMsgTypes]int // bits of each type's fields
	inBits, apBits   int              // the union: the widest
	laiBits          int              // a LeaderAndIsr in a controller queue

	// The fields, in Pack's order. Those made by factSpec have no bits: they
	// are facts Pack relies on.
	logLen, recID, recEpoch                                         fieldSpec
	cacheLen, cacheEpoch, cacheOrder, cacheStart, cacheSlot         fieldSpec
	hwCkpt, role, leaderEpoch, leader, hw, isr                      fieldSpec
	selfView, view, fetchState, produce, partEp, pending            fieldSpec
	selfBrokerView, brokerView, brokerEpoch                         fieldSpec
	queueLen, laiType, laiLeader, laiEpoch, laiInIsr, laiIsr, laiPE fieldSpec
	inType, peer, inErr, epochAsk, curEp, off, offAns, lfe, orphan  fieldSpec
	nrec, msgID, msgEpoch, readHw, respHw, leo, div, divEp, divOff  fieldSpec
	own                                                             [MaxReplicas]fieldSpec
	apType, apErr, apLeaderEp, apPE, apRespPE, apIsr                fieldSpec
	apSelfBrokerEp, apBrokerEp                                      fieldSpec
	ctrlLeader, ctrlEpoch, ctrlIsr, cpe, nextID, crashes, pairs     fieldSpec
	ctrlElr, ctrlLastKnownElr                                       fieldSpec
}

const numMsgTypes = int(model.MsgAlterPartitionResponse) + 1

// bufWords bounds a layout's words (NewLayout refuses more): Pack and Unpack
// work in a local buffer of that many.
const bufWords = 32

// fieldSpec is a field's values lo..lo+span, stored in width bits as x-lo.
type fieldSpec struct {
	lo    int8
	span  uint8
	width uint8
	name  string
}

// rangeSpec is the field lo..hi (lo..lo when hi < lo).
func rangeSpec(lo, hi int, name string) fieldSpec {
	hi = max(hi, lo)
	return fieldSpec{lo: int8(lo), span: uint8(hi - lo), width: uint8(bits.Len(uint(hi - lo))), name: name}
}

// factSpec is a fact Pack checks without storing it (bitWriter.check): the
// value is in lo..hi.
func factSpec(lo, hi int, name string) fieldSpec {
	f := rangeSpec(lo, hi, name)
	f.width = 0
	return f
}

func (f *fieldSpec) hi() int { return int(f.lo) + int(f.span) }

// RangeError is the panic of Pack on a value its layout has no room for:
// a state beyond the bounds NewLayout derived from the configuration.
type RangeError struct {
	Field   string
	Replica int // the replica index whose field it is, -1 for the controller's and the ghosts'
	Value   int
	Lo, Hi  int
}

func (e *RangeError) Error() string {
	who := "the state's"
	if e.Replica >= 0 {
		who = fmt.Sprintf("replica %d's", e.Replica)
	}
	return fmt.Sprintf("packed layout: %s %s is %d, outside %d..%d: a state beyond the bounds the layout derives from the configuration",
		who, e.Field, e.Value, e.Lo, e.Hi)
}

// NewLayout derives cfg's layout, or refuses a configuration beyond the
// packed state's maxima.
func NewLayout(cfg *model.Config) (*Layout, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	n, R, E, C, P := cfg.N(), cfg.MaxRecords, cfg.MaxEpoch, cfg.MaxCrashes, cfg.MaxPartitionEpoch
	rel := cfg.Rel()
	async := rel.AsyncIsr
	cpeMax, queue, queueBound, cpeBound := partitionBounds(cfg)
	switch {
	case n > MaxReplicas:
		return nil, fmt.Errorf("%d replicas: the packed state holds at most %d", n, MaxReplicas)
	case R > MaxLog:
		return nil, fmt.Errorf("MaxRecords = %d: the packed state holds logs of at most %d records", R, MaxLog)
	case E+1 > MaxCache:
		return nil, fmt.Errorf("MaxEpoch = %d: the packed state holds epoch caches of at most %d entries (epochs 0..%d)", E, MaxCache, MaxCache-1)
	case queue > MaxQueue:
		return nil, fmt.Errorf("a controller queue may hold %d requests (%s): the packed state holds at most %d", queue, queueBound, MaxQueue)
	case cpeMax > 120:
		return nil, fmt.Errorf("partition epochs up to %d (%s) do not fit the packed state's int8", cpeMax, cpeBound)
	case C > 120:
		return nil, fmt.Errorf("broker epochs up to MaxCrashes = %d do not fit the packed state's int8", C)
	}
	l := &Layout{n: n, records: R, queueSlots: queue, pairBits: R * R}
	set := 1<<n - 1

	l.logLen, l.recID, l.recEpoch = rangeSpec(0, R, "log length"), rangeSpec(1, R, "record id"), rangeSpec(0, E, "record epoch")
	if rel.CacheAssign != "None" {
		l.cacheSlots = E + 1
	}
	l.cacheLen = factSpec(0, l.cacheSlots, "epoch cache length")
	l.cacheEpoch = factSpec(0, E, "epoch cache entry's epoch")
	l.cacheOrder = factSpec(0, E, "epoch cache entry's epoch (not above the previous entry's)")
	l.cacheStart = factSpec(0, R, "epoch cache entry's start")
	l.cacheSlot = rangeSpec(0, R+1, "epoch cache slot")
	l.hwCkpt, l.role = rangeSpec(0, R, "hwCheckpoint"), rangeSpec(0, int(model.Follower), "role")
	l.leaderEpoch, l.leader = rangeSpec(-1, E, "leaderEpoch"), rangeSpec(-1, n-1, "leader")
	l.hw, l.isr = rangeSpec(0, R, "hw"), rangeSpec(0, set, "isr")
	l.selfView, l.view = factSpec(-1, -1, "view of itself (followerLeo)"), rangeSpec(-1, R, "followerLeo")
	l.fetchState, l.produce = rangeSpec(0, int(model.Fetching), "fetchState"), rangeSpec(-1, E, "produceEpoch")
	l.partEp = rangeSpec(-1, cpeMax, "partitionEpoch")
	// KIP-903: a broker epoch is 0..C (one bump per restart, and restarts
	// follow crashes); a leader's view of one is -1 or a broker epoch it
	// read. Without the release field they stay 0 and -1.
	beMax := -1
	if rel.IsrBrokerEpochs {
		beMax = C
	}
	l.brokerEpoch = rangeSpec(0, max(beMax, 0), "brokerEpoch")
	l.selfBrokerView = factSpec(-1, -1, "view of its own broker epoch (followerBrokerEpoch)")
	l.brokerView = rangeSpec(-1, beMax, "followerBrokerEpoch")
	isrChanges := async && P > 0 // MayChangeIsr: a proposal needs a partition epoch below P
	l.pending = rangeSpec(0, 0, "pendingIsr")
	if isrChanges {
		l.pending = rangeSpec(0, set, "pendingIsr")
	}
	l.queueLen = rangeSpec(0, queue, "controller queue length")
	l.laiType = factSpec(int(model.MsgLeaderAndIsr), int(model.MsgLeaderAndIsr), "controller queue request's type")
	l.laiLeader, l.laiEpoch = rangeSpec(0, n-1, "LeaderAndIsr leader"), rangeSpec(0, E, "LeaderAndIsr epoch")
	l.laiInIsr = factSpec(1, 1, "LeaderAndIsr leader in its ISR")
	l.laiIsr = rangeSpec(0, 1<<(n-1)-1, "LeaderAndIsr ISR (but its leader)")
	l.laiPE = rangeSpec(0, cpeMax, "LeaderAndIsr partitionEpoch")
	l.laiBits = int(l.laiLeader.width + l.laiEpoch.width + l.laiIsr.width + l.laiPE.width)

	// The fetcher's slot.
	types := []model.MsgType{model.MsgNone, model.MsgFetch, model.MsgFetchRead, model.MsgFetchResponse}
	if rel.Reconcile == "OffsetsForLeaderEpochV0" || rel.Reconcile == "OffsetsForLeaderEpoch" {
		types = append(types, model.MsgOffsetsForLeaderEpoch, model.MsgOffsetsForLeaderEpochResponse)
	}
	for i := range n {
		l.own[i] = factSpec(i, i, "fetcher message's own end (a request's src, a response's dst)")
	}
	l.inType = rangeSpec(0, len(types)-1, "inflight message type code (-1: not a type this release puts in a fetcher's slot)")
	l.peer, l.inErr = rangeSpec(0, n-1, "message's other end"), rangeSpec(0, int(model.ErrOffsetOutOfRange), "message error")
	l.epochAsk, l.curEp = rangeSpec(-1, E, "message epoch"), rangeSpec(-1, E, "message currentEpoch")
	l.off, l.offAns = rangeSpec(0, R, "message offset"), rangeSpec(-1, R, "OffsetsForLeaderEpochResponse offset")
	l.nrec, l.msgID, l.msgEpoch = rangeSpec(0, R, "message record count"), rangeSpec(1, R, "message record's id"), rangeSpec(0, E, "message record's epoch")
	l.readHw, l.respHw, l.leo = rangeSpec(0, R, "FetchRead hw"), rangeSpec(-1, R, "FetchResponse hw"), rangeSpec(0, R, "message leo")
	l.lfe, l.div = rangeSpec(-1, -1, "Fetch lastFetchedEpoch"), rangeSpec(0, 0, "FetchResponse diverging")
	l.divEp, l.divOff = rangeSpec(-1, -1, "FetchResponse divergingEpoch.epoch"), rangeSpec(-1, -1, "FetchResponse divergingEpoch.offset")
	if rel.Reconcile == "DivergingEpoch" {
		l.lfe, l.div = rangeSpec(-1, E, l.lfe.name), rangeSpec(0, 1, l.div.name)
		l.divEp, l.divOff = rangeSpec(-1, E, l.divEp.name), rangeSpec(-1, R, l.divOff.name)
	}
	l.orphan = rangeSpec(0, 0, "message orphan")
	if rel.StaleFetchServed {
		l.orphan = rangeSpec(0, 1, l.orphan.name)
	}
	recs := int(l.nrec.width) + R*int(l.msgID.width+l.msgEpoch.width)
	for k := range l.inCode {
		l.inCode[k], l.apCode[k] = -1, -1
	}
	w := func(fs ...*fieldSpec) (b int) {
		for _, f := range fs {
			b += int(f.width)
		}
		return b
	}
	for c, t := range types {
		l.inCode[t], l.inTypes[c] = int8(c), t
		switch t {
		case model.MsgOffsetsForLeaderEpoch:
			l.inWidth[t] = w(&l.peer, &l.epochAsk, &l.curEp)
		case model.MsgOffsetsForLeaderEpochResponse:
			l.inWidth[t] = w(&l.peer, &l.inErr, &l.epochAsk, &l.offAns, &l.curEp)
		case model.MsgFetch:
			l.inWidth[t] = w(&l.peer, &l.off, &l.lfe, &l.curEp, &l.orphan)
		case model.MsgFetchRead:
			l.inWidth[t] = w(&l.peer, &l.off, &l.readHw, &l.leo, &l.curEp, &l.orphan) + recs
		case model.MsgFetchResponse:
			l.inWidth[t] = w(&l.peer, &l.inErr, &l.off, &l.respHw, &l.leo, &l.div, &l.divEp, &l.divOff, &l.curEp) + recs
		}
		l.inBits = max(l.inBits, l.inWidth[t])
	}

	// The ISR-change slot.
	l.apCode[model.MsgNone] = 0
	l.apType = rangeSpec(0, 0, "alterPartition message type code (-1: not a type this configuration sends)")
	if isrChanges {
		l.apCode[model.MsgAlterPartition], l.apCode[model.MsgAlterPartitionResponse] = 1, 2
		l.apTypes[1], l.apTypes[2] = model.MsgAlterPartition, model.MsgAlterPartitionResponse
		l.apType = rangeSpec(0, 2, l.apType.name)
		l.apErr, l.apLeaderEp = rangeSpec(0, int(model.ErrIneligibleReplica), "AlterPartitionResponse error"), rangeSpec(0, E, "alterPartition leaderEpoch")
		l.apPE, l.apRespPE = rangeSpec(0, P-1, "AlterPartition partitionEpoch"), rangeSpec(0, cpeMax, "AlterPartitionResponse partitionEpoch")
		l.apIsr = rangeSpec(0, set, "alterPartition isr")
		// An AlterPartition's broker epochs are its leader's views (or -1):
		// its own is -1, as the view of itself is.
		l.apSelfBrokerEp = factSpec(-1, -1, "AlterPartition broker epoch of its leader")
		l.apBrokerEp = rangeSpec(-1, beMax, "AlterPartition broker epoch")
		l.apWidth[model.MsgAlterPartition] = w(&l.apLeaderEp, &l.apPE, &l.apIsr) + (n-1)*w(&l.apBrokerEp)
		l.apWidth[model.MsgAlterPartitionResponse] = w(&l.apErr, &l.apLeaderEp, &l.apRespPE, &l.apIsr)
		l.apBits = max(l.apWidth[model.MsgAlterPartition], l.apWidth[model.MsgAlterPartitionResponse])
	}

	l.ctrlLeader, l.ctrlEpoch, l.ctrlIsr = rangeSpec(-1, n-1, "ctrlLeader"), rangeSpec(-1, E, "ctrlEpoch"), rangeSpec(0, set, "ctrlIsr")
	l.cpe, l.nextID, l.crashes = rangeSpec(-1, cpeMax, "ctrlPartitionEpoch"), rangeSpec(1, R+1, "nextId"), rangeSpec(0, C, "crashes")
	l.pairs = factSpec(0, R-1, "acked or committed [offset, id]'s offset (or its id is outside 1..MaxRecords)")
	l.ctrlElr, l.ctrlLastKnownElr = rangeSpec(0, 0, "ctrlElr"), rangeSpec(0, 0, "ctrlLastKnownElr")
	if rel.Elr {
		l.ctrlElr, l.ctrlLastKnownElr = rangeSpec(0, set, l.ctrlElr.name), rangeSpec(0, set, l.ctrlLastKnownElr.name)
	}

	perReplica := w(&l.logLen, &l.hwCkpt, &l.role, &l.leaderEpoch, &l.leader, &l.hw, &l.isr, &l.fetchState,
		&l.produce, &l.partEp, &l.pending, &l.brokerEpoch, &l.queueLen, &l.inType, &l.apType) +
		R*w(&l.recID, &l.recEpoch) + l.cacheSlots*w(&l.cacheSlot) + (n-1)*w(&l.view, &l.brokerView) +
		queue*l.laiBits + l.inBits + l.apBits
	top := w(&l.ctrlLeader, &l.ctrlEpoch, &l.ctrlIsr, &l.cpe, &l.ctrlElr, &l.ctrlLastKnownElr, &l.nextID, &l.crashes) +
		2*l.pairBits
	l.bits = n*perReplica + top
	l.words = (l.bits + 63) / 64
	if l.words >= bufWords {
		return nil, fmt.Errorf("%d words: the layout holds at most %d", l.words, bufWords-1)
	}
	return l, nil
}

// partitionBounds derives, from cfg's actions, the greatest controller
// partition epoch (cpeMax) and the longest controller queue, each with the
// bound's formula for NewLayout's errors.
//
// The partition epoch starts at -1 and only grows. Elect bumps it, at most
// E+1 times (ctrlEpoch runs -1..E). Under asynchronous ISR changes
// HandleAlterPartition bumps it only when it equals the request's partition
// epoch, which MayChangeIsr kept below P: after the last such bump it is at
// most P, and as a request needs an elected leader at most E elections
// follow. A fence in Crash bumps it at most once per crash (C): under
// asynchronous ISR changes, and with ELR in any release. With ELR a Restart
// that takes its broker out of the ELR bumps it, at most once per restart,
// and restarts are at most the crashes (C). So at most E (synchronous ISR
// changes), P+E+C (asynchronous), P+E+2C (asynchronous, with ELR).
//
// A broker's controller queue grows by one request per election (E+1),
// per fence of another broker while the controller has a leader (at most
// C), and with ELR per restart of another broker that leaves the ELR while
// it has one (at most C). A crash of the broker empties its queue, and its
// restart leaves at most one request, one naming an elected leader, so
// that at most E elections follow it: E+1, E+1+C with fences, E+1+2C with
// ELR.
func partitionBounds(cfg *model.Config) (cpeMax, queue int, queueBound, cpeBound string) {
	E, C, P := cfg.MaxEpoch, cfg.MaxCrashes, cfg.MaxPartitionEpoch
	rel := cfg.Rel()
	cpeMax, cpeBound = E, "MaxEpoch"
	queue, queueBound = E+1, "MaxEpoch+1"
	if rel.AsyncIsr {
		cpeMax, cpeBound = P+E, "MaxPartitionEpoch+MaxEpoch"
	}
	switch {
	case rel.Elr:
		cpeMax, cpeBound = cpeMax+2*C, cpeBound+"+2*MaxCrashes"
		queue, queueBound = queue+2*C, queueBound+"+2*MaxCrashes"
	case rel.AsyncIsr:
		cpeMax, cpeBound = cpeMax+C, cpeBound+"+MaxCrashes"
		queue, queueBound = queue+C, queueBound+"+MaxCrashes"
	}
	return cpeMax, queue, queueBound, cpeBound
}

// Words is how many 64-bit words Pack writes.
func (l *Layout) Words() int { return l.words }

// Bits is how many of those bits Pack uses; the rest of the last word is zero.
func (l *Layout) Bits() int { return l.bits }

// bitWriter lays bit fields end to end, low bits first. It is passed and
// returned by value, so that its accumulator stays in registers (a pointer
// to it costs a store and a load per field).
type bitWriter struct {
	acc  uint64 // the bits not yet in buf, n of them
	n    uint
	over uint64 // its top bit is set once a value was outside its field's range
	buf  *packBuf
}

type packBuf struct {
	words [bufWords]uint64
	i     int // the words written
}

// put writes x, noting (in over) when it is outside f's range. Pack checks
// over at its end.
func (w bitWriter) put(x int8, f *fieldSpec) bitWriter {
	v := uint64(uint8(x - f.lo))
	w.over |= uint64(f.span) - v
	return w.bits(v, uint(f.width))
}

// check notes (in over) when x, which Pack does not store, is outside f's
// range (f is made by factSpec).
func (w bitWriter) check(x int8, f *fieldSpec) bitWriter {
	w.over |= uint64(f.span) - uint64(uint8(x-f.lo))
	return w
}

// bits writes the low width bits of v (which has no higher ones).
func (w bitWriter) bits(v uint64, width uint) bitWriter {
	w.acc |= v << w.n
	w.n += width
	if w.n >= 64 {
		w.buf.words[w.buf.i&(bufWords-1)] = w.acc
		w.buf.i++
		w.n -= 64
		w.acc = v >> (width - w.n) // a shift by 64 is 0
	}
	return w
}

// zeros writes k zero bits.
func (w bitWriter) zeros(k int) bitWriter {
	for ; k > 0; k -= 32 {
		w = w.bits(0, uint(min(k, 32)))
	}
	return w
}

// fact notes a fact of the spec the layout relies on that does not hold.
func (w bitWriter) fact(ok bool) bitWriter {
	if !ok {
		w.over |= 1 << 63
	}
	return w
}

func (w bitWriter) pos() int { return w.buf.i*64 + int(w.n) }

func bit8(b bool) int8 {
	if b {
		return 1
	}
	return 0
}

// Pack writes p's storage form into dst[:l.Words()]. It panics with a
// *RangeError (Check's) when a field of p is outside the layout's range:
// the explorer turns it into an error. Pack reads what p holds, not the
// entries beyond a length nor the fields a message's type lacks, which
// State keeps zero; Unpack(Pack(p)) == p holds for such states.
func (l *Layout) Pack(p *State, dst []uint64) {
	_ = dst[l.words-1]
	var buf packBuf
	w := bitWriter{buf: &buf}
	for i := range l.n {
		w = l.packReplica(w, &p.R[i], i)
	}
	w = w.put(p.CtrlLeader, &l.ctrlLeader)
	w = w.put(p.CtrlEpoch, &l.ctrlEpoch)
	w = w.put(int8(p.CtrlIsr), &l.ctrlIsr)
	w = w.put(p.CtrlPartitionEpoch, &l.cpe)
	w = w.put(int8(p.CtrlElr), &l.ctrlElr)
	w = w.put(int8(p.CtrlLastKnownElr), &l.ctrlLastKnownElr)
	w = w.put(p.NextID, &l.nextID)
	w = w.put(p.Crashes, &l.crashes)
	w = l.packPairs(w, p.Acked)
	w = l.packPairs(w, p.Committed)
	if w.over>>63 != 0 {
		l.refuse(p)
	}
	if w.pos() != l.bits {
		panic(fmt.Sprintf("packed layout: Pack wrote %d bits, the layout has %d (a layout bug)", w.pos(), l.bits))
	}
	if w.n > 0 {
		buf.words[buf.i] = w.acc
	}
	copy(dst[:l.words], buf.words[:l.words])
}

// refuse panics with Check's error on p, which Pack found out of range.
func (l *Layout) refuse(p *State) {
	if err := l.Check(p); err != nil {
		panic(err)
	}
	panic("packed layout: Pack found a value out of its range that Check does not (a layout bug)")
}

// pairsBits is a set of [offset, id] pairs as one bit for each offset
// 0..R-1 and id 1..R, and whether the set holds no other pair.
func (l *Layout) pairsBits(set uint32) (uint64, bool) {
	R := l.records
	var v uint64
	for o := range R {
		for id := 1; id <= R; id++ {
			if b := OffsetIDBit(o, id); set&b != 0 {
				v |= 1 << uint(o*R+id-1)
				set &^= b
			}
		}
	}
	return v, set == 0
}

func (l *Layout) packPairs(w bitWriter, set uint32) bitWriter {
	v, ok := l.pairsBits(set)
	return w.fact(ok).bits(v, uint(l.pairBits))
}

func (l *Layout) packReplica(w bitWriter, r *Replica, i int) bitWriter {
	w = w.put(r.LogLen, &l.logLen)
	for k := range l.records {
		if k < int(r.LogLen) {
			w = w.put(r.Log[k].ID, &l.recID)
			w = w.put(r.Log[k].Epoch, &l.recEpoch)
		} else {
			w = w.bits(0, uint(l.recID.width+l.recEpoch.width))
		}
	}
	w = w.check(r.CacheLen, &l.cacheLen)
	if l.cacheSlots > 0 {
		var slot [MaxCache]int8
		last := int8(-1)
		for _, x := range r.Cache[:min(r.CacheLen, MaxCache)] {
			w = w.check(x.Epoch, &l.cacheEpoch)
			w = w.check(x.Start, &l.cacheStart)
			w = w.fact(x.Epoch > last)
			slot[uint8(x.Epoch)%MaxCache] = x.Start + 1
			last = x.Epoch
		}
		for e := range l.cacheSlots {
			w = w.put(slot[e], &l.cacheSlot)
		}
	}
	w = w.put(r.HwCheckpoint, &l.hwCkpt)
	w = w.put(int8(r.Role), &l.role)
	w = w.put(r.LeaderEpoch, &l.leaderEpoch)
	w = w.put(r.Leader, &l.leader)
	w = w.put(r.Hw, &l.hw)
	w = w.put(int8(r.Isr), &l.isr)
	for k := range l.n {
		if k == i {
			w = w.check(r.FollowerLeo[k], &l.selfView)
			w = w.check(r.FollowerBrokerEpoch[k], &l.selfBrokerView)
		} else {
			w = w.put(r.FollowerLeo[k], &l.view)
			w = w.put(r.FollowerBrokerEpoch[k], &l.brokerView)
		}
	}
	w = w.put(int8(r.FetchState), &l.fetchState)
	w = w.put(r.ProduceEpoch, &l.produce)
	w = w.put(r.PartEpoch, &l.partEp)
	w = w.put(int8(r.PendingIsr), &l.pending)
	w = w.put(r.BrokerEpoch, &l.brokerEpoch)
	w = w.put(r.QueueLen, &l.queueLen)
	for k := range l.queueSlots {
		if k >= int(r.QueueLen) {
			w = w.zeros(l.laiBits)
			continue
		}
		m := &r.Queue[k]
		w = w.check(int8(m.Type), &l.laiType)
		w = w.put(m.Leader, &l.laiLeader)
		w = w.put(m.Epoch, &l.laiEpoch)
		w = w.check(bit8(m.Isr.Has(int(m.Leader))), &l.laiInIsr)
		w = w.put(int8(dropSetBit(m.Isr, int(m.Leader))), &l.laiIsr)
		w = w.put(m.PartitionEpoch, &l.laiPE)
	}
	w = l.packInflight(w, &r.Inflight, i)
	return l.packAlter(w, &r.AlterPartition, i)
}

// dropSetBit removes bit i of s, shifting the higher bits down.
func dropSetBit(s Set, i int) Set { return s&(1<<uint(i)-1) | s>>uint(i+1)<<uint(i) }

// insertSetBit is dropSetBit's inverse, with bit i set.
func insertSetBit(s Set, i int) Set { return s&(1<<uint(i)-1) | 1<<uint(i) | s>>uint(i)<<uint(i+1) }

func (l *Layout) packRecords(w bitWriter, m *Msg) bitWriter {
	w = w.put(m.NRecords, &l.nrec)
	for k := range l.records {
		if k < int(m.NRecords) {
			w = w.put(m.Records[k].ID, &l.msgID)
			w = w.put(m.Records[k].Epoch, &l.msgEpoch)
		} else {
			w = w.bits(0, uint(l.msgID.width+l.msgEpoch.width))
		}
	}
	return w
}

// msgCode is t's code in a slot's table, -1 when the slot never holds it.
func msgCode(codes *[numMsgTypes]int8, t model.MsgType) int8 {
	if int(t) < numMsgTypes {
		return codes[t]
	}
	return -1
}

func (l *Layout) packInflight(w bitWriter, m *Msg, i int) bitWriter {
	code := msgCode(&l.inCode, m.Type)
	w = w.put(code, &l.inType)
	if code < 0 {
		return w.zeros(l.inBits)
	}
	start := w.pos()
	own := &l.own[i]
	switch m.Type {
	case model.MsgOffsetsForLeaderEpoch:
		w = w.check(m.Src, own)
		w = w.put(m.Dst, &l.peer)
		w = w.put(m.Epoch, &l.epochAsk)
		w = w.put(m.CurrentEpoch, &l.curEp)
	case model.MsgOffsetsForLeaderEpochResponse:
		w = w.check(m.Dst, own)
		w = w.put(m.Src, &l.peer)
		w = w.put(int8(m.Error), &l.inErr)
		w = w.put(m.Epoch, &l.epochAsk)
		w = w.put(m.Offset, &l.offAns)
		w = w.put(m.CurrentEpoch, &l.curEp)
	case model.MsgFetch:
		w = w.check(m.Src, own)
		w = w.put(m.Dst, &l.peer)
		w = w.put(m.Offset, &l.off)
		w = w.put(m.LastFetchedEpoch, &l.lfe)
		w = w.put(m.CurrentEpoch, &l.curEp)
		w = w.put(bit8(m.Orphan), &l.orphan)
	case model.MsgFetchRead:
		w = w.check(m.Dst, own)
		w = w.put(m.Src, &l.peer)
		w = w.put(m.Offset, &l.off)
		w = l.packRecords(w, m)
		w = w.put(m.Hw, &l.readHw)
		w = w.put(m.Leo, &l.leo)
		w = w.put(m.CurrentEpoch, &l.curEp)
		w = w.put(bit8(m.Orphan), &l.orphan)
	case model.MsgFetchResponse:
		w = w.check(m.Dst, own)
		w = w.put(m.Src, &l.peer)
		w = w.put(int8(m.Error), &l.inErr)
		w = w.put(m.Offset, &l.off)
		w = l.packRecords(w, m)
		w = w.put(m.Hw, &l.respHw)
		w = w.put(m.Leo, &l.leo)
		w = w.put(bit8(m.Diverging), &l.div)
		w = w.put(m.DivEpoch, &l.divEp)
		w = w.put(m.DivOffset, &l.divOff)
		w = w.put(m.CurrentEpoch, &l.curEp)
	}
	if used := w.pos() - start; used != l.inWidth[m.Type] {
		panic(fmt.Sprintf("packed layout: a %s took %d bits, the layout gives it %d (a layout bug)", m.Type, used, l.inWidth[m.Type]))
	}
	return w.zeros(l.inBits - l.inWidth[m.Type])
}

func (l *Layout) packAlter(w bitWriter, m *Msg, i int) bitWriter {
	code := msgCode(&l.apCode, m.Type)
	w = w.put(code, &l.apType)
	switch {
	case code < 0:
		return w.zeros(l.apBits)
	case m.Type == model.MsgAlterPartition:
		w = w.put(m.LeaderEpoch, &l.apLeaderEp)
		w = w.put(m.PartitionEpoch, &l.apPE)
		w = w.put(int8(m.Isr), &l.apIsr)
		for k := range l.n {
			if k == i {
				w = w.check(m.BrokerEpochs[k], &l.apSelfBrokerEp)
			} else {
				w = w.put(m.BrokerEpochs[k], &l.apBrokerEp)
			}
		}
	case m.Type == model.MsgAlterPartitionResponse:
		w = w.put(int8(m.Error), &l.apErr)
		w = w.put(m.LeaderEpoch, &l.apLeaderEp)
		w = w.put(m.PartitionEpoch, &l.apRespPE)
		w = w.put(int8(m.Isr), &l.apIsr)
	}
	return w.zeros(l.apBits - l.apWidth[m.Type])
}

// checker is Check's walk: Pack's, without the bits, stopping at the first
// value outside its range.
type checker struct {
	rep int
	err *RangeError
}

func (c *checker) put(x int8, f *fieldSpec) {
	if uint8(x-f.lo) > f.span {
		c.fail(f, int(x))
	}
}

func (c *checker) fail(f *fieldSpec, x int) {
	if c.err == nil {
		c.err = &RangeError{Field: f.name, Replica: c.rep, Value: x, Lo: int(f.lo), Hi: f.hi()}
	}
}

// Check returns a *RangeError naming the first field of p (in Pack's
// order) outside the layout's range, or nil when Pack can store p. Pack
// panics with it.
func (l *Layout) Check(p *State) error {
	c := checker{}
	for i := range l.n {
		c.rep = i
		l.checkReplica(&c, &p.R[i], i)
	}
	c.rep = -1
	c.put(p.CtrlLeader, &l.ctrlLeader)
	c.put(p.CtrlEpoch, &l.ctrlEpoch)
	c.put(int8(p.CtrlIsr), &l.ctrlIsr)
	c.put(p.CtrlPartitionEpoch, &l.cpe)
	c.put(int8(p.CtrlElr), &l.ctrlElr)
	c.put(int8(p.CtrlLastKnownElr), &l.ctrlLastKnownElr)
	c.put(p.NextID, &l.nextID)
	c.put(p.Crashes, &l.crashes)
	for _, set := range [2]uint32{p.Acked, p.Committed} {
		for ; set != 0; set &= set - 1 {
			if o, id := pairAt(bits.TrailingZeros32(set)); o >= l.records || id < 1 || id > l.records {
				c.fail(&l.pairs, o)
			}
		}
	}
	if c.err != nil {
		return c.err
	}
	return nil
}

func (l *Layout) checkReplica(c *checker, r *Replica, i int) {
	c.put(r.LogLen, &l.logLen)
	for k := range min(int(r.LogLen), l.records) {
		c.put(r.Log[k].ID, &l.recID)
		c.put(r.Log[k].Epoch, &l.recEpoch)
	}
	c.put(r.CacheLen, &l.cacheLen)
	if l.cacheSlots > 0 {
		last := int8(-1)
		for _, x := range r.Cache[:min(r.CacheLen, MaxCache)] {
			c.put(x.Epoch, &l.cacheEpoch)
			c.put(x.Start, &l.cacheStart)
			if x.Epoch <= last {
				c.fail(&l.cacheOrder, int(x.Epoch))
			}
			last = x.Epoch
		}
	}
	c.put(r.HwCheckpoint, &l.hwCkpt)
	c.put(int8(r.Role), &l.role)
	c.put(r.LeaderEpoch, &l.leaderEpoch)
	c.put(r.Leader, &l.leader)
	c.put(r.Hw, &l.hw)
	c.put(int8(r.Isr), &l.isr)
	for k := range l.n {
		if k == i {
			c.put(r.FollowerLeo[k], &l.selfView)
			c.put(r.FollowerBrokerEpoch[k], &l.selfBrokerView)
		} else {
			c.put(r.FollowerLeo[k], &l.view)
			c.put(r.FollowerBrokerEpoch[k], &l.brokerView)
		}
	}
	c.put(int8(r.FetchState), &l.fetchState)
	c.put(r.ProduceEpoch, &l.produce)
	c.put(r.PartEpoch, &l.partEp)
	c.put(int8(r.PendingIsr), &l.pending)
	c.put(r.BrokerEpoch, &l.brokerEpoch)
	c.put(r.QueueLen, &l.queueLen)
	for k := range min(int(r.QueueLen), l.queueSlots) {
		m := &r.Queue[k]
		c.put(int8(m.Type), &l.laiType)
		c.put(m.Leader, &l.laiLeader)
		c.put(m.Epoch, &l.laiEpoch)
		c.put(bit8(m.Isr.Has(int(m.Leader))), &l.laiInIsr)
		c.put(int8(dropSetBit(m.Isr, int(m.Leader))), &l.laiIsr)
		c.put(m.PartitionEpoch, &l.laiPE)
	}
	m := &r.Inflight
	c.put(msgCode(&l.inCode, m.Type), &l.inType)
	own := &l.own[i]
	switch m.Type {
	case model.MsgOffsetsForLeaderEpoch:
		c.put(m.Src, own)
		c.put(m.Dst, &l.peer)
		c.put(m.Epoch, &l.epochAsk)
		c.put(m.CurrentEpoch, &l.curEp)
	case model.MsgOffsetsForLeaderEpochResponse:
		c.put(m.Dst, own)
		c.put(m.Src, &l.peer)
		c.put(int8(m.Error), &l.inErr)
		c.put(m.Epoch, &l.epochAsk)
		c.put(m.Offset, &l.offAns)
		c.put(m.CurrentEpoch, &l.curEp)
	case model.MsgFetch:
		c.put(m.Src, own)
		c.put(m.Dst, &l.peer)
		c.put(m.Offset, &l.off)
		c.put(m.LastFetchedEpoch, &l.lfe)
		c.put(m.CurrentEpoch, &l.curEp)
		c.put(bit8(m.Orphan), &l.orphan)
	case model.MsgFetchRead, model.MsgFetchResponse:
		c.put(m.Dst, own)
		c.put(m.Src, &l.peer)
		if m.Type == model.MsgFetchResponse {
			c.put(int8(m.Error), &l.inErr)
		}
		c.put(m.Offset, &l.off)
		c.put(m.NRecords, &l.nrec)
		for k := range min(int(m.NRecords), l.records) {
			c.put(m.Records[k].ID, &l.msgID)
			c.put(m.Records[k].Epoch, &l.msgEpoch)
		}
		if m.Type == model.MsgFetchRead {
			c.put(m.Hw, &l.readHw)
			c.put(m.Leo, &l.leo)
			c.put(m.CurrentEpoch, &l.curEp)
			c.put(bit8(m.Orphan), &l.orphan)
		} else {
			c.put(m.Hw, &l.respHw)
			c.put(m.Leo, &l.leo)
			c.put(bit8(m.Diverging), &l.div)
			c.put(m.DivEpoch, &l.divEp)
			c.put(m.DivOffset, &l.divOff)
			c.put(m.CurrentEpoch, &l.curEp)
		}
	}
	a := &r.AlterPartition
	c.put(msgCode(&l.apCode, a.Type), &l.apType)
	switch a.Type {
	case model.MsgAlterPartition:
		c.put(a.LeaderEpoch, &l.apLeaderEp)
		c.put(a.PartitionEpoch, &l.apPE)
		c.put(int8(a.Isr), &l.apIsr)
		for k := range l.n {
			if k == i {
				c.put(a.BrokerEpochs[k], &l.apSelfBrokerEp)
			} else {
				c.put(a.BrokerEpochs[k], &l.apBrokerEp)
			}
		}
	case model.MsgAlterPartitionResponse:
		c.put(int8(a.Error), &l.apErr)
		c.put(a.LeaderEpoch, &l.apLeaderEp)
		c.put(a.PartitionEpoch, &l.apRespPE)
		c.put(int8(a.Isr), &l.apIsr)
	}
}

// bitReader reads what bitWriter wrote. Like bitWriter it is passed by
// value: its position stays in a register.
type bitReader struct {
	pos uint
	buf *[bufWords + 1]uint64 // the words, then a zero one
}

func (r bitReader) bits(width uint) (uint64, bitReader) {
	k, s := r.pos>>6&(bufWords-1), r.pos&63
	v := r.buf[k]>>s | r.buf[k+1]<<(64-s) // a shift by 64 is 0
	r.pos += width
	return v & (1<<width - 1), r // 1<<64 - 1 is every bit
}

func (r bitReader) get(f *fieldSpec) (int8, bitReader) {
	v, r := r.bits(uint(f.width))
	return int8(v) + f.lo, r
}

func (r bitReader) set(f *fieldSpec) (Set, bitReader) {
	v, r := r.bits(uint(f.width))
	return Set(v), r
}

func (r bitReader) flag(f *fieldSpec) (bool, bitReader) {
	v, r := r.bits(uint(f.width))
	return v != 0, r
}

// Unpack is Pack's inverse: it overwrites p with the state src[:l.Words()]
// holds.
func (l *Layout) Unpack(src []uint64, p *State) {
	*p = State{}
	var buf [bufWords + 1]uint64
	copy(buf[:], src[:l.words])
	rd := bitReader{buf: &buf}
	for i := range l.n {
		rd = l.unpackReplica(rd, &p.R[i], i)
	}
	p.CtrlLeader, rd = rd.get(&l.ctrlLeader)
	p.CtrlEpoch, rd = rd.get(&l.ctrlEpoch)
	p.CtrlIsr, rd = rd.set(&l.ctrlIsr)
	p.CtrlPartitionEpoch, rd = rd.get(&l.cpe)
	p.CtrlElr, rd = rd.set(&l.ctrlElr)
	p.CtrlLastKnownElr, rd = rd.set(&l.ctrlLastKnownElr)
	p.NextID, rd = rd.get(&l.nextID)
	p.Crashes, rd = rd.get(&l.crashes)
	p.Acked, rd = l.unpackPairs(rd)
	p.Committed, _ = l.unpackPairs(rd)
}

func (l *Layout) unpackPairs(rd bitReader) (uint32, bitReader) {
	R := l.records
	v, rd := rd.bits(uint(l.pairBits))
	var set uint32
	for ; v != 0; v &= v - 1 {
		k := bits.TrailingZeros64(v)
		set |= OffsetIDBit(k/R, k%R+1)
	}
	return set, rd
}

func (l *Layout) unpackReplica(rd bitReader, r *Replica, i int) bitReader {
	var x int8
	r.LogLen, rd = rd.get(&l.logLen)
	for k := range l.records {
		if k >= int(r.LogLen) {
			rd.pos += uint(l.recID.width + l.recEpoch.width)
			continue
		}
		r.Log[k].ID, rd = rd.get(&l.recID)
		r.Log[k].Epoch, rd = rd.get(&l.recEpoch)
	}
	for e := range l.cacheSlots {
		if x, rd = rd.get(&l.cacheSlot); x != 0 {
			r.Cache[r.CacheLen] = Entry{Epoch: int8(e), Start: x - 1}
			r.CacheLen++
		}
	}
	r.HwCheckpoint, rd = rd.get(&l.hwCkpt)
	x, rd = rd.get(&l.role)
	r.Role = model.Role(x)
	r.LeaderEpoch, rd = rd.get(&l.leaderEpoch)
	r.Leader, rd = rd.get(&l.leader)
	r.Hw, rd = rd.get(&l.hw)
	r.Isr, rd = rd.set(&l.isr)
	for k := range l.n {
		if k == i {
			r.FollowerLeo[k], r.FollowerBrokerEpoch[k] = -1, -1
		} else {
			r.FollowerLeo[k], rd = rd.get(&l.view)
			r.FollowerBrokerEpoch[k], rd = rd.get(&l.brokerView)
		}
	}
	x, rd = rd.get(&l.fetchState)
	r.FetchState = model.FetchState(x)
	r.ProduceEpoch, rd = rd.get(&l.produce)
	r.PartEpoch, rd = rd.get(&l.partEp)
	r.PendingIsr, rd = rd.set(&l.pending)
	r.BrokerEpoch, rd = rd.get(&l.brokerEpoch)
	r.QueueLen, rd = rd.get(&l.queueLen)
	for k := range l.queueSlots {
		if k >= int(r.QueueLen) {
			rd.pos += uint(l.laiBits)
			continue
		}
		m := &r.Queue[k]
		m.Type = model.MsgLeaderAndIsr
		m.Leader, rd = rd.get(&l.laiLeader)
		m.Epoch, rd = rd.get(&l.laiEpoch)
		m.Isr, rd = rd.set(&l.laiIsr)
		m.Isr = insertSetBit(m.Isr, int(m.Leader))
		m.PartitionEpoch, rd = rd.get(&l.laiPE)
	}
	rd = l.unpackInflight(rd, &r.Inflight, i)
	return l.unpackAlter(rd, &r.AlterPartition, i)
}

func (l *Layout) unpackRecords(rd bitReader, m *Msg) bitReader {
	m.NRecords, rd = rd.get(&l.nrec)
	for k := range l.records {
		if k >= int(m.NRecords) {
			rd.pos += uint(l.msgID.width + l.msgEpoch.width)
			continue
		}
		m.Records[k].ID, rd = rd.get(&l.msgID)
		m.Records[k].Epoch, rd = rd.get(&l.msgEpoch)
	}
	return rd
}

func (l *Layout) unpackInflight(rd bitReader, m *Msg, i int) bitReader {
	var x int8
	x, rd = rd.get(&l.inType)
	m.Type = l.inTypes[x]
	start := rd.pos
	switch m.Type {
	case model.MsgOffsetsForLeaderEpoch:
		m.Src = int8(i)
		m.Dst, rd = rd.get(&l.peer)
		m.Epoch, rd = rd.get(&l.epochAsk)
		m.CurrentEpoch, rd = rd.get(&l.curEp)
	case model.MsgOffsetsForLeaderEpochResponse:
		m.Dst = int8(i)
		m.Src, rd = rd.get(&l.peer)
		x, rd = rd.get(&l.inErr)
		m.Error = model.ErrorCode(x)
		m.Epoch, rd = rd.get(&l.epochAsk)
		m.Offset, rd = rd.get(&l.offAns)
		m.CurrentEpoch, rd = rd.get(&l.curEp)
	case model.MsgFetch:
		m.Src = int8(i)
		m.Dst, rd = rd.get(&l.peer)
		m.Offset, rd = rd.get(&l.off)
		m.LastFetchedEpoch, rd = rd.get(&l.lfe)
		m.CurrentEpoch, rd = rd.get(&l.curEp)
		m.Orphan, rd = rd.flag(&l.orphan)
	case model.MsgFetchRead:
		m.Dst = int8(i)
		m.Src, rd = rd.get(&l.peer)
		m.Offset, rd = rd.get(&l.off)
		rd = l.unpackRecords(rd, m)
		m.Hw, rd = rd.get(&l.readHw)
		m.Leo, rd = rd.get(&l.leo)
		m.CurrentEpoch, rd = rd.get(&l.curEp)
		m.Orphan, rd = rd.flag(&l.orphan)
	case model.MsgFetchResponse:
		m.Dst = int8(i)
		m.Src, rd = rd.get(&l.peer)
		x, rd = rd.get(&l.inErr)
		m.Error = model.ErrorCode(x)
		m.Offset, rd = rd.get(&l.off)
		rd = l.unpackRecords(rd, m)
		m.Hw, rd = rd.get(&l.respHw)
		m.Leo, rd = rd.get(&l.leo)
		m.Diverging, rd = rd.flag(&l.div)
		m.DivEpoch, rd = rd.get(&l.divEp)
		m.DivOffset, rd = rd.get(&l.divOff)
		m.CurrentEpoch, rd = rd.get(&l.curEp)
	}
	rd.pos = start + uint(l.inBits)
	return rd
}

func (l *Layout) unpackAlter(rd bitReader, m *Msg, i int) bitReader {
	var x int8
	x, rd = rd.get(&l.apType)
	m.Type = l.apTypes[x]
	start := rd.pos
	switch m.Type {
	case model.MsgAlterPartition:
		m.LeaderEpoch, rd = rd.get(&l.apLeaderEp)
		m.PartitionEpoch, rd = rd.get(&l.apPE)
		m.Isr, rd = rd.set(&l.apIsr)
		for k := range l.n {
			if k == i {
				m.BrokerEpochs[k] = -1
			} else {
				m.BrokerEpochs[k], rd = rd.get(&l.apBrokerEp)
			}
		}
	case model.MsgAlterPartitionResponse:
		x, rd = rd.get(&l.apErr)
		m.Error = model.ErrorCode(x)
		m.LeaderEpoch, rd = rd.get(&l.apLeaderEp)
		m.PartitionEpoch, rd = rd.get(&l.apRespPE)
		m.Isr, rd = rd.set(&l.apIsr)
	}
	rd.pos = start + uint(l.apBits)
	return rd
}

// Hash is XXH64 (seed 0) of the words' little-endian bytes (model.Hash64
// on this little-endian machine's view of them).
func (l *Layout) Hash(words []uint64) uint64 {
	if len(words) == 0 {
		return model.Hash64(nil)
	}
	return model.Hash64(unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), 8*len(words)))
}
