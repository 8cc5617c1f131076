package controller

import (
	"fmt"
	"slices"
	"strings"
)

// BrokerID identifies a broker (Kafka's broker.id / node.id).
type BrokerID int32

// NoLeader is Kafka's LeaderAndIsr.NoLeader: the partition has no leader.
const NoLeader BrokerID = -1

// TopicPartition names a partition, as Kafka's TopicPartition.
type TopicPartition struct {
	Topic     string
	Partition int32
}

func (tp TopicPartition) String() string { return fmt.Sprintf("%s-%d", tp.Topic, tp.Partition) }

// compareTopicPartition orders by topic, then partition: the order every
// listing of this package uses, so that results are reproducible.
func compareTopicPartition(a, b TopicPartition) int {
	if c := strings.Compare(a.Topic, b.Topic); c != 0 {
		return c
	}
	switch {
	case a.Partition < b.Partition:
		return -1
	case a.Partition > b.Partition:
		return 1
	}
	return 0
}

// LeaderAndIsr is the controller's record of who leads a partition, as
// Kafka's LeaderAndIsr: the leader (NoLeader if none), the leader epoch the
// controller assigned it, the ISR, and the partition epoch (the ZooKeeper
// zkVersion in old Kafka), which versions every change of this record so
// that AlterPartition can be a compare-and-set.
type LeaderAndIsr struct {
	Leader         BrokerID
	LeaderEpoch    int32
	Isr            []BrokerID
	PartitionEpoch int32
}

// Clone returns a deep copy.
func (l LeaderAndIsr) Clone() LeaderAndIsr {
	l.Isr = slices.Clone(l.Isr)
	return l
}

func (l LeaderAndIsr) String() string {
	return fmt.Sprintf("(Leader:%d, LeaderEpoch:%d, Isr:%v, PartitionEpoch:%d)",
		l.Leader, l.LeaderEpoch, l.Isr, l.PartitionEpoch)
}

// PartitionState is everything the controller holds about one partition.
type PartitionState struct {
	// Assignment is the replica assignment, in order: its head is the
	// preferred replica.
	Assignment []BrokerID
	LeaderAndIsr
	// TargetReplicas is the target of an ongoing reassignment, nil if none.
	TargetReplicas []BrokerID
	// Elr is the partition's Eligible Leader Replicas (KIP-966;
	// PartitionRegistration.elr, the spec's ctrlElr), sorted, nil when
	// empty: replicas that left the ISR while it was below
	// min.insync.replicas and may still lead once the ISR is empty. Always
	// nil without Config.EligibleLeaderReplicas. The brokers never see it.
	Elr []BrokerID
	// LastKnownElr is PartitionRegistration.lastKnownElr (the spec's
	// ctrlLastKnownElr), which with useLastKnownLeaderInBalancedRecovery
	// (Kafka's default) holds the last known leader: the broker fenced out
	// of the ISR when it became empty, nil again once the partition has a
	// leader (PartitionChangeBuilder.maybeUpdateLastKnownLeader). At most
	// one broker; always nil without Config.EligibleLeaderReplicas.
	LastKnownElr []BrokerID
}

// Clone returns a deep copy.
func (p PartitionState) Clone() PartitionState {
	return PartitionState{
		Assignment:     slices.Clone(p.Assignment),
		LeaderAndIsr:   p.LeaderAndIsr.Clone(),
		TargetReplicas: slices.Clone(p.TargetReplicas),
		Elr:            slices.Clone(p.Elr),
		LastKnownElr:   slices.Clone(p.LastKnownElr),
	}
}

// ReassignmentInProgress reports whether TargetReplicas is set.
func (p PartitionState) ReassignmentInProgress() bool { return len(p.TargetReplicas) > 0 }

// Replicas is the full replica set, Kafka's ReplicaAssignment.replicas: the
// assignment, or during a reassignment (target ++ assignment).distinct
// (ReplicaAssignment.fromOldAndNewReplicas). Offline, preferred and
// controlled-shutdown elections and the auto rebalance all use this order,
// so during a reassignment the target's head is the preferred replica, as
// in Kafka.
func (p PartitionState) Replicas() []BrokerID {
	if !p.ReassignmentInProgress() {
		return slices.Clone(p.Assignment)
	}
	out := slices.Clone(p.TargetReplicas)
	for _, b := range p.Assignment {
		if !slices.Contains(out, b) {
			out = append(out, b)
		}
	}
	return out
}

// PreferredReplica is the head of Replicas().
func (p PartitionState) PreferredReplica() BrokerID {
	if p.ReassignmentInProgress() {
		return p.TargetReplicas[0]
	}
	if len(p.Assignment) == 0 {
		return NoLeader
	}
	return p.Assignment[0]
}

// BrokerState is the controller's view of a broker's liveness.
type BrokerState int8

