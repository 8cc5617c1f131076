package model

import (
	"bytes"
	"fmt"
	"slices"
)

// Restore puts back one behaviour of a Kafka release that the spec leaves
// out: a row of docs/spec.md's deviation table. The model takes it from
// Config.Restore, TLC from RestoreSpec's patched copy of Replication.tla.
// `hwepoch deviations` explores each manifest configuration of the releases
// it concerns with and without it and compares the verdicts: that is the
// check the deviation table cites. Unlike a Mutant it is no bug: it is
// Kafka's own code path, or a superset of it where Kafka's choice depends on
// state the spec does not keep (Superset says so).
type Restore string

const (
	// RestoreDelayedFetchHW (issue 21, item 1): a follower's fetch that
	// reads nothing waits in the leader's purgatory (replica.fetch.min.bytes
	// 1, replica.fetch.wait.max.ms) and, when it completes, is read again,
	// so its response carries the leader's records and HW of that moment
	// (0.10.2.2 ReplicaManager.fetchMessages → DelayedFetch.onComplete →
	// readFromLocalLog; 3.9.0 DelayedFetch.onComplete →
	// ReplicaManager.readFromLog). The follower's state was counted at the
	// first read and is not counted again. The restored action
	// CompleteDelayedFetch(l, f) re-reads an empty response at any later
	// step while l leads its epoch: time is abstract, so every moment of
	// completion is among them.
	RestoreDelayedFetchHW Restore = "delayed-fetch-hw"
	// RestoreHWAboveLEO (issue 21, item 2): up to 2.1 truncating a log
	// leaves the HW where it was (2.1.0 ReplicaFetcherThread.truncate only
	// warns "Truncating ... below high watermark"; the HW lives in Replica,
	// which truncation does not touch), and a new leader whose HW is past
	// its log end resets it to its log start (2.1.0
	// Replica.convertHWToLocalOffsetMetadata falls back to logStartOffset;
	// 0.10.2 and 0.11 to UnknownOffsetMetadata, offset -1, which reads as
	// nothing committed and is taken as 0 here). HWBelowLEO no longer holds,
	// and CommittedPrefixesAgree and NoDivergence compare below
	// min(HW, LEO), the prefix Kafka's readers see.
	RestoreHWAboveLEO Restore = "hw-above-leo"
	// RestoreOutOfRangeLaterLEO (item 3): on OFFSET_OUT_OF_RANGE the
	// follower asks the leader for its LEO afterwards (2.1.0 and 3.9.0
	// AbstractFetcherThread.fetchOffsetAndTruncate, fetchLatestOffsetFromLeader
	// / leader.fetchLatestOffset in the follower's current leader epoch;
	// 0.10.2 ReplicaFetcherThread.handleOffsetOutOfRange), which may have
	// grown since the fetch: it truncates to that LEO when it is below its
	// own, else keeps its log. The leader's LEO in one epoch only grows, so
	// the answer is any x in [the fetch's LEO, the follower's LEO]: a
	// superset (0.10.2 and 0.11 ask without an epoch, so a leader elected
	// again in between could answer a LEO below the fetch's: not covered).
	RestoreOutOfRangeLaterLEO Restore = "out-of-range-later-leo"
	// RestoreKRaftIsrRules (item 4): KRaft's controller checks every member
	// of a proposed ISR, not only the added ones: registered, not shutting
	// down, not fenced, and its broker epoch unless -1 (3.9.0
	// ReplicationControlManager.ineligibleReplicasForIsr, called on
	// newIsrWithEpochs); and it fences a broker out of every ISR it is in,
	// its leader's included, unless it is the last member (3.9.0
	// handleBrokerFenced → generateLeaderAndIsrUpdates with brokerToRemove;
	// PartitionChangeBuilder sets an empty ISR only with ELR). The 4.1 row
	// already fences its leader; there only the first rule is put back.
	RestoreKRaftIsrRules Restore = "kraft-isr-rules"
	// RestoreUndefinedToFetchOffset (item 6): 2.1's UNDEFINED_EPOCH_OFFSET
	// answer truncates to the fetcher's fetch offset
	// (AbstractFetcherThread.getOffsetTruncationState), which is the HW the
	// fetcher was added at or, after a KIP-279 round that did not complete,
	// the offset that round truncated to, i.e. the follower's LEO. The spec
	// keeps no fetch offset, so the restored rule takes either: a superset.
	RestoreUndefinedToFetchOffset Restore = "undefined-to-fetch-offset"
	// RestoreStaleControllerRequests (item 5): before KIP-380 (2.2.0)
	// controller requests carry no broker epoch, so a LeaderAndIsr queued
	// for a broker's previous incarnation can reach the restarted one: the
	// controller's RequestSendThread resends the request it was sending
	// over a fresh connection to the same host and port (2.1.0
	// ControllerChannelManager.RequestSendThread.doWork: "Controller ...
	// epoch ... fails to send request ... Reconnecting to broker"), and a
	// broker that restarts within its ZooKeeper session is never seen dead
	// (KafkaController.onBrokerFailure runs on the session's expiry), so
	// its queue is not dropped (removeBroker). The restored Crash keeps
	// the broker's whole queue and the restarted broker handles it first:
	// a superset of Kafka's deliveries.
	RestoreStaleControllerRequests Restore = "stale-controller-requests"
)

