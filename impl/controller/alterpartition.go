package controller

import (
	"fmt"
	"math"
	"slices"
)

// AlterPartitionRequest is one partition of Kafka's AlterPartition request:
// the leader proposes a new ISR, stating the leader epoch and partition
// epoch of the state it is changing.
type AlterPartitionRequest struct {
	BrokerID       BrokerID // the broker sending the request
	Partition      TopicPartition
	LeaderEpoch    int32
	PartitionEpoch int32
	NewIsr         []BrokerID
	// NewIsrBrokerEpochs are the broker epochs of NewIsr's members, in its
	// order (NewIsrWithEpochs, KIP-903); -1, or nil for all, skips the
	// check.
	NewIsrBrokerEpochs []int64
}

// AlterPartition applies an ISR change as a compare-and-set on the
// partition's LeaderAndIsr, fenced by the leader epoch and the partition
// epoch, so that only the current leader, acting on the current state, can
// change the ISR. On success the ISR is replaced and the partition epoch is
// bumped (the leader epoch is not), and under EligibleLeaderReplicas the
// ELR follows the ISR (see below); the new state is returned. A request
// whose ISR equals the current one (as a set) changes nothing and returns
// the current state, as KRaft does when the change builder produces no
// record.
//
// That holds even when the request's partition epoch is below ours, which
// makes AlterPartition idempotent: a leader whose answer was lost retries
// the same request, now one version behind the change it caused, and gets
// the current state back instead of INVALID_UPDATE_VERSION (which would
// leave it behind the controller's ISR). This is Kafka's ZooKeeper
// controller (KafkaController.processAlterPartition, with
// LeaderAndIsr.equalsAllowStalePartitionEpoch), checked after the leader
// epoch fence and before the partition epoch check. KRaft's
// ReplicationControlManager refuses such a retry and lets the leader learn
// the new state from the metadata log, which this implementation does not
// have.
//
// The other checks and their order are KRaft's
// ReplicationControlManager.validateAlterPartitionData:
//
//	UNKNOWN_TOPIC_OR_PARTITION  no such partition
//	NOT_CONTROLLER              leader or partition epoch above ours: the
//	                            sender has seen a newer controller state
//	FENCED_LEADER_EPOCH         leader epoch below ours: a zombie leader;
//	                            or the leader went offline since its
//	                            election (see OfflinePartitions)
//	NOT_LEADER_OR_FOLLOWER      the sender is not the leader (KRaft answers
//	                            INVALID_REQUEST here; the Kafka name for the
//	                            situation is used instead)
//	(success, no change)        partition epoch below ours, ISR already
//	                            the one proposed: a retry (above)
//	INVALID_UPDATE_VERSION      partition epoch below ours otherwise: the
//	                            leader's view of the ISR is stale
//	INVALID_REQUEST             empty ISR, duplicate or non-replica members,
//	                            or an ISR without the leader
//	INELIGIBLE_REPLICA          only with Config.RejectIneligibleReplicas
//	                            (KIP-841): a member being added is not live;
//	                            or (KIP-903) its broker epoch in the request
//	                            is neither -1 nor that of its current
//	                            registration. Only added members are
//	                            checked, as Kafka's ZooKeeper controller
//	                            does and the spec's HandleAlterPartition,
//	                            because this controller does not purge
//	                            failed brokers from ISRs and must still let
//	                            a leader shrink (KRaft's
//	                            ineligibleReplicasForIsr checks every
//	                            member).
func (c *Controller) AlterPartition(req AlterPartitionRequest) (LeaderAndIsr, error) {
	tp := req.Partition
	p, err := c.lookup(tp)
	if err != nil {
		return LeaderAndIsr{}, err
	}
	refuse := func(code ErrorCode, format string, args ...any) (LeaderAndIsr, error) {
		e := partitionError(code, tp, ReasonUnspecified, format, args...)
		e.Candidate = req.BrokerID
		return LeaderAndIsr{}, e
	}
	switch {
	case req.LeaderEpoch > p.LeaderEpoch:
		return refuse(ErrNotController, "request leader epoch %d is above the controller's %d", req.LeaderEpoch, p.LeaderEpoch)
	case req.PartitionEpoch > p.PartitionEpoch:
		return refuse(ErrNotController, "request partition epoch %d is above the controller's %d", req.PartitionEpoch, p.PartitionEpoch)
	case req.LeaderEpoch < p.LeaderEpoch:
		return refuse(ErrFencedLeaderEpoch, "request leader epoch %d, current %d", req.LeaderEpoch, p.LeaderEpoch)
	case c.leaderLost[tp]:
		// KRaft fences a failed leader by electing (or setting NoLeader) with
		// a new epoch, so its request would fail the check above; here the
		// epoch only moves at the next election, so refuse the same way.
		return refuse(ErrFencedLeaderEpoch, "leader %d went offline after epoch %d was assigned", p.Leader, p.LeaderEpoch)
	case req.BrokerID != p.Leader:
		return refuse(ErrNotLeaderOrFollower, "broker %d is not the leader (%d)", req.BrokerID, p.Leader)
	case req.PartitionEpoch < p.PartitionEpoch && sameSet(req.NewIsr, p.Isr) && !c.cfg.FenceFailedReplicas:
		// The ZooKeeper controller takes a retry of a change already made
		// (LeaderAndIsr.equalsAllowStalePartitionEpoch); KRaft's
		// ReplicationControlManager refuses every stale partition epoch.
		return p.LeaderAndIsr.Clone(), nil
	case req.PartitionEpoch < p.PartitionEpoch && !c.cfg.AcceptStalePartitionEpoch: // mutant hook: stale accepted
		return refuse(ErrInvalidUpdateVersion, "request partition epoch %d, current %d", req.PartitionEpoch, p.PartitionEpoch)
	case len(req.NewIsr) == 0:
		return refuse(ErrInvalidRequest, "empty ISR")
	}
	replicas := p.Replicas()
	for i, id := range req.NewIsr {
		if slices.Contains(req.NewIsr[:i], id) {
			return refuse(ErrInvalidRequest, "broker %d appears twice in ISR %v", id, req.NewIsr)
		}
		if !slices.Contains(replicas, id) {
			return refuse(ErrInvalidRequest, "broker %d in ISR %v is not a replica of %v", id, req.NewIsr, replicas)
		}
	}
	if !slices.Contains(req.NewIsr, p.Leader) {
		return refuse(ErrInvalidRequest, "ISR %v does not include the leader %d", req.NewIsr, p.Leader)
	}
	if len(req.NewIsrBrokerEpochs) != 0 && len(req.NewIsrBrokerEpochs) != len(req.NewIsr) {
		return refuse(ErrInvalidRequest, "%d broker epochs for ISR %v", len(req.NewIsrBrokerEpochs), req.NewIsr)
	}
	for i, id := range req.NewIsr {
		if slices.Contains(p.Isr, id) {
			continue
		}
		if c.cfg.RejectIneligibleReplicas && !c.IsLive(id) {
			return refuse(ErrIneligibleReplica, "broker %d being added to the ISR is %s", id, c.brokers[id])
		}
		if len(req.NewIsrBrokerEpochs) > 0 && !c.cfg.mutant(MutantIgnoresBrokerEpochs) { // mutant hook: no KIP-903 check
			if e := req.NewIsrBrokerEpochs[i]; e != -1 && e != c.brokerEpochs[id] {
				return refuse(ErrIneligibleReplica, "broker %d being added to the ISR: broker epoch mismatch: requested=%d, current=%d",
					id, e, c.brokerEpochs[id])
			}
		}
	}
	if sameSet(req.NewIsr, p.Isr) {
		return p.LeaderAndIsr.Clone(), nil
	}
	if p.PartitionEpoch == math.MaxInt32 {
		e := partitionError(ErrUnknownServerError, tp, ReasonEpochOverflow, "partition epoch %d", p.PartitionEpoch)
		e.Candidate = req.BrokerID
		return LeaderAndIsr{}, e
	}
	// Under EligibleLeaderReplicas the replicas a change takes out of an
	// ISR below the effective min.insync.replicas join the ELR, the ones it
	// adds leave it, and at or above the minimum it is empty
	// (ReplicationControlManager.alterPartition builds with
	// setEligibleLeaderReplicasEnabled(isElrEnabled()), and
	// PartitionChangeBuilder.maybePopulateTargetElr). No shrink is refused:
	// the leader's HW gate keeps it safe (validateAlterPartitionData has no
	// ELR or min ISR check).
	p.Elr = c.elrAfter(p, p.Isr, req.NewIsr)
	p.Isr = slices.Clone(req.NewIsr)
	if !c.cfg.IsrWriteKeepsPartitionEpoch {
		p.PartitionEpoch++
	}
	return p.LeaderAndIsr.Clone(), nil
}

