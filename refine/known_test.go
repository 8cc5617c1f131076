package refine

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/hwepoch/hwepoch/model"
)

var update = flag.Bool("update", false, "rewrite the hand-written regressions under traces/regressions")

// known are hand-written regressions: a case the random traces reach too
// rarely to rely on, written down once; and the random traces' shrunk
// failures of an earlier spec, rewritten as their action lists so that they
// follow the spec as it changes (refuse is nil for those: they end in a
// state, not a refusal).
// shrunk is the start several regressions share: r1 leads epoch 0 with r2
// following, and shrinks r2 out of the ISR through the controller.
var shrunk = []model.Action{
	{Kind: model.Elect, R: "r1"}, {Kind: model.HandleLeaderAndIsr, R: "r1"}, {Kind: model.HandleLeaderAndIsr, R: "r2"},
	{Kind: model.ShrinkIsr, L: "r1", F: "r2"}, {Kind: model.HandleAlterPartition, L: "r1"},
	{Kind: model.HandleAlterPartitionResponse, L: "r1"},
}

// shrunkThenFetched goes on from shrunk: r2 fetches once and r1 counts
// it, so r1's view of r2 is at the HW (r2 is eligible to come back).
var shrunkThenFetched = then(shrunk, []model.Action{
	{Kind: model.SendFetch, F: "r2"}, {Kind: model.HandleFetch, L: "r1", F: "r2"},
	{Kind: model.UpdateFollowerFetchState, L: "r1", F: "r2"}, {Kind: model.HandleFetchResponse, F: "r2"},
})

// then is prefix followed by more, in a new slice (prefix is shared).
func then(prefix, more []model.Action) []model.Action {
	return append(append([]model.Action(nil), prefix...), more...)
}

