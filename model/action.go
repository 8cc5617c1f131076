package model

import "fmt"

// ActionKind names a TLA+ action of Next. The zero value is "no action" (the
// initial state of a trace).
type ActionKind uint8

const (
	NoAction ActionKind = iota
	Elect
	HandleLeaderAndIsr
	Produce
	SendOffsetsForLeaderEpoch
	HandleOffsetsForLeaderEpoch
	HandleOffsetsForLeaderEpochResponse
	SendFetch
	HandleFetch
	UpdateFollowerFetchState
	HandleFetchResponse
	ShrinkIsr
	ExpandIsr
	HandleAlterPartition
	HandleAlterPartitionResponse
	CheckpointHW
	Crash
	Restart
	LoseMessage
	MissLeaderAndIsr
	numKinds
)

// CompleteDelayedFetch is an action of a restored Kafka behaviour only
// (RestoreDelayedFetchHW, model/restore.go): Next takes it only when the
// configuration restores it (as the last disjunct of the patched spec's
// Next), and ActionKinds does not list it.
const CompleteDelayedFetch = numKinds + 1

var kindNames = [...]string{"", "Elect", "HandleLeaderAndIsr", "Produce", "SendOffsetsForLeaderEpoch",
	"HandleOffsetsForLeaderEpoch", "HandleOffsetsForLeaderEpochResponse", "SendFetch",
	"HandleFetch", "UpdateFollowerFetchState", "HandleFetchResponse", "ShrinkIsr", "ExpandIsr",
	"HandleAlterPartition", "HandleAlterPartitionResponse", "CheckpointHW", "Crash",
	"Restart", "LoseMessage", "MissLeaderAndIsr", "", "CompleteDelayedFetch"}

// kindParams are each action operator's formal parameters, in order.
var kindParams = [...][]string{nil, {"r"}, {"r"}, {"l"}, {"f"}, {"l", "f"}, {"f"}, {"f"},
	{"l", "f"}, {"l", "f"}, {"f"}, {"l", "f"}, {"l", "f"}, {"l"}, {"l"}, {"r"}, {"r", "keep"}, {"r"}, {"f"}, {"r"},
	nil, {"l", "f"}}

func (k ActionKind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("ActionKind(%d)", uint8(k))
}

// Params are the formal parameters of the action's TLA+ operator.
func (k ActionKind) Params() []string {
	if int(k) < len(kindParams) {
		return kindParams[k]
	}
	return nil
}

// ParseActionKind maps a TLA+ action name to its kind.
func ParseActionKind(s string) (ActionKind, error) {
	for i, n := range kindNames {
		if i > 0 && n != "" && n == s {
			return ActionKind(i), nil
		}
	}
	return NoAction, fmt.Errorf("unknown action %q", s)
}

// ActionKinds lists every action kind in the order of Next's disjuncts.
func ActionKinds() []ActionKind {
	ks := make([]ActionKind, 0, numKinds-1)
	for k := Elect; k < numKinds; k++ {
		ks = append(ks, k)
	}
	return ks
}

// Action is one step of Next: an action and a binding of its operator's
// parameters. Fields a kind does not take stay zero.
type Action struct {
	Kind ActionKind
	R    Replica // r
	L    Replica // l
	F    Replica // f
	Keep int     // keep (Crash); a restored behaviour's choice (model/restore.go)
}

func (a Action) String() string {
	switch len(a.Kind.Params()) {
	case 0:
		return "Init"
	}
	switch a.Kind {
	case Elect, HandleLeaderAndIsr, CheckpointHW, Restart, MissLeaderAndIsr:
		return fmt.Sprintf("%s(%s)", a.Kind, a.R)
	case Produce, HandleAlterPartition, HandleAlterPartitionResponse:
		return fmt.Sprintf("%s(%s)", a.Kind, a.L)
	case SendOffsetsForLeaderEpoch, HandleOffsetsForLeaderEpochResponse, SendFetch, HandleFetchResponse, LoseMessage:
		if a.Keep != 0 { // a restored behaviour's choice (model/restore.go)
			return fmt.Sprintf("%s(%s)[choice %d]", a.Kind, a.F, a.Keep)
		}
		return fmt.Sprintf("%s(%s)", a.Kind, a.F)
	case HandleOffsetsForLeaderEpoch, HandleFetch, UpdateFollowerFetchState, ShrinkIsr, ExpandIsr, CompleteDelayedFetch:
		return fmt.Sprintf("%s(%s,%s)", a.Kind, a.L, a.F)
	case Crash:
		return fmt.Sprintf("%s(%s,%d)", a.Kind, a.R, a.Keep)
	}
	return a.Kind.String()
}
