// Package controller is the controller's view of partitions: replica
// assignment, leader, leader epoch, ISR and partition epoch, and the
// decisions the controller makes on them — leader elections, ISR changes
// (AlterPartition), controlled shutdown, reassignment and auto leader
// rebalance.
//
// The decision code is plain, single-threaded Go: a *Controller is a value
// that changes only when one of its methods is called, so the refinement
// checker can drive it step by step and compare it to the spec's ctrlLeader,
// ctrlEpoch and ctrlIsr. Synchronized is the thin goroutine-safe wrapper for
// the concurrent implementation.
//
// Vocabulary follows Apache Kafka (PartitionLeaderElectionAlgorithms,
// PartitionStateMachine, KafkaController, ReplicationControlManager) and
// spec/Replication.tla:
//
//   - a partition that has never been elected has Leader NoLeader,
//     LeaderEpoch -1, PartitionEpoch -1 and ISR = the assignment, exactly the
//     spec's Init (ctrlLeader = None, ctrlEpoch = -1, ctrlIsr = Replicas);
//     its first election is an ordinary offline election and yields epoch 0,
//     which is also what Kafka's initial election (NewPartition ->
//     OnlinePartition: first live replica, ISR = live replicas) produces;
//   - every successful election bumps the leader epoch and the partition
//     epoch; every accepted ISR change bumps the partition epoch only;
//   - "live" means online and not in controlled shutdown, as Kafka's
//     ControllerContext.liveBrokerIds (shutting-down brokers are excluded).
//
// Under Config.EligibleLeaderReplicas (KIP-966, Kafka 4.1's default; the
// release row EligibleLeader) each partition also has an ELR and a last
// known leader (the spec's ctrlElr and ctrlLastKnownElr), kept as KRaft's
// PartitionChangeBuilder keeps them: AlterPartition and fencing move the
// replicas leaving an ISR below min.insync.replicas to the ELR, fencing may
// empty the ISR and then records the last known leader, a broker that
// registers after an unclean shutdown leaves the ELR (UncleanShutdown), and
// elections go ISR, ELR, last known leader, unclean
// (EligibleLeaderElection).
//
// Deviations from Kafka are listed where they are made; the main ones: the
// controller does not remove a failed broker from ISRs by itself (the spec
// leaves that to the leader's ShrinkIsr and filters the ISR at election
// time instead), there are no broker epochs, and unclean.leader.election.enable
// is controller-wide rather than a topic config.
package controller
