package broker

import (
	"slices"

	"github.com/hwepoch/hwepoch/impl/controller"
	"github.com/hwepoch/hwepoch/impl/storage"
)

// Mutant is a deliberately seeded bug for the refinement checker's
// mutation check (refine/mutants, `hwepoch mutants`): with one enabled the
// broker misbehaves in exactly the documented way, so the check can show
// that the checker catches it. Production code never enables one; the
// hooks are marked "mutant hook" where they sit.
type Mutant string

const (
	// MutantTruncateToHW: under the epoch policies, the follower ignores
	// the leader's OffsetsForLeaderEpoch answer and truncates to its HW
	// (Kafka <= 0.10.2's rule in the KIP-101 code path).
	MutantTruncateToHW Mutant = "truncate-to-hw"
	// MutantNoKip279Loop: the follower takes the leader's first answer as
	// final, even when it does not know the leader's epoch (KIP-101 without
	// KIP-279).
	MutantNoKip279Loop Mutant = "no-kip279-loop"
	// MutantNoFencing: the leader ignores the current leader epoch of
	// Fetch and OffsetsForLeaderEpoch even with fencing on (no KIP-320).
	MutantNoFencing Mutant = "no-fencing"
	// MutantHWOverAllReplicas: the leader's HW is the least LEO over every
	// replica of the partition, not over the ISR.
	MutantHWOverAllReplicas Mutant = "hw-over-all-replicas"
	// MutantFollowerHWNotClamped: the follower's HW is not clamped to its
	// LEO: it takes the leader's HW from a fetch response as it is, and
	// keeps its HW when it truncates below it. (After a fetch the clamp
	// never binds here, since a response carries every record up to the
	// leader's LEO; after a truncation it does.)
	MutantFollowerHWNotClamped Mutant = "follower-hw-not-clamped"
	// MutantCacheNotTruncated: truncating the log leaves the epoch cache's
	// entries beyond the new end in place.
	MutantCacheNotTruncated Mutant = "cache-not-truncated"
	// MutantStaleLeaderAndIsr: a LeaderAndIsr of the replica's own epoch is
	// applied again (epoch >= instead of >). Within the spec's behaviours a
	// broker's LeaderAndIsr epochs strictly increase, so the only stale one
	// is a controller's resend of a request already applied, which the
	// broker otherwise recognises by its correlation id: the mutant lets
	// that through too, as a broker relying on the epoch alone would.
	MutantStaleLeaderAndIsr Mutant = "stale-leader-and-isr"
	// MutantNoViewReset: a new leader (one that was not leading) keeps its
	// follower views from its last leadership (Replica.resetReplicaState
	// skipped for isNewLeader), so its HW can rise on LEOs learnt in an
	// epoch it did not lead. A re-elected leader keeping its views is
	// Kafka's behaviour, not this mutant.
	MutantNoViewReset Mutant = "no-view-reset"
	// MutantReelectionViewReset: a leader re-elected without a break forgets
	// its follower views (resets them as a new leader does), which Kafka
	// does not: its HW then waits for a fetch of every ISR follower.
	MutantReelectionViewReset Mutant = "reelection-view-reset"
	// MutantAckOnAppend: acks=all is answered right after the append, like
	// acks=1.
	MutantAckOnAppend Mutant = "ack-on-append"
	// MutantNoEpochStartCheck: a follower joins the ISR once its LEO passes
	// the HW, even below the start of the leader's epoch (KAFKA-7128).
	MutantNoEpochStartCheck Mutant = "no-epoch-start-check"
	// MutantUpdateDivergingFetchState: the leader records a diverging
	// follower's fetch offset as its LEO (KAFKA-13141, the bug of 2.8.0):
	// the HW can pass records the follower does not hold.
	MutantUpdateDivergingFetchState Mutant = "update-diverging-fetch-state"
	// MutantIgnoreDivergingEpoch: the follower drops a divergingEpoch
	// answer instead of truncating on it, and so never reconciles.
	MutantIgnoreDivergingEpoch Mutant = "ignore-diverging-epoch"
	// MutantHWOverCommittedIsr: the leader's HW is the least LEO over the
	// committed ISR, not the maximal one (KIP-497): a replica whose
	// addition is pending is not waited for.
	MutantHWOverCommittedIsr Mutant = "hw-over-committed-isr"
	// MutantStalePartitionEpoch: the controller accepts an AlterPartition
	// whose partition epoch is stale, as if it were current.
	MutantStalePartitionEpoch Mutant = "stale-partition-epoch"
	// MutantFetchHWAfterUpdate: a follower's fetch is answered with the
	// leader's HW from after updateFollowerFetchState moved it, as if the
	// read and the update were one atomic step. Kafka reads the records
	// and the HW under the partition lock first (Partition.fetchRecords ->
	// readRecords' initialHighWatermark; 2.1: ReplicaManager.readFromLocalLog)
	// and updates the follower's
	// state afterwards, so the response carries the HW from before: a
	// follower's HW lags one fetch more.
	MutantFetchHWAfterUpdate Mutant = "fetch-hw-after-update"
	// MutantReelectionFailsProduce: a leader re-elected without a break
	// fails its waiting acks=all produce requests (NOT_LEADER_OR_FOLLOWER),
	// as a new leader's would be. Kafka's DelayedProduce checks no leader
	// epoch: they complete once the HW passes their records (the spec's
	// produceEpoch keeps the re-elected leader's first epoch).
	MutantReelectionFailsProduce Mutant = "reelection-fails-produce"
	// MutantDropOrphanFetch: before 3.9 the leader drops a fetch whose
	// sender crashed after sending it, instead of serving and counting it.
	// Releases without a broker epoch in Fetch (KIP-903, 3.5; refused by a
	// KRaft leader from 3.7, KAFKA-15221) cannot tell: ReplicaManager.
	// fetchMessages serves it and updateFollowerFetchState takes its fetch
	// offset as the follower's LEO.
	MutantDropOrphanFetch Mutant = "drop-orphan-fetch"
	// MutantExpandDeadFollower: the leader proposes a follower for the ISR
	// that the controller considers dead (KIP-841 off). 3.9's
	// Partition.canAddReplicaToIsr requires isReplicaIsrEligible: not
	// fenced, not shutting down, the broker epoch of its fetch current.
	MutantExpandDeadFollower Mutant = "expand-dead-follower"
	// MutantUndefinedToHW: on an UNDEFINED_EPOCH_OFFSET answer the follower
	// truncates to its HW, not to its fetch offset, in the releases that
	// use the fetch offset (2.1, 3.9: AbstractFetcherThread.
	// getOffsetTruncationState; 0.11.0's ReplicaFetcherThread.maybeTruncate
	// used the HW). In the truncation phase the fetch offset is the HW
	// (makeFollowers adds the partition at its HW), so only a
	// divergingEpoch answer (3.9) can tell the two apart, and a fenced 3.9
	// leader never answers UNDEFINED (it holds its own epoch, at or above
	// the follower's last fetched one): the hook is on that path alone,
	// reached only by the unfenced ablation.
	MutantUndefinedToHW Mutant = "undefined-to-hw"
	// MutantRestartOnEpochBump: before 2.1 a follower restarts its fetcher
	// (0.10.2: truncates to its HW; 0.11: asks OffsetsForLeaderEpoch again)
	// on a LeaderAndIsr that only bumps its leader's epoch. 0.10.2-2.0's
	// Partition.makeFollower returns false when the leader is unchanged,
	// and ReplicaManager.makeFollowers then leaves the fetcher alone
	// (KAFKA-7164 changed this in 2.1).
	MutantRestartOnEpochBump Mutant = "restart-on-epoch-bump"
	// MutantLeaderEntryAtElection: under 0.11 a new leader writes its epoch
	// into its epoch cache when it becomes leader, at its LEO (2.1's
	// KAFKA-7415 rule). 0.11.0's leader assigns its epoch at its first
	// append (Log.append -> leaderEpochCache.assign), so until then
	// OffsetsForLeaderEpoch v0 answers from its older entries.
	MutantLeaderEntryAtElection Mutant = "leader-entry-at-election"
	// MutantSkipDeadLeader: a broker ignores a LeaderAndIsr with a newer
	// epoch whose leader it knows to have died since, keeping its old role
	// and epoch. The spec did so before issue 25, reading ZooKeeper's
	// makeFollowers ("cannot become follower since the new leader ... is
	// unavailable") as reachable; it is not for an elected leader (the
	// controller's UpdateMetadata follows its LeaderAndIsr on one FIFO
	// channel), and KRaft always steps down. A leader that skips its own
	// demotion this way keeps stale views of its followers when it is
	// elected again: acknowledged records lost (chaos seeds 3943, 6467).
	MutantSkipDeadLeader Mutant = "skip-dead-leader"
	// MutantHWGateOverMaximalIsr: with MinIsrGatesHW (3.7+) the HW gate
	// counts the maximal ISR, a pending expansion included, instead of the
	// committed ISR. Kafka's Partition.maybeIncrementLeaderHW returns early
	// when isUnderMinIsr, which counts partitionState.isr, the committed
	// ISR (KAFKA-15583): a follower whose addition the controller has not
	// committed does not lift a partition out of under-min-ISR.
	MutantHWGateOverMaximalIsr Mutant = "hw-gate-over-maximal-isr"
	// MutantProduceGateOverMaximalIsr: an acks=all produce is refused
	// (NOT_ENOUGH_REPLICAS) when the maximal ISR, a pending expansion
	// included, is below min.insync.replicas, instead of the committed ISR.
	// Kafka's Partition.appendRecordsToLeader counts partitionState.isr
	// ("inSyncSize = partitionState.isr.size"): the committed ISR.
	MutantProduceGateOverMaximalIsr Mutant = "produce-gate-over-maximal-isr"
	// MutantTruncateKeepsRecoveryPoint: truncating a log does not lower its
	// recovery point to the new end (storage.MutantTruncateKeepsRecoveryPoint,
	// which the broker passes to its logs).
	MutantTruncateKeepsRecoveryPoint Mutant = Mutant(storage.MutantTruncateKeepsRecoveryPoint)
	// MutantExpandStaleBrokerEpoch: the leader proposes a follower for the
	// ISR whose counted fetch carried the broker epoch of an earlier
	// incarnation (KIP-903's leader check off: 3.9's
	// Partition.isReplicaIsrEligible -> isBrokerEpochIsrEligible).
	MutantExpandStaleBrokerEpoch Mutant = "expand-stale-broker-epoch"
)

