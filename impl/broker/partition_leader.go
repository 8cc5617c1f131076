package broker

import (
	"fmt"
	"slices"
	"time"

	"github.com/hwepoch/hwepoch/impl/protocol"
	"github.com/hwepoch/hwepoch/impl/storage"
)

// makeLeader applies a LeaderAndIsr naming this broker leader
// (Partition.makeLeader; spec BecomeLeader). The caller holds p.mu and has
// checked that the epoch is newer. The new epoch starts at the LEO in the
// epoch cache, every follower view becomes unknown, and the HW may rise
// only if the ISR is this replica alone.
func (p *Partition) makeLeader(st protocol.LeaderAndIsrPartition, now time.Time) error {
	leo := p.leo()
	if err := p.log.AssignEpochStartOffset(st.LeaderEpoch, leo); err != nil {
		return fmt.Errorf("broker %d: %s: assign epoch %d at %d: %w", p.b.cfg.BrokerID, p.tp, st.LeaderEpoch, leo, err)
	}
	p.role = Leader
	p.epoch = st.LeaderEpoch
	p.leader = p.b.cfg.BrokerID
	p.partitionEpoch = st.PartitionEpoch
	if len(st.Replicas) > 0 {
		p.replicas = slices.Clone(st.Replicas)
	}
	p.isr = protocol.SortedIDs(st.Isr)
	p.pendingIsr = nil
	if !p.b.mutant(MutantNoViewReset) { // mutant hook: keep the old follower views
		p.resetRemotes(now, p.isr)
	}
	p.leaderEpochStartOffset = leo
	p.fetchState = FetchNone
	// The spec's BecomeLeader calls AdvanceHW with ackEpoch -1: a replica
	// just made leader acknowledges nothing, even if the HW jumps now.
	// Every produce request still waiting is answered NOT_LEADER_OR_FOLLOWER
	// (the spec never acknowledges a record written in an earlier epoch,
	// where Kafka would keep a re-elected leader's DelayedProduce).
	p.failDelayedProduce(protocol.NotLeaderOrFollower)
	p.maybeIncrementLeaderHW(-1)
	return nil
}

