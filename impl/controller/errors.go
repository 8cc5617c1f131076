package controller

import (
	"fmt"
	"strings"

	"github.com/hwepoch/hwepoch/impl/protocol"
)

// ErrorCode is a Kafka protocol error code (org.apache.kafka.common.protocol.Errors),
// the implementation's one table in package protocol. It implements error,
// so errors.Is(err, ErrFencedLeaderEpoch) works on any error this package
// returns.
type ErrorCode = protocol.Error

// The Kafka error codes this package returns.
const (
	ErrUnknownServerError          = protocol.UnknownServerError
	ErrUnknownTopicOrPartition     = protocol.UnknownTopicOrPartition
	ErrNotLeaderOrFollower         = protocol.NotLeaderOrFollower
	ErrBrokerNotAvailable          = protocol.BrokerNotAvailable
	ErrInvalidTopic                = protocol.InvalidTopic
	ErrTopicAlreadyExists          = protocol.TopicAlreadyExists
	ErrInvalidPartitions           = protocol.InvalidPartitions
	ErrInvalidReplicaAssignment    = protocol.InvalidReplicaAssignment
	ErrInvalidConfig               = protocol.InvalidConfig
	ErrNotController               = protocol.NotController
	ErrInvalidRequest              = protocol.InvalidRequest
	ErrReassignmentInProgress      = protocol.ReassignmentInProgress
	ErrFencedLeaderEpoch           = protocol.FencedLeaderEpoch
	ErrPreferredLeaderNotAvailable = protocol.PreferredLeaderNotAvailable
	ErrEligibleLeadersNotAvailable = protocol.EligibleLeadersNotAvailable
	ErrElectionNotNeeded           = protocol.ElectionNotNeeded
	ErrNoReassignmentInProgress    = protocol.NoReassignmentInProgress
	ErrInvalidUpdateVersion        = protocol.InvalidUpdateVersion
	ErrIneligibleReplica           = protocol.IneligibleReplica
)

// Reason says why an election or a request was refused, beyond the code:
// several reasons share ELIGIBLE_LEADERS_NOT_AVAILABLE, and the refinement
// checker needs to tell them apart (a disabled Elect(r) in the spec has a
// precise cause).
type Reason uint8

const (
	ReasonUnspecified Reason = iota
	// ReasonNotAReplica: the candidate is not in the partition's replica set.
	ReasonNotAReplica
	// ReasonNotLive: the candidate is offline or shutting down.
	ReasonNotLive
	// ReasonNotInIsr: the candidate is live but not in the ISR, and unclean
	// leader election is disabled.
	ReasonNotInIsr
	// ReasonLiveIsrMember: the candidate is outside the ISR and unclean
	// election is enabled, but an ISR member is live, so an unclean election
	// is not allowed.
	ReasonLiveIsrMember
	// ReasonNoEligibleReplica: the election algorithm found no replica.
	ReasonNoEligibleReplica
	// ReasonAlreadyLeader: the preferred replica already leads.
	ReasonAlreadyLeader
	// ReasonLeaderLive: an offline election was asked for a partition whose
	// leader is live.
	ReasonLeaderLive
	// ReasonLeaderNotShuttingDown: a controlled-shutdown election was asked
	// for a partition whose leader is not shutting down.
	ReasonLeaderNotShuttingDown
	// ReasonTargetNotInIsr: a reassignment cannot complete before every
	// target replica has joined the ISR.
	ReasonTargetNotInIsr
	// ReasonEpochOverflow: the leader or partition epoch would overflow int32.
	ReasonEpochOverflow
	// ReasonLiveEligibleLeader: the candidate is outside the ISR and unclean
	// election is enabled, but under eligible leader replicas (KIP-966) a
	// live ELR member or the live last known leader may lead, so an unclean
	// election is not allowed (PartitionChangeBuilder.electAnyLeader tries
	// them first).
	ReasonLiveEligibleLeader
)

var reasonNames = [...]string{
	ReasonUnspecified:           "unspecified",
	ReasonNotAReplica:           "not a replica",
	ReasonNotLive:               "not live",
	ReasonNotInIsr:              "not in ISR and unclean leader election disabled",
	ReasonLiveIsrMember:         "not in ISR and an ISR member is live",
	ReasonNoEligibleReplica:     "no eligible replica",
	ReasonAlreadyLeader:         "preferred replica already leads",
	ReasonLeaderLive:            "leader is live",
	ReasonLeaderNotShuttingDown: "leader is not shutting down",
	ReasonTargetNotInIsr:        "target replicas not all in ISR",
	ReasonEpochOverflow:         "epoch overflow",
	ReasonLiveEligibleLeader:    "not in ISR and an eligible leader replica or the last known leader is live",
}

func (r Reason) String() string {
	if int(r) < len(reasonNames) {
		return reasonNames[r]
	}
	return fmt.Sprintf("Reason(%d)", uint8(r))
}

// Error is the error every method of this package returns: a Kafka error
// code, the partition, and why.
type Error struct {
	Code      ErrorCode
	Partition TopicPartition // zero when the error is not about a partition
	// Candidate is the broker an election was asked to elect (ElectReplica)
	// or a request came from (AlterPartition); NoLeader when not applicable.
	Candidate BrokerID
	Reason    Reason
	Message   string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Code.String())
	if e.Partition != (TopicPartition{}) {
		fmt.Fprintf(&b, " %s", e.Partition)
	}
	if e.Reason != ReasonUnspecified {
		fmt.Fprintf(&b, ": %s", e.Reason)
	}
	if e.Message != "" {
		fmt.Fprintf(&b, ": %s", e.Message)
	}
	return b.String()
}

// Unwrap exposes the code, for errors.Is.
func (e *Error) Unwrap() error { return e.Code }

func partitionError(code ErrorCode, tp TopicPartition, reason Reason, format string, args ...any) *Error {
	return &Error{Code: code, Partition: tp, Candidate: NoLeader, Reason: reason, Message: fmt.Sprintf(format, args...)}
}
