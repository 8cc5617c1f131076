package controller

import (
	"fmt"
	"slices"
)

// The four functions below are Kafka's PartitionLeaderElectionAlgorithms,
// one for one. They only choose a leader; what happens to the ISR and the
// epochs is the caller's business (Controller.Elect), as in Kafka's
// PartitionStateMachine. liveReplicas is the set of live replicas of the
// partition; its order does not matter.

// OfflinePartitionLeaderElection picks the first replica in assignment
// order that is live and in the ISR; failing that, when
// uncleanLeaderElectionEnabled, the first live replica (an unclean
// election: the caller must reset the ISR to it).
func OfflinePartitionLeaderElection(assignment, isr, liveReplicas []BrokerID, uncleanLeaderElectionEnabled bool) (BrokerID, bool) {
	for _, id := range assignment {
		if slices.Contains(liveReplicas, id) && slices.Contains(isr, id) {
			return id, true
		}
	}
	if uncleanLeaderElectionEnabled {
		for _, id := range assignment {
			if slices.Contains(liveReplicas, id) {
				return id, true
			}
		}
	}
	return NoLeader, false
}

// ReassignPartitionLeaderElection picks the first of the reassignment's
// target replicas that is live and in the ISR.
func ReassignPartitionLeaderElection(reassignment, isr, liveReplicas []BrokerID) (BrokerID, bool) {
	for _, id := range reassignment {
		if slices.Contains(liveReplicas, id) && slices.Contains(isr, id) {
			return id, true
		}
	}
	return NoLeader, false
}

// PreferredReplicaPartitionLeaderElection picks the head of the assignment
// (the preferred replica), but only if it is live and in the ISR.
func PreferredReplicaPartitionLeaderElection(assignment, isr, liveReplicas []BrokerID) (BrokerID, bool) {
	if len(assignment) == 0 {
		return NoLeader, false
	}
	id := assignment[0]
	if slices.Contains(liveReplicas, id) && slices.Contains(isr, id) {
		return id, true
	}
	return NoLeader, false
}

// ControlledShutdownPartitionLeaderElection picks the first replica in
// assignment order that is live, in the ISR and not shutting down. Kafka
// passes the live-or-shutting-down replicas as liveReplicas here.
func ControlledShutdownPartitionLeaderElection(assignment, isr, liveReplicas, shuttingDownBrokers []BrokerID) (BrokerID, bool) {
	for _, id := range assignment {
		if slices.Contains(liveReplicas, id) && slices.Contains(isr, id) && !slices.Contains(shuttingDownBrokers, id) {
			return id, true
		}
	}
	return NoLeader, false
}

// ElectionStrategy names Kafka's PartitionLeaderElectionStrategy cases.
type ElectionStrategy uint8

const (
	// OfflinePartitionLeaderElectionStrategy elects a leader for a partition
	// whose leader is gone (or that never had one). Unclean when
	// Config.UncleanLeaderElectionEnable allows it and it is needed.
	OfflinePartitionLeaderElectionStrategy ElectionStrategy = iota + 1
	// ReassignPartitionLeaderElectionStrategy elects from the reassignment's
	// target replicas.
	ReassignPartitionLeaderElectionStrategy
	// PreferredReplicaPartitionLeaderElectionStrategy moves leadership back
	// to the preferred replica.
	PreferredReplicaPartitionLeaderElectionStrategy
	// ControlledShutdownPartitionLeaderElectionStrategy moves leadership
	// away from brokers in controlled shutdown.
	ControlledShutdownPartitionLeaderElectionStrategy
)

func (s ElectionStrategy) String() string {
	switch s {
	case OfflinePartitionLeaderElectionStrategy:
		return "OfflinePartitionLeaderElectionStrategy"
	case ReassignPartitionLeaderElectionStrategy:
		return "ReassignPartitionLeaderElectionStrategy"
	case PreferredReplicaPartitionLeaderElectionStrategy:
		return "PreferredReplicaPartitionLeaderElectionStrategy"
	case ControlledShutdownPartitionLeaderElectionStrategy:
		return "ControlledShutdownPartitionLeaderElectionStrategy"
	}
	return fmt.Sprintf("ElectionStrategy(%d)", uint8(s))
}

// ElectionResult is one successful election.
type ElectionResult struct {
	Partition TopicPartition
	Strategy  ElectionStrategy
	// Previous is the partition's leader and ISR before, Elected after.
	Previous LeaderAndIsr
	Elected  LeaderAndIsr
	// Unclean is true when the leader was elected from outside the ISR
	// (the ISR was reset to it).
	Unclean bool
}