// hwIsr is the ISR the HW is computed over: the committed ISR, plus the
// replica being added while an expansion is pending (Kafka's maximalIsr:
// a pending shrink still counts the replica being removed).
func (p *Partition) hwIsr() []int32 {
	if p.pendingIsr == nil {
		return p.isr
	}
	out := slices.Clone(p.isr)
	for _, r := range p.pendingIsr.req.NewIsr {
		if !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}

// maybeIncrementLeaderHW is Partition.maybeIncrementLeaderHW (spec
// AdvanceHW): the HW becomes the smallest LEO over the ISR — this
// replica's own, and its views of the followers' — if that is higher. It
// does not move while a view is unknown, nor, with MinIsrGatesHW, while the
// ISR is below min.insync.replicas. Records it passes are reported to the
// History (spec committed) and complete the produce requests of epoch
// ackEpoch waiting for them. The caller holds p.mu.
func (p *Partition) maybeIncrementLeaderHW(ackEpoch int32) {
	isr := p.hwIsr()
	if p.b.mutant(MutantHWOverAllReplicas) { // mutant hook: every replica, not the ISR
		isr = p.replicas
	}
	if p.b.cfg.MinIsrGatesHW && len(isr) < p.b.cfg.MinInsyncReplicas {
		return
	}
	candidate := p.leo()
	for _, r := range isr {
		if r == p.b.cfg.BrokerID {
			continue
		}
		rr, ok := p.remotes[r]
		if !ok || rr.leo < 0 {
			return // a view is unknown: no HW movement
		}
		candidate = min(candidate, rr.leo)
	}
	if candidate <= p.hw {
		return
	}
	old := p.hw
	p.hw = candidate
	if h := p.b.cfg.History; h != nil {
		if recs, err := p.log.Read(old, int(candidate-old)); err == nil {
			for _, r := range recs {
				h.Committed(p.tp, r.Offset, r.ID)
			}
		}
	}
	p.completeDelayedProduce(ackEpoch)
}

// requestError is the error a leader answers a follower's request with
// (spec RequestError; Partition.getLeaderEpoch / validateLeaderEpoch). A
// request without a current epoch (-1, a consumer) is not fenced, as in
// Kafka.
func (p *Partition) requestError(currentLeaderEpoch int32) protocol.Error {
	switch {
	case p.role != Leader:
		return protocol.NotLeaderOrFollower
	case !p.b.cfg.Fencing || currentLeaderEpoch < 0 || p.b.mutant(MutantNoFencing): // mutant hook: no fencing
		return protocol.None
	case currentLeaderEpoch < p.epoch:
		return protocol.FencedLeaderEpoch
	case currentLeaderEpoch > p.epoch:
		return protocol.UnknownLeaderEpoch
	}
	return protocol.None
}

// fetchAsLeader serves one partition of a Fetch (ReplicaManager.fetchMessages,
// Partition.updateFollowerFetchState; spec HandleFetch). A follower's fetch
// offset becomes the leader's view of its LEO and may advance the HW; a
// consumer reads up to the HW. It reports whether the follower now
// qualifies for the ISR (maybeExpandIsr's test), for free mode. The caller
// holds p.mu.
func (p *Partition) fetchAsLeader(replicaID int32, fp protocol.FetchPartition, now time.Time) (protocol.FetchResponsePartition, bool) {
	leo := p.leo()
	resp := protocol.FetchResponsePartition{
		TopicPartition:     p.tp,
		FetchOffset:        fp.FetchOffset,
		CurrentLeaderEpoch: fp.CurrentLeaderEpoch,
		HighWatermark:      -1,
		LogEndOffset:       leo,
	}
	resp.Error = p.requestError(fp.CurrentLeaderEpoch)
	if resp.Error == protocol.None && (fp.FetchOffset > leo || fp.FetchOffset < 0) {
		resp.Error = protocol.OffsetOutOfRange
	}
	if resp.Error != protocol.None {
		return resp, false
	}
	expand := false
	upTo := leo
	if replicaID == protocol.ConsumerReplicaID {
		upTo = p.hw
		if p.b.mutant(MutantConsumerPastHW) { // mutant hook: the consumer is served up to the LEO
			upTo = leo
		}
	} else {
		p.updateFollowerFetchState(replicaID, fp.FetchOffset, leo, now)
		p.maybeIncrementLeaderHW(p.epoch)
		expand = !slices.Contains(p.isr, replicaID) && p.isFollowerInSync(replicaID)
	}
	resp.HighWatermark = p.hw
	if fp.FetchOffset < upTo {
		recs, err := p.log.Read(fp.FetchOffset, int(upTo-fp.FetchOffset))
		if err != nil {
			resp.Error = protocol.OffsetOutOfRange
			return resp, false
		}
		resp.Records = wireRecords(recs)
	}
	return resp, expand
}

// updateFollowerFetchState is Replica.updateFetchState: the fetch offset is
// the follower's LEO as the leader sees it, and the follower counts as
// caught up if it asked for the LEO, or for at least what the LEO was at its
// previous fetch.
func (p *Partition) updateFollowerFetchState(f int32, fetchOffset, leaderLEO int64, now time.Time) {
	rr := p.remote(f)
	if p.b.mutant(MutantLagFromLastFetch) { // mutant hook: any fetch counts as caught up
		rr.lastCaughtUpTime = maxTime(rr.lastCaughtUpTime, now)
	}
	if fetchOffset >= leaderLEO {
		rr.lastCaughtUpTime = maxTime(rr.lastCaughtUpTime, now)
	} else if rr.lastFetchLeaderLEO >= 0 && fetchOffset >= rr.lastFetchLeaderLEO {
		rr.lastCaughtUpTime = maxTime(rr.lastCaughtUpTime, rr.lastFetchTime)
	}
	rr.lastFetchLeaderLEO = leaderLEO
	rr.lastFetchTime = now
	rr.leo = fetchOffset
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// lastOffsetForLeaderEpoch answers one partition of OffsetsForLeaderEpoch
// (Partition.lastOffsetForLeaderEpoch; spec HandleOffsetsForLeaderEpoch):
// endOffsetFor under LeaderEpoch, the start of the next higher epoch with no
// epoch under Kip101 (OffsetsForLeaderEpoch v0). The caller holds p.mu.
func (p *Partition) lastOffsetForLeaderEpoch(req protocol.OffsetsForLeaderEpochPartition) protocol.EpochEndOffset {
	out := protocol.EpochEndOffset{
		TopicPartition:     p.tp,
		LeaderEpoch:        storage.UndefinedEpoch,
		EndOffset:          storage.UndefinedEpochOffset,
		CurrentLeaderEpoch: req.CurrentLeaderEpoch,
	}
	out.Error = p.requestError(req.CurrentLeaderEpoch)
	if out.Error != protocol.None {
		return out
	}
	policy := p.b.cfg.Policy
	if policy == storage.HighWatermark {
		// A HighWatermark follower never asks; answer as KIP-101 does.
		policy = storage.LeaderEpoch
	}
	e, o, err := p.log.OffsetsForLeaderEpoch(policy, req.LeaderEpoch)
	if err != nil {
		out.Error = protocol.NotLeaderOrFollower
		return out
	}
	out.LeaderEpoch, out.EndOffset = e, o
	return out
}

// appendRecordsToLeader is Partition.appendRecordsToLeader (spec Produce):
// refused when not leader, and for acks=all when the ISR is below
// min.insync.replicas (NOT_ENOUGH_REPLICAS, before anything is written).
// The records get the leader's epoch and the next offsets; the HW may move
// (when the ISR is this replica alone). The caller holds p.mu and has put
// nothing in the purgatory yet: for acks=all, d is added before the HW is
// recomputed so that one rule completes it.
func (p *Partition) appendRecordsToLeader(req protocol.ProduceRequest, d *delayedProduce) (int64, protocol.Error, error) {
	if p.role != Leader {
		return -1, protocol.NotLeaderOrFollower, nil
	}
	if req.Acks == protocol.AcksAll && len(p.isr) < p.b.cfg.MinInsyncReplicas {
		return -1, protocol.NotEnoughReplicas, nil
	}
	recs := make([]storage.Record, len(req.Records))
	for i, r := range req.Records {
		recs[i] = storage.Record{ID: r.ID, Payload: r.Payload}
	}
	base, err := p.log.AppendAsLeader(p.epoch, recs)
	if err != nil {
		return -1, protocol.NotLeaderOrFollower, fmt.Errorf("broker %d: append to %s: %w", p.b.cfg.BrokerID, p.tp, err)
	}
	if d != nil && p.b.mutant(MutantAckOnAppend) { // mutant hook: acks=all answered at once
		p.b.answerProduce(&delayedProduce{tp: d.tp, replyTo: d.replyTo, corr: d.corr, baseOffset: base}, protocol.None)
		d = nil
	}
	if d != nil {
		d.epoch = p.epoch
		d.baseOffset = base
		d.requiredOffset = base + int64(len(recs))
		p.purgatory = append(p.purgatory, d)
	}
	p.maybeIncrementLeaderHW(p.epoch)
	return base, protocol.None, nil
}

func wireRecords(recs []storage.Record) []protocol.Record {
	out := make([]protocol.Record, len(recs))
	for i, r := range recs {
		out[i] = protocol.Record{Offset: r.Offset, LeaderEpoch: r.LeaderEpoch, ID: r.ID}
	}
	return out
}
