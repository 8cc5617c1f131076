package model

import "fmt"

// Replica is a model value from the configuration (e.g. "r1").
type Replica string

// None is the spec's model value None ("no leader"). Configurations that bind
// None to another model value name are mapped onto this sentinel when loaded.
const None Replica = "None"

// Record mirrors the spec's Record == [id : Ids, epoch : Epochs].
type Record struct {
	ID    int
	Epoch int
}

// Entry mirrors Entry == [epoch : Epochs, start : Offsets], one line of the
// leader-epoch-checkpoint.
type Entry struct {
	Epoch int
	Start int
}

// OffsetID mirrors the [offset, id] records of the acked and committed sets.
type OffsetID struct {
	Offset int
	ID     int
}

// Role mirrors Roles == {"Offline", "Starting", "Leader", "Follower"}.
type Role uint8

const (
	Offline Role = iota
	Starting
	Leader
	Follower
)

var roleNames = [...]string{"Offline", "Starting", "Leader", "Follower"}

func (r Role) String() string {
	if int(r) < len(roleNames) {
		return roleNames[r]
	}
	return fmt.Sprintf("Role(%d)", uint8(r))
}

// ParseRole is the inverse of Role.String.
func ParseRole(s string) (Role, error) {
	for i, n := range roleNames {
		if n == s {
			return Role(i), nil
		}
	}
	return 0, fmt.Errorf("unknown role %q", s)
}

// FetchState mirrors a follower's fetcher state: "None" | "Truncating" | "Fetching".
type FetchState uint8

const (
	FetchNone FetchState = iota
	Truncating
	Fetching
)

var fetchStateNames = [...]string{"None", "Truncating", "Fetching"}

func (f FetchState) String() string {
	if int(f) < len(fetchStateNames) {
		return fetchStateNames[f]
	}
	return fmt.Sprintf("FetchState(%d)", uint8(f))
}

// ParseFetchState is the inverse of FetchState.String.
func ParseFetchState(s string) (FetchState, error) {
	for i, n := range fetchStateNames {
		if n == s {
			return FetchState(i), nil
		}
	}
	return 0, fmt.Errorf("unknown fetch state %q", s)
}

// ErrorCode mirrors Errors, the error field of responses.
type ErrorCode uint8

const (
	ErrNone ErrorCode = iota
	ErrNotLeaderOrFollower
	ErrFencedLeaderEpoch
	ErrUnknownLeaderEpoch
	ErrOffsetOutOfRange
	ErrInvalidUpdateVersion
	ErrIneligibleReplica
)

var errorNames = [...]string{"NONE", "NOT_LEADER_OR_FOLLOWER", "FENCED_LEADER_EPOCH",
	"UNKNOWN_LEADER_EPOCH", "OFFSET_OUT_OF_RANGE", "INVALID_UPDATE_VERSION", "INELIGIBLE_REPLICA"}

func (e ErrorCode) String() string {
	if int(e) < len(errorNames) {
		return errorNames[e]
	}
	return fmt.Sprintf("ErrorCode(%d)", uint8(e))
}

// ParseErrorCode is the inverse of ErrorCode.String.
func ParseErrorCode(s string) (ErrorCode, error) {
	for i, n := range errorNames {
		if n == s {
			return ErrorCode(i), nil
		}
	}
	return 0, fmt.Errorf("unknown error code %q", s)
}