// sameSet reports whether a and b hold the same brokers, each once: a list
// with a duplicate is never the same set as another (so [1 1 3] is not
// [1 2 3], although each of its members is in it).
func sameSet(a, b []BrokerID) bool {
	if len(a) != len(b) {
		return false
	}
	for i, x := range a {
		if slices.Contains(a[:i], x) || !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// ---------------------------------------------------------------------------
// Reassignment: just enough of Kafka's for the reassignment election to
// have its real input.

// AlterPartitionReassignment starts moving a partition to the target
// replicas (Kafka's AlterPartitionReassignments for one partition). While
// it runs, Replicas() is (target ++ assignment).distinct. Deviations:
// cancelling and replacing a running reassignment are not supported
// (REASSIGNMENT_IN_PROGRESS), and the target replicas join the ISR through
// the leader's AlterPartition as usual.
func (c *Controller) AlterPartitionReassignment(tp TopicPartition, target []BrokerID) error {
	p, err := c.lookup(tp)
	if err != nil {
		return err
	}
	if p.ReassignmentInProgress() {
		return partitionError(ErrReassignmentInProgress, tp, ReasonUnspecified, "already moving to %v", p.TargetReplicas)
	}
	if err := validateReplicas(tp, target); err != nil {
		return err
	}
	if p.PartitionEpoch == math.MaxInt32 {
		return partitionError(ErrUnknownServerError, tp, ReasonEpochOverflow, "partition epoch %d", p.PartitionEpoch)
	}
	p.TargetReplicas = slices.Clone(target)
	p.PartitionEpoch++
	return nil
}

// CompleteReassignment finishes a reassignment once every target replica
// is in the ISR (KafkaController.onPartitionReassignment's completion
// phase): if the leader is not a live target replica, a reassignment
// election picks a new one; otherwise the leader stays and its epoch is
// bumped (moveReassignedPartitionLeaderIfRequired). The ISR loses the
// replicas that are not targets, the assignment becomes the target, and
// the result is returned. Kafka does this in several ZooKeeper writes; here
// it is one step with one epoch bump.
func (c *Controller) CompleteReassignment(tp TopicPartition) (ElectionResult, error) {
	p, err := c.lookup(tp)
	if err != nil {
		return ElectionResult{}, err
	}
	if !p.ReassignmentInProgress() {
		return ElectionResult{}, partitionError(ErrNoReassignmentInProgress, tp, ReasonUnspecified, "no target replicas")
	}
	for _, id := range p.TargetReplicas {
		if !slices.Contains(p.Isr, id) {
			return ElectionResult{}, partitionError(ErrReassignmentInProgress, tp, ReasonTargetNotInIsr,
				"target replica %d is not in ISR %v", id, p.Isr)
		}
	}
	leader := p.Leader
	if !slices.Contains(p.TargetReplicas, leader) || !c.IsLive(leader) {
		var ok bool
		leader, ok = ReassignPartitionLeaderElection(p.TargetReplicas, p.Isr, c.filterLive(p.TargetReplicas))
		if !ok {
			return ElectionResult{}, partitionError(ErrEligibleLeadersNotAvailable, tp, ReasonNoEligibleReplica,
				"no live target replica of %v in ISR %v", p.TargetReplicas, p.Isr)
		}
	}
	newIsr := make([]BrokerID, 0, len(p.Isr))
	for _, id := range p.Isr {
		if slices.Contains(p.TargetReplicas, id) {
			newIsr = append(newIsr, id)
		}
	}
	target := p.TargetReplicas
	r, err := c.apply(tp, p, ReassignPartitionLeaderElectionStrategy, leader, newIsr, false)
	if err != nil {
		return ElectionResult{}, err
	}
	p.Assignment = target
	p.TargetReplicas = nil
	return r, nil
}

// String renders a request for logs.
func (r AlterPartitionRequest) String() string {
	return fmt.Sprintf("AlterPartition(%s from %d, LeaderEpoch:%d, PartitionEpoch:%d, NewIsr:%v)",
		r.Partition, r.BrokerID, r.LeaderEpoch, r.PartitionEpoch, r.NewIsr)
}