// The controller's seeded bugs (controller.CheckMutants, which the cluster
// passes to its controller): 4.1's Eligible Leader Replicas (KIP-966) and
// KIP-903's controller check. See the controller's constants.
const (
	// MutantElrKeepsRestarted: a restarting broker stays in the ELR (no
	// unclean-shutdown removal).
	MutantElrKeepsRestarted Mutant = Mutant(controller.MutantElrKeepsRestarted)
	// MutantElrNotFilled: the ELR is not filled when the ISR shrinks below
	// min.insync.replicas.
	MutantElrNotFilled Mutant = Mutant(controller.MutantElrNotFilled)
	// MutantElrIgnoredInElection: no election picks an ELR member.
	MutantElrIgnoredInElection Mutant = Mutant(controller.MutantElrIgnoredInElection)
	// MutantElrLeaderWithIsr: an ELR member may lead while the ISR is not
	// empty.
	MutantElrLeaderWithIsr Mutant = Mutant(controller.MutantElrLeaderWithIsr)
	// MutantNoLastKnownLeader: the last known leader is never elected.
	MutantNoLastKnownLeader Mutant = Mutant(controller.MutantNoLastKnownLeader)
	// MutantIgnoresBrokerEpochs: the controller ignores the broker epochs
	// of AlterPartition (KIP-903's controller check off).
	MutantIgnoresBrokerEpochs Mutant = Mutant(controller.MutantIgnoresBrokerEpochs)
)

