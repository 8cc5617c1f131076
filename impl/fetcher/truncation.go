// Package fetcher is a follower's replica fetcher. This file holds its
// truncation rule as pure functions: no goroutines, I/O or clocks, so the
// rule can be tested against the spec case by case.
package fetcher

import (
	"errors"
	"fmt"

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
// its LEO, HW and epoch cache and the leader's answer, the offset to
// truncate to and whether truncation is complete (the follower then starts
// fetching) or it must ask again with its new latest epoch (the KIP-279
// loop). It is the spec's TruncationTarget, which follows
// AbstractFetcherThread.getOffsetTruncationState (LeaderEpoch) and 0.11.0's
// ReplicaFetcherThread.maybeTruncate (Kip101):
//
//   - leader offset undefined: truncate to the HW, complete;
//   - Kip101: min(leader offset, LEO), complete;
//   - LeaderEpoch: own = the follower's EndOffsetFor(leader's epoch):
//     own offset undefined (the follower has no such epoch):
//     min(leader offset, LEO), complete;
//     own epoch differs (the follower does not know the leader's epoch):
//     min(own offset, LEO), not complete;
//     otherwise min(own offset, leader offset, LEO), complete.
//
// HighWatermark never asks the leader (the spec truncates to the HW in
// BecomeFollower and Restart); for it the rule is (hw, complete) whatever
// the answer, so a caller can use one code path for every policy.
//
// The result may exceed the LEO only in the undefined case with hw > leo,
// which the spec's HWBelowLEO rules out; storage.Log.TruncateTo is a no-op on
// the records there anyway.
func TruncationTarget(p storage.Policy, leo, hw int64, cache EpochCache, leader EpochEndOffset) (truncateTo int64, truncationCompleted bool, err error) {
	if !p.Valid() {
		return 0, false, fmt.Errorf("fetcher: unknown truncation policy %q", string(p))
	}
	if leo < 0 || hw < 0 {
		return 0, false, fmt.Errorf("fetcher: negative log end offset %d or high watermark %d", leo, hw)
	}
	switch {
	case p == storage.HighWatermark:
		return hw, true, nil
	case leader.EndOffset == storage.UndefinedEpochOffset:
		// The leader knows nothing at or below our epoch: fall back to the
		// HW, the only offset we know to be committed.
		return hw, true, nil
	case p == storage.Kip101:
		return min(leader.EndOffset, leo), true, nil
	case cache == nil:
		return 0, false, errors.New("fetcher: LeaderEpoch truncation needs the follower's epoch cache")
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
