package model

import (
	"bytes"
	"fmt"
)

// Mutant is a seeded liveness bug: the model takes it from Config.Mutant,
// TLC from MutantSpec's patched copy of Replication.tla, and the
// implementation has the same-named mutant (impl/broker's Mutant). Each
// breaks one liveness property and must be caught by the explorer and by
// TLC (model/explore's liveness tests, spec/manifest.json's mutant
// configurations), which shows that the liveness checks bite. Safety is
// unaffected: these bugs stop progress, they lose nothing.
type Mutant string

const (
	// MutantFetcherStopsAfterLoss: a follower's fetcher stops for good once
	// one of its requests or responses is lost (fetchState "None" until a
	// new LeaderAndIsr restarts it). Breaks ReplicasCatchUp.
	MutantFetcherStopsAfterLoss Mutant = "fetcher-stops-after-loss"
	// MutantHWNotAdvancedOnFetch: the leader counts a follower's fetch but
	// does not advance its HW on it (Partition.updateFollowerFetchState
	// without maybeIncrementLeaderHW / tryCompleteDelayedRequests), so a
	// waiting acks=all produce never completes. Breaks ProduceCompletes.
	MutantHWNotAdvancedOnFetch Mutant = "hw-not-advanced-on-fetch"
	// MutantControllerDropsAlterPartition: the controller drops an
	// AlterPartition without answering. Breaks AlterPartitionResolves.
	MutantControllerDropsAlterPartition Mutant = "controller-drops-alter-partition"
	// MutantTruncationLoopStuck: the OffsetsForLeaderEpoch loop never ends:
	// the follower asks again even when its truncation is complete. Breaks
	// TruncationEnds.
	MutantTruncationLoopStuck Mutant = "truncation-loop-stuck"
)

// Mutants lists the seeded liveness bugs.
var Mutants = []Mutant{MutantFetcherStopsAfterLoss, MutantHWNotAdvancedOnFetch,
	MutantControllerDropsAlterPartition, MutantTruncationLoopStuck}

// MutantBreaks is the liveness property each mutant breaks.
var MutantBreaks = map[Mutant]string{
	MutantFetcherStopsAfterLoss:         "ReplicasCatchUp",
	MutantHWNotAdvancedOnFetch:          "ProduceCompletes",
	MutantControllerDropsAlterPartition: "AlterPartitionResolves",
	MutantTruncationLoopStuck:           "TruncationEnds",
}

// specPatch is one mutant's edit of Replication.tla: old must occur exactly
// once and becomes new.
type specPatch struct{ old, new string }

var specPatches = map[Mutant]specPatch{
	MutantFetcherStopsAfterLoss: {
		old: `    /\ inflight[f].type \notin {"None", "FetchRead"}
    /\ inflight' = [inflight EXCEPT ![f] = NoMsg]
    /\ UNCHANGED <<durable, volatile, ctrl, controllerQueue, alterPartition, ghost>>`,
		new: `    /\ inflight[f].type \notin {"None", "FetchRead"}
    /\ inflight' = [inflight EXCEPT ![f] = NoMsg]
    /\ fetchState' = [fetchState EXCEPT ![f] = IF role[f] = "Follower" THEN "None" ELSE fetchState[f]]
    /\ UNCHANGED <<durable, role, leaderEpoch, leader, hw, isr, followerLeo, followerBrokerEpoch,
                   produceEpoch, partitionEpoch, pendingIsr, ctrl, controllerQueue, alterPartition, ghost>>`,
	},
	MutantHWNotAdvancedOnFetch: {
		old: `                   /\ AdvanceHW(l, log[l], isr[l], MaximalIsr(l), views, produceEpoch[l], leaderEpoch[l])`,
		new: `                   /\ UNCHANGED <<hw, acked, committed>>`,
	},
	MutantControllerDropsAlterPartition: {
		old: `       IN  IF err = "NONE"`,
		new: `       IN  IF TRUE
           THEN /\ alterPartition' = [alterPartition EXCEPT ![l] = NoMsg]
                /\ UNCHANGED <<ctrlIsr, ctrlPartitionEpoch, ctrlElr>>
           ELSE IF err = "NONE"`,
	},
	MutantTruncationLoopStuck: {
		old: `IF t.done THEN "Fetching" ELSE "Truncating"`,
		new: `"Truncating"`,
	},
}

// MutantSpec returns Replication.tla's text with m's bug seeded, for TLC.
// It fails when the spec no longer holds the patched text exactly once (the
// spec changed under the mutant: update specPatches with it).
func MutantSpec(spec []byte, m Mutant) ([]byte, error) {
	p, ok := specPatches[m]
	if !ok {
		return nil, fmt.Errorf("mutant %q: no such seeded bug (known: %v)", m, Mutants)
	}
	if n := bytes.Count(spec, []byte(p.old)); n != 1 {
		return nil, fmt.Errorf("mutant %s: the spec holds its patched text %d times, not once:\n%s", m, n, p.old)
	}
	return bytes.Replace(spec, []byte(p.old), []byte(p.new), 1), nil
}
