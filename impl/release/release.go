// Package release is the one place in the implementation that says what
// each supported Kafka release does: a truncation policy (the spec's
// Truncation constant) names one shipped release, and Of gives its row of
// behaviours. The rows and field names are spec/Replication.tla's Releases
// table, cell for cell; every package of impl/ that behaves differently by
// release reads a field here instead of testing the policy's name.
//
// Fencing (KIP-320) and the min.insync.replicas HW gate are also
// configuration settings (broker.Config.Fencing, MinIsrGatesHW): a
// configuration that sets them unlike its release is an ablation, a what-if
// that never shipped (IsAblation), as in the spec.
//
// This package imports nothing of the implementation, so every layer can
// use it (storage re-exports Policy for the callers that already name it
// there).
package release

import (
	"fmt"
	"strings"
)

// Policy is the truncation policy, the spec's Truncation: one shipped
// Kafka release. The string values are the spec's, so a configuration or a
// trace can name a policy verbatim.
type Policy string

const (
	// HighWatermark is Kafka 0.10.2: a follower of a new leader truncates to
	// its HW.
	HighWatermark Policy = "HighWatermark"
	// Kip101 is Kafka 0.11.0: OffsetsForLeaderEpoch v0, the leader answers
	// the start offset of the next higher epoch.
	Kip101 Policy = "Kip101"
	// LeaderEpoch is Kafka 2.1: KIP-101 + KIP-279 (the leader answers
	// (epoch, end offset), the follower loops until it finds an epoch both
	// know) + KIP-320 fencing + KAFKA-7415's epoch cache.
	LeaderEpoch Policy = "LeaderEpoch"
	// DivergingEpoch is Kafka 3.9 (2.8+ with KRaft's AlterPartition): no
	// truncation phase; Fetch carries lastFetchedEpoch and the leader
	// answers divergingEpoch; ISR changes are asynchronous AlterPartition
	// requests fenced by the partition epoch, the HW over the maximal ISR
	// (KIP-497, KIP-841).
	DivergingEpoch Policy = "DivergingEpoch"
	// EligibleLeader is Kafka 4.1 with eligible.leader.replicas.version=1
	// (KIP-966 part 1; opt-in on 4.0, the default for new clusters from
	// 4.1): the brokers of 3.9, and a controller that keeps the replicas
	// removed from an ISR below min.insync.replicas eligible (the ELR),
	// lets the ISR become empty, and elects from the ISR, then the ELR,
	// then the last known leader.
	EligibleLeader Policy = "EligibleLeader"
)

// Policies lists every policy, in the order Kafka shipped them.
var Policies = []Policy{HighWatermark, Kip101, LeaderEpoch, DivergingEpoch, EligibleLeader}

// Valid reports whether p is one of the policies. The zero value is not
// valid, so a configuration that forgot to choose is caught.
func (p Policy) Valid() bool {
	_, ok := table[p]
	return ok
}

// ParsePolicy returns the policy named s (the spec's spelling).
func ParsePolicy(s string) (Policy, error) {
	if p := Policy(s); p.Valid() {
		return p, nil
	}
	names := make([]string, len(Policies))
	for i, p := range Policies {
		names[i] = string(p)
	}
	return "", fmt.Errorf("unknown truncation policy %q (want %s)", s, strings.Join(names, ", "))
}

// String returns the spec's spelling.
func (p Policy) String() string { return string(p) }

// RestartFetcherOn says when a LeaderAndIsr that keeps a replica a follower
// restarts its fetcher (and so its truncation).
type RestartFetcherOn string

const (
	// LeaderChange: only for a new leader (Partition.makeFollower returns
	// true only then, 0.10.2-2.0).
	LeaderChange RestartFetcherOn = "LeaderChange"
	// EpochChange: for any new leader epoch (2.1+, KAFKA-7164 / KIP-320).
	EpochChange RestartFetcherOn = "EpochChange"
)

// Reconcile is how a restarted fetcher finds where its log stops agreeing
// with the leader's.
type Reconcile string

