package broker

import (
	"fmt"
	"slices"
	"time"

	"github.com/hwepoch/hwepoch/impl/protocol"
)

// isrChangeKind says whether an AlterPartition adds or removes a replica.
type isrChangeKind uint8

const (
	isrExpand isrChangeKind = iota + 1
	isrShrink
)

func (k isrChangeKind) action() string {
	if k == isrExpand {
		return ActExpandIsr
	}
	return ActShrinkIsr
}

// pendingIsrChange is an AlterPartition in flight (Kafka's
// PendingExpandIsr / PendingShrinkIsr partition state).
type pendingIsrChange struct {
	kind     isrChangeKind
	replica  int32
	req      protocol.AlterPartitionRequest
	deadline time.Time
	// answered: the controller refused it with FENCED_LEADER_EPOCH or
	// INVALID_UPDATE_VERSION; it stays pending, unsent, until the next
	// LeaderAndIsr (3.9's handleAlterPartitionError).
	answered bool
}

// isFollowerInSync is Partition.isFollowerInSync / canAddReplicaToIsr
// (spec ExpandIsr guard): the follower's LEO, as last fetched, is at or
// past the HW; from 2.1 also past the start of the leader's epoch
// (KAFKA-7128: a follower that has not fetched anything of this epoch
// could still hold another epoch's records there); from 3.3 it must be
// alive (KIP-841's isReplicaIsrEligible), and from 3.5 (KIP-903) the
// fetch that made it so must be of its current incarnation: the broker
// epoch the fetch carried is the one of its current registration
// (isBrokerEpochIsrEligible).
func (p *Partition) isFollowerInSync(f int32) bool {
	rel := p.b.rel
	rr, ok := p.remotes[f]
	if !ok || rr.leo < p.hw {
		return false
	}
	if rel.ExpandLiveOnly && !p.b.brokerAlive(f) && !p.b.mutant(MutantExpandDeadFollower) { // mutant hook: no KIP-841 check
		return false
	}
	if rel.IsrBrokerEpochs && rr.brokerEpoch != p.b.brokerEpochOf(f) && !p.b.mutant(MutantExpandStaleBrokerEpoch) { // mutant hook: no KIP-903 check
		return false
	}
	if p.b.mutant(MutantNoEpochStartCheck) { // mutant hook: no KAFKA-7128 check
		return true
	}
	return !rel.ExpandNeedsEpochStart || rr.leo >= p.leaderEpochStartOffset
}

// prepareIsrChange checks that this replica, as leader, may propose adding
// or removing f, and records the proposal as pending
// (Partition.prepareIsrExpand / prepareIsrShrink). The caller holds p.mu.
func (p *Partition) prepareIsrChange(kind isrChangeKind, f int32, corr uint64, now time.Time) (protocol.AlterPartitionRequest, error) {
	me := p.b.cfg.BrokerID
	switch {
	case p.role != Leader:
		return protocol.AlterPartitionRequest{}, fmt.Errorf("broker %d: %s is %s, not leader", me, p.tp, p.role)
	case p.pendingIsr != nil:
		return protocol.AlterPartitionRequest{}, fmt.Errorf("broker %d: %s has an ISR change pending", me, p.tp)
	case p.alterInFlight != 0 && (p.b.cfg.Stepped || now.Before(p.alterDeadline)):
		// A LeaderAndIsr dropped the proposal, but its request is still out
		// (AlterPartitionManager sends one per partition at a time; the
		// spec's alterPartition[l] is not None). Free mode gives up on it
		// after request.timeout.ms, as a lost request.
		return protocol.AlterPartitionRequest{}, fmt.Errorf("broker %d: %s has AlterPartition %d in flight", me, p.tp, p.alterInFlight)
	case f == me:
		return protocol.AlterPartitionRequest{}, fmt.Errorf("broker %d: %s: the leader cannot change its own ISR membership", me, p.tp)
	}
	var isr []int32
	switch kind {
	case isrExpand:
		if slices.Contains(p.isr, f) {
			return protocol.AlterPartitionRequest{}, fmt.Errorf("broker %d: %s: %d is already in ISR %v", me, p.tp, f, p.isr)
		}
		if !p.isFollowerInSync(f) {
			rr := p.remote(f)
			return protocol.AlterPartitionRequest{}, fmt.Errorf("broker %d: %s: follower %d is not in sync (its LEO %d, HW %d, epoch start %d)",
				me, p.tp, f, rr.leo, p.hw, p.leaderEpochStartOffset)
		}
		isr = protocol.SortedIDs(append(slices.Clone(p.isr), f))
	case isrShrink:
		if !slices.Contains(p.isr, f) {
			return protocol.AlterPartitionRequest{}, fmt.Errorf("broker %d: %s: %d is not in ISR %v", me, p.tp, f, p.isr)
		}
		isr = slices.DeleteFunc(slices.Clone(p.isr), func(x int32) bool { return x == f })
	}
	req := protocol.AlterPartitionRequest{
		Header:         protocol.Header{CorrelationID: corr},
		BrokerID:       me,
		Partition:      p.tp,
		LeaderEpoch:    p.epoch,
		PartitionEpoch: p.partitionEpoch,
		NewIsr:         isr,
		Proposal:       corr,
	}
	if p.b.rel.IsrBrokerEpochs {
		// KIP-903's NewIsrWithEpochs: each follower's broker epoch as its
		// last counted fetch gave it, -1 if none (the spec's
		// followerBrokerEpoch[l]; for the leader itself too, which Kafka
		// gives its own epoch and the controller then checks against a
		// registration it has not changed).
		req.NewIsrBrokerEpochs = make([]int64, len(isr))
		for i, x := range isr {
			req.NewIsrBrokerEpochs[i] = -1
			if rr, ok := p.remotes[x]; ok && x != me {
				req.NewIsrBrokerEpochs[i] = rr.brokerEpoch
			}
		}
	}
	p.pendingIsr = &pendingIsrChange{kind: kind, replica: f, req: req, deadline: now.Add(p.b.cfg.RequestTimeout)}
	p.alterInFlight, p.alterDeadline = corr, now.Add(p.b.cfg.RequestTimeout)
	return req, nil
}