var known = []struct {
	file, note string
	cfg        model.Config
	actions    []model.Action
	refuse     *model.Action
	// violates is an invariant the last state breaks (a finding), and
	// no earlier state does.
	violates string
}{{
	file: "kafka-7128-expand-below-epoch-start.itf.json",
	note: "KAFKA-7128: a follower whose LEO has reached the HW but not the start of the leader's epoch may hold another epoch's " +
		"records there, so it must not join the ISR (Partition.maybeExpandIsr checks leaderEpochStartOffsetOpt from 2.0.1/2.1.0). " +
		"r1 shrinks r2 out and is re-elected (epoch 1) with its HW held at 0 by MinIsrGatesHW, so its epoch starts at 2 while " +
		"the HW is 0; r2 restarts its fetcher for the new epoch (2.1: makeFollower is true for any new epoch), truncates to 1 " +
		"and fetches from 1: r1's view of r2 (1) is at the HW but below the epoch start, and ExpandIsr(r1, r2) must be refused.",
	cfg: model.Config{Replicas: []model.Replica{"r1", "r2"}, Truncation: model.LeaderEpoch, Fencing: true, Acks: "1",
		MinInsyncReplicas: 2, MinIsrGatesHW: true, MaxRecords: 2, MaxEpoch: 1, MaxPartitionEpoch: 2},
	actions: []model.Action{
		{Kind: model.Elect, R: "r1"}, {Kind: model.HandleLeaderAndIsr, R: "r1"}, {Kind: model.HandleLeaderAndIsr, R: "r2"},
		{Kind: model.SendOffsetsForLeaderEpoch, F: "r2"}, {Kind: model.HandleOffsetsForLeaderEpoch, L: "r1", F: "r2"},
		{Kind: model.HandleOffsetsForLeaderEpochResponse, F: "r2"},
		{Kind: model.Produce, L: "r1"},
		{Kind: model.SendFetch, F: "r2"}, {Kind: model.HandleFetch, L: "r1", F: "r2"},
		{Kind: model.UpdateFollowerFetchState, L: "r1", F: "r2"}, {Kind: model.HandleFetchResponse, F: "r2"},
		{Kind: model.ShrinkIsr, L: "r1", F: "r2"},
		{Kind: model.Produce, L: "r1"},
		{Kind: model.Elect, R: "r1"}, {Kind: model.HandleLeaderAndIsr, R: "r1"}, {Kind: model.HandleLeaderAndIsr, R: "r2"},
		{Kind: model.SendOffsetsForLeaderEpoch, F: "r2"}, {Kind: model.HandleOffsetsForLeaderEpoch, L: "r1", F: "r2"},
		{Kind: model.HandleOffsetsForLeaderEpochResponse, F: "r2"},
		{Kind: model.SendFetch, F: "r2"}, {Kind: model.HandleFetch, L: "r1", F: "r2"},
		{Kind: model.UpdateFollowerFetchState, L: "r1", F: "r2"},
	},
	refuse: &model.Action{Kind: model.ExpandIsr, L: "r1", F: "r2"},
}, {
	file: "kip841-no-expand-of-dead-follower.itf.json",
	note: "KIP-841 (Kafka 3.3+, here 3.9): a leader proposes only a live broker for the ISR (Partition.canAddReplicaToIsr -> " +
		"isReplicaIsrEligible). r2 fetches m1 from r1 and fetches again from 1, so r1's view of r2 (1) reaches the " +
		"HW, which passes m1; then r2 crashes and the controller fences it out of the ISR " +
		"(ReplicationControlManager.handleBrokerFenced). r1's view of r2 is still at the HW, but r2 is dead: ExpandIsr(r1, r2) must be refused. The expand-dead-follower mutant proposes " +
		"it; no scenario or random trace reached this refusal before.",
	cfg: model.Config{Replicas: []model.Replica{"r1", "r2"}, Truncation: model.DivergingEpoch, Fencing: true, Acks: "all",
		MinInsyncReplicas: 1, MinIsrGatesHW: true, MaxRecords: 1, MaxEpoch: 1, MaxCrashes: 1, MaxPartitionEpoch: 3},
	actions: []model.Action{
		{Kind: model.Elect, R: "r1"}, {Kind: model.HandleLeaderAndIsr, R: "r1"}, {Kind: model.HandleLeaderAndIsr, R: "r2"},
		{Kind: model.Produce, L: "r1"},
		{Kind: model.SendFetch, F: "r2"}, {Kind: model.HandleFetch, L: "r1", F: "r2"},
		{Kind: model.UpdateFollowerFetchState, L: "r1", F: "r2"}, {Kind: model.HandleFetchResponse, F: "r2"},
		{Kind: model.SendFetch, F: "r2"}, {Kind: model.HandleFetch, L: "r1", F: "r2"},
		{Kind: model.UpdateFollowerFetchState, L: "r1", F: "r2"}, {Kind: model.HandleFetchResponse, F: "r2"},
		{Kind: model.Crash, R: "r2", Keep: 1}, {Kind: model.HandleLeaderAndIsr, R: "r1"},
	},
	refuse: &model.Action{Kind: model.ExpandIsr, L: "r1", F: "r2"},
}, {
	file: "kip841-repropose-after-ineligible.itf.json",
	note: "KIP-841 (3.9): a proposal refused with INELIGIBLE_REPLICA returns the leader to its committed state " +
		"(3.9.0-rc3 Partition.handleAlterPartitionError: \"the controller is explicitly telling us ... that the request was " +
		"not applied\"), and the same ISR proposed again once the follower is back is a new request that the controller " +
		"decides afresh (ReplicationControlManager.alterPartition keeps no answers). r1 shrinks r2 out, r2 fetches so that " +
		"r1's view of it reaches the HW, r1 proposes r2 back, r2 crashes before the controller decides (INELIGIBLE_REPLICA), " +
		"r2 restarts, fetches once in its new incarnation (KIP-903, 3.5+: the leader proposes only a follower whose fetch of " +
		"its current broker epoch it counted, Partition.isReplicaIsrEligible), and r1 proposes the same ISR at the same " +
		"partition epoch: the controller commits it. The implementation " +
		"once answered the second proposal with the first one's cached refusal (chaos -policy DivergingEpoch, seeds 44, 47, " +
		"150, 423 and 491).",
	cfg: model.Config{Replicas: []model.Replica{"r1", "r2"}, Truncation: model.DivergingEpoch, Fencing: true, Acks: "all",
		MinInsyncReplicas: 1, MinIsrGatesHW: true, MaxRecords: 1, MaxEpoch: 1, MaxCrashes: 1, MaxPartitionEpoch: 3},
	actions: then(shrunkThenFetched, []model.Action{
		{Kind: model.ExpandIsr, L: "r1", F: "r2"},
		{Kind: model.Crash, R: "r2", Keep: 0},
		{Kind: model.HandleAlterPartition, L: "r1"}, {Kind: model.HandleAlterPartitionResponse, L: "r1"},
		{Kind: model.Restart, R: "r2"}, {Kind: model.HandleLeaderAndIsr, R: "r2"},
		{Kind: model.SendFetch, F: "r2"}, {Kind: model.HandleFetch, L: "r1", F: "r2"},
		{Kind: model.UpdateFollowerFetchState, L: "r1", F: "r2"},
		{Kind: model.ExpandIsr, L: "r1", F: "r2"}, {Kind: model.HandleAlterPartition, L: "r1"},
		{Kind: model.HandleAlterPartitionResponse, L: "r1"},
	}),
}, {
	file: "kip903-no-expand-of-earlier-incarnation.itf.json",
	note: "KIP-903 (Kafka 3.5+, here 3.9): a leader proposes a follower for the ISR only on the strength of a fetch of the " +
		"follower's current incarnation (Partition.isReplicaIsrEligible -> isBrokerEpochIsrEligible: the broker epoch its " +
		"last counted fetch carried is the one of its current registration). r1 shrinks r2 out; r2 fetches from 0, so " +
		"r1's view of r2 (0) is at the HW, with r2's broker epoch 0; r2 crashes and restarts, registering with broker " +
		"epoch 1. r2 is alive again, but r1's view is of its earlier incarnation, whose log the crash may have cut: " +
		"ExpandIsr(r1, r2) must be refused until r2 fetches again. The expand-stale-broker-epoch mutant proposes it.",
	cfg: model.Config{Replicas: []model.Replica{"r1", "r2"}, Truncation: model.DivergingEpoch, Fencing: true, Acks: "all",
		MinInsyncReplicas: 1, MinIsrGatesHW: true, MaxRecords: 0, MaxEpoch: 0, MaxCrashes: 1, MaxPartitionEpoch: 3},
	actions: then(shrunkThenFetched, []model.Action{
		{Kind: model.Crash, R: "r2", Keep: 0}, {Kind: model.Restart, R: "r2"},
	}),
	refuse: &model.Action{Kind: model.ExpandIsr, L: "r1", F: "r2"},
}, {
	file: "kip903-controller-refuses-earlier-incarnation.itf.json",
	note: "KIP-903 (Kafka 3.5+, here 3.9): the controller refuses an AlterPartition that adds a replica with a broker epoch " +
		"other than that of its current registration (ReplicationControlManager.ineligibleReplicasForIsr: " +
		"INELIGIBLE_REPLICA). r1 shrinks r2 out, r2 fetches so that r1's view of it (0) is at the HW, and r1 proposes r2 " +
		"back with r2's broker epoch 0; before the controller decides, r2 crashes and restarts (broker epoch 1). r2 is " +
		"alive, so KIP-841's liveness test passes, but the proposal's broker epoch is stale: the controller refuses it. The " +
		"controller-ignores-broker-epochs mutant commits it.",
	cfg: model.Config{Replicas: []model.Replica{"r1", "r2"}, Truncation: model.DivergingEpoch, Fencing: true, Acks: "all",
		MinInsyncReplicas: 1, MinIsrGatesHW: true, MaxRecords: 0, MaxEpoch: 0, MaxCrashes: 1, MaxPartitionEpoch: 3},
	actions: then(shrunkThenFetched, []model.Action{
		{Kind: model.ExpandIsr, L: "r1", F: "r2"},
		{Kind: model.Crash, R: "r2", Keep: 0}, {Kind: model.Restart, R: "r2"},
		{Kind: model.HandleAlterPartition, L: "r1"}, {Kind: model.HandleAlterPartitionResponse, L: "r1"},
	}),
}, {
	file: "elr-election-order.itf.json",
	note: "Eligible Leader Replicas (KIP-966, Kafka 4.1), every change of the ELR and each source of a leader in turn, " +
		"with min.insync.replicas 2 of two replicas. r1 shrinks r2 out: below the minimum r2 joins the ELR " +
		"(PartitionChangeBuilder.maybePopulateTargetElr). r1 crashes: the controller fences it out of the ISR, which " +
		"empties (r1 joins the ELR and becomes the last known leader), and elects r2 from the ELR, a clean election " +
		"(isValidNewLeader: the ISR empty). r1 restarts: its shutdown was unclean, so it leaves the ELR " +
		"(handleBrokerUncleanShutdown: partition epoch + 1, the LeaderAndIsr to the live brokers). r2 crashes: the ISR " +
		"empties again, r2 the last known leader; r2 restarts and leaves the ELR, which is now empty, and is elected as " +
		"the last known leader (canElectLastKnownLeader; unclean, without unclean.leader.election.enable). The mutants " +
		"elr-not-filled, elr-ignored-in-election, elr-keeps-restarted and no-last-known-leader each depart from it.",
	cfg: model.Config{Replicas: []model.Replica{"r1", "r2"}, Truncation: model.EligibleLeader, Fencing: true, Acks: "all",
		MinInsyncReplicas: 2, MinIsrGatesHW: true, MaxRecords: 0, MaxEpoch: 2, MaxCrashes: 2, MaxPartitionEpoch: 8},
	actions: then(shrunk, []model.Action{
		{Kind: model.Crash, R: "r1", Keep: 0}, {Kind: model.Elect, R: "r2"}, {Kind: model.HandleLeaderAndIsr, R: "r2"},
		{Kind: model.Restart, R: "r1"}, {Kind: model.HandleLeaderAndIsr, R: "r2"}, {Kind: model.HandleLeaderAndIsr, R: "r1"},
		{Kind: model.Crash, R: "r2", Keep: 0}, {Kind: model.Restart, R: "r2"}, {Kind: model.Elect, R: "r2"},
		{Kind: model.HandleLeaderAndIsr, R: "r2"},
	}),
}, {
	file: "elr-no-election-while-isr.itf.json",
	note: "Eligible Leader Replicas (KIP-966, Kafka 4.1): an ELR member may lead only while the ISR is empty " +
		"(PartitionChangeBuilder.isValidNewLeader). With min.insync.replicas 2 of two replicas, r1 shrinks r2 out: r2 " +
		"joins the ELR, but r1, alive, is the ISR: Elect(r2) must be refused (without unclean.leader.election.enable). " +
		"The elr-leader-with-isr mutant elects r2.",
	cfg: model.Config{Replicas: []model.Replica{"r1", "r2"}, Truncation: model.EligibleLeader, Fencing: true, Acks: "all",
		MinInsyncReplicas: 2, MinIsrGatesHW: true, MaxRecords: 0, MaxEpoch: 1, MaxCrashes: 0, MaxPartitionEpoch: 3},
	actions: then(shrunk, nil),
	refuse:  &model.Action{Kind: model.Elect, R: "r2"},
}, {
	file: "stale-fetch-update-across-leader-changes.itf.json",
	note: "Issue 25's finding 2 (docs/findings.md), the shortest StrongIsr violation of Kafka 2.1 at three replicas, one record " +
		"and two leader changes (the explorer's breadth-first search of le-missed-demotion, 19,355,064 states; it uses no " +
		"missed LeaderAndIsr, so it is the release's own behaviour). A leader's read of a fetch and its update of the " +
		"follower's state are two steps (2.1.0 ReplicaManager.fetchMessages: readFromLocalLog, then " +
		"updateFollowerLogReadResults; 3.9.0-rc3 Partition.fetchRecords reads under leaderIsrUpdateLock and calls " +
		"updateFollowerFetchState after releasing it), and neither checks the leader epoch. r1 leads epoch 0 and writes m1, " +
		"which r3 fetches; r3's next fetch (offset 1) is read by r1 just before r1 steps down to epoch 1 (r2 leads) and " +
		"becomes leader of epoch 2, resetting its views (a new leader). The read's update then lands in epoch 2: r1's view " +
		"of r3 is 1. r3, following r2, truncates m1; r1 shrinks r2 out of the ISR, and its HW passes m1, which the ISR " +
		"member r3 lacks.",
	cfg: model.Config{Replicas: []model.Replica{"r1", "r2", "r3"}, Truncation: model.LeaderEpoch, Fencing: true, Acks: "all",
		MinInsyncReplicas: 2, MaxRecords: 1, MaxEpoch: 2, MaxCrashes: 0, MaxPartitionEpoch: 0},
	actions: []model.Action{
		{Kind: model.Elect, R: "r1"}, {Kind: model.Elect, R: "r2"}, {Kind: model.Elect, R: "r1"},
		{Kind: model.HandleLeaderAndIsr, R: "r1"}, {Kind: model.HandleLeaderAndIsr, R: "r2"},
		{Kind: model.HandleLeaderAndIsr, R: "r2"}, {Kind: model.HandleLeaderAndIsr, R: "r3"},
		{Kind: model.Produce, L: "r1"},
		{Kind: model.SendOffsetsForLeaderEpoch, F: "r3"}, {Kind: model.HandleOffsetsForLeaderEpoch, L: "r1", F: "r3"},
		{Kind: model.HandleOffsetsForLeaderEpochResponse, F: "r3"},
		{Kind: model.SendFetch, F: "r3"}, {Kind: model.HandleFetch, L: "r1", F: "r3"},
		{Kind: model.UpdateFollowerFetchState, L: "r1", F: "r3"}, {Kind: model.HandleFetchResponse, F: "r3"},
		{Kind: model.SendFetch, F: "r3"}, {Kind: model.HandleLeaderAndIsr, R: "r3"},
		{Kind: model.HandleFetch, L: "r1", F: "r3"},
		{Kind: model.HandleLeaderAndIsr, R: "r1"}, {Kind: model.HandleLeaderAndIsr, R: "r1"},
		{Kind: model.UpdateFollowerFetchState, L: "r1", F: "r3"}, {Kind: model.HandleFetchResponse, F: "r3"},
		{Kind: model.SendOffsetsForLeaderEpoch, F: "r3"}, {Kind: model.HandleOffsetsForLeaderEpoch, L: "r2", F: "r3"},
		{Kind: model.HandleOffsetsForLeaderEpochResponse, F: "r3"},
		{Kind: model.ShrinkIsr, L: "r1", F: "r2"},
	},
	violates: "StrongIsr",
}, {
	file: "stale-fetch-update-across-leader-changes-3.9.itf.json",
	note: "Issue 25's finding 1 under Kafka 3.9.0 (docs/findings.md): stale-fetch-update-across-leader-changes.itf.json's " +
		"story with 3.9's steps, written by hand from it. r3's fetch at offset 1 is read by r1 in epoch 0 (3.9.0-rc3 " +
		"Partition.fetchRecords reads under leaderIsrUpdateLock); r1 applies epoch 1 (r2 leads) and epoch 2 (r1 leads, a new " +
		"leader: views reset); the update (updateFollowerFetchState, after the lock is released, checking the broker epoch " +
		"only) lands in epoch 2, r1's view of r3 becomes 1. r3, following r2, truncates m1 by divergingEpoch; r1's " +
		"AlterPartition takes r2 out of the ISR, and the committed ISR {r1, r3} lets the HW pass m1, which r3 lacks.",
	cfg: model.Config{Replicas: []model.Replica{"r1", "r2", "r3"}, Truncation: model.DivergingEpoch, Fencing: true, Acks: "all",
		MinInsyncReplicas: 2, MinIsrGatesHW: true, MaxRecords: 1, MaxEpoch: 2, MaxCrashes: 0, MaxPartitionEpoch: 3},
	actions: []model.Action{
		{Kind: model.Elect, R: "r1"}, {Kind: model.Elect, R: "r2"}, {Kind: model.Elect, R: "r1"},
		{Kind: model.HandleLeaderAndIsr, R: "r1"}, {Kind: model.HandleLeaderAndIsr, R: "r2"},
		{Kind: model.HandleLeaderAndIsr, R: "r2"}, {Kind: model.HandleLeaderAndIsr, R: "r3"},
		{Kind: model.Produce, L: "r1"},
		{Kind: model.SendFetch, F: "r3"}, {Kind: model.HandleFetch, L: "r1", F: "r3"},
		{Kind: model.UpdateFollowerFetchState, L: "r1", F: "r3"}, {Kind: model.HandleFetchResponse, F: "r3"},
		{Kind: model.SendFetch, F: "r3"}, {Kind: model.HandleLeaderAndIsr, R: "r3"},
		{Kind: model.HandleFetch, L: "r1", F: "r3"},
		{Kind: model.HandleLeaderAndIsr, R: "r1"}, {Kind: model.HandleLeaderAndIsr, R: "r1"},
		{Kind: model.UpdateFollowerFetchState, L: "r1", F: "r3"}, {Kind: model.HandleFetchResponse, F: "r3"},
		{Kind: model.SendFetch, F: "r3"}, {Kind: model.HandleFetch, L: "r2", F: "r3"},
		{Kind: model.HandleFetchResponse, F: "r3"},
		{Kind: model.ShrinkIsr, L: "r1", F: "r2"}, {Kind: model.HandleAlterPartition, L: "r1"},
		{Kind: model.HandleAlterPartitionResponse, L: "r1"},
	},
	violates: "StrongIsr",
}, {
	file: "undefined-diverging-epoch-keeps-fetch-offset.itf.json",
	note: "An UNDEFINED divergingEpoch end offset truncates to the fetch offset in 3.9 (AbstractFetcherThread." +
		"getOffsetTruncationState: \"the initial fetch offset will be used for truncation\"), not to the HW as 0.11.0's " +
		"ReplicaFetcherThread.maybeTruncate did. Reachable only without fencing (an ablation of 3.9): r1 leads epoch 1, r2 " +
		"leads epoch 2 and writes m1 (HW 0), then follows r1 in epoch 3 while r1 has not yet heard of epochs 2 and 3. r2's " +
		"fetch (offset 1, lastFetchedEpoch 2) reaches r1, still leading epoch 1 and not fenced: r1 knows no epoch at or " +
		"above 2, so endOffsetFor(2) is UNDEFINED and it answers that divergence. r2 keeps m1 (truncates to its fetch " +
		"offset 1); the undefined-to-hw mutant truncates to the HW, 0. With fencing r1 answers UNKNOWN_LEADER_EPOCH " +
		"instead, and in 2.1's truncation phase the fetch offset is the HW, so no other trace tells the two rules apart.",
	cfg: model.Config{Replicas: []model.Replica{"r1", "r2"}, Truncation: model.DivergingEpoch, Fencing: false, Acks: "1",
		MinInsyncReplicas: 1, MinIsrGatesHW: true, MaxRecords: 1, MaxEpoch: 3, MaxPartitionEpoch: 3},
	actions: []model.Action{
		{Kind: model.Elect, R: "r1"}, {Kind: model.HandleLeaderAndIsr, R: "r1"},
		{Kind: model.Elect, R: "r2"}, {Kind: model.HandleLeaderAndIsr, R: "r2"}, {Kind: model.HandleLeaderAndIsr, R: "r2"},
		{Kind: model.Produce, L: "r2"},
		{Kind: model.Elect, R: "r1"}, {Kind: model.HandleLeaderAndIsr, R: "r2"},
		{Kind: model.SendFetch, F: "r2"}, {Kind: model.HandleFetch, L: "r1", F: "r2"}, {Kind: model.HandleFetchResponse, F: "r2"},
	},
}, {
	file: "nextid-after-leader-change-HighWatermark.itf.json",
	note: "random trace (policy HighWatermark, seed 1), shrunk, rewritten from its actions for the spec of issues 10 and 11. " +
		"It caught the implementation reusing a producer id after a leader change (nextId 1 where the model has 2): r2 leads " +
		"epoch 0 and writes m1, then follows r1 (epoch 1) and, its leader changed, truncates to its HW (0.10.2): m1 is gone " +
		"from every log, but its id is spent.",
	cfg: model.Config{Replicas: []model.Replica{"r1", "r2"}, Truncation: model.HighWatermark, Acks: "all",
		MinInsyncReplicas: 1, MinIsrGatesHW: true, MaxRecords: 3, MaxEpoch: 4, MaxCrashes: 2},
	actions: []model.Action{
		{Kind: model.Elect, R: "r2"}, {Kind: model.Elect, R: "r1"}, {Kind: model.HandleLeaderAndIsr, R: "r2"},
		{Kind: model.Produce, L: "r2"}, {Kind: model.HandleLeaderAndIsr, R: "r2"},
	},
}, {
	file: "nextid-after-leader-change-Kip101.itf.json",
	note: "random trace (policy Kip101, seed 2, with fencing: an ablation of 0.11), shrunk, rewritten from its actions for " +
		"the spec of issues 10 and 11. It caught the implementation reusing a producer id after a leader change: r1 leads " +
		"epoch 0 and writes m1, then follows r2 (epoch 1); the next record must get id 2.",
	cfg: model.Config{Replicas: []model.Replica{"r1", "r2"}, Truncation: model.Kip101, Fencing: true, Acks: "all",
		MinInsyncReplicas: 2, LossyNetwork: true, MaxRecords: 3, MaxEpoch: 4, MaxCrashes: 2},
	actions: []model.Action{
		{Kind: model.Elect, R: "r1"}, {Kind: model.HandleLeaderAndIsr, R: "r1"}, {Kind: model.Produce, L: "r1"},
		{Kind: model.Elect, R: "r2"}, {Kind: model.HandleLeaderAndIsr, R: "r1"},
	},
}, {
	file: "nextid-after-leader-change-LeaderEpoch.itf.json",
	note: "random trace (policy LeaderEpoch, seed 3), shrunk, rewritten from its actions for the spec of issues 10 and 11. " +
		"It caught the implementation reusing a producer id after a leader change: r1 leads epoch 0, writes m1 and is " +
		"re-elected (epoch 1); a re-elected leader now keeps its views and its waiting produce request.",
	cfg: model.Config{Replicas: []model.Replica{"r1", "r2", "r3"}, Truncation: model.LeaderEpoch, Fencing: true, Acks: "all",
		MinInsyncReplicas: 1, MinIsrGatesHW: true, LossyNetwork: true, MaxRecords: 3, MaxEpoch: 4, MaxCrashes: 2},
	actions: []model.Action{
		{Kind: model.Elect, R: "r1"}, {Kind: model.HandleLeaderAndIsr, R: "r1"}, {Kind: model.Produce, L: "r1"},
		{Kind: model.Elect, R: "r1"}, {Kind: model.HandleLeaderAndIsr, R: "r1"},
	},
}}