const (
	// BrokerOffline: not registered, failed, or fenced. The zero value, so
	// a broker the controller has never heard of is offline.
	BrokerOffline BrokerState = iota
	// BrokerOnline: registered and live.
	BrokerOnline
	// BrokerShuttingDown: live but in controlled shutdown. Like Kafka, such
	// a broker is not "live" for offline, reassignment and preferred
	// elections, nor for ISR expansion.
	BrokerShuttingDown
)

func (s BrokerState) String() string {
	switch s {
	case BrokerOffline:
		return "Offline"
	case BrokerOnline:
		return "Online"
	case BrokerShuttingDown:
		return "ShuttingDown"
	}
	return fmt.Sprintf("BrokerState(%d)", int8(s))
}

// Config holds the controller's settings, named after Kafka's.
type Config struct {
	// UncleanLeaderElectionEnable is unclean.leader.election.enable
	// (default false): when no ISR member is live, an offline election may
	// elect a live replica outside the ISR, resetting the ISR to it, at the
	// price of losing records it does not have. Kafka also has it as a topic
	// config; here it is controller-wide.
	UncleanLeaderElectionEnable bool
	// AutoLeaderRebalanceEnable is auto.leader.rebalance.enable (default
	// true). When false CheckImbalance does nothing.
	AutoLeaderRebalanceEnable bool
	// LeaderImbalancePerBrokerPercentage is
	// leader.imbalance.per.broker.percentage (default 10).
	LeaderImbalancePerBrokerPercentage int
	// RejectIneligibleReplicas turns on KIP-841 (Kafka >= 3.3): an
	// AlterPartition that adds to the ISR a broker that is not live is
	// refused with INELIGIBLE_REPLICA. Off by default, because the spec's
	// ExpandIsr does not consult liveness (a follower may crash between its
	// last fetch and the expansion), so the refinement checker needs it off.
	RejectIneligibleReplicas bool
	// IsrWriteKeepsPartitionEpoch: an accepted ISR change does not bump the
	// partition epoch. The ZooKeeper releases' conditional write bumps the
	// znode's version, which nothing in the spec observes: only the leader
	// writes the ISR there, and the controller's own changes come with a
	// new leader epoch, so the leader-epoch check already fences a stale
	// write. Keeping the partition epoch to elections makes it the spec's.
	IsrWriteKeepsPartitionEpoch bool
	// FenceFailedReplicas is KRaft's handling of a broker that fails
	// (ReplicationControlManager.handleBrokerFenced): FenceReplica takes it
	// out of the ISR of every partition it follows, bumping the partition
	// epoch. Off for the ZooKeeper releases, whose ISR shrinks only through
	// the leader.
	FenceFailedReplicas bool
	// IsrBrokerEpochs is KIP-903 (3.5+, KRaft): every registration of a
	// broker gets a new broker epoch (RegisterBroker), and an AlterPartition
	// that adds a broker to the ISR with a broker epoch other than that of
	// its current registration is refused with INELIGIBLE_REPLICA
	// (ReplicationControlManager.ineligibleReplicasForIsr). Off, every
	// broker keeps epoch 0 (the spec's brokerEpoch without isrBrokerEpochs).
	IsrBrokerEpochs bool
	// EligibleLeaderReplicas is KIP-966's Eligible Leader Replicas
	// (eligible.leader.replicas.version=1, the default for new clusters
	// from Kafka 4.1; ReplicationControlManager.isElrEnabled), a KRaft
	// feature: it needs FenceFailedReplicas. With it the controller keeps
	// each partition's ELR and last known leader (PartitionState.Elr,
	// LastKnownElr), fencing takes a failed broker out of the ISR even when
	// it leads or is the ISR's last member, a broker that registers after
	// an unclean shutdown leaves the ELR (UncleanShutdown), and elections
	// go ISR, then ELR, then the last known leader
	// (EligibleLeaderElection).
	EligibleLeaderReplicas bool
	// MinInsyncReplicas is the topics' min.insync.replicas (default 1; a
	// topic config in Kafka, controller-wide here). Only the ELR reads it,
	// through the effective minimum min(min.insync.replicas, replication
	// factor) (ReplicationControlManager.getTopicEffectiveMinIsr).
	MinInsyncReplicas int
	// AcceptStalePartitionEpoch is a seeded bug for the mutation check
	// (broker.MutantStalePartitionEpoch): AlterPartition takes a stale
	// partition epoch for the current one. Never set otherwise.
	AcceptStalePartitionEpoch bool
	// Mutants are seeded bugs for the simulation's checks and the mutation
	// check (see Mutant); never set outside them.
	Mutants []Mutant
}

// Mutant is a deliberately seeded controller bug: with one enabled the
// controller misbehaves in exactly the documented way, so a test can show
// that the simulation's model validation catches it.
type Mutant string