// applyAlterPartitionResponse applies the controller's answer to the
// pending change (Partition.handleAlterPartitionUpdate /
// handleAlterPartitionError; spec HandleAlterPartitionResponse). A commit
// becomes the ISR and partition epoch and the HW may move over it. A
// refusal: under the ZooKeeper releases the conditional write failed and
// nothing changed; under asynchronous AlterPartition INELIGIBLE_REPLICA
// returns to the committed state, while FENCED_LEADER_EPOCH and
// INVALID_UPDATE_VERSION leave the proposal pending until the LeaderAndIsr
// that must follow. It returns the kind of change committed (0 if none),
// its replica and the error code. The caller holds p.mu.
func (p *Partition) applyAlterPartitionResponse(r protocol.AlterPartitionResponse) (isrChangeKind, int32, protocol.Error) {
	if r.CorrelationID == p.alterInFlight {
		p.alterInFlight = 0
	}
	pd := p.pendingIsr
	if pd == nil || pd.req.CorrelationID != r.CorrelationID {
		return 0, 0, r.Error // stale: a retry or a change we gave up on
	}
	if p.role != Leader || p.epoch != pd.req.LeaderEpoch {
		p.pendingIsr = nil
		return 0, 0, r.Error
	}
	if r.Error != protocol.None {
		switch {
		case !p.b.rel.AsyncIsr, r.Error == protocol.IneligibleReplica:
			p.pendingIsr = nil
		case r.Error == protocol.FencedLeaderEpoch, r.Error == protocol.InvalidUpdateVersion,
			r.Error == protocol.UnknownTopicOrPartition:
			pd.answered = true
		default:
			p.pendingIsr = nil
		}
		return 0, 0, r.Error
	}
	p.pendingIsr = nil
	p.isr = protocol.SortedIDs(r.Isr)
	p.partitionEpoch = r.PartitionEpoch
	p.maybeIncrementLeaderHW()
	return pd.kind, pd.replica, protocol.None
}

// outOfSyncReplica is the first ISR follower that has not caught up within
// replica.lag.time.max.ms (Partition.getOutOfSyncReplicas), or -1. Kafka
// removes them all at once; one per AlterPartition keeps each change one
// spec ShrinkIsr step. The caller holds p.mu.
func (p *Partition) outOfSyncReplica(now time.Time) int32 {
	for _, f := range p.isr {
		if f == p.b.cfg.BrokerID {
			continue
		}
		rr := p.remote(f)
		if now.Sub(rr.lastCaughtUpTime) > p.b.cfg.ReplicaLagTimeMax {
			return f
		}
	}
	return -1
}
