------------------------- MODULE ReplicationLiveness -------------------------
(***************************************************************************)
(* Progress, not only safety: the fairness Kafka provides and the liveness *)
(* properties of Replication under it.  A module of its own, so that the   *)
(* safety configurations, and TLC's recorded runs of them, check the same  *)
(* Replication.tla as before; a liveness configuration says                *)
(* SPECIFICATION LiveSpec and names this module.  The Go model mirrors     *)
(* every operator here in model/liveness.go (docs/mapping.md).             *)
(*                                                                         *)
(* Fairness is weak fairness on each step a live broker or the controller  *)
(* takes by itself, one instance per replica (pair), as Kafka's threads do  *)
(* it without anyone asking:                                               *)
(*  - a broker handles the controller's requests (its request handler      *)
(*    threads; the controller's channel retries until the broker dies);    *)
(*  - a follower's fetcher thread keeps sending and handling its requests  *)
(*    (AbstractFetcherThread.doWork loops while the fetcher runs);         *)
(*  - a leader answers and counts every request it holds;                  *)
(*  - a leader adds a caught-up follower back (Partition.maybeExpandIsr    *)
(*    runs on every fetch) and removes a dead one once                     *)
(*    replica.lag.time.max.ms passes (maybeShrinkIsr runs periodically);    *)
(*  - the controller answers AlterPartition and the leader applies the     *)
(*    answer;                                                              *)
(*  - the controller elects a leader for a partition without one when an   *)
(*    eligible replica is alive (onBrokerFailure / handleBrokerFenced).    *)
(* Producers, elections of a new leader while one leads, crashes,           *)
(* restarts, lost messages, missed LeaderAndIsr requests and the shrink of  *)
(* a live follower (time, abstracted) have no fairness: the environment     *)
(* may or may not do them.  Faults are finitely many in Kafka's reality:    *)
(* every property below is claimed for behaviours in which faults stop      *)
(* (FaultsStop), as "once the network heals and brokers stay up".          *)
(***************************************************************************)
EXTENDS Replication

ElectLeaderless == ctrlLeader = None /\ \E r \in Replicas : Elect(r)
ShrinkDead(l, f) == ~Up(f) /\ ShrinkIsr(l, f)

Fairness ==
    /\ \A r \in Replicas : WF_vars(HandleLeaderAndIsr(r))
    /\ \A f \in Replicas : /\ WF_vars(SendOffsetsForLeaderEpoch(f))
                           /\ WF_vars(HandleOffsetsForLeaderEpochResponse(f))
                           /\ WF_vars(SendFetch(f))
                           /\ WF_vars(HandleFetchResponse(f))
    /\ \A l, f \in Replicas : /\ WF_vars(HandleOffsetsForLeaderEpoch(l, f))
                              /\ WF_vars(HandleFetch(l, f))
                              /\ WF_vars(UpdateFollowerFetchState(l, f))
                              /\ WF_vars(ExpandIsr(l, f))
                              /\ WF_vars(ShrinkDead(l, f))
    /\ \A l \in Replicas : /\ WF_vars(HandleAlterPartition(l))
                           /\ WF_vars(HandleAlterPartitionResponse(l))
    /\ WF_vars(ElectLeaderless)

LiveSpec == Spec /\ Fairness

(* The faults: a behaviour in which they stop is one whose suffix has none. *)
Fault ==
    \/ \E r \in Replicas, k \in Offsets : Crash(r, k)
    \/ \E r \in Replicas : Restart(r) \/ MissLeaderAndIsr(r)
    \/ \E f \in Replicas : LoseMessage(f)
    \/ \E l, f \in Replicas : ShrinkIsr(l, f)

FaultsStop == <>[][~Fault]_vars

-----------------------------------------------------------------------------
(* The properties, each for behaviours in which faults stop.  Bounds a      *)
(* configuration sets (MaxEpoch, MaxPartitionEpoch) appear in them where a  *)
(* spent bound, not Kafka, would stop the progress.                        *)

(* f's leader leads f's epoch e. *)
LeadsEpoch(f, e) ==
    /\ leader[f] \in Replicas
    /\ role[leader[f]] = "Leader"
    /\ leaderEpoch[leader[f]] = e

(* (a) KIP-279's loop terminates: a follower whose leader is alive and     *)
(* leads its epoch leaves the truncation phase (under 3.9: has a fetch      *)
(* answered without divergence), unless its epoch or its leader changes.   *)
TruncationEnds ==
    FaultsStop =>
        \A f \in Replicas, e \in Epochs :
            (role[f] = "Follower" /\ fetchState[f] = "Truncating" /\ leaderEpoch[f] = e /\ LeadsEpoch(f, e))
            ~> (role[f] # "Follower" \/ fetchState[f] # "Truncating" \/ leaderEpoch[f] # e \/ ~LeadsEpoch(f, e))

(* The release holds its HW back because the ISR is below               *)
(* min.insync.replicas (3.7+): records wait for the ISR to grow, by design. *)
HWGated(l) == MinIsrGatesHW /\ Cardinality(isr[l]) < MinInsyncReplicas

(* r follows leader l in l's epoch. *)
FollowsIn(r, l) == role[r] = "Follower" /\ leader[r] = l /\ leaderEpoch[r] = leaderEpoch[l]

(* (b) Once faults stop, every live member of the current leader's ISR,    *)
(* and every replica following it in its epoch (an under-replicated        *)
(* partition heals), holds every committed record, and the HW reaches the *)
(* leader's LEO (unless the release gates it), for good.                   *)
Replicated ==
    LET l == ctrlLeader IN
    l # None /\ role[l] = "Leader" /\ leaderEpoch[l] = ctrlEpoch =>
        /\ (hw[l] = LEO(l) \/ HWGated(l))
        /\ \A r \in Replicas : (r \in isr[l] /\ Up(r)) \/ FollowsIn(r, l) => \A c \in committed : HasRecord(r, c)

ReplicasCatchUp == FaultsStop => <>[]Replicated

(* (c) An acks=all produce completes or fails, never hangs: the record at  *)
(* offset o of leader l waits in a DelayedProduce (it is past the HW and   *)
(* from l's uninterrupted leadership) until the HW passes it or l stops    *)
(* leading (the request fails with NOT_LEADER_OR_FOLLOWER).  While the      *)
(* release gates the HW, Kafka ends the wait with request.timeout.ms, a    *)
(* clock the spec does not have: that counts as failing.                    *)
Waiting(l, o) ==
    /\ Acks = "all"
    /\ role[l] = "Leader"
    /\ hw[l] <= o /\ o < LEO(l)
    /\ log[l][o + 1].epoch >= produceEpoch[l]

ProduceCompletes ==
    FaultsStop =>
        \A l \in Replicas, o \in Offsets : Waiting(l, o) ~> (~Waiting(l, o) \/ HWGated(l))

(* (d) A pending AlterPartition resolves: the leader's proposal is         *)
(* committed or dropped, or it stops leading.                              *)
AlterPartitionResolves ==
    FaultsStop =>
        \A l \in Replicas :
            (role[l] = "Leader" /\ pendingIsr[l] # {}) ~> (role[l] # "Leader" \/ pendingIsr[l] = {})

(* (e) A partition with a live eligible replica gets a leader, while the   *)
(* configuration leaves the controller an epoch to assign.                  *)
Eligible ==
    /\ ctrlLeader = None
    /\ ctrlEpoch < MaxEpoch
    /\ \E r \in Replicas : Up(r) /\ (Electable(r) \/ UncleanElectable(r))

LeaderElected == FaultsStop => (Eligible ~> (ctrlLeader # None \/ ~Eligible))

=============================================================================
