package broker

import (
	"fmt"

	"github.com/hwepoch/hwepoch/impl/fetcher"
	"github.com/hwepoch/hwepoch/impl/protocol"
	"github.com/hwepoch/hwepoch/impl/release"
	"github.com/hwepoch/hwepoch/impl/storage"
)

// makeFollower applies a LeaderAndIsr naming another, live broker leader
// (Partition.makeFollower, ReplicaManager.makeFollowers; spec
// BecomeFollower). The caller holds p.mu and has checked that the epoch is
// newer. Waiting produce requests are answered NOT_LEADER_OR_FOLLOWER.
//
// It returns whether the fetcher restarts, which is the release's rule
// (release.RestartFetcherOn): for a new leader only (0.10.2-2.0:
// Partition.makeFollower returns false for the same leader in a higher
// epoch, and the fetcher goes on as it was), or for any new epoch (2.1+).
// A restarted fetcher reconciles by its release: 0.10.2 truncates to the
// HW here and fetches; the OffsetsForLeaderEpoch releases enter the
// truncation phase; DivergingEpoch fetches at once from its LEO with
// lastFetchedEpoch.
//
// The leader's views of its followers are not touched: Kafka keeps the
// remote replica states of a follower partition and decides at makeLeader
// whether to reset them (isNewLeader).
func (p *Partition) makeFollower(st protocol.LeaderAndIsrPartition) (restart bool, err error) {
	rel := p.b.rel
	restart = rel.RestartFetcherOn == release.EpochChange || p.leader != st.Leader
	if p.b.mutant(MutantRestartOnEpochBump) { // mutant hook: a same-leader epoch bump restarts the fetcher
		restart = true
	}
	p.role = Follower
	p.produceEpoch = -1
	p.epoch = st.LeaderEpoch
	p.leader = st.Leader
	p.partitionEpoch = -1 // a follower holds none (the spec's partitionEpoch)
	if len(st.Replicas) > 0 {
		p.replicas = append(p.replicas[:0], st.Replicas...)
	}
	p.isr = nil
	p.pendingIsr = nil
	p.leaderEpochStartOffset = -1
	p.failDelayedProduce(protocol.NotLeaderOrFollower)
	switch {
	case !restart:
		// The same leader in a new epoch, before KAFKA-7164: the fetcher
		// goes on in whatever state it was.
	case rel.Reconcile == release.TruncateToHW:
		p.fetchState = Fetching
		return true, p.truncateTo(p.hw)
	case rel.Reconcile == release.ReconcileDivergingEpoch:
		p.fetchState = Fetching
		p.validated = false
	default:
		p.fetchState = Truncating
	}
	return restart, nil
}

// canSend reports why a fetcher request of the given kind cannot be sent
// for this partition now (spec SendFetch / SendOffsetsForLeaderEpoch
// guards), or nil. The caller holds p.mu.
func (p *Partition) canSend(kind FetchState) error {
	switch {
	case p.role != Follower:
		return fmt.Errorf("broker %d: %s is %s, not a follower", p.b.cfg.BrokerID, p.tp, p.role)
	case p.fetchState != kind:
		return fmt.Errorf("broker %d: %s fetch state is %s, not %s", p.b.cfg.BrokerID, p.tp, p.fetchState, kind)
	case p.fetchSlot != 0:
		return fmt.Errorf("broker %d: %s already has fetcher request %d in flight", p.b.cfg.BrokerID, p.tp, p.fetchSlot)
	}
	return nil
}

// fetchPartition takes the request slot and returns this partition's part
// of a Fetch: from the LEO, in the current epoch, and, where the release
// truncates on fetch, with the epoch of its last record as lastFetchedEpoch
// (AbstractFetcherThread: PartitionFetchState.lastFetchedEpoch =
// latestEpoch). The caller holds p.mu and has checked canSend(Fetching).
func (p *Partition) fetchPartition(corr uint64) protocol.FetchPartition {
	p.fetchSlot = corr
	lastFetched := storage.UndefinedEpoch
	if p.b.rel.Reconcile == release.ReconcileDivergingEpoch {
		lastFetched = p.log.EpochCache().LatestEpoch()
	}
	return protocol.FetchPartition{TopicPartition: p.tp, FetchOffset: p.leo(), CurrentLeaderEpoch: p.epoch,
		LastFetchedEpoch: lastFetched}
}

// offsetsPartition takes the request slot and returns this partition's
// part of an OffsetsForLeaderEpoch: its latest epoch, and its current leader
// epoch (AbstractFetcherThread.truncateToEpochEndOffsets). The caller holds
// p.mu and has checked canSend(Truncating).
func (p *Partition) offsetsPartition(corr uint64) protocol.OffsetsForLeaderEpochPartition {
	p.fetchSlot = corr
	return protocol.OffsetsForLeaderEpochPartition{
		TopicPartition:     p.tp,
		LeaderEpoch:        p.log.EpochCache().LatestEpoch(),
		CurrentLeaderEpoch: p.epoch,
	}
}

// releaseSlot frees the request slot if request corr holds it: its
// response arrived, it timed out, or its connection was lost. It reports
// whether corr held it. The caller holds p.mu.
func (p *Partition) releaseSlot(corr uint64) bool {
	if p.fetchSlot != corr || corr == 0 {
		return false
	}
	p.fetchSlot = 0
	return true
}