const (
	// TruncateToHW: truncate to the local HW (0.10.2 makeFollowers).
	TruncateToHW Reconcile = "TruncateToHW"
	// OffsetsForLeaderEpochV0: 0.11.0's answer, the start of the next
	// higher epoch, one round trip.
	OffsetsForLeaderEpochV0 Reconcile = "OffsetsForLeaderEpochV0"
	// OffsetsForLeaderEpoch: KIP-279's (epoch, end offset), looping.
	OffsetsForLeaderEpoch Reconcile = "OffsetsForLeaderEpoch"
	// ReconcileDivergingEpoch: no phase; Fetch carries lastFetchedEpoch and
	// the leader answers divergingEpoch (KAFKA-10554, 2.8+).
	ReconcileDivergingEpoch Reconcile = "DivergingEpoch"
)

// CacheAssign is LeaderEpochFileCache.assign's rule.
type CacheAssign string

const (
	// NoCache: there is no epoch cache (0.10.2 writes no
	// leader-epoch-checkpoint).
	NoCache CacheAssign = "None"
	// GreaterOnly: append only an epoch above the latest, at or past its
	// start; never remove (0.11.0-2.0).
	GreaterOnly CacheAssign = "GreaterOnly"
	// TruncateAndAppend: drop the conflicting entries at the tail, append
	// (KAFKA-7415, 2.1+).
	TruncateAndAppend CacheAssign = "TruncateAndAppend"
)

// LeaderEntry is when a leader's own epoch enters its cache.
type LeaderEntry string

const (
	// NoLeaderEntry: never (no cache).
	NoLeaderEntry LeaderEntry = "None"
	// FirstAppend: at the leader's first append in the epoch (0.11.0-2.0).
	FirstAppend LeaderEntry = "FirstAppend"
	// BecomeLeader: at makeLeader, with the LEO (KAFKA-7415, 2.1+).
	BecomeLeader LeaderEntry = "BecomeLeader"
)

// UndefinedTo is where a follower truncates when the leader answers
// UNDEFINED_EPOCH_OFFSET.
type UndefinedTo string

const (
	// ToHW: the follower's own HW (0.11.0 ReplicaFetcherThread.maybeTruncate).
	ToHW UndefinedTo = "HW"
	// ToFetchOffset: the fetcher's fetch offset
	// (AbstractFetcherThread.getOffsetTruncationState, 2.0+).
	ToFetchOffset UndefinedTo = "FetchOffset"
)

// Release is one row of the table: the spec's Releases[p], field for field.
type Release struct {
	// Release is the Kafka release tag the row follows.
	Release          string
	RestartFetcherOn RestartFetcherOn
	Reconcile        Reconcile
	CacheAssign      CacheAssign
	LeaderEntry      LeaderEntry
	UndefinedTo      UndefinedTo
	// AsyncIsr: ISR changes are AlterPartition requests decided by the
	// controller in a step of its own, the HW over the maximal ISR
	// meanwhile; false: the leader's conditional write (ZooKeeper) takes
	// effect at once.
	AsyncIsr bool
	// ExpandLiveOnly: only a live broker may join the ISR (KIP-841).
	ExpandLiveOnly bool
	// ExpandNeedsEpochStart: a follower joins the ISR only at or past the
	// start of the leader's epoch (KAFKA-7128).
	ExpandNeedsEpochStart bool
	// StaleFetchServed: a leader still serves, and counts, a fetch its
	// sender sent before it crashed (no broker epoch in Fetch; KIP-903 and
	// KAFKA-15221 reject it from 3.7 in KRaft).
	StaleFetchServed bool
	// MinIsrGatesHW: the HW does not advance while the ISR is below
	// min.insync.replicas (KAFKA-15583, 3.7+).
	MinIsrGatesHW bool
	// Fencing: leaders check the caller's current leader epoch (KIP-320).
	Fencing bool
	// IsrBrokerEpochs (the spec's isrBrokerEpochs): KIP-903 (3.5+, KRaft),
	// a replica joins the ISR only with the broker epoch of its current
	// registration: a follower's Fetch carries its broker epoch, the leader
	// proposes a follower only when it counted a fetch of the follower's
	// current incarnation (Partition.isReplicaIsrEligible), and
	// AlterPartition carries each member's broker epoch, which the
	// controller checks (INELIGIBLE_REPLICA).
	IsrBrokerEpochs bool
	// Elr: Eligible Leader Replicas (KIP-966), a controller change only:
	// the controller's ELR and last known leader, ISR shrinks and fencing
	// that may empty the ISR, the election order ISR, ELR, last known
	// leader, and a restarting broker leaving the ELR (its shutdown was
	// unclean). The brokers never see the ELR.
	Elr bool
}

