----------------------------- MODULE Replication -----------------------------
(***************************************************************************)
(* One Kafka partition replicated over a set of brokers ("replicas"), with *)
(* an abstract controller.  Each truncation policy is one shipped Kafka    *)
(* release, and the table Releases below is the one place that says what   *)
(* that release does:                                                       *)
(*                                                                         *)
(*   "HighWatermark"  Kafka 0.10.2: a follower of a new leader truncates to *)
(*                    its HW.                                               *)
(*   "Kip101"         Kafka 0.11.0: OffsetsForLeaderEpoch v0, the leader    *)
(*                    answers the start offset of the next higher epoch.   *)
(*   "LeaderEpoch"    Kafka 2.1: KIP-101 + KIP-279 (the leader answers      *)
(*                    (epoch, end offset), the follower loops until it     *)
(*                    finds an epoch both know) + KIP-320 fencing +        *)
(*                    KAFKA-7415's epoch cache.                            *)
(*   "DivergingEpoch" Kafka 2.8+ / 3.x / 4.x with KRaft: no truncation      *)
(*                    phase; Fetch carries lastFetchedEpoch and the leader *)
(*                    answers divergingEpoch; ISR changes are asynchronous *)
(*                    AlterPartition requests fenced by the partition      *)
(*                    epoch, with the HW over the maximal ISR (KIP-497,    *)
(*                    KIP-841).                                            *)
(*   "EligibleLeader" Kafka 4.1 with eligible.leader.replicas.version=1     *)
(*                    (KIP-966 part 1; opt-in on 4.0, the default for new  *)
(*                    clusters from 4.1): the brokers of 3.9, and a        *)
(*                    controller that keeps the replicas removed from an   *)
(*                    ISR below min.insync.replicas eligible (the ELR),    *)
(*                    lets the ISR become empty, and elects from the ISR,  *)
(*                    then the ELR, then the last known leader.            *)
(*                                                                         *)
(* Fencing (KIP-320) is a constant of its own: a configuration whose       *)
(* Fencing differs from its release's is an ablation, a what-if that never *)
(* shipped, and says so (IsAblation).                                      *)
(*                                                                         *)
(* Conventions (Kafka's): offsets are 0-based; the record at offset o of   *)
(* replica r is log[r][o+1]; LEO = Len(log[r]) is the next offset to       *)
(* write; HW is exclusive (a consumer sees offsets < HW).                  *)
(*                                                                         *)
(* Every action is one operator with explicit parameters and Next is a     *)
(* disjunction of \E p : Action(p), so that TLC's exported traces name     *)
(* each step's action and parameters.  The Go model (model/) implements    *)
(* the same actions with the same names; docs/mapping.md is the table.     *)
(***************************************************************************)
EXTENDS Integers, Sequences, FiniteSets, TLC

CONSTANTS
    Replicas,                     \* the brokers holding a replica (model values)
    None,                         \* a model value: "no leader"
    Truncation,                   \* the policy, one release: a key of Releases
    Fencing,                      \* KIP-320: leaders check the caller's current leader epoch
    Acks,                         \* producer acks: "0" | "1" | "all"
    MinInsyncReplicas,            \* min.insync.replicas
    MinIsrGatesHW,                \* Kafka >= 3.7: HW does not advance while |ISR| < min.insync
    UncleanLeaderElectionEnable,  \* unclean.leader.election.enable
    UnflushedLoss,                \* a crash may lose the unflushed tail of the log
    LossyNetwork,                 \* the network may drop any message (else only those to a dead broker)
    MissedLeaderAndIsr,           \* a live broker may never see a LeaderAndIsr that a later one follows
                                  \* (ZooKeeper: controller failover, session expiry; KRaft: a metadata
                                  \* delta spanning several partition records); see MissLeaderAndIsr
    MaxRecords,                   \* bound: records produced in a behaviour
    MaxEpoch,                     \* bound: highest leader epoch the controller assigns
    MaxCrashes,                   \* bound: crashes in a behaviour
    MaxPartitionEpoch             \* bound: a leader proposes an ISR change only below this partition
                                  \* epoch (asynchronous AlterPartition, DivergingEpoch)

-----------------------------------------------------------------------------
(***************************************************************************)
(* The releases.  One row per policy; every behaviour the actions below    *)
(* vary by release is a field here, named after what Kafka does, and each  *)
(* cell follows the named release's code (docs/spec.md gives file and      *)
(* function per cell):                                                     *)
(*                                                                         *)
(*  restartFetcherOn  when a LeaderAndIsr that keeps r a follower restarts *)
(*                    its fetcher (and so its truncation): "LeaderChange"  *)
(*                    (Partition.makeFollower returns true only for a new  *)
(*                    leader) or "EpochChange" (for any new leader epoch). *)
(*  reconcile         how a restarted fetcher finds where its log stops    *)
(*                    agreeing: "TruncateToHW", "OffsetsForLeaderEpochV0"  *)
(*                    (0.11.0's answer: start of the next higher epoch),   *)
(*                    "OffsetsForLeaderEpoch" (KIP-279's (epoch, end       *)
(*                    offset) and loop), "DivergingEpoch" (no phase: Fetch *)
(*                    carries lastFetchedEpoch, the leader answers         *)
(*                    divergingEpoch).                                     *)
(*  cacheAssign       LeaderEpochFileCache.assign: "None" (no cache: 0.10.2*)
(*                    keeps none, the variable stays empty), "GreaterOnly" *)
(*                    (0.11.0-2.0: append only an epoch above the latest,  *)
(*                    at or past its start), "TruncateAndAppend"           *)
(*                    (KAFKA-7415, 2.1+: drop conflicting entries, append).*)
(*  leaderEntry       when a leader's own epoch enters its cache:          *)
(*                    "FirstAppend" or "BecomeLeader" (2.1+), "None".      *)
(*  undefinedTo       where a follower truncates when the leader answers   *)
(*                    UNDEFINED_EPOCH_OFFSET: "HW" or "FetchOffset".       *)
(*  asyncIsr          ISR changes: FALSE = the leader's conditional write  *)
(*                    (ZooKeeper) takes effect at once; TRUE = AlterIsr /  *)
(*                    AlterPartition request and controller decision as    *)
(*                    two steps, the HW over the maximal ISR meanwhile.    *)
(*  expandLiveOnly    ExpandIsr only of a live broker (KIP-841).           *)
(*  expandNeedsEpochStart  ExpandIsr also needs the follower at the start  *)
(*                    of the leader's epoch (KAFKA-7128).                  *)
(*  staleFetchServed  whether a leader still serves, and counts, a fetch   *)
(*                    its sender sent before it crashed (KIP-903: a KRaft  *)
(*                    leader rejects it by broker epoch from 3.7).         *)
(*  minIsrGatesHW     the HW does not advance while the ISR is below       *)
(*                    min.insync.replicas (3.7+).                           *)
(*  fencing           whether the release fences by leader epoch (KIP-320).*)
(*  isrBrokerEpochs   KIP-903 (3.5+, KRaft): a replica joins the ISR only   *)
(*                    with the broker epoch of its current registration:   *)
(*                    the leader proposes a follower only when it counted  *)
(*                    a fetch of the follower's current incarnation        *)
(*                    (Partition.isReplicaIsrEligible), and AlterPartition *)
(*                    carries each member's broker epoch, which the        *)
(*                    controller checks (INELIGIBLE_REPLICA).              *)
(*  elr               Eligible Leader Replicas (KIP-966): the controller's *)
(*                    ELR and last known leader, ISR shrinks and fencing   *)
(*                    that may empty the ISR, the election order ISR, ELR, *)
(*                    last known leader, and a restarting broker leaving   *)
(*                    the ELR (its shutdown was unclean).                  *)
(*                                                                         *)
(* Every release keeps a re-elected leader's views of its followers        *)
(* (Partition.makeLeader resets them only if isNewLeader), and none checks *)
(* the epoch of a waiting DelayedProduce.                                  *)
(***************************************************************************)
Releases == [
    HighWatermark  |-> [release |-> "0.10.2.2", restartFetcherOn |-> "LeaderChange",
                        reconcile |-> "TruncateToHW", cacheAssign |-> "None",
                        leaderEntry |-> "None", undefinedTo |-> "HW",
                        asyncIsr |-> FALSE, expandLiveOnly |-> FALSE,
                        expandNeedsEpochStart |-> FALSE, staleFetchServed |-> TRUE,
                        minIsrGatesHW |-> FALSE, fencing |-> FALSE, isrBrokerEpochs |-> FALSE, elr |-> FALSE],
    Kip101         |-> [release |-> "0.11.0.3", restartFetcherOn |-> "LeaderChange",
                        reconcile |-> "OffsetsForLeaderEpochV0", cacheAssign |-> "GreaterOnly",
                        leaderEntry |-> "FirstAppend", undefinedTo |-> "HW",
                        asyncIsr |-> FALSE, expandLiveOnly |-> FALSE,
                        expandNeedsEpochStart |-> FALSE, staleFetchServed |-> TRUE,
                        minIsrGatesHW |-> FALSE, fencing |-> FALSE, isrBrokerEpochs |-> FALSE, elr |-> FALSE],
    LeaderEpoch    |-> [release |-> "2.1.0", restartFetcherOn |-> "EpochChange",
                        reconcile |-> "OffsetsForLeaderEpoch", cacheAssign |-> "TruncateAndAppend",
                        leaderEntry |-> "BecomeLeader", undefinedTo |-> "FetchOffset",
                        asyncIsr |-> FALSE, expandLiveOnly |-> FALSE,
                        expandNeedsEpochStart |-> TRUE, staleFetchServed |-> TRUE,
                        minIsrGatesHW |-> FALSE, fencing |-> TRUE, isrBrokerEpochs |-> FALSE, elr |-> FALSE],
    DivergingEpoch |-> [release |-> "3.9.0", restartFetcherOn |-> "EpochChange",
                        reconcile |-> "DivergingEpoch", cacheAssign |-> "TruncateAndAppend",
                        leaderEntry |-> "BecomeLeader", undefinedTo |-> "FetchOffset",
                        asyncIsr |-> TRUE, expandLiveOnly |-> TRUE,
                        expandNeedsEpochStart |-> TRUE, staleFetchServed |-> FALSE,
                        minIsrGatesHW |-> TRUE, fencing |-> TRUE, isrBrokerEpochs |-> TRUE, elr |-> FALSE],
    EligibleLeader |-> [release |-> "4.1.0", restartFetcherOn |-> "EpochChange",
                        reconcile |-> "DivergingEpoch", cacheAssign |-> "TruncateAndAppend",
                        leaderEntry |-> "BecomeLeader", undefinedTo |-> "FetchOffset",
                        asyncIsr |-> TRUE, expandLiveOnly |-> TRUE,
                        expandNeedsEpochStart |-> TRUE, staleFetchServed |-> FALSE,
                        minIsrGatesHW |-> TRUE, fencing |-> TRUE, isrBrokerEpochs |-> TRUE, elr |-> TRUE]]

Rel == Releases[Truncation]

(* A configuration that changes its release's behaviour is an ablation.   *)
(* (The min.insync.replicas gate cannot act when min.insync.replicas = 1.) *)
IsAblation ==
    \/ Fencing # Rel.fencing
    \/ MinIsrGatesHW # Rel.minIsrGatesHW /\ MinInsyncReplicas > 1

ASSUME Truncation \in DOMAIN Releases
ASSUME Acks \in {"0", "1", "all"}
ASSUME Fencing \in BOOLEAN /\ MinIsrGatesHW \in BOOLEAN
ASSUME UncleanLeaderElectionEnable \in BOOLEAN /\ UnflushedLoss \in BOOLEAN /\ LossyNetwork \in BOOLEAN
ASSUME MissedLeaderAndIsr \in BOOLEAN
ASSUME MinInsyncReplicas \in Nat \ {0}
ASSUME MaxRecords \in Nat /\ MaxEpoch \in Nat /\ MaxCrashes \in Nat /\ MaxPartitionEpoch \in Nat
ASSUME None \notin Replicas

VARIABLES
    \* --- durable, per replica (survive a crash) ---
    log,            \* Seq of [id, epoch]: the partition log
    epochCache,     \* Seq of [epoch, start]: leader-epoch-checkpoint (LeaderEpochFileCache)
    hwCheckpoint,   \* replication-offset-checkpoint: the HW as last written
    \* --- volatile, per replica (lost on crash) ---
    role,           \* "Offline" | "Starting" | "Leader" | "Follower"
    leaderEpoch,    \* leader epoch of the last LeaderAndIsr applied, -1 if none
    leader,         \* leader named by that LeaderAndIsr (itself when leader), None if none
    hw,             \* high watermark
    isr,            \* a leader's committed ISR ({} unless leader)
    followerLeo,    \* a leader's view of each follower's LEO: fetch offset of its last fetch, -1 unknown
    followerBrokerEpoch, \* a leader's view of each follower's broker epoch: that of the follower's
                    \* last fetch it counted, -1 unknown (always -1 without Rel.isrBrokerEpochs)
    fetchState,     \* a follower's fetcher: "Truncating" | "Fetching"; "None" otherwise
    produceEpoch,   \* a leader's first epoch of uninterrupted leadership: its DelayedProduce
                    \* requests from that epoch on are still waiting (-1 unless leader)
    partitionEpoch, \* a leader's partition epoch, from its LeaderAndIsr or AlterPartition (-1 unless leader)
    pendingIsr,     \* the ISR a leader proposed in an AlterPartition not yet committed; {} when none
    \* --- the controller ---
    ctrlLeader,     \* the leader it elected last; None before the first election and while
                    \* that leader is down and no one else has been elected
    ctrlEpoch,      \* the leader epoch it assigned last, -1 before the first election
    ctrlIsr,        \* the ISR it holds (changed by elections and by AlterPartition)
    ctrlPartitionEpoch, \* the partition epoch: bumped by every change of leader, ISR or ELR it makes
    ctrlElr,        \* the Eligible Leader Replicas (KIP-966; {} unless Rel.elr): replicas that
                    \* left the ISR while it was below min.insync.replicas and may still lead
    brokerEpoch,    \* per broker, the epoch of its current registration with the controller:
                    \* bumped when it registers again after a restart (0 without
                    \* Rel.isrBrokerEpochs)
    ctrlLastKnownElr, \* Kafka's LastKnownElr field, which holds the last known leader: the
                    \* leader when the ISR became empty, {} once the partition has a leader again
    \* --- the network ---
    controllerQueue,\* per broker: LeaderAndIsr requests sent, not yet applied (in order, reliable:
                    \* ControllerChannelManager retries until the broker dies)
    inflight,       \* per follower: its one outstanding fetcher request, or the response to it;
                    \* NoMsg when none (a fetcher has one request in flight at a time)
    alterPartition, \* per leader: its one AlterPartition request, or the controller's response
    \* --- bookkeeping and history (ghost) ---
    nextId,         \* id of the next produced record
    crashes,        \* crashes so far
    acked,          \* set of [offset, id]: records acknowledged to the producer
    committed       \* set of [offset, id]: records that were ever below a leader's HW

durable  == <<log, epochCache, hwCheckpoint>>
volatile == <<role, leaderEpoch, leader, hw, isr, followerLeo, followerBrokerEpoch, fetchState, produceEpoch,
              partitionEpoch, pendingIsr>>
ctrl     == <<ctrlLeader, ctrlEpoch, ctrlIsr, ctrlPartitionEpoch, ctrlElr, brokerEpoch, ctrlLastKnownElr>>
ghost    == <<nextId, crashes, acked, committed>>
net      == <<controllerQueue, inflight, alterPartition>>
vars     == <<durable, volatile, ctrl, net, ghost>>

-----------------------------------------------------------------------------
(* Sets and constants used below. *)

Epochs   == 0..MaxEpoch
Offsets  == 0..MaxRecords
Ids      == 1..MaxRecords
Roles    == {"Offline", "Starting", "Leader", "Follower"}
Errors   == {"NONE", "NOT_LEADER_OR_FOLLOWER", "FENCED_LEADER_EPOCH",
             "UNKNOWN_LEADER_EPOCH", "OFFSET_OUT_OF_RANGE"}
AlterErrors == {"NONE", "FENCED_LEADER_EPOCH", "INVALID_UPDATE_VERSION", "INELIGIBLE_REPLICA"}
Record   == [id : Ids, epoch : Epochs]
Entry    == [epoch : Epochs, start : Offsets]
Up(r)    == role[r] # "Offline"
Min(a, b) == IF a < b THEN a ELSE b
Max(a, b) == IF a > b THEN a ELSE b
LEO(r)   == Len(log[r])

(* Eligible Leader Replicas (KIP-966), the controller's side              *)
(* (PartitionChangeBuilder.maybePopulateTargetElr): while the new ISR is   *)
(* below the effective min.insync.replicas, the replicas leaving it join  *)
(* the ELR and the ELR keeps its members but those now in the ISR; at or   *)
(* above it the ELR is empty.  Without ELR it is always empty.  A broker  *)
(* with an unclean shutdown leaves it when it registers again (Restart).  *)
EffMinIsr == Min(MinInsyncReplicas, Cardinality(Replicas))
ElrAfter(oldIsr, newIsr, elr) ==
    IF ~Rel.elr \/ Cardinality(newIsr) >= EffMinIsr THEN {}
    ELSE (elr \cup oldIsr) \ newIsr

(* Messages.  Requests carry the sender's current leader epoch (KIP-320);  *)
(* responses echo it so the follower can tell a stale response.  A fetch   *)
(* request whose sender crashed is an orphan: the leader may still serve  *)
(* it (updating its view of the sender), and its response goes nowhere.   *)
NoMsg == [type |-> "None"]
LeaderAndIsrMsg(l, e, s, pe) ==
    [type |-> "LeaderAndIsr", leader |-> l, epoch |-> e, isr |-> s, partitionEpoch |-> pe]
OffsetsReq(f, l, e, ce) ==
    [type |-> "OffsetsForLeaderEpoch", src |-> f, dst |-> l, epoch |-> e, currentEpoch |-> ce]
OffsetsResp(l, f, err, e, o, ce) ==
    [type |-> "OffsetsForLeaderEpochResponse", src |-> l, dst |-> f, error |-> err,
     epoch |-> e, offset |-> o, currentEpoch |-> ce]
FetchReq(f, l, o, lfe, ce, orphan) ==
    [type |-> "Fetch", src |-> f, dst |-> l, offset |-> o, lastFetchedEpoch |-> lfe,
     currentEpoch |-> ce, orphan |-> orphan]
(* The leader has read the records and its HW for this fetch; the update  *)
(* of the follower's fetch state, and then the response, are still to come *)
(* (ReplicaManager.fetchMessages: readFromLocalLog, then                    *)
(* updateFollowerFetchState).                                              *)
FetchRead(l, f, o, recs, h, leo, ce, orphan) ==
    [type |-> "FetchRead", src |-> l, dst |-> f, offset |-> o, records |-> recs,
     hw |-> h, leo |-> leo, currentEpoch |-> ce, orphan |-> orphan]
NoDivergence0 == [epoch |-> -1, offset |-> -1]
FetchResp(l, f, err, o, recs, h, leo, div, dv, ce) ==
    [type |-> "FetchResponse", src |-> l, dst |-> f, error |-> err, offset |-> o,
     records |-> recs, hw |-> h, leo |-> leo, diverging |-> div, divergingEpoch |-> dv,
     currentEpoch |-> ce]
(* brokerEpochs: the broker epoch the request gives each ISR member (-1   *)
(* for a non-member, and where the release has none: -1 skips the check,  *)
(* as Kafka's AlterPartition does for a broker epoch of -1).              *)
AlterPartitionReq(l, e, pe, s, be) ==
    [type |-> "AlterPartition", leaderEpoch |-> e, partitionEpoch |-> pe, isr |-> s, brokerEpochs |-> be]
AlterPartitionResp(err, e, pe, s) ==
    [type |-> "AlterPartitionResponse", error |-> err, leaderEpoch |-> e, partitionEpoch |-> pe, isr |-> s]

-----------------------------------------------------------------------------
(* The leader epoch cache (LeaderEpochFileCache).                           *)

LatestEpoch(c) == IF c = <<>> THEN -1 ELSE c[Len(c)].epoch

(* assign(e, s), per release.  KAFKA-7415 (2.1+): a no-op when e is the     *)
(* latest epoch and s is not below its start; otherwise drop, from the      *)
(* tail, every entry with epoch >= e or start >= s, then append (e, s).     *)
(* The cache is sorted on both fields, so dropping from the tail is a       *)
(* filter.  0.11.0-2.0: append only when e is above the latest epoch and s  *)
(* not below the latest start.  0.10.2: there is no cache.                  *)
Assign(c, e, s) ==
    CASE Rel.cacheAssign = "TruncateAndAppend" ->
            IF c # <<>> /\ e = c[Len(c)].epoch /\ s >= c[Len(c)].start
            THEN c
            ELSE Append(SelectSeq(c, LAMBDA x : x.epoch < e /\ x.start < s),
                        [epoch |-> e, start |-> s])
      [] Rel.cacheAssign = "GreaterOnly" ->
            IF c = <<>> \/ (e > c[Len(c)].epoch /\ s >= c[Len(c)].start)
            THEN Append(c, [epoch |-> e, start |-> s])
            ELSE c
      [] OTHER -> c

(* truncateFromEnd(o): drop entries whose start offset is >= o. *)
TruncateFromEnd(c, o) == SelectSeq(c, LAMBDA x : x.start < o)

(* endOffsetFor(e) on a cache c of a log whose LEO is leo, as [epoch, offset]. *)
EndOffsetFor(c, leo, e) ==
    LET higher == {i \in 1..Len(c) : c[i].epoch > e}
        floor  == {i \in 1..Len(c) : c[i].epoch <= e}
    IN  IF e = -1 THEN [epoch |-> -1, offset |-> -1]
        ELSE IF e = LatestEpoch(c) THEN [epoch |-> e, offset |-> leo]
        ELSE IF higher = {} THEN [epoch |-> -1, offset |-> -1]
        ELSE LET next == CHOOSE i \in higher : \A j \in higher : i <= j
             IN  IF floor = {} THEN [epoch |-> e, offset |-> c[next].start]
                 ELSE LET fl == CHOOSE i \in floor : \A j \in floor : i >= j
                      IN  [epoch |-> c[fl].epoch, offset |-> c[next].start]

(* Kafka 0.11.0's endOffsetFor (OffsetsForLeaderEpoch v0): LEO for the      *)
(* latest epoch, else the start offset of the next higher epoch, else -1.   *)
Kip101EndOffset(c, leo, e) ==
    LET higher == {i \in 1..Len(c) : c[i].epoch > e}
    IN  IF e = -1 THEN -1
        ELSE IF e = LatestEpoch(c) THEN leo
        ELSE IF higher = {} \/ c = <<>> \/ e < c[1].epoch THEN -1
        ELSE c[CHOOSE i \in higher : \A j \in higher : i <= j].start

(* A follower appends fetched records one by one, assigning (record epoch, *)
(* record offset) to its cache for each.                                    *)
RECURSIVE AppendToCache(_, _, _)
AppendToCache(c, recs, base) ==
    IF recs = <<>> THEN c
    ELSE AppendToCache(Assign(c, Head(recs).epoch, base), Tail(recs), base + 1)

-----------------------------------------------------------------------------
(* The leader's high watermark (Partition.maybeIncrementLeaderHW): the min  *)
(* LEO over the ISR, using the leader's own LEO and its view of each        *)
(* follower's; it cannot advance while a view is unknown (-1), nor, with    *)
(* MinIsrGatesHW, while the committed ISR is below min.insync.replicas; it  *)
(* only moves forward.  With asynchronous AlterPartition the ISR it takes   *)
(* the minimum over is the maximal ISR: the committed one together with a   *)
(* pending expansion (a pending shrink is not yet in effect).               *)
MaximalIsr(l) == isr[l] \cup pendingIsr[l]

CandidateHW(l, lg, s, gate, views) ==
    LET leos == {IF r = l THEN Len(lg) ELSE views[r] : r \in s}
        low  == CHOOSE x \in leos : \A y \in leos : x <= y
    IN  IF -1 \in leos \/ (MinIsrGatesHW /\ Cardinality(gate) < MinInsyncReplicas)
        THEN 0 ELSE low

NewHW(l, lg, s, gate, views, old) == Max(old, CandidateHW(l, lg, s, gate, views))

(* Records that a leader's HW moving from old to new makes visible, and the *)
(* acks=all records that it acknowledges: those its DelayedProduce requests *)
(* wait for, i.e. the records it wrote in the epochs from..to of its        *)
(* uninterrupted leadership (DelayedProduce checks no epoch), while the     *)
(* (maximal) ISR has min.insync.replicas members                            *)
(* (NOT_ENOUGH_REPLICAS_AFTER_APPEND otherwise).                            *)
NewlyCommitted(lg, old, new) ==
    {[offset |-> o, id |-> lg[o + 1].id] : o \in old..(new - 1)}
NewlyAcked(lg, old, new, from, to, s) ==
    IF Acks = "all" /\ Cardinality(s) >= MinInsyncReplicas
    THEN {[offset |-> o, id |-> lg[o + 1].id] :
             o \in {p \in old..(new - 1) : lg[p + 1].epoch >= from /\ lg[p + 1].epoch <= to}}
    ELSE {}

(* Update hw, committed and acked after leader l's log, ISRs or follower    *)
(* views changed to lg, s (committed), m (maximal), views.  from and to are *)
(* the epochs whose produce requests l holds (see produceEpoch).            *)
AdvanceHW(l, lg, s, m, views, from, to) ==
    LET new == NewHW(l, lg, m, s, views, hw[l])
    IN  /\ hw' = [hw EXCEPT ![l] = new]
        /\ committed' = committed \cup NewlyCommitted(lg, hw[l], new)
        /\ acked' = acked \cup NewlyAcked(lg, hw[l], new, from, to, m)

(* Truncating replica r's log to offset o (no-op beyond LEO, but the epoch *)
(* cache is always truncated, as UnifiedLog.truncateTo does).               *)
TruncLog(r, o)   == SubSeq(log[r], 1, Min(o, LEO(r)))
TruncCache(r, o) == TruncateFromEnd(epochCache[r], Min(o, LEO(r)))
TruncHW(r, o)    == Min(hw[r], Min(o, LEO(r)))

NoViews == [r \in Replicas |-> -1]

(* Whether follower f's slot holds a request to l of the given type. *)
RequestAt(f, l, type) == inflight[f].type = type /\ inflight[f].dst = l

(* The error a leader answers a follower's request with. *)
RequestError(l, m) ==
    IF role[l] # "Leader" THEN "NOT_LEADER_OR_FOLLOWER"
    ELSE IF Fencing /\ m.currentEpoch < leaderEpoch[l] THEN "FENCED_LEADER_EPOCH"
    ELSE IF Fencing /\ m.currentEpoch > leaderEpoch[l] THEN "UNKNOWN_LEADER_EPOCH"
    ELSE "NONE"

-----------------------------------------------------------------------------
Init ==
    /\ log = [r \in Replicas |-> <<>>]
    /\ epochCache = [r \in Replicas |-> <<>>]
    /\ hwCheckpoint = [r \in Replicas |-> 0]
    /\ role = [r \in Replicas |-> "Starting"]
    /\ leaderEpoch = [r \in Replicas |-> -1]
    /\ leader = [r \in Replicas |-> None]
    /\ hw = [r \in Replicas |-> 0]
    /\ isr = [r \in Replicas |-> {}]
    /\ followerLeo = [r \in Replicas |-> NoViews]
    /\ followerBrokerEpoch = [r \in Replicas |-> NoViews]
    /\ fetchState = [r \in Replicas |-> "None"]
    /\ produceEpoch = [r \in Replicas |-> -1]
    /\ partitionEpoch = [r \in Replicas |-> -1]
    /\ pendingIsr = [r \in Replicas |-> {}]
    /\ ctrlLeader = None
    /\ ctrlEpoch = -1
    /\ ctrlIsr = Replicas
    /\ ctrlPartitionEpoch = -1
    /\ ctrlElr = {}
    /\ brokerEpoch = [r \in Replicas |-> 0]
    /\ ctrlLastKnownElr = {}
    /\ controllerQueue = [r \in Replicas |-> <<>>]
    /\ inflight = [r \in Replicas |-> NoMsg]
    /\ alterPartition = [r \in Replicas |-> NoMsg]
    /\ nextId = 1
    /\ crashes = 0
    /\ acked = {}
    /\ committed = {}

-----------------------------------------------------------------------------
(* Who the controller may elect (PartitionChangeBuilder.electAnyLeader),   *)
(* in its order.  Clean: a live ISR member (covers offline, reassignment,   *)
(* preferred and controlled-shutdown elections, whose only difference is   *)
(* which eligible replica they prefer, and the same leader re-elected with *)
(* a smaller ISR, as the ZooKeeper controller's OfflineReplica does).      *)
(* With ELR, when the ISR is empty: a live ELR member, a clean election    *)
(* (isValidNewLeader); with the ELR empty too, the last known leader, an   *)
(* unclean election taken whatever unclean.leader.election.enable says     *)
(* (canElectLastKnownLeader).  Only when none of these is live, and        *)
(* unclean.leader.election.enable: any live replica.                       *)
ElrElectable(r)       == Rel.elr /\ ctrlIsr = {} /\ r \in ctrlElr
LastKnownElectable(r) == Rel.elr /\ ctrlIsr = {} /\ ctrlElr = {} /\ ctrlLastKnownElr = {r}
Electable(r)          == r \in ctrlIsr \/ ElrElectable(r) \/ LastKnownElectable(r)
UncleanElectable(r)   == UncleanLeaderElectionEnable /\ \A x \in Replicas : Up(x) => ~Electable(x)

(* The controller elects r and bumps the leader epoch and the partition    *)
(* epoch.  A clean election keeps the ISR's live members (the ELR follows  *)
(* it, ElrAfter); an ELR election makes the ISR {r} and takes r out of the *)
(* ELR (tryElection); any other election makes the ISR {r} and empties    *)
(* the ELR (maybeUpdateRecordElr).  The last known leader is forgotten     *)
(* once the partition has a leader (maybeUpdateLastKnownLeader).           *)
(* LeaderAndIsr goes to every live replica.                                 *)
Elect(r) ==
    /\ Up(r)
    /\ ctrlEpoch < MaxEpoch
    /\ Electable(r) \/ UncleanElectable(r)
    /\ LET newIsr == IF r \in ctrlIsr THEN {x \in ctrlIsr : Up(x)} ELSE {r}
           newElr == IF r \in ctrlIsr THEN ElrAfter(ctrlIsr, newIsr, ctrlElr)
                     ELSE IF ElrElectable(r) THEN ctrlElr \ {r}
                     ELSE {}
           e      == ctrlEpoch + 1
           pe     == ctrlPartitionEpoch + 1
       IN  /\ ctrlLeader' = r
           /\ ctrlEpoch' = e
           /\ ctrlIsr' = newIsr
           /\ ctrlPartitionEpoch' = pe
           /\ ctrlElr' = newElr
           /\ ctrlLastKnownElr' = {}
           /\ controllerQueue' = [x \in Replicas |->
                                    IF Up(x) THEN Append(controllerQueue[x], LeaderAndIsrMsg(r, e, newIsr, pe))
                                    ELSE controllerQueue[x]]
    /\ UNCHANGED <<durable, volatile, brokerEpoch, inflight, alterPartition, ghost>>

(* A replica applies a LeaderAndIsr request (ReplicaManager.becomeLeaderOrFollower). *)
(* isNewLeader is FALSE when r already leads: its DelayedProduce requests   *)
(* stay, and so do its views of its followers.                             *)
BecomeLeader(r, m) ==
    LET isNewLeader == role[r] # "Leader"
        c == IF Rel.leaderEntry = "BecomeLeader" THEN Assign(epochCache[r], m.epoch, LEO(r))
             ELSE epochCache[r]
        views == IF isNewLeader THEN NoViews ELSE followerLeo[r]
        from == IF isNewLeader THEN m.epoch ELSE produceEpoch[r]
    IN  /\ role' = [role EXCEPT ![r] = "Leader"]
        /\ leaderEpoch' = [leaderEpoch EXCEPT ![r] = m.epoch]
        /\ leader' = [leader EXCEPT ![r] = r]
        /\ isr' = [isr EXCEPT ![r] = m.isr]
        /\ followerLeo' = [followerLeo EXCEPT ![r] = views]
        /\ followerBrokerEpoch' = [followerBrokerEpoch EXCEPT ![r] =
                                      IF isNewLeader THEN NoViews ELSE followerBrokerEpoch[r]]
        /\ fetchState' = [fetchState EXCEPT ![r] = "None"]
        /\ produceEpoch' = [produceEpoch EXCEPT ![r] = from]
        /\ partitionEpoch' = [partitionEpoch EXCEPT ![r] = m.partitionEpoch]
        /\ pendingIsr' = [pendingIsr EXCEPT ![r] = {}]
        /\ epochCache' = [epochCache EXCEPT ![r] = c]
        /\ AdvanceHW(r, log[r], m.isr, m.isr, views, from, m.epoch)
        /\ UNCHANGED <<log, hwCheckpoint>>

(* Partition.makeFollower returns whether the fetcher restarts: for a new  *)
(* leader, or (per release) for any new epoch.  A restarted fetcher        *)
(* reconciles its log per release; one that is not restarted goes on as it *)
(* was, in the new epoch.  Under 3.9 "Truncating" means the fetcher has    *)
(* had no fetch answered without divergence yet: it fetches all the same   *)
(* (there is no separate phase), but its log may still be truncated.       *)
BecomeFollower(r, m) ==
    LET restart == Rel.restartFetcherOn = "EpochChange" \/ leader[r] # m.leader
    IN  /\ role' = [role EXCEPT ![r] = "Follower"]
        /\ leaderEpoch' = [leaderEpoch EXCEPT ![r] = m.epoch]
        /\ leader' = [leader EXCEPT ![r] = m.leader]
        /\ isr' = [isr EXCEPT ![r] = {}]
        /\ followerLeo' = [followerLeo EXCEPT ![r] = NoViews]
        /\ followerBrokerEpoch' = [followerBrokerEpoch EXCEPT ![r] = NoViews]
        /\ produceEpoch' = [produceEpoch EXCEPT ![r] = -1]
        /\ partitionEpoch' = [partitionEpoch EXCEPT ![r] = -1]
        /\ pendingIsr' = [pendingIsr EXCEPT ![r] = {}]
        /\ IF restart /\ Rel.reconcile = "TruncateToHW"
           THEN \* Kafka 0.10.2: truncate to the local HW, then fetch from there.
                /\ log' = [log EXCEPT ![r] = TruncLog(r, hw[r])]
                /\ epochCache' = [epochCache EXCEPT ![r] = TruncCache(r, hw[r])]
                /\ fetchState' = [fetchState EXCEPT ![r] = "Fetching"]
           ELSE /\ fetchState' = [fetchState EXCEPT ![r] =
                       IF ~restart THEN fetchState[r] ELSE "Truncating"]
                /\ UNCHANGED <<log, epochCache>>
        /\ UNCHANGED <<hw, hwCheckpoint, acked, committed>>

(* A LeaderAndIsr in r's current epoch with a newer partition epoch: the   *)
(* controller changed the ISR itself (it fenced a follower that died).     *)
(* The leader takes the ISR and drops a pending proposal                    *)
(* (Partition.makeLeader resets the state to CommittedPartitionState).     *)
UpdateIsr(r, m) ==
    /\ isr' = [isr EXCEPT ![r] = m.isr]
    /\ partitionEpoch' = [partitionEpoch EXCEPT ![r] = m.partitionEpoch]
    /\ pendingIsr' = [pendingIsr EXCEPT ![r] = {}]
    /\ AdvanceHW(r, log[r], m.isr, m.isr, followerLeo[r], produceEpoch[r], leaderEpoch[r])
    /\ UNCHANGED <<durable, role, leaderEpoch, leader, followerLeo, followerBrokerEpoch, fetchState, produceEpoch>>

(* A request with a newer epoch is always applied, even when the leader it *)
(* names has died since: KRaft always steps down (3.9.0-rc3                 *)
(* ReplicaManager.applyLocalFollowersDelta, "We always update the follower  *)
(* state"), and ZooKeeper's makeFollowers skips only a leader missing from  *)
(* the broker's metadata cache, which cannot happen to an elected leader:   *)
(* the controller sends UpdateMetadata after LeaderAndIsr on one FIFO       *)
(* channel (2.1.0 ControllerChannelManager.sendRequestsToBrokers), so the   *)
(* news of the leader's death comes after ("The leader broker should always *)
(* be present in the metadata cache", 2.1.0 makeFollowers).  A request     *)
(* whose epoch is not above the replica's is ignored, unless it only       *)
(* brings the leader a newer partition epoch.                               *)
HandleLeaderAndIsr(r) ==
    /\ controllerQueue[r] # <<>>
    /\ LET m == Head(controllerQueue[r])
       IN  /\ controllerQueue' = [controllerQueue EXCEPT ![r] = Tail(controllerQueue[r])]
           /\ IF m.epoch > leaderEpoch[r] /\ m.leader = r
              THEN BecomeLeader(r, m)
              ELSE IF m.epoch > leaderEpoch[r]
              THEN BecomeFollower(r, m)
              ELSE IF m.epoch = leaderEpoch[r] /\ m.leader = r /\ role[r] = "Leader"
                      /\ m.partitionEpoch > partitionEpoch[r]
              THEN UpdateIsr(r, m)
              ELSE UNCHANGED <<durable, volatile, acked, committed>>
    /\ UNCHANGED <<ctrl, inflight, alterPartition, nextId, crashes>>

(* A producer writes one record to leader l; l's cache assigns its epoch   *)
(* at the record (a no-op once the epoch has its entry).  acks=all is      *)
(* refused before append when the ISR is below min.insync.replicas         *)
(* (NOT_ENOUGH_REPLICAS).  acks=1 is acknowledged at once; acks=all when   *)
(* the HW passes the record (see AdvanceHW); acks=0 never.                 *)
Produce(l) ==
    /\ role[l] = "Leader"
    /\ nextId <= MaxRecords
    /\ Acks = "all" => Cardinality(isr[l]) >= MinInsyncReplicas
    /\ LET lg  == Append(log[l], [id |-> nextId, epoch |-> leaderEpoch[l]])
           new == NewHW(l, lg, MaximalIsr(l), isr[l], followerLeo[l], hw[l])
       IN  /\ log' = [log EXCEPT ![l] = lg]
           /\ epochCache' = [epochCache EXCEPT ![l] = Assign(epochCache[l], leaderEpoch[l], LEO(l))]
           /\ hw' = [hw EXCEPT ![l] = new]
           /\ committed' = committed \cup NewlyCommitted(lg, hw[l], new)
           /\ acked' = acked \cup NewlyAcked(lg, hw[l], new, produceEpoch[l], leaderEpoch[l], MaximalIsr(l))
                             \cup (IF Acks = "1" THEN {[offset |-> LEO(l), id |-> nextId]} ELSE {})
    /\ nextId' = nextId + 1
    /\ UNCHANGED <<hwCheckpoint, role, leaderEpoch, leader, isr, followerLeo, followerBrokerEpoch, fetchState,
                   produceEpoch, partitionEpoch, pendingIsr, ctrl, net, crashes>>

-----------------------------------------------------------------------------
(* The truncation phase of OffsetsForLeaderEpoch: Kip101 and LeaderEpoch.   *)

SendOffsetsForLeaderEpoch(f) ==
    /\ Rel.reconcile # "DivergingEpoch"
    /\ role[f] = "Follower"
    /\ fetchState[f] = "Truncating"
    /\ inflight[f].type = "None"
    /\ inflight' = [inflight EXCEPT ![f] = OffsetsReq(f, leader[f], LatestEpoch(epochCache[f]), leaderEpoch[f])]
    /\ UNCHANGED <<durable, volatile, ctrl, controllerQueue, alterPartition, ghost>>

HandleOffsetsForLeaderEpoch(l, f) ==
    /\ RequestAt(f, l, "OffsetsForLeaderEpoch")
    /\ Up(l)
    /\ LET m   == inflight[f]
           err == RequestError(l, m)
           ans == IF err # "NONE" THEN [epoch |-> -1, offset |-> -1]
                  ELSE IF Rel.reconcile = "OffsetsForLeaderEpochV0"
                  THEN [epoch |-> -1, offset |-> Kip101EndOffset(epochCache[l], LEO(l), m.epoch)]
                  ELSE EndOffsetFor(epochCache[l], LEO(l), m.epoch)
       IN  inflight' = [inflight EXCEPT ![f] = OffsetsResp(l, f, err, ans.epoch, ans.offset, m.currentEpoch)]
    /\ UNCHANGED <<durable, volatile, ctrl, controllerQueue, alterPartition, ghost>>

(* The follower's rule, [offset to truncate to, whether truncation is      *)
(* complete], on the leader's answer a = [epoch, offset] and the offset fo *)
(* the fetcher would fetch from: AbstractFetcherThread.getOffsetTruncationState *)
(* (2.1+, also for divergingEpoch), ReplicaFetcherThread.maybeTruncate      *)
(* (0.11.0).                                                                *)
TruncationTarget(f, a, fo) ==
    IF a.offset = -1
    THEN [to |-> IF Rel.undefinedTo = "HW" THEN hw[f] ELSE fo, done |-> TRUE]
    ELSE IF Rel.reconcile = "OffsetsForLeaderEpochV0" THEN [to |-> Min(a.offset, LEO(f)), done |-> TRUE]
    ELSE LET own == EndOffsetFor(epochCache[f], LEO(f), a.epoch)
         IN  IF own.offset = -1
             THEN [to |-> Min(a.offset, LEO(f)), done |-> TRUE]
             ELSE IF own.epoch # a.epoch
             THEN [to |-> Min(own.offset, LEO(f)), done |-> FALSE]   \* KIP-279: ask again
             ELSE [to |-> Min(Min(own.offset, a.offset), LEO(f)), done |-> TRUE]

AcceptsResponse(f, m) ==
    /\ role[f] = "Follower"
    /\ m.src = leader[f]
    /\ m.currentEpoch = leaderEpoch[f]

(* A truncating fetcher's fetch offset is its HW: the fetcher was added at  *)
(* the HW (ReplicaManager.makeFollowers), and truncation only lowers both.  *)
HandleOffsetsForLeaderEpochResponse(f) ==
    /\ inflight[f].type = "OffsetsForLeaderEpochResponse"
    /\ inflight' = [inflight EXCEPT ![f] = NoMsg]
    /\ LET m == inflight[f] IN
       IF AcceptsResponse(f, m) /\ fetchState[f] = "Truncating" /\ m.error = "NONE"
       THEN LET t == TruncationTarget(f, m, hw[f])
            IN  /\ log' = [log EXCEPT ![f] = TruncLog(f, t.to)]
                /\ epochCache' = [epochCache EXCEPT ![f] = TruncCache(f, t.to)]
                /\ hw' = [hw EXCEPT ![f] = TruncHW(f, t.to)]
                /\ fetchState' = [fetchState EXCEPT ![f] = IF t.done THEN "Fetching" ELSE "Truncating"]
       ELSE UNCHANGED <<log, epochCache, hw, fetchState>>
    /\ UNCHANGED <<hwCheckpoint, role, leaderEpoch, leader, isr, followerLeo, followerBrokerEpoch, produceEpoch,
                   partitionEpoch, pendingIsr, ctrl, controllerQueue, alterPartition, ghost>>

-----------------------------------------------------------------------------
(* Replication: Fetch, the leader's read, its update of the follower's     *)
(* fetch state, and the response.  The leader reads records and its HW     *)
(* first and updates the follower's state and its own HW after, so the     *)
(* response carries the HW from before this fetch's update, and the        *)
(* follower learns the leader's HW a round later.                          *)

(* The fetch states in which a follower fetches. *)
FetchesIn == IF Rel.reconcile = "DivergingEpoch" THEN {"Truncating", "Fetching"} ELSE {"Fetching"}

SendFetch(f) ==
    /\ role[f] = "Follower"
    /\ fetchState[f] \in FetchesIn
    /\ inflight[f].type = "None"
    /\ inflight' = [inflight EXCEPT ![f] =
           FetchReq(f, leader[f], LEO(f),
                    IF Rel.reconcile = "DivergingEpoch" THEN LatestEpoch(epochCache[f]) ELSE -1,
                    leaderEpoch[f], FALSE)]
    /\ UNCHANGED <<durable, volatile, ctrl, controllerQueue, alterPartition, ghost>>

(* The leader's read (Partition.readRecords / fetchRecords under the       *)
(* partition lock).  With lastFetchedEpoch the leader first checks it      *)
(* against its cache: when the follower's log diverges from its own, it    *)
(* answers divergingEpoch = endOffsetFor(lastFetchedEpoch), no records,    *)
(* and does not update the follower's state.  Errors are answered at once. *)
HandleFetch(l, f) ==
    /\ RequestAt(f, l, "Fetch")
    /\ Up(l)
    /\ LET m    == inflight[f]
           err0 == RequestError(l, m)
           eo   == EndOffsetFor(epochCache[l], LEO(l), m.lastFetchedEpoch)
           div  == err0 = "NONE" /\ m.lastFetchedEpoch # -1
                     /\ (eo.epoch < m.lastFetchedEpoch \/ eo.offset < m.offset)
           err  == IF err0 = "NONE" /\ ~div /\ m.offset > LEO(l) THEN "OFFSET_OUT_OF_RANGE" ELSE err0
       IN  inflight' = [inflight EXCEPT ![f] =
               IF err = "NONE" /\ ~div
               THEN FetchRead(l, f, m.offset, SubSeq(log[l], m.offset + 1, LEO(l)), hw[l], LEO(l),
                              m.currentEpoch, m.orphan)
               ELSE IF m.orphan THEN NoMsg
               ELSE FetchResp(l, f, err, m.offset, <<>>, -1, LEO(l), div,
                              IF div THEN eo ELSE NoDivergence0, m.currentEpoch)]
    /\ UNCHANGED <<durable, volatile, ctrl, controllerQueue, alterPartition, ghost>>

(* Partition.updateFollowerFetchState: the leader records the fetch offset *)
(* as the follower's LEO and its HW may advance; then the response goes    *)
(* out with what was read.  A replica that is no longer leader keeps no     *)
(* views (its remote replica state is gone), and an orphan's response goes *)
(* nowhere.                                                                 *)
UpdateFollowerFetchState(l, f) ==
    /\ inflight[f].type = "FetchRead"
    /\ inflight[f].src = l
    /\ LET m == inflight[f] IN
       /\ IF role[l] = "Leader"
          THEN LET views == [followerLeo[l] EXCEPT ![f] = m.offset]
               IN  /\ followerLeo' = [followerLeo EXCEPT ![l] = views]
                   /\ followerBrokerEpoch' = [followerBrokerEpoch EXCEPT ![l][f] =
                          IF Rel.isrBrokerEpochs THEN brokerEpoch[f] ELSE -1]
                   /\ AdvanceHW(l, log[l], isr[l], MaximalIsr(l), views, produceEpoch[l], leaderEpoch[l])
          ELSE UNCHANGED <<followerLeo, followerBrokerEpoch, hw, acked, committed>>
       /\ inflight' = [inflight EXCEPT ![f] =
              IF m.orphan THEN NoMsg
              ELSE FetchResp(l, f, "NONE", m.offset, m.records, m.hw, m.leo, FALSE, NoDivergence0,
                             m.currentEpoch)]
    /\ UNCHANGED <<durable, role, leaderEpoch, leader, isr, fetchState, produceEpoch, partitionEpoch,
                   pendingIsr, ctrl, controllerQueue, alterPartition, nextId, crashes>>

(* The follower applies a response only for its current fetch: from its    *)
(* leader, in its epoch, at its LEO.  Data is appended (assigning epochs to *)
(* the cache) and HW = min(leader HW, LEO); under 3.9 the fetcher is then  *)
(* reconciled ("Fetching").  divergingEpoch truncates by the rule of        *)
(* OffsetsForLeaderEpoch's answer (truncateOnFetchResponse) and the fetcher *)
(* goes on fetching.  OFFSET_OUT_OF_RANGE with a leader LEO below ours      *)
(* truncates to the leader's LEO.  Anything else is dropped.               *)
HandleFetchResponse(f) ==
    /\ inflight[f].type = "FetchResponse"
    /\ inflight' = [inflight EXCEPT ![f] = NoMsg]
    /\ LET m == inflight[f] IN
       IF AcceptsResponse(f, m) /\ fetchState[f] \in FetchesIn /\ m.offset = LEO(f)
       THEN IF m.error = "NONE" /\ m.diverging
            THEN LET t == TruncationTarget(f, m.divergingEpoch, m.offset)
                 IN  /\ log' = [log EXCEPT ![f] = TruncLog(f, t.to)]
                     /\ epochCache' = [epochCache EXCEPT ![f] = TruncCache(f, t.to)]
                     /\ hw' = [hw EXCEPT ![f] = TruncHW(f, t.to)]
                     /\ UNCHANGED fetchState
            ELSE IF m.error = "NONE"
            THEN LET lg == log[f] \o m.records
                 IN  /\ log' = [log EXCEPT ![f] = lg]
                     /\ epochCache' = [epochCache EXCEPT ![f] = AppendToCache(epochCache[f], m.records, LEO(f))]
                     /\ hw' = [hw EXCEPT ![f] = Min(m.hw, Len(lg))]
                     /\ fetchState' = [fetchState EXCEPT ![f] = "Fetching"]
            ELSE IF m.error = "OFFSET_OUT_OF_RANGE" /\ m.leo < LEO(f)
            THEN /\ log' = [log EXCEPT ![f] = TruncLog(f, m.leo)]
                 /\ epochCache' = [epochCache EXCEPT ![f] = TruncCache(f, m.leo)]
                 /\ hw' = [hw EXCEPT ![f] = TruncHW(f, m.leo)]
                 /\ UNCHANGED fetchState
            ELSE UNCHANGED <<log, epochCache, hw, fetchState>>
       ELSE UNCHANGED <<log, epochCache, hw, fetchState>>
    /\ UNCHANGED <<hwCheckpoint, role, leaderEpoch, leader, isr, followerLeo, followerBrokerEpoch,
                   produceEpoch, partitionEpoch, pendingIsr, ctrl, controllerQueue, alterPartition, ghost>>

-----------------------------------------------------------------------------
(* ISR changes.  Shrink is nondeterministic (replica.lag.time.max.ms is    *)
(* time, which the spec abstracts); expand needs the follower caught up to  *)
(* the HW and, per release, to the start of the leader's epoch             *)
(* (KAFKA-7128), alive (KIP-841) and fetching in its current             *)
(* incarnation (KIP-903).                                                  *)
(*                                                                         *)
(* Synchronous releases (ZooKeeper): the leader's conditional write of the *)
(* ISR succeeds only if it is the controller's current leader, and then    *)
(* takes effect at once.  Asynchronous releases: the leader sends          *)
(* AlterPartition with its leader and partition epochs and waits; only     *)
(* one is in flight at a time.                                              *)

CurrentLeader(l) ==
    /\ role[l] = "Leader"
    /\ ctrlLeader = l
    /\ leaderEpoch[l] = ctrlEpoch

EpochStart(l) ==
    LET es == {i \in 1..Len(epochCache[l]) : epochCache[l][i].epoch = leaderEpoch[l]}
    IN  IF es = {} THEN LEO(l) ELSE epochCache[l][CHOOSE i \in es : TRUE].start

MayChangeIsr(l) ==
    IF Rel.asyncIsr
    THEN /\ role[l] = "Leader"
         /\ pendingIsr[l] = {}
         /\ alterPartition[l].type = "None"
         /\ partitionEpoch[l] < MaxPartitionEpoch
    ELSE CurrentLeader(l)

ChangeIsr(l, s) ==
    IF Rel.asyncIsr
    THEN /\ pendingIsr' = [pendingIsr EXCEPT ![l] = s]
         /\ alterPartition' = [alterPartition EXCEPT ![l] =
                                 AlterPartitionReq(l, leaderEpoch[l], partitionEpoch[l], s,
                                     [x \in Replicas |-> IF x \in s THEN followerBrokerEpoch[l][x] ELSE -1])]
         \* The maximal ISR is the larger of the two: a shrink is not in
         \* effect yet, and adding a member cannot raise the HW.
         /\ UNCHANGED <<isr, hw, ctrlIsr, acked, committed>>
    ELSE /\ isr' = [isr EXCEPT ![l] = s]
         /\ ctrlIsr' = s
         /\ AdvanceHW(l, log[l], s, s, followerLeo[l], produceEpoch[l], leaderEpoch[l])
         /\ UNCHANGED <<pendingIsr, alterPartition>>

ShrinkIsr(l, f) ==
    /\ MayChangeIsr(l)
    /\ f \in isr[l] \ {l}
    /\ ChangeIsr(l, isr[l] \ {f})
    /\ UNCHANGED <<durable, role, leaderEpoch, leader, followerLeo, followerBrokerEpoch, fetchState, produceEpoch,
                   partitionEpoch, ctrlLeader, ctrlEpoch, ctrlPartitionEpoch, ctrlElr,
                   brokerEpoch, ctrlLastKnownElr, controllerQueue, inflight, nextId, crashes>>

ExpandIsr(l, f) ==
    /\ MayChangeIsr(l)
    /\ f \in Replicas \ isr[l]
    /\ Rel.expandLiveOnly => Up(f)
    /\ Rel.isrBrokerEpochs => followerBrokerEpoch[l][f] = brokerEpoch[f]
    /\ followerLeo[l][f] >= hw[l]
    /\ Rel.expandNeedsEpochStart => followerLeo[l][f] >= EpochStart(l)
    /\ ChangeIsr(l, isr[l] \cup {f})
    /\ UNCHANGED <<durable, role, leaderEpoch, leader, followerLeo, followerBrokerEpoch, fetchState, produceEpoch,
                   partitionEpoch, ctrlLeader, ctrlEpoch, ctrlPartitionEpoch, ctrlElr,
                   brokerEpoch, ctrlLastKnownElr, controllerQueue, inflight, nextId, crashes>>

(* The controller decides an AlterPartition (KafkaController /             *)
(* ReplicationControlManager): fenced unless l is its leader in the        *)
(* request's leader epoch; rejected when the partition epoch is stale, or  *)
(* when the new ISR adds a broker that is not alive (KIP-841) or, with    *)
(* KIP-903, gives it a broker epoch not of its current registration.  A   *)
(* commit bumps the partition epoch, and with ELR moves the replicas it    *)
(* takes out of an ISR below min.insync.replicas to the ELR: the           *)
(* controller refuses no shrink (the leader's HW gate keeps it safe).  An  *)
(* error response carries only the error (its epochs are 0, its ISR       *)
(* empty: the fields' defaults in Kafka's AlterPartitionResponse).         *)
HandleAlterPartition(l) ==
    /\ alterPartition[l].type = "AlterPartition"
    /\ LET m   == alterPartition[l]
           err == IF ctrlLeader # l \/ m.leaderEpoch # ctrlEpoch THEN "FENCED_LEADER_EPOCH"
                  ELSE IF m.partitionEpoch # ctrlPartitionEpoch THEN "INVALID_UPDATE_VERSION"
                  ELSE IF \E x \in m.isr \ ctrlIsr :
                             ~Up(x) \/ m.brokerEpochs[x] \notin {-1, brokerEpoch[x]} THEN "INELIGIBLE_REPLICA"
                  ELSE "NONE"
       IN  IF err = "NONE"
           THEN /\ ctrlIsr' = m.isr
                /\ ctrlElr' = ElrAfter(ctrlIsr, m.isr, ctrlElr)
                /\ ctrlPartitionEpoch' = ctrlPartitionEpoch + 1
                /\ alterPartition' = [alterPartition EXCEPT ![l] =
                       AlterPartitionResp("NONE", m.leaderEpoch, ctrlPartitionEpoch + 1, m.isr)]
           ELSE /\ alterPartition' = [alterPartition EXCEPT ![l] =
                       AlterPartitionResp(err, 0, 0, {})]
                /\ UNCHANGED <<ctrlIsr, ctrlPartitionEpoch, ctrlElr>>
    /\ UNCHANGED <<durable, volatile, ctrlLeader, ctrlEpoch, brokerEpoch, ctrlLastKnownElr, controllerQueue, inflight, ghost>>

(* The leader applies the controller's answer to its pending proposal (one *)
(* slot: a response with a proposal pending answers that proposal, as     *)
(* Kafka's callback is bound to its proposedIsrState).  A commit of the    *)
(* leader's epoch becomes its ISR and partition epoch, and its HW moves    *)
(* over it.  INELIGIBLE_REPLICA returns it to the committed state; a       *)
(* fenced or stale proposal stays pending until the LeaderAndIsr that must *)
(* follow.                                                                  *)
HandleAlterPartitionResponse(l) ==
    /\ alterPartition[l].type = "AlterPartitionResponse"
    /\ alterPartition' = [alterPartition EXCEPT ![l] = NoMsg]
    /\ LET m == alterPartition[l] IN
       IF role[l] = "Leader" /\ pendingIsr[l] # {} /\ (m.error = "NONE" => m.leaderEpoch = leaderEpoch[l])
       THEN IF m.error = "NONE"
            THEN /\ isr' = [isr EXCEPT ![l] = m.isr]
                 /\ partitionEpoch' = [partitionEpoch EXCEPT ![l] = m.partitionEpoch]
                 /\ pendingIsr' = [pendingIsr EXCEPT ![l] = {}]
                 /\ AdvanceHW(l, log[l], m.isr, m.isr, followerLeo[l], produceEpoch[l], leaderEpoch[l])
            ELSE /\ pendingIsr' = [pendingIsr EXCEPT ![l] =
                        IF m.error = "INELIGIBLE_REPLICA" THEN {} ELSE pendingIsr[l]]
                 /\ UNCHANGED <<isr, partitionEpoch, hw, acked, committed>>
       ELSE UNCHANGED <<isr, partitionEpoch, pendingIsr, hw, acked, committed>>
    /\ UNCHANGED <<durable, role, leaderEpoch, leader, followerLeo, followerBrokerEpoch, fetchState, produceEpoch,
                   ctrl, controllerQueue, inflight, nextId, crashes>>

-----------------------------------------------------------------------------
(* Durability, crash and restart. *)

(* The periodic replication-offset-checkpoint write. *)
CheckpointHW(r) ==
    /\ role[r] \in {"Leader", "Follower"}
    /\ hwCheckpoint[r] # hw[r]
    /\ hwCheckpoint' = [hwCheckpoint EXCEPT ![r] = hw[r]]
    /\ UNCHANGED <<log, epochCache, volatile, ctrl, net, ghost>>

(* What a crash of r leaves in follower f's fetcher slot.  Where the       *)
(* release has no broker epochs in Fetch, r's own fetch request (or the    *)
(* leader's read of it) lives on as an orphan that the leader may still    *)
(* serve and count (the KIP-903 case), if that leader is up; everything    *)
(* else to or from r is lost.                                               *)
AfterCrash(r, f) ==
    LET m == inflight[f] IN
    IF f = r /\ Rel.staleFetchServed /\ m.type \in {"Fetch", "FetchRead"}
       /\ (m.type = "Fetch" => m.dst # r /\ Up(m.dst))
       /\ (m.type = "FetchRead" => m.src # r)
    THEN [m EXCEPT !.orphan = TRUE]
    ELSE IF f = r \/ (m.type # "None" /\ r \in {m.src, m.dst}) THEN NoMsg
    ELSE m

(* A crash loses all volatile state and r's messages but its orphaned     *)
(* fetch.  With UnflushedLoss it may also lose any unflushed tail: keep is  *)
(* the number of records that survive.  The controller sees the broker go  *)
(* offline: if r was its leader, the partition has no leader until an      *)
(* election; under asynchronous ISR changes (KRaft) it fences r and takes  *)
(* it out of the ISR, bumping the partition epoch, and tells the leader.   *)
(* With ELR the fence takes out a leader too and may empty the ISR         *)
(* (ReplicationControlManager.handleBrokerFenced, PartitionChangeBuilder: *)
(* "If ELR is enabled, the ISR is allowed to be empty"); below             *)
(* min.insync.replicas r joins the ELR, and an emptied ISR records r as    *)
(* the last known leader (the controller elects at once, so the last ISR   *)
(* member is the leader when the ISR empties; the spec elects later).      *)
Crash(r, keep) ==
    /\ Up(r)
    /\ crashes < MaxCrashes
    /\ keep \in (IF UnflushedLoss THEN 0..LEO(r) ELSE {LEO(r)})
    /\ log' = [log EXCEPT ![r] = SubSeq(log[r], 1, keep)]
    /\ role' = [role EXCEPT ![r] = "Offline"]
    /\ leaderEpoch' = [leaderEpoch EXCEPT ![r] = -1]
    /\ leader' = [leader EXCEPT ![r] = None]
    /\ hw' = [hw EXCEPT ![r] = 0]
    /\ isr' = [isr EXCEPT ![r] = {}]
    /\ followerLeo' = [followerLeo EXCEPT ![r] = NoViews]
    /\ followerBrokerEpoch' = [followerBrokerEpoch EXCEPT ![r] = NoViews]
    /\ fetchState' = [fetchState EXCEPT ![r] = "None"]
    /\ produceEpoch' = [produceEpoch EXCEPT ![r] = -1]
    /\ partitionEpoch' = [partitionEpoch EXCEPT ![r] = -1]
    /\ pendingIsr' = [pendingIsr EXCEPT ![r] = {}]
    /\ inflight' = [f \in Replicas |-> AfterCrash(r, f)]
    /\ alterPartition' = [alterPartition EXCEPT ![r] = NoMsg]
    /\ crashes' = crashes + 1
    /\ LET fence == IF Rel.elr THEN r \in ctrlIsr
                    ELSE Rel.asyncIsr /\ ctrlLeader \notin {r, None} /\ r \in ctrlIsr
           s     == ctrlIsr \ {r}
           pe    == ctrlPartitionEpoch + 1
           l     == IF ctrlLeader = r THEN None ELSE ctrlLeader
       IN  /\ ctrlLeader' = l
           /\ ctrlIsr' = IF fence THEN s ELSE ctrlIsr
           /\ ctrlPartitionEpoch' = IF fence THEN pe ELSE ctrlPartitionEpoch
           /\ ctrlElr' = IF fence THEN ElrAfter(ctrlIsr, s, ctrlElr) ELSE ctrlElr
           /\ ctrlLastKnownElr' = IF fence /\ s = {} THEN {r} ELSE ctrlLastKnownElr
           /\ controllerQueue' = [x \in Replicas |->
                 IF x = r THEN <<>>
                 ELSE IF fence /\ l # None /\ Up(x) THEN Append(controllerQueue[x], LeaderAndIsrMsg(l, ctrlEpoch, s, pe))
                 ELSE controllerQueue[x]]
    /\ UNCHANGED <<epochCache, hwCheckpoint, ctrlEpoch, brokerEpoch, nextId, acked, committed>>

(* Restart: HW = min(checkpoint, LEO) and the epoch cache is truncated to  *)
(* the LEO (log recovery).  No truncation to HW here, even under           *)
(* HighWatermark: Kafka 0.10 truncated in makeFollowers, which the         *)
(* restarted broker reaches through LeaderAndIsr.  The controller sends    *)
(* the current LeaderAndIsr when the partition has a leader (a live one:   *)
(* a leader that dies is unset at once); otherwise it waits for an         *)
(* election.  With ELR the broker registers after an unclean shutdown     *)
(* (a crash writes no clean-shutdown file) and leaves the ELR              *)
(* (ReplicationControlManager.handleBrokerUncleanShutdown), a partition   *)
(* change that bumps the partition epoch and reaches the live brokers.    *)
(* It stays the last known leader (only the ELR filters unclean brokers). *)
Restart(r) ==
    /\ role[r] = "Offline"
    /\ hw' = [hw EXCEPT ![r] = Min(hwCheckpoint[r], LEO(r))]
    /\ epochCache' = [epochCache EXCEPT ![r] = TruncateFromEnd(epochCache[r], LEO(r))]
    /\ role' = [role EXCEPT ![r] = "Starting"]
    /\ brokerEpoch' = IF Rel.isrBrokerEpochs THEN [brokerEpoch EXCEPT ![r] = @ + 1] ELSE brokerEpoch
    /\ LET leaves == r \in ctrlElr
           pe     == IF leaves THEN ctrlPartitionEpoch + 1 ELSE ctrlPartitionEpoch
           m      == LeaderAndIsrMsg(ctrlLeader, ctrlEpoch, ctrlIsr, pe)
       IN  /\ ctrlElr' = ctrlElr \ {r}
           /\ ctrlPartitionEpoch' = pe
           /\ controllerQueue' = [x \in Replicas |->
                 IF x = r THEN (IF ctrlLeader # None THEN <<m>> ELSE <<>>)
                 ELSE IF leaves /\ ctrlLeader # None /\ Up(x) THEN Append(controllerQueue[x], m)
                 ELSE controllerQueue[x]]
    /\ UNCHANGED <<log, hwCheckpoint, leaderEpoch, leader, isr, followerLeo, followerBrokerEpoch, fetchState,
                   produceEpoch, partitionEpoch, pendingIsr, ctrlLeader, ctrlEpoch, ctrlIsr,
                   ctrlLastKnownElr, inflight, alterPartition, ghost>>

(* A lossy network may drop a fetcher's request or response (the fetcher   *)
(* times out and retries); not a leader's read, which is inside the        *)
(* leader.  Controller requests are never lost: the controller's channel   *)
(* retries them until the broker dies.                                      *)
LoseMessage(f) ==
    /\ LossyNetwork
    /\ inflight[f].type \notin {"None", "FetchRead"}
    /\ inflight' = [inflight EXCEPT ![f] = NoMsg]
    /\ UNCHANGED <<durable, volatile, ctrl, controllerQueue, alterPartition, ghost>>

(* A live broker misses the head of its LeaderAndIsr queue because a later *)
(* one follows: it never applies that partition state.  Real paths, per     *)
(* release (docs/kafka-releases.md quotes the code):                        *)
(*  - ZooKeeper (0.10.2-2.1): a controller failover drops every queued       *)
(*    request (KafkaController.onControllerResignation ->                  *)
(*    ControllerChannelManager.shutdown) and the new controller sends only  *)
(*    the current state (onControllerFailover); a broker whose ZooKeeper   *)
(*    session expires loses its queue (onBrokerFailure -> removeBroker)    *)
(*    and, registered again, gets the current state (onBrokerStartup).     *)
(*  - KRaft (3.9): a broker catching up on the metadata log publishes one  *)
(*    delta for several PartitionChangeRecords (MetadataLoader), so        *)
(*    ReplicaManager.applyDelta sees only the last state.                  *)
(* Only a request that a later one follows can be missed, so the broker    *)
(* always ends at the current state; the paths' other effects (a failover's*)
(* resend of the current state, an expired broker taken for dead) are left *)
(* out: this action adds behaviours to the release, and a configuration    *)
(* turns it on to ask what a missed demotion does.                          *)
MissLeaderAndIsr(r) ==
    /\ MissedLeaderAndIsr
    /\ Len(controllerQueue[r]) >= 2
    /\ controllerQueue' = [controllerQueue EXCEPT ![r] = Tail(controllerQueue[r])]
    /\ UNCHANGED <<durable, volatile, ctrl, inflight, alterPartition, ghost>>

-----------------------------------------------------------------------------
Next ==
    \/ \E r \in Replicas : Elect(r)
    \/ \E r \in Replicas : HandleLeaderAndIsr(r)
    \/ \E l \in Replicas : Produce(l)
    \/ \E f \in Replicas : SendOffsetsForLeaderEpoch(f)
    \/ \E l, f \in Replicas : HandleOffsetsForLeaderEpoch(l, f)
    \/ \E f \in Replicas : HandleOffsetsForLeaderEpochResponse(f)
    \/ \E f \in Replicas : SendFetch(f)
    \/ \E l, f \in Replicas : HandleFetch(l, f)
    \/ \E l, f \in Replicas : UpdateFollowerFetchState(l, f)
    \/ \E f \in Replicas : HandleFetchResponse(f)
    \/ \E l, f \in Replicas : ShrinkIsr(l, f)
    \/ \E l, f \in Replicas : ExpandIsr(l, f)
    \/ \E l \in Replicas : HandleAlterPartition(l)
    \/ \E l \in Replicas : HandleAlterPartitionResponse(l)
    \/ \E r \in Replicas : CheckpointHW(r)
    \/ \E r \in Replicas, k \in Offsets : Crash(r, k)
    \/ \E r \in Replicas : Restart(r)
    \/ \E f \in Replicas : LoseMessage(f)
    \/ \E r \in Replicas : MissLeaderAndIsr(r)

Spec == Init /\ [][Next]_vars

(* The spec treats replicas alike (no CHOOSE among replicas, a symmetric    *)
(* Init, elections open to every eligible replica), so a configuration may *)
(* ask TLC to explore one state per permutation class of the replicas.     *)
Symmetry == Permutations(Replicas)

-----------------------------------------------------------------------------
(* Safety properties. *)

TypeOK ==
    /\ log \in [Replicas -> Seq(Record)]
    /\ epochCache \in [Replicas -> Seq(Entry)]
    /\ hwCheckpoint \in [Replicas -> Offsets]
    /\ role \in [Replicas -> Roles]
    /\ leaderEpoch \in [Replicas -> Epochs \cup {-1}]
    /\ leader \in [Replicas -> Replicas \cup {None}]
    /\ hw \in [Replicas -> Offsets]
    /\ isr \in [Replicas -> SUBSET Replicas]
    /\ followerLeo \in [Replicas -> [Replicas -> Offsets \cup {-1}]]
    /\ followerBrokerEpoch \in [Replicas -> [Replicas -> (0..MaxCrashes) \cup {-1}]]
    /\ fetchState \in [Replicas -> {"None", "Truncating", "Fetching"}]
    /\ produceEpoch \in [Replicas -> Epochs \cup {-1}]
    /\ partitionEpoch \in [Replicas -> Nat \cup {-1}]
    /\ pendingIsr \in [Replicas -> SUBSET Replicas]
    /\ ctrlLeader \in Replicas \cup {None}
    /\ ctrlEpoch \in Epochs \cup {-1}
    /\ ctrlIsr \in SUBSET Replicas
    /\ ctrlPartitionEpoch \in Nat \cup {-1}
    /\ ctrlElr \in SUBSET Replicas
    /\ brokerEpoch \in [Replicas -> 0..MaxCrashes]
    /\ ctrlLastKnownElr \in SUBSET Replicas /\ Cardinality(ctrlLastKnownElr) <= 1
    /\ \A r \in Replicas : \A i \in 1..Len(controllerQueue[r]) :
           LET m == controllerQueue[r][i]
           IN  m.type = "LeaderAndIsr" /\ m.leader \in Replicas /\ m.epoch \in Epochs /\ m.isr \subseteq Replicas
    /\ \A f \in Replicas :
           LET m == inflight[f]
           IN  /\ m.type \in {"None", "OffsetsForLeaderEpoch", "OffsetsForLeaderEpochResponse",
                              "Fetch", "FetchRead", "FetchResponse"}
               /\ m.type \in {"Fetch", "OffsetsForLeaderEpoch"} => m.src = f /\ m.dst \in Replicas
               /\ m.type \in {"FetchRead", "FetchResponse", "OffsetsForLeaderEpochResponse"} =>
                      m.dst = f /\ m.src \in Replicas
               /\ m.type \in {"FetchResponse", "OffsetsForLeaderEpochResponse"} => m.error \in Errors
    /\ \A l \in Replicas :
           alterPartition[l].type \in {"None", "AlterPartition", "AlterPartitionResponse"}
           /\ (alterPartition[l].type = "AlterPartitionResponse" => alterPartition[l].error \in AlterErrors)
    /\ nextId \in 1..(MaxRecords + 1)
    /\ crashes \in 0..MaxCrashes
    /\ acked \subseteq [offset : Offsets, id : Ids]
    /\ committed \subseteq [offset : Offsets, id : Ids]

(* HW <= LEO on every live replica. *)
HWBelowLEO == \A r \in Replicas : Up(r) => hw[r] <= LEO(r)

(* The controller's leader is in its ISR, and a leader is in its own ISR view. *)
LeaderInIsr ==
    /\ ctrlLeader # None => ctrlLeader \in ctrlIsr
    /\ \A r \in Replicas : role[r] = "Leader" => r \in isr[r]

(* Epoch cache well-formed: epochs and start offsets strictly increasing,   *)
(* starts within the log on live replicas.                                  *)
EpochCacheWellFormed ==
    \A r \in Replicas :
        LET c == epochCache[r] IN
        /\ \A i \in 1..(Len(c) - 1) : c[i].epoch < c[i + 1].epoch /\ c[i].start < c[i + 1].start
        /\ Up(r) => \A i \in 1..Len(c) : c[i].start <= LEO(r)

(* ... and consistent with the records: the entry covering offset o names   *)
(* the epoch of the record at o.  (A release without a cache has nothing   *)
(* to check.)                                                               *)
EpochCacheMatchesLog ==
    Rel.cacheAssign # "None" =>
    \A r \in Replicas : Up(r) =>
        \A o \in 0..(LEO(r) - 1) :
            LET c == epochCache[r]
                cover == {i \in 1..Len(c) : c[i].start <= o}
            IN  /\ cover # {}
                /\ c[CHOOSE i \in cover : \A j \in cover : i >= j].epoch = log[r][o + 1].epoch

(* Only one leader writes in each epoch, so (offset, epoch) names a record: *)
(* the fact that makes epoch-based truncation meaningful.                   *)
RecordIdentity ==
    \A r, s \in Replicas : \A o \in 0..(Min(LEO(r), LEO(s)) - 1) :
        log[r][o + 1].epoch = log[s][o + 1].epoch => log[r][o + 1] = log[s][o + 1]

(* Committed prefixes agree: two live replicas never differ below the      *)
(* smaller of their HWs.                                                    *)
CommittedPrefixesAgree ==
    \A r, s \in Replicas : (Up(r) /\ Up(s)) =>
        \A o \in 0..(Min(hw[r], hw[s]) - 1) : log[r][o + 1] = log[s][o + 1]

(* No divergence among reconciled replicas: a leader and the followers that *)
(* finished truncation in the same epoch agree below their HWs.  This is   *)
(* the divergence that never heals; unclean election may break the         *)
(* stronger CommittedPrefixesAgree transiently, but must not break this.   *)
Reconciled(r) ==
    \/ role[r] = "Leader"
    \/ role[r] = "Follower" /\ fetchState[r] = "Fetching"
NoDivergence ==
    \A r, s \in Replicas :
        (Reconciled(r) /\ Reconciled(s) /\ leaderEpoch[r] = leaderEpoch[s]) =>
            \A o \in 0..(Min(hw[r], hw[s]) - 1) : log[r][o + 1] = log[s][o + 1]

HasRecord(r, x) == LEO(r) > x.offset /\ log[r][x.offset + 1].id = x.id

(* No acknowledged record lost: the elected leader holds every acknowledged *)
(* record at its offset.                                                    *)
NoAckedLoss == ctrlLeader # None => \A a \in acked : HasRecord(ctrlLeader, a)

(* No consumer-visible record lost: likewise for every record that was ever *)
(* below a leader's HW.                                                     *)
NoVisibleLoss == ctrlLeader # None => \A c \in committed : HasRecord(ctrlLeader, c)

(* StrongIsr (Gustafson's; Vanlightly's LeaderCandidateCompleteness): every *)
(* committed record is in the log of every member of the controller's ISR, *)
(* so whichever of them a clean election picks has it.                      *)
StrongIsr == \A c \in committed : \A r \in ctrlIsr : HasRecord(r, c)

(* No committed record is lost from every log at once: a loss that needs no *)
(* further election to be final (NoVisibleLoss looks only at the           *)
(* controller's leader).                                                    *)
NoCommittedLossAnywhere == \A c \in committed : \E r \in Replicas : HasRecord(r, c)

(* Eligible Leader Replicas (KIP-966), Vanlightly's kip_966_properties.tla *)
(* stated over this spec's variables.  ElrWellFormed                        *)
(* (ValidControllerIsrAndElr): the ELR is outside the ISR and empty while  *)
(* the ISR is at or above min.insync.replicas; the last known leader is    *)
(* recorded exactly while the ISR is empty; without ELR both stay empty.   *)
ElrWellFormed ==
    /\ ctrlElr \cap ctrlIsr = {}
    /\ Cardinality(ctrlIsr) >= EffMinIsr => ctrlElr = {}
    /\ (ctrlLastKnownElr # {}) <=> (ctrlIsr = {})
    /\ ~Rel.elr => ctrlElr = {} /\ ctrlLastKnownElr = {}

(* Leader candidate completeness over the ELR (the ELR half of Vanlightly's *)
(* LeaderCandidateCompletenessProperty; StrongIsr is the ISR half): every  *)
(* live ELR member holds every committed record, so an ELR election loses  *)
(* none.  A member that crashed may have lost some; it leaves the ELR when *)
(* it restarts.                                                             *)
ElrComplete == \A c \in committed : \A r \in ctrlElr : Up(r) => HasRecord(r, c)

(* Vanlightly's ReplicationQuorumSupersetProperty: the controller's current *)
(* leader, while its ISR is at or above min.insync.replicas, waits with    *)
(* its HW for every ISR and ELR member (its maximal ISR holds them), so    *)
(* what it commits is on every replica a clean or ELR election may pick.  *)
ElrInMaximalIsr ==
    \A l \in Replicas :
        (role[l] = "Leader" /\ leaderEpoch[l] = ctrlEpoch /\ Cardinality(isr[l]) >= EffMinIsr)
            => ctrlIsr \cup ctrlElr \subseteq MaximalIsr(l)

-----------------------------------------------------------------------------
(* Reachability witnesses: each is expected to be VIOLATED, and the         *)
(* violating trace is the witness that the situation is reachable, so the  *)
(* properties above do not hold vacuously.                                  *)

NeverLeaderChange == ~\E r \in Replicas : role[r] = "Leader" /\ leaderEpoch[r] >= 1
NeverCommitted == committed = {}
NeverAcked == acked = {}
(* Under the epoch policies a follower only reaches "Fetching" through a  *)
(* completed OffsetsForLeaderEpoch round trip.                             *)
NeverEpochRoundTrip == ~\E r \in Replicas : role[r] = "Follower" /\ fetchState[r] = "Fetching"
NeverRecoveredFromCrash == ~(crashes >= 1 /\ \A r \in Replicas : role[r] \in {"Leader", "Follower"})
(* A committed record survives a leader change: a leader holds it that did *)
(* not write it in its current, uninterrupted leadership (its epoch is      *)
(* older than the leader's produceEpoch).                                    *)
NeverCommittedSurvivesLeaderChange ==
    ~\E r \in Replicas, c \in committed :
        role[r] = "Leader" /\ HasRecord(r, c) /\ log[r][c.offset + 1].epoch < produceEpoch[r]
(* Two live replicas hold different records at one offset. *)
NeverTwoRecordsAtOneOffset ==
    ~\E r, s \in Replicas, o \in 0..(MaxRecords - 1) :
        Up(r) /\ Up(s) /\ o < Min(LEO(r), LEO(s)) /\ log[r][o + 1] # log[s][o + 1]
(* The leader's HW advances while an AlterPartition of its is pending.     *)
NeverHWAdvancesWhilePending == [][\A l \in Replicas :
    (pendingIsr[l] # {} /\ pendingIsr'[l] = pendingIsr[l] /\ role'[l] = "Leader") => hw'[l] <= hw[l]]_vars
(* The controller rejects an AlterPartition for a stale partition epoch.   *)
NeverStalePartitionEpoch ==
    ~\E l \in Replicas : alterPartition[l].type = "AlterPartitionResponse"
                         /\ alterPartition[l].error = "INVALID_UPDATE_VERSION"
(* A follower truncates on a divergingEpoch answer. *)
NeverDivergingTruncation == [][\A f \in Replicas :
    (inflight[f].type = "FetchResponse" /\ inflight[f].diverging /\ role'[f] # "Offline")
        => Len(log'[f]) >= Len(log[f])]_vars
(* A follower loses a committed record from its log: what reconciling with *)
(* an uncleanly elected leader does to the old leader.                      *)
NoCommittedTruncation ==
    \A f \in Replicas : \A c \in committed :
        (role'[f] = "Follower" /\ HasRecord(f, c)) => HasRecord(f, c)'
NeverTruncatesCommitted == [][NoCommittedTruncation]_vars
(* The controller elects an ELR member (the ISR is empty). *)
NeverElrElection == [][\A r \in Replicas :
    ~(ElrElectable(r) /\ ctrlLeader' = r /\ ctrlEpoch' > ctrlEpoch)]_vars
(* The controller elects the last known leader (ISR and ELR empty). *)
NeverLastKnownLeaderElection == [][\A r \in Replicas :
    ~(LastKnownElectable(r) /\ ctrlLeader' = r /\ ctrlEpoch' > ctrlEpoch)]_vars
(* An action property: no live replica's log ever gets shorter. *)
NoTruncation == \A r \in Replicas : role'[r] # "Offline" => Len(log'[r]) >= Len(log[r])
NeverTruncates == [][NoTruncation]_vars

=============================================================================