// The liveness mutants (issue 22): each leaves every step the
// implementation takes one the model allows, or departs from it only where
// progress stops, and breaks one liveness property of
// spec/ReplicationLiveness.tla. The simulation's liveness check (refine/sim,
// the fault-free tail) must catch each; the model and the spec carry bugs
// of the same names.
const (
	// MutantFetcherStopsAfterLoss: a follower's fetcher stops for good after
	// one of its requests or responses is lost (the request timed out): the
	// partition's fetch state becomes None (the model's fetchState "None"),
	// no more Fetch or OffsetsForLeaderEpoch until a LeaderAndIsr restarts
	// the fetcher. Kafka's
	// AbstractFetcherThread.doWork keeps looping after a failed request
	// (it backs off replica.fetch.backoff.ms and retries). Breaks
	// ReplicasCatchUp: a live ISR member stops replicating, and once faults
	// stop nothing (no ShrinkIsr of a live follower) takes it out.
	MutantFetcherStopsAfterLoss Mutant = "fetcher-stops-after-loss"
	// MutantHWNotAdvancedOnFetch: the leader does not advance its HW on a
	// follower's fetch (Partition.updateFollowerFetchState ->
	// maybeIncrementLeaderHW -> tryCompleteDelayedRequests skipped), so a
	// waiting acks=all DelayedProduce is not completed by it. Breaks
	// ProduceCompletes.
	MutantHWNotAdvancedOnFetch Mutant = "hw-not-advanced-on-fetch"
	// MutantControllerDropsAlterPartition: under asynchronous AlterPartition
	// (3.9) the controller drops every AlterPartition request without
	// deciding or answering it, so the leader's proposal stays pending
	// (a cluster-level hook on the controller's handler). Breaks
	// AlterPartitionResolves.
	MutantControllerDropsAlterPartition Mutant = "controller-drops-alter-partition"
	// MutantTruncationLoopStuck: KIP-279's truncation loop never finishes:
	// after an OffsetsForLeaderEpoch answer the follower truncates but stays
	// in its truncation phase and asks again, never moving to fetching
	// (AbstractFetcherThread.truncateToEpochEndOffsets never marks the
	// partition truncated). Breaks TruncationEnds (LeaderEpoch, Kip101).
	MutantTruncationLoopStuck Mutant = "truncation-loop-stuck"
)