// Restores lists the behaviours that can be put back, in issue 21's order.
var Restores = []Restore{RestoreDelayedFetchHW, RestoreHWAboveLEO, RestoreOutOfRangeLaterLEO, RestoreKRaftIsrRules,
	RestoreStaleControllerRequests, RestoreUndefinedToFetchOffset}

// RestoreInfo is what a restoration concerns.
type RestoreInfo struct {
	Item     int      // issue 21's item
	Policies []string // the release rows (keys of Releases) that have the behaviour
	// Unasserted are invariants the restored behaviour breaks by design
	// (Kafka does not have them); the verdict comparison leaves them out.
	Unasserted []string
	// Superset: the restoration adds more than Kafka does (Kafka's choice
	// depends on state the spec does not keep). Equal verdicts then hold
	// for Kafka a fortiori for holds configurations; a violation would need
	// checking against Kafka's exact rule.
	Superset bool
	Source   string // the code read, tag and function
}

// RestoreInfos describes each restoration.
var RestoreInfos = map[Restore]RestoreInfo{
	RestoreDelayedFetchHW: {Item: 1, Policies: []string{"HighWatermark", "Kip101", "LeaderEpoch", "DivergingEpoch", "EligibleLeader"},
		Source: "0.10.2.2 ReplicaManager.fetchMessages, DelayedFetch.onComplete; 3.9.0 ReplicaManager.fetchMessages, DelayedFetch.onComplete"},
	RestoreHWAboveLEO: {Item: 2, Policies: []string{"HighWatermark", "Kip101", "LeaderEpoch"},
		Unasserted: []string{"HWBelowLEO"},
		Source:     "2.1.0 ReplicaFetcherThread.truncate, Replica.convertHWToLocalOffsetMetadata; 0.10.2.2 Replica.convertHWToLocalOffsetMetadata, Log.convertToOffsetMetadata"},
	RestoreOutOfRangeLaterLEO: {Item: 3, Policies: []string{"HighWatermark", "Kip101", "LeaderEpoch", "DivergingEpoch", "EligibleLeader"}, Superset: true,
		Source: "2.1.0 and 3.9.0-rc3 AbstractFetcherThread.fetchOffsetAndTruncate; 0.10.2.2 ReplicaFetcherThread.handleOffsetOutOfRange"},
	RestoreStaleControllerRequests: {Item: 5, Policies: []string{"HighWatermark", "Kip101", "LeaderEpoch"}, Superset: true,
		Source: "2.1.0 ControllerChannelManager.RequestSendThread.doWork, KafkaController.onBrokerFailure; KIP-380 (2.2.0) adds the broker epoch"},
	RestoreKRaftIsrRules: {Item: 4, Policies: []string{"DivergingEpoch", "EligibleLeader"},
		Source: "3.9.0-rc3 ReplicationControlManager.validateAlterPartitionData, ineligibleReplicasForIsr, handleBrokerFenced, generateLeaderAndIsrUpdates; PartitionChangeBuilder.completeReassignmentIfNeeded/build (an empty ISR only with ELR)"},
	RestoreUndefinedToFetchOffset: {Item: 6, Policies: []string{"LeaderEpoch"}, Superset: true,
		Source: "2.1.0 AbstractFetcherThread.getOffsetTruncationState, updateFetchOffsetAndMaybeMarkTruncationComplete"},
}

// validateRestore checks c.Restore names a restoration of c's release.
func (c *Config) validateRestore() error {
	if c.Restore == "" {
		return nil
	}
	info, ok := RestoreInfos[c.Restore]
	if !ok {
		return fmt.Errorf("restore %q: no such Kafka behaviour (known: %v)", c.Restore, Restores)
	}
	if !slices.Contains(info.Policies, c.Truncation) {
		return fmt.Errorf("restore %s: Truncation = %q has no such behaviour (it is of %v)", c.Restore, c.Truncation, info.Policies)
	}
	return nil
}

