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

// EligibleLeaderElection is KRaft's PartitionChangeBuilder.electAnyLeader
// (ONLINE and UNCLEAN elections) with eligible leader replicas (KIP-966),
// for a partition whose current leader is not a valid one, so its first
// branch (keep the current leader) does not apply. In its order:
//
//   - the first replica in assignment order that is live and valid
//     (isValidNewLeader: in the ISR, or in the ELR when the ISR is empty):
//     a clean election;
//   - the last known leader (canElectLastKnownLeader): when the ISR and the
//     ELR are both empty and lastKnownElr holds one broker that is live
//     (the liveness test is KAFKA-19522's, apache/kafka#20200; before it,
//     trunk@1eb7644 elected a fenced last known leader). Kafka returns it
//     as an unclean result (ElectionResult(lastKnownElr[0], true)) and
//     takes it whatever unclean.leader.election.enable says;
//   - when uncleanLeaderElectionEnabled (Election.UNCLEAN), the first live
//     replica in assignment order: an unclean election.
//
// It returns the leader, whether the election is unclean (the caller then
// makes the ISR the leader alone and empties the ELR,
// PartitionChangeBuilder.tryElection / maybeUpdateRecordElr), and false
// when nobody may lead (NO_LEADER). Kafka's acceptability test
// (isAcceptableLeader: not fenced, not in controlled shutdown, an online
// log directory) is membership of liveReplicas.
func EligibleLeaderElection(assignment, isr, elr, lastKnownElr, liveReplicas []BrokerID, uncleanLeaderElectionEnabled bool) (leader BrokerID, unclean bool, ok bool) {
	return eligibleLeaderElection(assignment, isr, elr, lastKnownElr, liveReplicas, uncleanLeaderElectionEnabled, elrBugs{})
}

// elrBugs are the seeded bugs of the ELR's election rules (the mutation
// check's; all false otherwise).
type elrBugs struct {
	ignoreElr   bool // MutantElrIgnoredInElection
	elrWithIsr  bool // MutantElrLeaderWithIsr
	noLastKnown bool // MutantNoLastKnownLeader
}

// elrValid is isValidNewLeader's ELR half: with the ISR empty, an ELR
// member may lead.
func (b elrBugs) elrValid(isr, elr []BrokerID, id BrokerID) bool {
	if b.ignoreElr { // mutant hook: the ELR is no source of leaders
		return false
	}
	if b.elrWithIsr { // mutant hook: an ELR member may lead whatever the ISR
		return slices.Contains(elr, id)
	}
	return len(isr) == 0 && slices.Contains(elr, id)
}

// lastKnownValid is canElectLastKnownLeader's test: the ISR and the ELR
// empty, and id the one last known leader.
func (b elrBugs) lastKnownValid(isr, elr, lastKnownElr []BrokerID, id BrokerID) bool {
	if b.noLastKnown { // mutant hook: the last known leader is never elected
		return false
	}
	return len(isr) == 0 && len(elr) == 0 && len(lastKnownElr) == 1 && lastKnownElr[0] == id
}

// eligibleLeaderElection is EligibleLeaderElection with seeded bugs.
func eligibleLeaderElection(assignment, isr, elr, lastKnownElr, liveReplicas []BrokerID, uncleanLeaderElectionEnabled bool, bugs elrBugs) (leader BrokerID, unclean bool, ok bool) {
	for _, id := range assignment {
		valid := slices.Contains(isr, id) || bugs.elrValid(isr, elr, id)
		if valid && slices.Contains(liveReplicas, id) {
			return id, false, true
		}
	}
	if len(lastKnownElr) == 1 && bugs.lastKnownValid(isr, elr, lastKnownElr, lastKnownElr[0]) && slices.Contains(liveReplicas, lastKnownElr[0]) {
		return lastKnownElr[0], true, true
	}
	if uncleanLeaderElectionEnabled {
		for _, id := range assignment {
			if slices.Contains(liveReplicas, id) {
				return id, true, true
			}
		}
	}
	return NoLeader, false, false
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
	// (the ISR was reset to it), the last known leader's election included
	// (Kafka counts it unclean); an election from the ELR is clean.
	Unclean bool
}
