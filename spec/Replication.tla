----------------------------- MODULE Replication -----------------------------
(***************************************************************************)
(* One Kafka partition replicated over a set of brokers ("replicas"), with *)
(* an abstract controller.  The spec models the three follower truncation  *)
(* policies Kafka has shipped:                                             *)
(*                                                                         *)
(*   "HighWatermark"  Kafka <= 0.10.2: truncate to the local HW on becoming *)
(*                    follower (a restarted broker becomes one through     *)
(*                    LeaderAndIsr).                                       *)
(*   "Kip101"         Kafka 0.11.0: OffsetsForLeaderEpoch v0, the leader    *)
(*                    answers the start offset of the next higher epoch.   *)
(*   "LeaderEpoch"    KIP-101 + KIP-279: the leader answers (epoch, end     *)
(*                    offset) and the follower loops until it finds an     *)
(*                    epoch both know.                                     *)
(*                                                                         *)
(* and KIP-320 fencing (Fetch / OffsetsForLeaderEpoch carry the follower's *)
(* current leader epoch) as a switch.                                      *)
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
    Truncation,                   \* "HighWatermark" | "Kip101" | "LeaderEpoch"
    Fencing,                      \* KIP-320: leaders check the caller's current leader epoch
    Acks,                         \* producer acks: "0" | "1" | "all"
    MinInsyncReplicas,            \* min.insync.replicas
    MinIsrGatesHW,                \* Kafka >= 3.7: HW does not advance while |ISR| < min.insync
    UncleanLeaderElectionEnable,  \* unclean.leader.election.enable
    UnflushedLoss,                \* a crash may lose the unflushed tail of the log
    LossyNetwork,                 \* the network may drop any message (else only those to a dead broker)
    MaxRecords,                   \* bound: records produced in a behaviour
    MaxEpoch,                     \* bound: highest leader epoch the controller assigns
    MaxCrashes                    \* bound: crashes in a behaviour

ASSUME Truncation \in {"HighWatermark", "Kip101", "LeaderEpoch"}
ASSUME Acks \in {"0", "1", "all"}
ASSUME Fencing \in BOOLEAN /\ MinIsrGatesHW \in BOOLEAN
ASSUME UncleanLeaderElectionEnable \in BOOLEAN /\ UnflushedLoss \in BOOLEAN /\ LossyNetwork \in BOOLEAN
ASSUME MinInsyncReplicas \in Nat \ {0}
ASSUME MaxRecords \in Nat /\ MaxEpoch \in Nat /\ MaxCrashes \in Nat
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
    isr,            \* a leader's view of the ISR ({} unless leader)
    followerLeo,    \* a leader's view of each follower's LEO: fetch offset of its last fetch in this epoch, -1 unknown
    fetchState,     \* a follower's fetcher: "Truncating" | "Fetching"; "None" otherwise
    \* --- the controller ---
    ctrlLeader,     \* the leader it elected last, None before the first election
    ctrlEpoch,      \* the leader epoch it assigned last, -1 before the first election
    ctrlIsr,        \* the ISR it holds (changed by elections and by fenced AlterPartition)
    \* --- the network ---
    controllerQueue,\* per broker: LeaderAndIsr requests sent, not yet applied (in order, reliable:
                    \* ControllerChannelManager retries until the broker dies)
    inflight,       \* per follower: its one outstanding fetcher request, or the response to it;
                    \* NoMsg when none (a fetcher has one request in flight at a time)
    \* --- bookkeeping and history (ghost) ---
    nextId,         \* id of the next produced record
    crashes,        \* crashes so far
    acked,          \* set of [offset, id]: records acknowledged to the producer
    committed       \* set of [offset, id]: records that were ever below a leader's HW

durable  == <<log, epochCache, hwCheckpoint>>
volatile == <<role, leaderEpoch, leader, hw, isr, followerLeo, fetchState>>
ctrl     == <<ctrlLeader, ctrlEpoch, ctrlIsr>>
ghost    == <<nextId, crashes, acked, committed>>
net      == <<controllerQueue, inflight>>
vars     == <<durable, volatile, ctrl, net, ghost>>

-----------------------------------------------------------------------------
(* Sets and constants used below. *)

Epochs   == 0..MaxEpoch
Offsets  == 0..MaxRecords
Ids      == 1..MaxRecords
Roles    == {"Offline", "Starting", "Leader", "Follower"}
Errors   == {"NONE", "NOT_LEADER_OR_FOLLOWER", "FENCED_LEADER_EPOCH",
             "UNKNOWN_LEADER_EPOCH", "OFFSET_OUT_OF_RANGE"}
Record   == [id : Ids, epoch : Epochs]
Entry    == [epoch : Epochs, start : Offsets]
Up(r)    == role[r] # "Offline"
Min(a, b) == IF a < b THEN a ELSE b
Max(a, b) == IF a > b THEN a ELSE b
LEO(r)   == Len(log[r])

(* Messages.  Requests carry the sender's current leader epoch (KIP-320);  *)
(* responses echo it so the follower can tell a stale response.            *)
NoMsg == [type |-> "None"]
LeaderAndIsrMsg(l, e, s) ==
    [type |-> "LeaderAndIsr", leader |-> l, epoch |-> e, isr |-> s]
OffsetsReq(f, l, e, ce) ==
    [type |-> "OffsetsForLeaderEpoch", src |-> f, dst |-> l, epoch |-> e, currentEpoch |-> ce]
OffsetsResp(l, f, err, e, o, ce) ==
    [type |-> "OffsetsForLeaderEpochResponse", src |-> l, dst |-> f, error |-> err,
     epoch |-> e, offset |-> o, currentEpoch |-> ce]
FetchReq(f, l, o, ce) ==
    [type |-> "Fetch", src |-> f, dst |-> l, offset |-> o, currentEpoch |-> ce]
FetchResp(l, f, err, o, recs, h, leo, ce) ==
    [type |-> "FetchResponse", src |-> l, dst |-> f, error |-> err, offset |-> o,
     records |-> recs, hw |-> h, leo |-> leo, currentEpoch |-> ce]

-----------------------------------------------------------------------------
(* The leader epoch cache (LeaderEpochFileCache).                           *)

LatestEpoch(c) == IF c = <<>> THEN -1 ELSE c[Len(c)].epoch

(* assign(e, s): a no-op when e is the latest epoch and s is not below its  *)
(* start; otherwise drop, from the tail, every entry with epoch >= e or      *)
(* start >= s, then append (e, s).  The cache is sorted on both fields, so   *)
(* dropping from the tail is a filter.                                      *)
Assign(c, e, s) ==
    IF c # <<>> /\ e = c[Len(c)].epoch /\ s >= c[Len(c)].start
    THEN c
    ELSE Append(SelectSeq(c, LAMBDA x : x.epoch < e /\ x.start < s),
                [epoch |-> e, start |-> s])

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
    IN  IF e = LatestEpoch(c) THEN leo
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
(* MinIsrGatesHW, while the ISR is below min.insync.replicas; it only moves *)
(* forward.                                                                 *)
CandidateHW(l, lg, s, views) ==
    LET leos == {IF r = l THEN Len(lg) ELSE views[r] : r \in s}
        low  == CHOOSE x \in leos : \A y \in leos : x <= y
    IN  IF -1 \in leos \/ (MinIsrGatesHW /\ Cardinality(s) < MinInsyncReplicas)
        THEN 0 ELSE low

NewHW(l, lg, s, views, old) == Max(old, CandidateHW(l, lg, s, views))

(* Records that a leader's HW moving from old to new makes visible, and the *)
(* acks=all records that it acknowledges: those the leader wrote in its    *)
(* current epoch, while the ISR still has min.insync.replicas members       *)
(* (NOT_ENOUGH_REPLICAS_AFTER_APPEND otherwise).                            *)
NewlyCommitted(lg, old, new) ==
    {[offset |-> o, id |-> lg[o + 1].id] : o \in old..(new - 1)}
NewlyAcked(lg, old, new, e, s) ==
    IF Acks = "all" /\ Cardinality(s) >= MinInsyncReplicas
    THEN {[offset |-> o, id |-> lg[o + 1].id] :
             o \in {p \in old..(new - 1) : lg[p + 1].epoch = e}}
    ELSE {}

(* Update hw, committed and acked after leader l's log, ISR or follower     *)
(* views changed to lg, s, views.  Used by every action that can move a     *)
(* leader's HW.  ackEpoch is the epoch whose produce requests l holds: its  *)
(* current one, or -1 for a replica just made leader, which holds none (it  *)
(* fetched its records as a follower; nobody is waiting on it for them).    *)
AdvanceHW(l, lg, s, views, ackEpoch) ==
    LET new == NewHW(l, lg, s, views, hw[l])
    IN  /\ hw' = [hw EXCEPT ![l] = new]
        /\ committed' = committed \cup NewlyCommitted(lg, hw[l], new)
        /\ acked' = acked \cup NewlyAcked(lg, hw[l], new, ackEpoch, s)

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
    /\ fetchState = [r \in Replicas |-> "None"]
    /\ ctrlLeader = None
    /\ ctrlEpoch = -1
    /\ ctrlIsr = Replicas
    /\ controllerQueue = [r \in Replicas |-> <<>>]
    /\ inflight = [r \in Replicas |-> NoMsg]
    /\ nextId = 1
    /\ crashes = 0
    /\ acked = {}
    /\ committed = {}

-----------------------------------------------------------------------------
(* The controller elects r and bumps the leader epoch.  Clean: r is a live *)
(* ISR member (covers offline, reassignment and preferred elections, whose *)
(* only difference is which eligible replica they prefer); the ISR keeps   *)
(* its live members.  Unclean: no ISR member is live and                   *)
(* unclean.leader.election.enable; the ISR becomes {r}.  LeaderAndIsr goes *)
(* to every live replica.                                                   *)
Elect(r) ==
    /\ Up(r)
    /\ ctrlEpoch < MaxEpoch
    /\ \/ r \in ctrlIsr
       \/ UncleanLeaderElectionEnable /\ \A x \in ctrlIsr : ~Up(x)
    /\ LET newIsr == IF r \in ctrlIsr THEN {x \in ctrlIsr : Up(x)} ELSE {r}
           e      == ctrlEpoch + 1
       IN  /\ ctrlLeader' = r
           /\ ctrlEpoch' = e
           /\ ctrlIsr' = newIsr
           /\ controllerQueue' = [x \in Replicas |->
                                    IF Up(x) THEN Append(controllerQueue[x], LeaderAndIsrMsg(r, e, newIsr))
                                    ELSE controllerQueue[x]]
    /\ UNCHANGED <<durable, volatile, inflight, ghost>>

(* A replica applies a LeaderAndIsr request (ReplicaManager.becomeLeaderOrFollower). *)
(* A request whose epoch is not above the replica's is ignored.                 *)
BecomeLeader(r, m) ==
    LET c == Assign(epochCache[r], m.epoch, LEO(r))
    IN  /\ role' = [role EXCEPT ![r] = "Leader"]
        /\ leaderEpoch' = [leaderEpoch EXCEPT ![r] = m.epoch]
        /\ leader' = [leader EXCEPT ![r] = r]
        /\ isr' = [isr EXCEPT ![r] = m.isr]
        /\ followerLeo' = [followerLeo EXCEPT ![r] = NoViews]
        /\ fetchState' = [fetchState EXCEPT ![r] = "None"]
        /\ epochCache' = [epochCache EXCEPT ![r] = c]
        /\ AdvanceHW(r, log[r], m.isr, NoViews, -1)
        /\ UNCHANGED <<log, hwCheckpoint>>

BecomeFollower(r, m) ==
    /\ role' = [role EXCEPT ![r] = "Follower"]
    /\ leaderEpoch' = [leaderEpoch EXCEPT ![r] = m.epoch]
    /\ leader' = [leader EXCEPT ![r] = m.leader]
    /\ isr' = [isr EXCEPT ![r] = {}]
    /\ followerLeo' = [followerLeo EXCEPT ![r] = NoViews]
    /\ IF Truncation = "HighWatermark"
       THEN \* Kafka <= 0.10.2: truncate to the local HW, then fetch from there.
            /\ log' = [log EXCEPT ![r] = TruncLog(r, hw[r])]
            /\ epochCache' = [epochCache EXCEPT ![r] = TruncCache(r, hw[r])]
            /\ fetchState' = [fetchState EXCEPT ![r] = "Fetching"]
       ELSE /\ fetchState' = [fetchState EXCEPT ![r] = "Truncating"]
            /\ UNCHANGED <<log, epochCache>>
    /\ UNCHANGED <<hw, hwCheckpoint, acked, committed>>

HandleLeaderAndIsr(r) ==
    /\ controllerQueue[r] # <<>>
    /\ LET m == Head(controllerQueue[r])
       IN  /\ controllerQueue' = [controllerQueue EXCEPT ![r] = Tail(controllerQueue[r])]
           /\ IF m.epoch > leaderEpoch[r]
              THEN IF m.leader = r THEN BecomeLeader(r, m) ELSE BecomeFollower(r, m)
              ELSE UNCHANGED <<durable, volatile, acked, committed>>
    /\ UNCHANGED <<ctrl, inflight, nextId, crashes>>

(* A producer writes one record to leader l.  acks=all is refused before   *)
(* append when the ISR is below min.insync.replicas (NOT_ENOUGH_REPLICAS).  *)
(* acks=1 is acknowledged at once; acks=all when the HW passes the record   *)
(* (see AdvanceHW); acks=0 never.                                           *)
Produce(l) ==
    /\ role[l] = "Leader"
    /\ nextId <= MaxRecords
    /\ Acks = "all" => Cardinality(isr[l]) >= MinInsyncReplicas
    /\ LET lg == Append(log[l], [id |-> nextId, epoch |-> leaderEpoch[l]])
           new == NewHW(l, lg, isr[l], followerLeo[l], hw[l])
       IN  /\ log' = [log EXCEPT ![l] = lg]
           /\ hw' = [hw EXCEPT ![l] = new]
           /\ committed' = committed \cup NewlyCommitted(lg, hw[l], new)
           /\ acked' = acked \cup NewlyAcked(lg, hw[l], new, leaderEpoch[l], isr[l])
                             \cup (IF Acks = "1" THEN {[offset |-> LEO(l), id |-> nextId]} ELSE {})
    /\ nextId' = nextId + 1
    /\ UNCHANGED <<epochCache, hwCheckpoint, role, leaderEpoch, leader, isr, followerLeo,
                   fetchState, ctrl, net, crashes>>

-----------------------------------------------------------------------------
(* The truncation phase of the epoch policies: OffsetsForLeaderEpoch.       *)

SendOffsetsForLeaderEpoch(f) ==
    /\ role[f] = "Follower"
    /\ fetchState[f] = "Truncating"
    /\ inflight[f].type = "None"
    /\ inflight' = [inflight EXCEPT ![f] = OffsetsReq(f, leader[f], LatestEpoch(epochCache[f]), leaderEpoch[f])]
    /\ UNCHANGED <<durable, volatile, ctrl, controllerQueue, ghost>>

HandleOffsetsForLeaderEpoch(l, f) ==
    /\ RequestAt(f, l, "OffsetsForLeaderEpoch")
    /\ Up(l)
    /\ LET m   == inflight[f]
           err == RequestError(l, m)
           ans == IF err # "NONE" THEN [epoch |-> -1, offset |-> -1]
                  ELSE IF Truncation = "Kip101"
                  THEN [epoch |-> -1, offset |-> Kip101EndOffset(epochCache[l], LEO(l), m.epoch)]
                  ELSE EndOffsetFor(epochCache[l], LEO(l), m.epoch)
       IN  inflight' = [inflight EXCEPT ![f] = OffsetsResp(l, f, err, ans.epoch, ans.offset, m.currentEpoch)]
    /\ UNCHANGED <<durable, volatile, ctrl, controllerQueue, ghost>>

(* The follower's rule (AbstractFetcherThread.getOffsetTruncationState for  *)
(* LeaderEpoch; ReplicaFetcherThread.maybeTruncate of 0.11.0 for Kip101):   *)
(* [offset to truncate to, whether truncation is complete].                 *)
TruncationTarget(f, m) ==
    IF m.offset = -1 THEN [to |-> hw[f], done |-> TRUE]
    ELSE IF Truncation = "Kip101" THEN [to |-> Min(m.offset, LEO(f)), done |-> TRUE]
    ELSE LET own == EndOffsetFor(epochCache[f], LEO(f), m.epoch)
         IN  IF own.offset = -1
             THEN [to |-> Min(m.offset, LEO(f)), done |-> TRUE]
             ELSE IF own.epoch # m.epoch
             THEN [to |-> Min(own.offset, LEO(f)), done |-> FALSE]   \* KIP-279: ask again
             ELSE [to |-> Min(Min(own.offset, m.offset), LEO(f)), done |-> TRUE]

AcceptsResponse(f, m) ==
    /\ role[f] = "Follower"
    /\ m.src = leader[f]
    /\ m.currentEpoch = leaderEpoch[f]

HandleOffsetsForLeaderEpochResponse(f) ==
    /\ inflight[f].type = "OffsetsForLeaderEpochResponse"
    /\ inflight' = [inflight EXCEPT ![f] = NoMsg]
    /\ LET m == inflight[f] IN
       IF AcceptsResponse(f, m) /\ fetchState[f] = "Truncating" /\ m.error = "NONE"
       THEN LET t == TruncationTarget(f, m)
            IN  /\ log' = [log EXCEPT ![f] = TruncLog(f, t.to)]
                /\ epochCache' = [epochCache EXCEPT ![f] = TruncCache(f, t.to)]
                /\ hw' = [hw EXCEPT ![f] = TruncHW(f, t.to)]
                /\ fetchState' = [fetchState EXCEPT ![f] = IF t.done THEN "Fetching" ELSE "Truncating"]
       ELSE UNCHANGED <<log, epochCache, hw, fetchState>>
    /\ UNCHANGED <<hwCheckpoint, role, leaderEpoch, leader, isr, followerLeo, ctrl, controllerQueue, ghost>>

-----------------------------------------------------------------------------
(* Replication: Fetch and its response.  The leader's HW moves when it      *)
(* learns a follower's fetch offset; the follower learns the leader's HW    *)
(* only from the response, a round later.                                   *)

SendFetch(f) ==
    /\ role[f] = "Follower"
    /\ fetchState[f] = "Fetching"
    /\ inflight[f].type = "None"
    /\ inflight' = [inflight EXCEPT ![f] = FetchReq(f, leader[f], LEO(f), leaderEpoch[f])]
    /\ UNCHANGED <<durable, volatile, ctrl, controllerQueue, ghost>>

HandleFetch(l, f) ==
    /\ RequestAt(f, l, "Fetch")
    /\ Up(l)
    /\ LET m    == inflight[f]
           err0 == RequestError(l, m)
           err  == IF err0 = "NONE" /\ m.offset > LEO(l) THEN "OFFSET_OUT_OF_RANGE" ELSE err0
       IN  IF err = "NONE"
           THEN LET views == [followerLeo[l] EXCEPT ![f] = m.offset]
                    new   == NewHW(l, log[l], isr[l], views, hw[l])
                IN  /\ followerLeo' = [followerLeo EXCEPT ![l] = views]
                    /\ AdvanceHW(l, log[l], isr[l], views, leaderEpoch[l])
                    /\ inflight' = [inflight EXCEPT ![f] =
                                       FetchResp(l, f, "NONE", m.offset,
                                                 SubSeq(log[l], m.offset + 1, LEO(l)), new, LEO(l),
                                                 m.currentEpoch)]
           ELSE /\ inflight' = [inflight EXCEPT ![f] =
                                   FetchResp(l, f, err, m.offset, <<>>, -1, LEO(l), m.currentEpoch)]
                /\ UNCHANGED <<followerLeo, hw, acked, committed>>
    /\ UNCHANGED <<durable, role, leaderEpoch, leader, isr, fetchState, ctrl, controllerQueue,
                   nextId, crashes>>

(* The follower applies a response only for its current fetch: from its    *)
(* leader, in its epoch, at its LEO.  Data is appended (assigning epochs to *)
(* the cache) and HW = min(leader HW, LEO).  OFFSET_OUT_OF_RANGE with a     *)
(* leader LEO below ours truncates to the leader's LEO.  Anything else is   *)
(* dropped.                                                                 *)
HandleFetchResponse(f) ==
    /\ inflight[f].type = "FetchResponse"
    /\ inflight' = [inflight EXCEPT ![f] = NoMsg]
    /\ LET m == inflight[f] IN
       IF AcceptsResponse(f, m) /\ fetchState[f] = "Fetching" /\ m.offset = LEO(f)
       THEN IF m.error = "NONE"
            THEN LET lg == log[f] \o m.records
                 IN  /\ log' = [log EXCEPT ![f] = lg]
                     /\ epochCache' = [epochCache EXCEPT ![f] = AppendToCache(epochCache[f], m.records, LEO(f))]
                     /\ hw' = [hw EXCEPT ![f] = Min(m.hw, Len(lg))]
            ELSE IF m.error = "OFFSET_OUT_OF_RANGE" /\ m.leo < LEO(f)
            THEN /\ log' = [log EXCEPT ![f] = TruncLog(f, m.leo)]
                 /\ epochCache' = [epochCache EXCEPT ![f] = TruncCache(f, m.leo)]
                 /\ hw' = [hw EXCEPT ![f] = TruncHW(f, m.leo)]
            ELSE UNCHANGED <<log, epochCache, hw>>
       ELSE UNCHANGED <<log, epochCache, hw>>
    /\ UNCHANGED <<hwCheckpoint, role, leaderEpoch, leader, isr, followerLeo, fetchState, ctrl,
                   controllerQueue, ghost>>

-----------------------------------------------------------------------------
(* ISR changes: AlterPartition from the leader, a compare-and-set on the    *)
(* controller's state fenced by leader epoch, so only the current leader    *)
(* can change the ISR.  Shrink is nondeterministic (replica.lag.time.max.ms *)
(* is time, which the spec abstracts); expand needs the follower caught up  *)
(* to the HW and to the start of the leader's epoch (KAFKA-7128).           *)

CurrentLeader(l) ==
    /\ role[l] = "Leader"
    /\ ctrlLeader = l
    /\ leaderEpoch[l] = ctrlEpoch

EpochStart(l) ==
    LET es == {i \in 1..Len(epochCache[l]) : epochCache[l][i].epoch = leaderEpoch[l]}
    IN  IF es = {} THEN LEO(l) ELSE epochCache[l][CHOOSE i \in es : TRUE].start

ShrinkIsr(l, f) ==
    /\ CurrentLeader(l)
    /\ f \in isr[l] \ {l}
    /\ LET s == isr[l] \ {f}
       IN  /\ isr' = [isr EXCEPT ![l] = s]
           /\ ctrlIsr' = s
           /\ AdvanceHW(l, log[l], s, followerLeo[l], leaderEpoch[l])
    /\ UNCHANGED <<durable, role, leaderEpoch, leader, followerLeo, fetchState,
                   ctrlLeader, ctrlEpoch, net, nextId, crashes>>

ExpandIsr(l, f) ==
    /\ CurrentLeader(l)
    /\ f \in Replicas \ isr[l]
    /\ followerLeo[l][f] >= hw[l]
    /\ followerLeo[l][f] >= EpochStart(l)
    /\ LET s == isr[l] \cup {f}
       IN  /\ isr' = [isr EXCEPT ![l] = s]
           /\ ctrlIsr' = s
           /\ AdvanceHW(l, log[l], s, followerLeo[l], leaderEpoch[l])
    /\ UNCHANGED <<durable, role, leaderEpoch, leader, followerLeo, fetchState,
                   ctrlLeader, ctrlEpoch, net, nextId, crashes>>

-----------------------------------------------------------------------------
(* Durability, crash and restart. *)

(* The periodic replication-offset-checkpoint write. *)
CheckpointHW(r) ==
    /\ role[r] \in {"Leader", "Follower"}
    /\ hwCheckpoint[r] # hw[r]
    /\ hwCheckpoint' = [hwCheckpoint EXCEPT ![r] = hw[r]]
    /\ UNCHANGED <<log, epochCache, volatile, ctrl, net, ghost>>

(* A crash loses all volatile state and every message to or from r (its    *)
(* own fetcher's slot, and any follower's request to it or response from  *)
(* it, so that follower can retry).  With                                  *)
(* UnflushedLoss it may also lose any unflushed tail: keep is the number of *)
(* records that survive.  The controller sees the broker go offline.       *)
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
    /\ fetchState' = [fetchState EXCEPT ![r] = "None"]
    /\ controllerQueue' = [controllerQueue EXCEPT ![r] = <<>>]
    /\ inflight' = [f \in Replicas |->
                     IF f = r \/ (inflight[f].type # "None" /\ r \in {inflight[f].src, inflight[f].dst})
                     THEN NoMsg ELSE inflight[f]]
    /\ crashes' = crashes + 1
    /\ UNCHANGED <<epochCache, hwCheckpoint, ctrl, nextId, acked, committed>>

(* Restart: HW = min(checkpoint, LEO) and the epoch cache is truncated to  *)
(* the LEO (log recovery).  No truncation to HW here, even under           *)
(* HighWatermark: Kafka 0.10 truncated in makeFollowers, which the         *)
(* restarted broker reaches through LeaderAndIsr.  The controller sends    *)
(* the current LeaderAndIsr, unless r was the leader: then the partition   *)
(* is offline and needs an election (a new epoch) first.                   *)
Restart(r) ==
    /\ role[r] = "Offline"
    /\ hw' = [hw EXCEPT ![r] = Min(hwCheckpoint[r], LEO(r))]
    /\ epochCache' = [epochCache EXCEPT ![r] = TruncateFromEnd(epochCache[r], LEO(r))]
    /\ role' = [role EXCEPT ![r] = "Starting"]
    /\ controllerQueue' = [controllerQueue EXCEPT ![r] =
                             IF ctrlLeader \notin {r, None}
                             THEN <<LeaderAndIsrMsg(ctrlLeader, ctrlEpoch, ctrlIsr)>> ELSE <<>>]
    /\ UNCHANGED <<log, hwCheckpoint, leaderEpoch, leader, isr, followerLeo, fetchState, ctrl,
                   inflight, ghost>>

(* A lossy network may drop a fetcher's request or response (the fetcher   *)
(* times out and retries).  Controller requests are never lost: the        *)
(* controller's channel retries them until the broker dies.                 *)
LoseMessage(f) ==
    /\ LossyNetwork
    /\ inflight[f].type # "None"
    /\ inflight' = [inflight EXCEPT ![f] = NoMsg]
    /\ UNCHANGED <<durable, volatile, ctrl, controllerQueue, ghost>>

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
    \/ \E f \in Replicas : HandleFetchResponse(f)
    \/ \E l, f \in Replicas : ShrinkIsr(l, f)
    \/ \E l, f \in Replicas : ExpandIsr(l, f)
    \/ \E r \in Replicas : CheckpointHW(r)
    \/ \E r \in Replicas, k \in Offsets : Crash(r, k)
    \/ \E r \in Replicas : Restart(r)
    \/ \E f \in Replicas : LoseMessage(f)

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
    /\ fetchState \in [Replicas -> {"None", "Truncating", "Fetching"}]
    /\ ctrlLeader \in Replicas \cup {None}
    /\ ctrlEpoch \in Epochs \cup {-1}
    /\ ctrlIsr \in SUBSET Replicas
    /\ \A r \in Replicas : \A i \in 1..Len(controllerQueue[r]) :
           LET m == controllerQueue[r][i]
           IN  m.type = "LeaderAndIsr" /\ m.leader \in Replicas /\ m.epoch \in Epochs /\ m.isr \subseteq Replicas
    /\ \A f \in Replicas :
           LET m == inflight[f]
           IN  /\ m.type \in {"None", "OffsetsForLeaderEpoch", "OffsetsForLeaderEpochResponse",
                              "Fetch", "FetchResponse"}
               /\ m.type \in {"Fetch", "OffsetsForLeaderEpoch"} => m.src = f /\ m.dst \in Replicas
               /\ m.type \in {"FetchResponse", "OffsetsForLeaderEpochResponse"} =>
                      m.dst = f /\ m.src \in Replicas /\ m.error \in Errors
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
(* the epoch of the record at o.                                            *)
EpochCacheMatchesLog ==
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
(* An action property: no live replica's log ever gets shorter. *)
NoTruncation == \A r \in Replicas : role'[r] # "Offline" => Len(log'[r]) >= Len(log[r])
NeverTruncates == [][NoTruncation]_vars

=============================================================================