// table is spec/Replication.tla's Releases.
var table = map[Policy]Release{
	HighWatermark: {
		Release: "0.10.2.2", RestartFetcherOn: LeaderChange,
		Reconcile: TruncateToHW, CacheAssign: NoCache,
		LeaderEntry: NoLeaderEntry, UndefinedTo: ToHW,
		AsyncIsr: false, ExpandLiveOnly: false,
		ExpandNeedsEpochStart: false, StaleFetchServed: true,
		MinIsrGatesHW: false, Fencing: false, IsrBrokerEpochs: false, Elr: false,
	},
	Kip101: {
		Release: "0.11.0.3", RestartFetcherOn: LeaderChange,
		Reconcile: OffsetsForLeaderEpochV0, CacheAssign: GreaterOnly,
		LeaderEntry: FirstAppend, UndefinedTo: ToHW,
		AsyncIsr: false, ExpandLiveOnly: false,
		ExpandNeedsEpochStart: false, StaleFetchServed: true,
		MinIsrGatesHW: false, Fencing: false, IsrBrokerEpochs: false, Elr: false,
	},
	LeaderEpoch: {
		Release: "2.1.0", RestartFetcherOn: EpochChange,
		Reconcile: OffsetsForLeaderEpoch, CacheAssign: TruncateAndAppend,
		LeaderEntry: BecomeLeader, UndefinedTo: ToFetchOffset,
		AsyncIsr: false, ExpandLiveOnly: false,
		ExpandNeedsEpochStart: true, StaleFetchServed: true,
		MinIsrGatesHW: false, Fencing: true, IsrBrokerEpochs: false, Elr: false,
	},
	DivergingEpoch: {
		Release: "3.9.0", RestartFetcherOn: EpochChange,
		Reconcile: ReconcileDivergingEpoch, CacheAssign: TruncateAndAppend,
		LeaderEntry: BecomeLeader, UndefinedTo: ToFetchOffset,
		AsyncIsr: true, ExpandLiveOnly: true,
		ExpandNeedsEpochStart: true, StaleFetchServed: false,
		MinIsrGatesHW: true, Fencing: true, IsrBrokerEpochs: true, Elr: false,
	},
	EligibleLeader: {
		Release: "4.1.0", RestartFetcherOn: EpochChange,
		Reconcile: ReconcileDivergingEpoch, CacheAssign: TruncateAndAppend,
		LeaderEntry: BecomeLeader, UndefinedTo: ToFetchOffset,
		AsyncIsr: true, ExpandLiveOnly: true,
		ExpandNeedsEpochStart: true, StaleFetchServed: false,
		MinIsrGatesHW: true, Fencing: true, IsrBrokerEpochs: true, Elr: true,
	},
}

// Of returns policy p's release, and false for an unknown policy.
func Of(p Policy) (Release, bool) {
	r, ok := table[p]
	return r, ok
}

// IsAblation reports whether a configuration of policy p with the given
// fencing and min.insync.replicas settings changes its release's behaviour
// (the spec's IsAblation; the HW gate cannot act when min.insync.replicas
// is 1), or an error for an unknown policy.
func IsAblation(p Policy, fencing, minIsrGatesHW bool, minInsyncReplicas int) (bool, error) {
	r, ok := table[p]
	if !ok {
		return false, fmt.Errorf("unknown truncation policy %q", string(p))
	}
	return fencing != r.Fencing || (minIsrGatesHW != r.MinIsrGatesHW && minInsyncReplicas > 1), nil
}

// HasCache reports whether the release keeps a leader epoch cache.
func (r Release) HasCache() bool { return r.CacheAssign != NoCache }

// UsesOffsetsForLeaderEpoch reports whether a restarted fetcher goes
// through the OffsetsForLeaderEpoch truncation phase.
func (r Release) UsesOffsetsForLeaderEpoch() bool {
	return r.Reconcile == OffsetsForLeaderEpochV0 || r.Reconcile == OffsetsForLeaderEpoch
}