// LivenessMutants lists the liveness mutants (also in Mutants).
var LivenessMutants = []Mutant{MutantFetcherStopsAfterLoss, MutantHWNotAdvancedOnFetch,
	MutantControllerDropsAlterPartition, MutantTruncationLoopStuck}

// The simulation's seeded bugs: what the deterministic simulation's checks
// must catch (refine/sim's tests). They are not in Mutants, whose table
// (docs/mutants.md) measures the trace sources.
const (
	// MutantConsumerPastHW: the leader serves a consumer's fetch (replica
	// id -1) up to its LEO instead of its HW.
	MutantConsumerPastHW Mutant = "consumer-past-hw"
	// MutantLagFromLastFetch: every fetch counts as caught up
	// (lastCaughtUpTime is the last fetch's time), so a follower that
	// fetches but never reaches the LEO stays in the ISR for ever.
	MutantLagFromLastFetch Mutant = "lag-from-last-fetch"
	// MutantCaughtUpNow: a follower whose fetch reaches the LEO the leader
	// had at its previous fetch, but not the LEO now, counts as caught up
	// now. Kafka's Replica.updateFetchState sets lastCaughtUpTimeMs to the
	// previous fetch's time then (lastFetchTimeMs): the follower held
	// everything up to that LEO only from then on, so a follower that
	// fetches rarely leaves the ISR though each fetch reaches the last LEO.
	MutantCaughtUpNow Mutant = "caught-up-now"
)

// SimMutants lists the simulation's seeded bugs.
var SimMutants = []Mutant{MutantConsumerPastHW, MutantLagFromLastFetch, MutantCaughtUpNow}

// Mutants lists every mutant, in the order reports show them.
var Mutants = []Mutant{MutantTruncateToHW, MutantNoKip279Loop, MutantNoFencing, MutantHWOverAllReplicas,
	MutantFollowerHWNotClamped, MutantCacheNotTruncated, MutantStaleLeaderAndIsr, MutantNoViewReset,
	MutantAckOnAppend, MutantNoEpochStartCheck, MutantReelectionViewReset, MutantUpdateDivergingFetchState,
	MutantIgnoreDivergingEpoch, MutantHWOverCommittedIsr, MutantStalePartitionEpoch, MutantFetchHWAfterUpdate,
	MutantReelectionFailsProduce, MutantDropOrphanFetch, MutantExpandDeadFollower, MutantUndefinedToHW,
	MutantRestartOnEpochBump, MutantLeaderEntryAtElection, MutantSkipDeadLeader, MutantHWGateOverMaximalIsr,
	MutantProduceGateOverMaximalIsr, MutantTruncateKeepsRecoveryPoint,
	MutantExpandStaleBrokerEpoch, MutantIgnoresBrokerEpochs, MutantElrKeepsRestarted, MutantElrNotFilled,
	MutantElrIgnoredInElection, MutantElrLeaderWithIsr, MutantNoLastKnownLeader,
	MutantFetcherStopsAfterLoss, MutantHWNotAdvancedOnFetch, MutantControllerDropsAlterPartition, MutantTruncationLoopStuck}

// staleFetchServed is the release's StaleFetchServed, unless the
// drop-orphan-fetch mutant is on.
func (b *Broker) staleFetchServed() bool {
	return b.rel.StaleFetchServed && !b.mutant(MutantDropOrphanFetch) // mutant hook: an orphan fetch is dropped
}

// storageMutants are the enabled mutants that are the storage's: the
// broker passes them to the logs it opens.
func (b *Broker) storageMutants() []storage.Mutant {
	var out []storage.Mutant
	for _, m := range storage.Mutants {
		if b.mutant(Mutant(m)) {
			out = append(out, m)
		}
	}
	return out
}

// mutant reports whether m is enabled (Config.Mutants).
func (b *Broker) mutant(m Mutant) bool {
	return slices.Contains(b.cfg.Mutants, m)
}
