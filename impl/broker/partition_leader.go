package broker

import (
	"fmt"
	"slices"
	"time"

	"github.com/hwepoch/hwepoch/impl/fetcher"
	"github.com/hwepoch/hwepoch/impl/protocol"
	"github.com/hwepoch/hwepoch/impl/release"
	"github.com/hwepoch/hwepoch/impl/storage"
)

// makeLeader applies a LeaderAndIsr naming this broker leader
// (Partition.makeLeader; spec BecomeLeader). The caller holds p.mu and has
// checked that the epoch is newer.
//
// From 2.1 (KAFKA-7415) the new epoch enters the epoch cache here, at the
// LEO; before, at the leader's first append (release.LeaderEntry). A new
// leader (one that was not leading: isNewLeader) forgets its views of its
// followers, so its HW cannot rise until every ISR follower has fetched
// from it; a re-elected leader keeps them and only restarts their lag
// clocks (Replica.resetLastCaughtUpTime / resetReplicaState with
// !isNewLeader), and keeps its waiting produce requests: DelayedProduce
// checks no epoch, so acks=all records of an earlier epoch of its
// uninterrupted leadership are acknowledged once the HW passes them.
func (p *Partition) makeLeader(st protocol.LeaderAndIsrPartition, now time.Time) error {
	leo := p.leo()
	atElection := p.b.rel.LeaderEntry == release.BecomeLeader
	if p.b.rel.LeaderEntry == release.FirstAppend && p.b.mutant(MutantLeaderEntryAtElection) { // mutant hook: 0.11's entry written at makeLeader
		atElection = true
	}
	if atElection {
		if err := p.log.AssignEpochStartOffset(st.LeaderEpoch, leo); err != nil {
			return fmt.Errorf("broker %d: %s: assign epoch %d at %d: %w", p.b.cfg.BrokerID, p.tp, st.LeaderEpoch, leo, err)
		}
	}
	isNewLeader := p.role != Leader
	if isNewLeader {
		p.produceEpoch = st.LeaderEpoch
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
	switch {
	case isNewLeader && !p.b.mutant(MutantNoViewReset): // mutant hook: a new leader keeps its old views
		p.resetRemotes(now, p.isr)
	case !isNewLeader && p.b.mutant(MutantReelectionViewReset): // mutant hook: a re-elected leader forgets its views
		p.resetRemotes(now, p.isr)
	default:
		p.restartLagClocks(now, leo, p.isr)
	}
	p.leaderEpochStartOffset = leo
	p.fetchState = FetchNone
	if isNewLeader || p.b.mutant(MutantReelectionFailsProduce) { // mutant hook: a re-elected leader fails its waiting acks=all
		// Nothing can be waiting (a follower's requests were answered when
		// it became one), but a new leadership owes nothing to any before.
		p.failDelayedProduce(protocol.NotLeaderOrFollower)
	}
	p.maybeIncrementLeaderHW()
	return nil
}

// updateIsr applies a LeaderAndIsr of the leader's own epoch with a newer
// partition epoch (spec UpdateIsr): the controller changed the ISR itself
// (KRaft fences a follower that died). The leader takes the ISR and
// partition epoch, drops a pending proposal (Partition.makeLeader resets
// the state to CommittedPartitionState), and its HW may move. The caller
// holds p.mu.
func (p *Partition) updateIsr(st protocol.LeaderAndIsrPartition) {
	p.isr = protocol.SortedIDs(st.Isr)
	p.partitionEpoch = st.PartitionEpoch
	p.pendingIsr = nil
	p.maybeIncrementLeaderHW()
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
// AdvanceHW): the HW becomes the smallest LEO over the maximal ISR — this
// replica's own, and its views of the followers' — if that is higher. It
// does not move while a view is unknown, nor, with MinIsrGatesHW, while the
// committed ISR is below min.insync.replicas (Partition.isUnderMinIsr).
// Records it passes are reported to the History (spec committed) and
// complete the produce requests waiting for them. The caller holds p.mu.
func (p *Partition) maybeIncrementLeaderHW() {
	isr := p.hwIsr()
	if p.b.mutant(MutantHWOverCommittedIsr) { // mutant hook: a pending expansion does not count
		isr = p.isr
	}
	if p.b.mutant(MutantHWOverAllReplicas) { // mutant hook: every replica, not the ISR
		isr = p.replicas
	}
	gate := p.isr
	if p.b.mutant(MutantHWGateOverMaximalIsr) { // mutant hook: a pending expansion lifts the gate
		gate = p.hwIsr()
	}
	if p.b.cfg.MinIsrGatesHW && len(gate) < p.b.cfg.MinInsyncReplicas {
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
	p.completeDelayedProduce()
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

// readAsLeader is the read half of serving one partition of a Fetch
// (Partition.fetchRecords / readRecords under the partition lock;
// ReplicaManager.readFromLocalLog): the request's errors, the
// lastFetchedEpoch check where the release has truncation on fetch, and
// the records with the HW and LEO as they are before this fetch updates
// anything. A consumer reads up to the HW. It reports whether the
// follower's fetch state is to be updated (updateFollowerFetchState, the
// second half): for a follower's fetch without error or divergence. The
// caller holds p.mu.
func (p *Partition) readAsLeader(replicaID int32, fp protocol.FetchPartition) (protocol.FetchResponsePartition, bool) {
	leo := p.leo()
	resp := protocol.FetchResponsePartition{
		TopicPartition:     p.tp,
		FetchOffset:        fp.FetchOffset,
		CurrentLeaderEpoch: fp.CurrentLeaderEpoch,
		HighWatermark:      -1,
		LogEndOffset:       leo,
	}
	follower := replicaID != protocol.ConsumerReplicaID
	resp.Error = p.requestError(fp.CurrentLeaderEpoch)
	if resp.Error == protocol.None && follower && p.b.rel.Reconcile == release.ReconcileDivergingEpoch {
		if div, ok := fetcher.DivergingEpoch(p.log.EpochCache(), leo, fp.FetchOffset, fp.LastFetchedEpoch); ok {
			// No records, and (3.9, KAFKA-13141) no update of the
			// follower's fetch state: its fetch offset is not a prefix of
			// this log. Kafka answers the pre-read HW, which a 3.9
			// follower does not process on a divergence; like the spec,
			// this answers none.
			resp.Diverging, resp.DivergingEpoch, resp.DivergingEndOffset = true, div.LeaderEpoch, div.EndOffset
			return resp, p.b.mutant(MutantUpdateDivergingFetchState) // mutant hook: count the diverging fetch
		}
	}
	if resp.Error == protocol.None && (fp.FetchOffset > leo || fp.FetchOffset < 0) {
		resp.Error = protocol.OffsetOutOfRange
	}
	if resp.Error != protocol.None {
		return resp, false
	}
	upTo := leo
	if !follower {
		upTo = p.hw
		if p.b.mutant(MutantConsumerPastHW) { // mutant hook: the consumer is served up to the LEO
			upTo = leo
		}
	}
	resp.HighWatermark = p.hw
	if fp.FetchOffset < upTo {
		recs, err := p.log.Read(fp.FetchOffset, int(upTo-fp.FetchOffset))
		if err != nil {
			resp.Error, resp.HighWatermark = protocol.OffsetOutOfRange, -1
			return resp, false
		}
		resp.Records = wireRecords(recs)
	}
	return resp, follower
}

// updateFollowerFetchState is Replica.updateFetchState: the fetch offset is
// the follower's LEO as the leader sees it, and the follower counts as
// caught up if it asked for the LEO, or for at least what the LEO was at its
// previous fetch. Under KIP-903 the leader also keeps the broker epoch the
// fetch carried (ReplicaState.brokerEpoch), -1 otherwise.
func (p *Partition) updateFollowerFetchState(f int32, brokerEpoch, fetchOffset, leaderLEO int64, now time.Time) {
	rr := p.remote(f)
	if p.b.mutant(MutantLagFromLastFetch) { // mutant hook: any fetch counts as caught up
		rr.lastCaughtUpTime = maxTime(rr.lastCaughtUpTime, now)
	}
	if fetchOffset >= leaderLEO {
		rr.lastCaughtUpTime = maxTime(rr.lastCaughtUpTime, now)
	} else if rr.lastFetchLeaderLEO >= 0 && fetchOffset >= rr.lastFetchLeaderLEO {
		caughtUp := rr.lastFetchTime
		if p.b.mutant(MutantCaughtUpNow) { // mutant hook: caught up now, not at the previous fetch
			caughtUp = now
		}
		rr.lastCaughtUpTime = maxTime(rr.lastCaughtUpTime, caughtUp)
	}
	rr.lastFetchLeaderLEO = leaderLEO
	rr.lastFetchTime = now
	rr.leo = fetchOffset
	rr.brokerEpoch = -1
	if p.b.rel.IsrBrokerEpochs {
		rr.brokerEpoch = brokerEpoch
	}
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
	e, o, err := p.log.OffsetsForLeaderEpoch(p.b.cfg.Policy, req.LeaderEpoch)
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
	inSync := p.isr
	if p.b.mutant(MutantProduceGateOverMaximalIsr) { // mutant hook: a pending expansion counts as in sync
		inSync = p.hwIsr()
	}
	if req.Acks == protocol.AcksAll && len(inSync) < p.b.cfg.MinInsyncReplicas {
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
		d.baseOffset = base
		d.requiredOffset = base + int64(len(recs))
		p.purgatory = append(p.purgatory, d)
	}
	p.maybeIncrementLeaderHW()
	return base, protocol.None, nil
}

func wireRecords(recs []storage.Record) []protocol.Record {
	out := make([]protocol.Record, len(recs))
	for i, r := range recs {
		out[i] = protocol.Record{Offset: r.Offset, LeaderEpoch: r.LeaderEpoch, ID: r.ID}
	}
	return out
}
