package protocol

import "fmt"

// Error is a Kafka protocol error code (org.apache.kafka.common.protocol.Errors),
// with Kafka's numbers. The zero value is None.
type Error int16

const (
	None                         Error = 0
	OffsetOutOfRange             Error = 1
	UnknownTopicOrPartition      Error = 3
	NotLeaderOrFollower          Error = 6
	RequestTimedOut              Error = 7
	NetworkException             Error = 13
	NotEnoughReplicas            Error = 19
	NotEnoughReplicasAfterAppend Error = 20
	InvalidRequiredAcks          Error = 21
	FencedLeaderEpoch            Error = 74
	UnknownLeaderEpoch           Error = 75
)

var errorNames = map[Error]string{
	None:                         "NONE",
	OffsetOutOfRange:             "OFFSET_OUT_OF_RANGE",
	UnknownTopicOrPartition:      "UNKNOWN_TOPIC_OR_PARTITION",
	NotLeaderOrFollower:          "NOT_LEADER_OR_FOLLOWER",
	RequestTimedOut:              "REQUEST_TIMED_OUT",
	NetworkException:             "NETWORK_EXCEPTION",
	NotEnoughReplicas:            "NOT_ENOUGH_REPLICAS",
	NotEnoughReplicasAfterAppend: "NOT_ENOUGH_REPLICAS_AFTER_APPEND",
	InvalidRequiredAcks:          "INVALID_REQUIRED_ACKS",
	FencedLeaderEpoch:            "FENCED_LEADER_EPOCH",
	UnknownLeaderEpoch:           "UNKNOWN_LEADER_EPOCH",
}

// String is Kafka's name for the code (the spec's error strings).
func (e Error) String() string {
	if s, ok := errorNames[e]; ok {
		return s
	}
	return fmt.Sprintf("Error(%d)", int16(e))
}

// Error makes a non-None code usable as a Go error.
func (e Error) Error() string { return e.String() }

// Err returns nil for None and the code otherwise.
func (e Error) Err() error {
	if e == None {
		return nil
	}
	return e
}
