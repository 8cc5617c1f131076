// Package fetcher is a follower's replica fetcher. This file holds its
// truncation rule as pure functions: no goroutines, I/O or clocks, so the
// rule can be tested against the spec case by case.
package fetcher

import (
	"errors"
	"fmt"

	"github.com/hwepoch/hwepoch/impl/release"
	"github.com/hwepoch/hwepoch/impl/storage"
)

// EpochCache is what the rule reads from the follower's own leader epoch
// cache; *storage.LeaderEpochFileCache implements it.
type EpochCache interface {
	EndOffsetFor(epoch int32, leo int64) (int32, int64)
}

// EpochEndOffset is the leader's OffsetsForLeaderEpoch answer (Kafka's
// EpochEndOffset; the spec's response fields epoch and offset). Under Kip101
// the leader answers no epoch: LeaderEpoch is storage.UndefinedEpoch.
type EpochEndOffset struct {
	LeaderEpoch int32
	EndOffset   int64
}

// TruncationTarget is the follower's truncation rule under policy p: given
// its LEO, HW, the offset its fetcher would fetch from and its epoch cache,
// and the leader's answer (to OffsetsForLeaderEpoch, or a Fetch's
// divergingEpoch), the offset to truncate to and whether truncation is
// complete or it must ask again with its new latest epoch (the KIP-279
// loop). It is the spec's TruncationTarget, which follows
// AbstractFetcherThread.getOffsetTruncationState (2.0+, also for
// divergingEpoch in 2.8+) and 0.11.0's ReplicaFetcherThread.maybeTruncate:
//
//   - leader offset undefined: the release's fallback
//     (release.UndefinedTo): the HW (0.11.0), or the fetch offset (2.0+;
//     a truncating fetcher's fetch offset is its HW, a fetching one's its
//     LEO), complete;
//   - 0.11.0 (OffsetsForLeaderEpoch v0): min(leader offset, LEO), complete;
//   - 2.0+: own = the follower's EndOffsetFor(leader's epoch):
//     own offset undefined (the follower has no such epoch):
//     min(leader offset, LEO), complete;
//     own epoch differs (the follower does not know the leader's epoch):
//     min(own offset, LEO), not complete;
//     otherwise min(own offset, leader offset, LEO), complete.
//
// HighWatermark never asks the leader (0.10.2 truncates to the HW in
// makeFollowers); for it the rule is (hw, complete) whatever the answer,
// so a caller can use one code path for every policy.
//
// The result may exceed the LEO only in the undefined case with hw > leo,
// which the spec's HWBelowLEO rules out; storage.Log.TruncateTo is a no-op
// on the records there anyway.
func TruncationTarget(p storage.Policy, leo, hw, fetchOffset int64, cache EpochCache, leader EpochEndOffset) (truncateTo int64, truncationCompleted bool, err error) {
	rel, ok := release.Of(p)
	if !ok {
		return 0, false, fmt.Errorf("fetcher: unknown truncation policy %q", string(p))
	}
	if leo < 0 || hw < 0 || fetchOffset < 0 {
		return 0, false, fmt.Errorf("fetcher: negative log end offset %d, high watermark %d or fetch offset %d", leo, hw, fetchOffset)
	}
	switch {
	case rel.Reconcile == release.TruncateToHW:
		return hw, true, nil
	case leader.EndOffset == storage.UndefinedEpochOffset:
		// The leader knows nothing at or below our epoch: fall back to
		// the release's offset known to be safe.
		if rel.UndefinedTo == release.ToHW {
			return hw, true, nil
		}
		return fetchOffset, true, nil
	case rel.Reconcile == release.OffsetsForLeaderEpochV0:
		return min(leader.EndOffset, leo), true, nil
	case cache == nil:
		return 0, false, errors.New("fetcher: epoch truncation needs the follower's epoch cache")
	}
	ownEpoch, ownOffset := cache.EndOffsetFor(leader.LeaderEpoch, leo)
	switch {
	case ownOffset == storage.UndefinedEpochOffset:
		// We track no epoch at or below the leader's (for instance a
		// replica that never tracked epochs): the leader's offset is all
		// we have (post-KIP-101, pre-KIP-279 behaviour).
		return min(leader.EndOffset, leo), true, nil
	case ownEpoch != leader.LeaderEpoch:
		// KIP-279: we never had the leader's epoch. Truncate to the end of
		// our largest epoch below it and ask again about that epoch.
		return min(ownOffset, leo), false, nil
	default:
		// Both know this epoch: the logs agree up to where the shorter of
		// the two copies of it ends.
		return min(ownOffset, leader.EndOffset, leo), true, nil
	}
}

// DivergingEpoch is the leader's half of truncation on fetch (KIP-595's
// check in Partition.readRecords, Kafka 2.7+): a follower fetching at
// fetchOffset whose last record is of lastFetchedEpoch diverges from the
// leader when the leader's endOffsetFor(lastFetchedEpoch) = (e, o) has
// e < lastFetchedEpoch (the leader never had that epoch) or o < fetchOffset
// (the leader's copy of it ends earlier). The leader then answers (e, o) as
// divergingEpoch, with no records. A fetch without a last fetched epoch
// (UndefinedEpoch: the follower has no entries) is not checked. Where
// Kafka throws OFFSET_OUT_OF_RANGE for an undefined (e, o), the spec
// answers it as a divergence like any other, and so does this.
func DivergingEpoch(leader EpochCache, leaderLEO, fetchOffset int64, lastFetchedEpoch int32) (EpochEndOffset, bool) {
	if lastFetchedEpoch == storage.UndefinedEpoch || leader == nil {
		return EpochEndOffset{}, false
	}
	e, o := leader.EndOffsetFor(lastFetchedEpoch, leaderLEO)
	if e < lastFetchedEpoch || o < fetchOffset {
		return EpochEndOffset{LeaderEpoch: e, EndOffset: o}, true
	}
	return EpochEndOffset{}, false
}