// restoreChoices is how many values the choice parameter of an action of
// kind k ranges over (0: it takes none). A restored behaviour that is a
// choice inside one action (TLA+'s \E inside the operator) is enumerated by
// Next as that parameter; choice 0 is always the spec's own successor.
func restoreChoices(cfg *Config, k ActionKind) int {
	switch {
	case cfg.Restore == RestoreOutOfRangeLaterLEO && k == HandleFetchResponse:
		return cfg.MaxRecords + 1
	case cfg.Restore == RestoreUndefinedToFetchOffset && k == HandleOffsetsForLeaderEpochResponse:
		return 2
	}
	return 0
}

// truncHW is TruncHW, or under RestoreHWAboveLEO the HW left where it was.
func truncHW(cfg *Config, s *State, r, o int) int {
	if cfg.Restore == RestoreHWAboveLEO { // restore hook
		return s.Hw[r]
	}
	return TruncHW(s, r, o)
}

// visibleHW is the HW below which CommittedPrefixesAgree and NoDivergence
// compare logs: the HW, or under RestoreHWAboveLEO min(HW, LEO).
func visibleHW(s *State, r int, restored bool) int {
	if restored {
		return min(s.Hw[r], s.LEO(r))
	}
	return s.Hw[r]
}

// restorePatch is one edit of Replication.tla: old must occur exactly n
// times (once when n is 0) and each becomes new.
type restorePatch struct {
	old, new string
	n        int
}