// The hand-written regressions under traces/regressions are what these
// action lists give (run with -update to rewrite them): the model takes
// every step and, where one is named, refuses the final action.
func TestKnownRegressions(t *testing.T) {
	for _, k := range known {
		t.Run(k.file, func(t *testing.T) {
			cfg := k.cfg
			tr, err := ActionsTrace(k.file, &cfg, k.actions)
			if err != nil {
				t.Fatal(err)
			}
			if k.refuse != nil {
				if _, err := model.Apply(&cfg, tr.Steps[len(tr.Steps)-1].State, *k.refuse); err == nil {
					t.Fatalf("the model enables %s at the end: not a refusal", *k.refuse)
				}
			}
			if k.violates != "" {
				for i, st := range tr.Steps {
					bad := Violated(&cfg, st.State, []string{k.violates})
					if last := i == len(tr.Steps)-1; last != (len(bad) > 0) {
						t.Fatalf("step %d of %d: %s violated: %v", i, len(tr.Steps)-1, k.violates, len(bad) > 0)
					}
				}
			}
			path := filepath.Join("..", "traces", "regressions", k.file)
			tmp := filepath.Join(t.TempDir(), k.file)
			if err := WriteRegression(tmp, &cfg, tr, k.refuse, k.note); err != nil {
				t.Fatal(err)
			}
			want, _ := os.ReadFile(tmp)
			if *update {
				if err := os.WriteFile(path, want, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := os.ReadFile(path)
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("%s is missing or stale (err %v): run go test ./refine -run TestKnownRegressions -update", path, err)
			}
		})
	}
}
