package protocol

import "fmt"

// Error is a Kafka protocol error code (org.apache.kafka.common.protocol.Errors),
// with Kafka's numbers. The zero value is None.
type Error int16

// One table for the whole implementation: the brokers' codes and the
// controller's (package controller names them ErrXxx, as aliases).
const (
	UnknownServerError           Error = -1
	None                         Error = 0
	OffsetOutOfRange             Error = 1
	UnknownTopicOrPartition      Error = 3
	NotLeaderOrFollower          Error = 6
	RequestTimedOut              Error = 7
	NetworkException             Error = 13
	NotEnoughReplicas            Error = 19
	NotEnoughReplicasAfterAppend Error = 20
	InvalidRequiredAcks          Error = 21
	BrokerNotAvailable           Error = 8
	InvalidTopic                 Error = 17
	TopicAlreadyExists           Error = 36
	InvalidPartitions            Error = 37
	InvalidReplicaAssignment     Error = 39
	InvalidConfig                Error = 40
	NotController                Error = 41
	InvalidRequest               Error = 42
	ReassignmentInProgress       Error = 60
	FencedLeaderEpoch            Error = 74
	UnknownLeaderEpoch           Error = 75
	PreferredLeaderNotAvailable  Error = 80
	EligibleLeadersNotAvailable  Error = 83
	ElectionNotNeeded            Error = 84
	NoReassignmentInProgress     Error = 85
	InvalidUpdateVersion         Error = 95
	IneligibleReplica            Error = 107
)

var errorNames = map[Error]string{
	UnknownServerError:           "UNKNOWN_SERVER_ERROR",
	None:                         "NONE",
	OffsetOutOfRange:             "OFFSET_OUT_OF_RANGE",
	UnknownTopicOrPartition:      "UNKNOWN_TOPIC_OR_PARTITION",
	NotLeaderOrFollower:          "NOT_LEADER_OR_FOLLOWER",
	RequestTimedOut:              "REQUEST_TIMED_OUT",
	NetworkException:             "NETWORK_EXCEPTION",
	NotEnoughReplicas:            "NOT_ENOUGH_REPLICAS",
	NotEnoughReplicasAfterAppend: "NOT_ENOUGH_REPLICAS_AFTER_APPEND",
	InvalidRequiredAcks:          "INVALID_REQUIRED_ACKS",
	BrokerNotAvailable:           "BROKER_NOT_AVAILABLE",
	InvalidTopic:                 "INVALID_TOPIC_EXCEPTION",
	TopicAlreadyExists:           "TOPIC_ALREADY_EXISTS",
	InvalidPartitions:            "INVALID_PARTITIONS",
	InvalidReplicaAssignment:     "INVALID_REPLICA_ASSIGNMENT",
	InvalidConfig:                "INVALID_CONFIG",
	NotController:                "NOT_CONTROLLER",
	InvalidRequest:               "INVALID_REQUEST",
	ReassignmentInProgress:       "REASSIGNMENT_IN_PROGRESS",
	FencedLeaderEpoch:            "FENCED_LEADER_EPOCH",
	UnknownLeaderEpoch:           "UNKNOWN_LEADER_EPOCH",
	PreferredLeaderNotAvailable:  "PREFERRED_LEADER_NOT_AVAILABLE",
	EligibleLeadersNotAvailable:  "ELIGIBLE_LEADERS_NOT_AVAILABLE",
	ElectionNotNeeded:            "ELECTION_NOT_NEEDED",
	NoReassignmentInProgress:     "NO_REASSIGNMENT_IN_PROGRESS",
	InvalidUpdateVersion:         "INVALID_UPDATE_VERSION",
	IneligibleReplica:            "INELIGIBLE_REPLICA",
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