var restorePatches = map[Restore][]restorePatch{
	RestoreDelayedFetchHW: {
		{old: `-----------------------------------------------------------------------------
Next ==`,
			new: `(* restored (delayed-fetch-hw): a fetch that read nothing waited in the   *)
(* leader's purgatory and completes now, read again (DelayedFetch.onComplete). *)
CompleteDelayedFetch(l, f) ==
    /\ inflight[f].type = "FetchResponse"
    /\ inflight[f].src = l
    /\ LET m == inflight[f] IN
       /\ m.error = "NONE" /\ ~m.diverging /\ m.records = <<>>
       /\ role[l] = "Leader" /\ leaderEpoch[l] = m.currentEpoch /\ m.offset <= LEO(l)
       /\ hw[l] # m.hw \/ LEO(l) # m.offset
       /\ inflight' = [inflight EXCEPT ![f] =
              FetchResp(l, f, "NONE", m.offset, SubSeq(log[l], m.offset + 1, LEO(l)), hw[l], LEO(l), FALSE,
                        NoDivergence0, m.currentEpoch)]
    /\ UNCHANGED <<durable, volatile, ctrl, controllerQueue, alterPartition, ghost>>

-----------------------------------------------------------------------------
Next ==`},
		{old: `    \/ \E r \in Replicas : MissLeaderAndIsr(r)
`,
			new: `    \/ \E r \in Replicas : MissLeaderAndIsr(r)
    \/ \E l, f \in Replicas : CompleteDelayedFetch(l, f)  \* restored (delayed-fetch-hw)
`},
	},
	RestoreHWAboveLEO: {
		{old: `TruncHW(r, o)    == Min(hw[r], Min(o, LEO(r)))`,
			new: `TruncHW(r, o)    == hw[r]  \* restored (hw-above-leo): truncation leaves the HW`},
		{old: `        /\ AdvanceHW(r, log[r], m.isr, m.isr, views, from, m.epoch)
        /\ UNCHANGED <<log, hwCheckpoint>>`,
			new: `        /\ LET h0  == IF isNewLeader /\ hw[r] > LEO(r) THEN 0 ELSE hw[r]  \* restored (hw-above-leo)
               new == NewHW(r, log[r], m.isr, m.isr, views, h0)
           IN  /\ hw' = [hw EXCEPT ![r] = new]
               /\ committed' = committed \cup NewlyCommitted(log[r], h0, new)
               /\ acked' = acked \cup NewlyAcked(log[r], h0, new, from, m.epoch, m.isr)
        /\ UNCHANGED <<log, hwCheckpoint>>`},
		{old: `\A o \in 0..(Min(hw[r], hw[s]) - 1) : log[r][o + 1] = log[s][o + 1]`,
			new: `\A o \in 0..(Min(Min(hw[r], LEO(r)), Min(hw[s], LEO(s))) - 1) : log[r][o + 1] = log[s][o + 1]`, n: 2},
	},
	RestoreOutOfRangeLaterLEO: {
		{old: `            THEN /\ log' = [log EXCEPT ![f] = TruncLog(f, m.leo)]
                 /\ epochCache' = [epochCache EXCEPT ![f] = TruncCache(f, m.leo)]
                 /\ hw' = [hw EXCEPT ![f] = TruncHW(f, m.leo)]
                 /\ UNCHANGED fetchState`,
			new: `            THEN \/ \E x \in m.leo..(LEO(f) - 1) :  \* restored (out-of-range-later-leo)
                      /\ log' = [log EXCEPT ![f] = TruncLog(f, x)]
                      /\ epochCache' = [epochCache EXCEPT ![f] = TruncCache(f, x)]
                      /\ hw' = [hw EXCEPT ![f] = TruncHW(f, x)]
                      /\ UNCHANGED fetchState
                 \/ UNCHANGED <<log, epochCache, hw, fetchState>>`},
	},
	RestoreStaleControllerRequests: {
		{old: `                 IF x = r THEN <<>>
                 ELSE IF fence`,
			new: `                 IF x = r THEN controllerQueue[r]  \* restored (stale-controller-requests)
                 ELSE IF fence`},
		{old: `                 IF x = r THEN (IF ctrlLeader # None THEN <<m>> ELSE <<>>)`,
			new: `                 IF x = r THEN controllerQueue[r] \o (IF ctrlLeader # None THEN <<m>> ELSE <<>>)  \* restored (stale-controller-requests)`},
		{old: `HandleLeaderAndIsr(r) ==
    /\ controllerQueue[r] # <<>>`,
			new: `HandleLeaderAndIsr(r) ==
    /\ Up(r)  \* restored (stale-controller-requests): an offline broker keeps its queue
    /\ controllerQueue[r] # <<>>`},
	},
	RestoreKRaftIsrRules: {
		{old: `                  ELSE IF \E x \in m.isr \ ctrlIsr :`,
			new: `                  ELSE IF \E x \in m.isr :  \* restored (kraft-isr-rules): every member`},
		{old: `                    ELSE Rel.asyncIsr /\ ctrlLeader \notin {r, None} /\ r \in ctrlIsr`,
			new: `                    ELSE Rel.asyncIsr /\ r \in ctrlIsr /\ ctrlIsr # {r}  \* restored (kraft-isr-rules)`},
	},
	RestoreUndefinedToFetchOffset: {
		{old: `       THEN LET t == TruncationTarget(f, m, hw[f])
            IN  /\ log' = [log EXCEPT ![f] = TruncLog(f, t.to)]
                /\ epochCache' = [epochCache EXCEPT ![f] = TruncCache(f, t.to)]
                /\ hw' = [hw EXCEPT ![f] = TruncHW(f, t.to)]
                /\ fetchState' = [fetchState EXCEPT ![f] = IF t.done THEN "Fetching" ELSE "Truncating"]`,
			new: `       THEN \E fo \in IF m.offset = -1 THEN {hw[f], LEO(f)} ELSE {hw[f]} :  \* restored (undefined-to-fetch-offset)
            LET t == TruncationTarget(f, m, fo)
            IN  /\ log' = [log EXCEPT ![f] = TruncLog(f, t.to)]
                /\ epochCache' = [epochCache EXCEPT ![f] = TruncCache(f, t.to)]
                /\ hw' = [hw EXCEPT ![f] = TruncHW(f, t.to)]
                /\ fetchState' = [fetchState EXCEPT ![f] = IF t.done THEN "Fetching" ELSE "Truncating"]`},
	},
}

// RestoreSpec returns Replication.tla's text with r's behaviour put back,
// for TLC. It fails when the spec no longer holds a patched text as often
// as the patch expects (the spec changed: update restorePatches with it).
func RestoreSpec(spec []byte, r Restore) ([]byte, error) {
	ps, ok := restorePatches[r]
	if !ok {
		return nil, fmt.Errorf("restore %q: no such Kafka behaviour (known: %v)", r, Restores)
	}
	for _, p := range ps {
		want := max(p.n, 1)
		if n := bytes.Count(spec, []byte(p.old)); n != want {
			return nil, fmt.Errorf("restore %s: the spec holds its patched text %d times, not %d:\n%s", r, n, want, p.old)
		}
		spec = bytes.ReplaceAll(spec, []byte(p.old), []byte(p.new))
	}
	return spec, nil
}
