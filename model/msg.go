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
	MsgFetchResponse
)

var msgTypeNames = [...]string{"None", "LeaderAndIsr", "OffsetsForLeaderEpoch",
	"OffsetsForLeaderEpochResponse", "Fetch", "FetchResponse"}

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

	// LeaderAndIsrMsg(l, e, s): Leader, Epoch, Isr.
	Leader Replica
	Epoch  int // also the epoch asked about / answered in OffsetsForLeaderEpoch(Response)
	Isr    []Replica

	// Fetcher requests and responses.
	Src, Dst     Replica
	CurrentEpoch int
	Error        ErrorCode
	Offset       int
	Records      []Record
	Hw           int
	Leo          int
}

// NoMsg mirrors NoMsg == [type |-> "None"].
var NoMsg = Msg{Type: MsgNone}

// MsgFields names the TLA+ record fields of each message type, in the order
// the spec's constructors list them.
var MsgFields = map[MsgType][]string{
	MsgNone:                          {"type"},
	MsgLeaderAndIsr:                  {"type", "leader", "epoch", "isr"},
	MsgOffsetsForLeaderEpoch:         {"type", "src", "dst", "epoch", "currentEpoch"},
	MsgOffsetsForLeaderEpochResponse: {"type", "src", "dst", "error", "epoch", "offset", "currentEpoch"},
	MsgFetch:                         {"type", "src", "dst", "offset", "currentEpoch"},
	MsgFetchResponse:                 {"type", "src", "dst", "error", "offset", "records", "hw", "leo", "currentEpoch"},
}

// LeaderAndIsrMsg mirrors LeaderAndIsrMsg(l, e, s).
func LeaderAndIsrMsg(l Replica, e int, s []Replica) Msg {
	return Msg{Type: MsgLeaderAndIsr, Leader: l, Epoch: e, Isr: s}
}

// OffsetsReq mirrors OffsetsReq(f, l, e, ce).
func OffsetsReq(f, l Replica, e, ce int) Msg {
	return Msg{Type: MsgOffsetsForLeaderEpoch, Src: f, Dst: l, Epoch: e, CurrentEpoch: ce}
}

// OffsetsResp mirrors OffsetsResp(l, f, err, e, o, ce).
func OffsetsResp(l, f Replica, err ErrorCode, e, o, ce int) Msg {
	return Msg{Type: MsgOffsetsForLeaderEpochResponse, Src: l, Dst: f, Error: err, Epoch: e, Offset: o, CurrentEpoch: ce}
}

// FetchReq mirrors FetchReq(f, l, o, ce).
func FetchReq(f, l Replica, o, ce int) Msg {
	return Msg{Type: MsgFetch, Src: f, Dst: l, Offset: o, CurrentEpoch: ce}
}

// FetchResp mirrors FetchResp(l, f, err, o, recs, h, leo, ce).
func FetchResp(l, f Replica, err ErrorCode, o int, recs []Record, h, leo, ce int) Msg {
	return Msg{Type: MsgFetchResponse, Src: l, Dst: f, Error: err, Offset: o, Records: recs, Hw: h, Leo: leo, CurrentEpoch: ce}
}

// Equal is TLA+ record equality. Nil and empty slices are equal (both <<>>).
func (m Msg) Equal(o Msg) bool {
	return m.Type == o.Type && m.Leader == o.Leader && m.Epoch == o.Epoch &&
		slices.Equal(m.Isr, o.Isr) && m.Src == o.Src && m.Dst == o.Dst &&
		m.CurrentEpoch == o.CurrentEpoch && m.Error == o.Error && m.Offset == o.Offset &&
		slices.Equal(m.Records, o.Records) && m.Hw == o.Hw && m.Leo == o.Leo
}

func (m Msg) String() string {
	switch m.Type {
	case MsgNone:
		return "None"
	case MsgLeaderAndIsr:
		return fmt.Sprintf("LeaderAndIsr(leader=%s epoch=%d isr=%v)", m.Leader, m.Epoch, m.Isr)
	case MsgOffsetsForLeaderEpoch:
		return fmt.Sprintf("OffsetsForLeaderEpoch(%s->%s epoch=%d ce=%d)", m.Src, m.Dst, m.Epoch, m.CurrentEpoch)
	case MsgOffsetsForLeaderEpochResponse:
		return fmt.Sprintf("OffsetsForLeaderEpochResponse(%s->%s %s epoch=%d offset=%d ce=%d)", m.Src, m.Dst, m.Error, m.Epoch, m.Offset, m.CurrentEpoch)
	case MsgFetch:
		return fmt.Sprintf("Fetch(%s->%s offset=%d ce=%d)", m.Src, m.Dst, m.Offset, m.CurrentEpoch)
	case MsgFetchResponse:
		return fmt.Sprintf("FetchResponse(%s->%s %s offset=%d recs=%v hw=%d leo=%d ce=%d)", m.Src, m.Dst, m.Error, m.Offset, m.Records, m.Hw, m.Leo, m.CurrentEpoch)
	}
	return fmt.Sprintf("Msg(%d)", m.Type)
}
