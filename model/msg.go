package model

import (
	"fmt"
	"slices"
)

// MsgType mirrors the type field of the spec's message records.
type MsgType uint8

const (
	MsgNone MsgType = iota // NoMsg == [type |-> "None"]
	MsgLeaderAndIsr
	MsgOffsetsForLeaderEpoch
	MsgOffsetsForLeaderEpochResponse
	MsgFetch
	MsgFetchRead
	MsgFetchResponse
	MsgAlterPartition
	MsgAlterPartitionResponse
)

var msgTypeNames = [...]string{"None", "LeaderAndIsr", "OffsetsForLeaderEpoch",
	"OffsetsForLeaderEpochResponse", "Fetch", "FetchRead", "FetchResponse", "AlterPartition",
	"AlterPartitionResponse"}

func (t MsgType) String() string {
	if int(t) < len(msgTypeNames) {
		return msgTypeNames[t]
	}
	return fmt.Sprintf("MsgType(%d)", uint8(t))
}

// ParseMsgType is the inverse of MsgType.String.
func ParseMsgType(s string) (MsgType, error) {
	for i, n := range msgTypeNames {
		if n == s {
			return MsgType(i), nil
		}
	}
	return 0, fmt.Errorf("unknown message type %q", s)
}

// Msg is every message record of the spec in one struct. Only the fields of
// its Type's record are meaningful (MsgFields lists them); the others stay at
// their zero value, so that == on the meaningful fields is TLA+'s record
// equality and Equal can compare all fields.
type Msg struct {
	Type MsgType

	// LeaderAndIsrMsg(l, e, s, pe): Leader, Epoch, Isr, PartitionEpoch.
	Leader         Replica
	Epoch          int // also the epoch asked about / answered in OffsetsForLeaderEpoch(Response)
	Isr            []Replica
	PartitionEpoch int // also AlterPartition(Response)'s partitionEpoch
	LeaderEpoch    int // AlterPartition(Response)'s leaderEpoch
	// BrokerEpochs: AlterPartition's broker epoch of each ISR member, by
	// replica index (-1 for a non-member or where the release has none).
	BrokerEpochs []int

	// Fetcher requests and responses.
	Src, Dst     Replica
	CurrentEpoch int
	Error        ErrorCode
	Offset       int
	Records      []Record
	Hw           int
	Leo          int
	// Fetch: LastFetchedEpoch (-1 unless DivergingEpoch); Fetch and
	// FetchRead: Orphan (the sender crashed); FetchResponse: Diverging and
	// DivergingEpoch (the leader's endOffsetFor answer, [-1, -1] when not
	// diverging).
	LastFetchedEpoch int
	Orphan           bool
	Diverging        bool
	DivergingEpoch   EpochOffset
}

// NoMsg mirrors NoMsg == [type |-> "None"].
var NoMsg = Msg{Type: MsgNone}

// MsgFields names the TLA+ record fields of each message type, in the order
// the spec's constructors list them.
var MsgFields = map[MsgType][]string{
	MsgNone:                          {"type"},
	MsgLeaderAndIsr:                  {"type", "leader", "epoch", "isr", "partitionEpoch"},
	MsgOffsetsForLeaderEpoch:         {"type", "src", "dst", "epoch", "currentEpoch"},
	MsgOffsetsForLeaderEpochResponse: {"type", "src", "dst", "error", "epoch", "offset", "currentEpoch"},
	MsgFetch:                         {"type", "src", "dst", "offset", "lastFetchedEpoch", "currentEpoch", "orphan"},
	MsgFetchRead:                     {"type", "src", "dst", "offset", "records", "hw", "leo", "currentEpoch", "orphan"},
	MsgFetchResponse: {"type", "src", "dst", "error", "offset", "records", "hw", "leo", "diverging",
		"divergingEpoch", "currentEpoch"},
	MsgAlterPartition:         {"type", "leaderEpoch", "partitionEpoch", "isr", "brokerEpochs"},
	MsgAlterPartitionResponse: {"type", "error", "leaderEpoch", "partitionEpoch", "isr"},
}

// NoDivergence0 mirrors NoDivergence0 == [epoch |-> -1, offset |-> -1].
var NoDivergence0 = EpochOffset{-1, -1}

// LeaderAndIsrMsg mirrors LeaderAndIsrMsg(l, e, s, pe).
func LeaderAndIsrMsg(l Replica, e int, s []Replica, pe int) Msg {
	return Msg{Type: MsgLeaderAndIsr, Leader: l, Epoch: e, Isr: s, PartitionEpoch: pe}
}

// OffsetsReq mirrors OffsetsReq(f, l, e, ce).
func OffsetsReq(f, l Replica, e, ce int) Msg {
	return Msg{Type: MsgOffsetsForLeaderEpoch, Src: f, Dst: l, Epoch: e, CurrentEpoch: ce}
}

// OffsetsResp mirrors OffsetsResp(l, f, err, e, o, ce).
func OffsetsResp(l, f Replica, err ErrorCode, e, o, ce int) Msg {
	return Msg{Type: MsgOffsetsForLeaderEpochResponse, Src: l, Dst: f, Error: err, Epoch: e, Offset: o, CurrentEpoch: ce}
}