// accepts is the spec's AcceptsResponse: a response is applied only from
// the current leader, for the current epoch (and, by the caller, in the
// current fetch state at the current fetch offset).
func (p *Partition) accepts(from int32, currentEpoch int32) bool {
	return p.role == Follower && from == p.leader && currentEpoch == p.epoch
}

// applyFetchResponse applies one partition of a FetchResponse from leader
// `from` to request corr (ReplicaFetcherThread.processPartitionData,
// AbstractFetcherThread.handleOutOfRangeError; spec HandleFetchResponse).
// A response to a request that no longer holds the slot (it timed out) is
// dropped whole. It reports whether the response was applied. The caller
// holds p.mu.
func (p *Partition) applyFetchResponse(from int32, corr uint64, r protocol.FetchResponsePartition) (bool, error) {
	if !p.releaseSlot(corr) {
		return false, nil
	}
	if !p.accepts(from, r.CurrentLeaderEpoch) || p.fetchState != Fetching || r.FetchOffset != p.leo() {
		return false, nil
	}
	switch {
	case r.Error == protocol.None && r.Diverging:
		if p.b.mutant(MutantIgnoreDivergingEpoch) { // mutant hook: the answer is dropped
			return true, nil
		}
		// AbstractFetcherThread.truncateOnFetchResponse: truncate by
		// getOffsetTruncationState's rule and go on fetching from the new
		// LEO with the new latest epoch; the response's data is not
		// processed (3.9: no HW update until the next fetch).
		to, _, err := fetcher.TruncationTarget(p.b.cfg.Policy, p.leo(), p.hw, r.FetchOffset, p.log.EpochCache(),
			fetcher.EpochEndOffset{LeaderEpoch: r.DivergingEpoch, EndOffset: r.DivergingEndOffset})
		if err != nil {
			return false, fmt.Errorf("broker %d: %s: %w", p.b.cfg.BrokerID, p.tp, err)
		}
		if r.DivergingEndOffset == storage.UndefinedEpochOffset && p.b.mutant(MutantUndefinedToHW) { // mutant hook: UNDEFINED truncates to the HW
			to = p.hw
		}
		return true, p.truncateTo(to)
	case r.Error == protocol.None:
		recs := make([]storage.Record, len(r.Records))
		for i, x := range r.Records {
			recs[i] = storage.Record{Offset: x.Offset, LeaderEpoch: x.LeaderEpoch, ID: x.ID}
		}
		if err := p.log.AppendAsFollower(recs); err != nil {
			return false, fmt.Errorf("broker %d: %s: append as follower: %w", p.b.cfg.BrokerID, p.tp, err)
		}
		// Follower HW = min(leader HW, LEO): it may go down after a
		// leader change (UnifiedLog.updateHighWatermark).
		p.hw = min(r.HighWatermark, p.leo())
		if p.b.mutant(MutantFollowerHWNotClamped) { // mutant hook: no clamp to the LEO
			p.hw = r.HighWatermark
		}
		p.validated = true
		return true, nil
	case r.Error == protocol.OffsetOutOfRange && r.LogEndOffset < p.leo():
		// The leader's log is shorter: truncate to its end
		// (AbstractFetcherThread.handleOutOfRangeError, the
		// leaderEndOffset < replicaEndOffset case).
		return true, p.truncateTo(r.LogEndOffset)
	}
	// NOT_LEADER_OR_FOLLOWER, FENCED_LEADER_EPOCH, UNKNOWN_LEADER_EPOCH:
	// nothing changes; the fetcher backs off and retries (the spec drops
	// the response; a newer LeaderAndIsr ends a fenced follower's retries).
	return true, nil
}

// applyOffsetsResponse applies one partition of an
// OffsetsForLeaderEpochResponse (AbstractFetcherThread.truncateToEpochEndOffsets
// -> getOffsetTruncationState; spec HandleOffsetsForLeaderEpochResponse):
// truncate per fetcher.TruncationTarget, then fetch, or — when the leader
// answered an epoch this replica never had (KIP-279) — ask again with the
// new latest epoch. It reports whether the response was applied. The caller
// holds p.mu.
func (p *Partition) applyOffsetsResponse(from int32, corr uint64, r protocol.EpochEndOffset) (bool, error) {
	if !p.releaseSlot(corr) {
		return false, nil
	}
	if !p.accepts(from, r.CurrentLeaderEpoch) || p.fetchState != Truncating || r.Error != protocol.None {
		return false, nil
	}
	to, done, err := fetcher.TruncationTarget(p.b.cfg.Policy, p.leo(), p.hw, p.hw, p.log.EpochCache(),
		fetcher.EpochEndOffset{LeaderEpoch: r.LeaderEpoch, EndOffset: r.EndOffset})
	if err != nil {
		return false, fmt.Errorf("broker %d: %s: %w", p.b.cfg.BrokerID, p.tp, err)
	}
	if p.b.mutant(MutantTruncateToHW) { // mutant hook: ignore the leader's answer
		to, done = p.hw, true
	}
	if p.b.mutant(MutantNoKip279Loop) { // mutant hook: the first answer is final
		done = true
	}
	if p.b.mutant(MutantTruncationLoopStuck) { // mutant hook: no answer is final
		done = false
	}
	if err := p.truncateTo(to); err != nil {
		return false, err
	}
	if done {
		p.fetchState = Fetching
	}
	return true, nil
}
