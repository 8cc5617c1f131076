package packed

import "github.com/hwepoch/hwepoch/model"

// The spec's message constructors (model/msg.go), writing into a Msg in place.
// Replicas are indices; every field the type does not have is zero, as
// FromModel leaves it, so that == is the spec's record equality.

// noMsg mirrors NoMsg == [type |-> "None"].
func (m *Msg) noMsg() { *m = Msg{} }

// leaderAndIsr mirrors LeaderAndIsrMsg(l, e, s, pe).
func leaderAndIsr(l, e int8, isr Set, pe int8) Msg {
	return Msg{Type: model.MsgLeaderAndIsr, Leader: l, Epoch: e, Isr: isr, PartitionEpoch: pe}
}

// offsetsReq mirrors OffsetsReq(f, l, e, ce).
func (m *Msg) offsetsReq(f, l, e, ce int8) {
	*m = Msg{Type: model.MsgOffsetsForLeaderEpoch, Src: f, Dst: l, Epoch: e, CurrentEpoch: ce}
}

// offsetsResp mirrors OffsetsResp(l, f, err, e, o, ce).
func (m *Msg) offsetsResp(l, f int8, err model.ErrorCode, e, o, ce int8) {
	*m = Msg{Type: model.MsgOffsetsForLeaderEpochResponse, Src: l, Dst: f, Error: err, Epoch: e, Offset: o, CurrentEpoch: ce}
}

// fetchReq mirrors FetchReq(f, l, o, lfe, ce, orphan).
func (m *Msg) fetchReq(f, l, o, lfe, ce int8, orphan bool) {
	*m = Msg{Type: model.MsgFetch, Src: f, Dst: l, Offset: o, LastFetchedEpoch: lfe, CurrentEpoch: ce, Orphan: orphan}
}

// fetchRead mirrors FetchRead(l, f, o, recs, h, leo, ce, orphan).
func (m *Msg) fetchRead(l, f, o int8, recs []Record, h, leo, ce int8, orphan bool) {
	*m = Msg{Type: model.MsgFetchRead, Src: l, Dst: f, Offset: o, Hw: h, Leo: leo, CurrentEpoch: ce, Orphan: orphan}
	m.setRecords(recs)
}

// fetchResp mirrors FetchResp(l, f, err, o, recs, h, leo, div, dv, ce).
func (m *Msg) fetchResp(l, f int8, err model.ErrorCode, o int8, recs []Record, h, leo int8, div bool, dvEpoch, dvOffset, ce int8) {
	*m = Msg{Type: model.MsgFetchResponse, Src: l, Dst: f, Error: err, Offset: o, Hw: h, Leo: leo,
		Diverging: div, DivEpoch: dvEpoch, DivOffset: dvOffset, CurrentEpoch: ce}
	m.setRecords(recs)
}

// alterPartitionReq mirrors AlterPartitionReq(l, e, pe, s, be) (l is not a
// field).
func (m *Msg) alterPartitionReq(e, pe int8, isr Set, be *[MaxReplicas]int8) {
	*m = Msg{Type: model.MsgAlterPartition, LeaderEpoch: e, PartitionEpoch: pe, Isr: isr, BrokerEpochs: *be}
}

// alterPartitionResp mirrors AlterPartitionResp(err, e, pe, s).
func (m *Msg) alterPartitionResp(err model.ErrorCode, e, pe int8, isr Set) {
	*m = Msg{Type: model.MsgAlterPartitionResponse, Error: err, LeaderEpoch: e, PartitionEpoch: pe, Isr: isr}
}

// setRecords sets m's records (m's were zero).
func (m *Msg) setRecords(recs []Record) {
	if len(recs) > MaxLog {
		overflow("MaxLog", "a message's records")
	}
	copy(m.Records[:], recs)
	m.NRecords = int8(len(recs))
}

// records is m's records.
func (m *Msg) records() []Record { return m.Records[:m.NRecords] }

// logRecords is SubSeq(log, o + 1, LEO) of r's log, o in 0..LEO.
func (r *Replica) logRecords(o int8) []Record {
	if o < 0 || o > r.LogLen {
		panic("SubSeq out of the log's range")
	}
	return r.Log[o:r.LogLen]
}