const (
	// MutantOfflineElectionIgnoresIsr: the offline election picks the first
	// live replica whether or not it is in the ISR, and calls it clean.
	MutantOfflineElectionIgnoresIsr Mutant = "offline-election-ignores-isr"
	// MutantUncleanPrefersOutOfIsr: with unclean.leader.election.enable the
	// offline election tries the live replicas outside the ISR first, so it
	// elects uncleanly (ISR reset to the new leader) although a live ISR
	// member could lead. Kafka's PartitionLeaderElectionAlgorithms.
	// offlinePartitionLeaderElection looks outside the ISR only when no
	// live replica is in it ("if (uncleanLeaderElectionEnabled) ... else
	// None", after the ISR search found none).
	MutantUncleanPrefersOutOfIsr Mutant = "unclean-prefers-out-of-isr"
)

// Mutants lists the controller's seeded bugs.
var Mutants = []Mutant{MutantOfflineElectionIgnoresIsr, MutantUncleanPrefersOutOfIsr}

// The controller's seeded bugs of the mutation check (refine/mutants,
// `hwepoch mutants`): impl/broker's Mutants lists each under the same name,
// and the cluster passes it to its controller (Config.Mutants). They are
// 4.1's Eligible Leader Replicas (KIP-966) and KIP-903's controller check.
const (
	// MutantElrKeepsRestarted: a broker that registers after an unclean
	// shutdown stays in the ELR (UncleanShutdown does nothing), though its
	// log may have lost what made it eligible
	// (ReplicationControlManager.handleBrokerUncleanShutdown).
	MutantElrKeepsRestarted Mutant = "elr-keeps-restarted"
	// MutantElrNotFilled: the replicas leaving an ISR below the effective
	// min.insync.replicas do not join the ELR
	// (PartitionChangeBuilder.maybePopulateTargetElr without its
	// candidates), so the ELR stays empty.
	MutantElrNotFilled Mutant = "elr-not-filled"
	// MutantElrIgnoredInElection: the elections never pick an ELR member
	// (isValidNewLeader without its ELR half): a partition whose ISR is
	// empty waits for its last known leader once the ELR empties, or for an
	// unclean election.
	MutantElrIgnoredInElection Mutant = "elr-ignored-in-election"
	// MutantElrLeaderWithIsr: an ELR member may lead while the ISR is not
	// empty (isValidNewLeader's ELR half without "the ISR is empty").
	MutantElrLeaderWithIsr Mutant = "elr-leader-with-isr"
	// MutantNoLastKnownLeader: the last known leader is never elected
	// (canElectLastKnownLeader false): with the ISR and the ELR empty only
	// an unclean election, when enabled, gives the partition a leader.
	MutantNoLastKnownLeader Mutant = "no-last-known-leader"
	// MutantIgnoresBrokerEpochs: AlterPartition ignores the broker epochs
	// of the replicas it adds (KIP-903's ineligibleReplicasForIsr check
	// off), so it takes a replica into the ISR on the strength of a fetch of
	// an earlier incarnation.
	MutantIgnoresBrokerEpochs Mutant = "controller-ignores-broker-epochs"
)

// CheckMutants lists the controller bugs of the mutation check.
var CheckMutants = []Mutant{MutantElrKeepsRestarted, MutantElrNotFilled, MutantElrIgnoredInElection,
	MutantElrLeaderWithIsr, MutantNoLastKnownLeader, MutantIgnoresBrokerEpochs}

func (c Config) mutant(m Mutant) bool {
	for _, x := range c.Mutants {
		if x == m {
			return true
		}
	}
	return false
}

// DefaultConfig returns Kafka's defaults.
func DefaultConfig() Config {
	return Config{
		UncleanLeaderElectionEnable:        false,
		AutoLeaderRebalanceEnable:          true,
		LeaderImbalancePerBrokerPercentage: 10,
		MinInsyncReplicas:                  1,
	}
}

// Validate reports a configuration Kafka would refuse.
func (c Config) Validate() error {
	if c.LeaderImbalancePerBrokerPercentage < 0 {
		return &Error{Code: ErrInvalidConfig,
			Message: fmt.Sprintf("leader.imbalance.per.broker.percentage must be >= 0, got %d", c.LeaderImbalancePerBrokerPercentage)}
	}
	if c.MinInsyncReplicas < 0 || (c.EligibleLeaderReplicas && c.MinInsyncReplicas < 1) {
		return &Error{Code: ErrInvalidConfig, Candidate: NoLeader,
			Message: fmt.Sprintf("min.insync.replicas must be >= 1, got %d", c.MinInsyncReplicas)}
	}
	if c.EligibleLeaderReplicas && !c.FenceFailedReplicas {
		return &Error{Code: ErrInvalidConfig, Candidate: NoLeader,
			Message: "eligible leader replicas (KIP-966) are KRaft's: they need FenceFailedReplicas"}
	}
	return nil
}