// FetchReq mirrors FetchReq(f, l, o, lfe, ce, orphan).
func FetchReq(f, l Replica, o, lfe, ce int, orphan bool) Msg {
	return Msg{Type: MsgFetch, Src: f, Dst: l, Offset: o, LastFetchedEpoch: lfe, CurrentEpoch: ce, Orphan: orphan}
}

// FetchRead mirrors FetchRead(l, f, o, recs, h, leo, ce, orphan).
func FetchRead(l, f Replica, o int, recs []Record, h, leo, ce int, orphan bool) Msg {
	return Msg{Type: MsgFetchRead, Src: l, Dst: f, Offset: o, Records: recs, Hw: h, Leo: leo, CurrentEpoch: ce, Orphan: orphan}
}

// FetchResp mirrors FetchResp(l, f, err, o, recs, h, leo, div, dv, ce).
func FetchResp(l, f Replica, err ErrorCode, o int, recs []Record, h, leo int, div bool, dv EpochOffset, ce int) Msg {
	return Msg{Type: MsgFetchResponse, Src: l, Dst: f, Error: err, Offset: o, Records: recs, Hw: h, Leo: leo,
		Diverging: div, DivergingEpoch: dv, CurrentEpoch: ce}
}

// AlterPartitionReq mirrors AlterPartitionReq(l, e, pe, s, be) (l is not a field;
// be: the broker epochs the leader sends with s, KIP-903).
func AlterPartitionReq(e, pe int, s []Replica, be []int) Msg {
	return Msg{Type: MsgAlterPartition, LeaderEpoch: e, PartitionEpoch: pe, Isr: s, BrokerEpochs: be}
}

// AlterPartitionResp mirrors AlterPartitionResp(err, e, pe, s).
func AlterPartitionResp(err ErrorCode, e, pe int, s []Replica) Msg {
	return Msg{Type: MsgAlterPartitionResponse, Error: err, LeaderEpoch: e, PartitionEpoch: pe, Isr: s}
}

// Equal is TLA+ record equality. Nil and empty slices are equal (both <<>>).
func (m Msg) Equal(o Msg) bool {
	return m.Type == o.Type && m.Leader == o.Leader && m.Epoch == o.Epoch &&
		slices.Equal(m.Isr, o.Isr) && m.Src == o.Src && m.Dst == o.Dst &&
		m.CurrentEpoch == o.CurrentEpoch && m.Error == o.Error && m.Offset == o.Offset &&
		slices.Equal(m.Records, o.Records) && m.Hw == o.Hw && m.Leo == o.Leo &&
		m.PartitionEpoch == o.PartitionEpoch && m.LeaderEpoch == o.LeaderEpoch &&
		slices.Equal(m.BrokerEpochs, o.BrokerEpochs) &&
		m.LastFetchedEpoch == o.LastFetchedEpoch && m.Orphan == o.Orphan &&
		m.Diverging == o.Diverging && m.DivergingEpoch == o.DivergingEpoch
}

func (m Msg) String() string {
	switch m.Type {
	case MsgNone:
		return "None"
	case MsgLeaderAndIsr:
		return fmt.Sprintf("LeaderAndIsr(leader=%s epoch=%d isr=%v pe=%d)", m.Leader, m.Epoch, m.Isr, m.PartitionEpoch)
	case MsgOffsetsForLeaderEpoch:
		return fmt.Sprintf("OffsetsForLeaderEpoch(%s->%s epoch=%d ce=%d)", m.Src, m.Dst, m.Epoch, m.CurrentEpoch)
	case MsgOffsetsForLeaderEpochResponse:
		return fmt.Sprintf("OffsetsForLeaderEpochResponse(%s->%s %s epoch=%d offset=%d ce=%d)", m.Src, m.Dst, m.Error, m.Epoch, m.Offset, m.CurrentEpoch)
	case MsgFetch:
		return fmt.Sprintf("Fetch(%s->%s offset=%d lfe=%d ce=%d%s)", m.Src, m.Dst, m.Offset, m.LastFetchedEpoch, m.CurrentEpoch, orphanMark(m.Orphan))
	case MsgFetchRead:
		return fmt.Sprintf("FetchRead(%s->%s offset=%d recs=%v hw=%d leo=%d ce=%d%s)", m.Src, m.Dst, m.Offset, m.Records, m.Hw, m.Leo, m.CurrentEpoch, orphanMark(m.Orphan))
	case MsgFetchResponse:
		div := ""
		if m.Diverging {
			div = fmt.Sprintf(" divergingEpoch=(%d,%d)", m.DivergingEpoch.Epoch, m.DivergingEpoch.Offset)
		}
		return fmt.Sprintf("FetchResponse(%s->%s %s offset=%d recs=%v hw=%d leo=%d%s ce=%d)", m.Src, m.Dst, m.Error, m.Offset, m.Records, m.Hw, m.Leo, div, m.CurrentEpoch)
	case MsgAlterPartition:
		return fmt.Sprintf("AlterPartition(isr=%v epoch=%d pe=%d)", m.Isr, m.LeaderEpoch, m.PartitionEpoch)
	case MsgAlterPartitionResponse:
		return fmt.Sprintf("AlterPartitionResponse(%s isr=%v epoch=%d pe=%d)", m.Error, m.Isr, m.LeaderEpoch, m.PartitionEpoch)
	}
	return fmt.Sprintf("Msg(%d)", m.Type)
}

func orphanMark(o bool) string {
	if o {
		return " orphan"
	}
	return ""
}
