package storage

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"sync"

	"github.com/hwepoch/hwepoch/impl/release"
)

// Kafka's sentinels (RecordBatch.NO_PARTITION_LEADER_EPOCH,
// EpochEndOffset.UNDEFINED_EPOCH_OFFSET): "no epoch" and "no offset".
const (
	UndefinedEpoch       int32 = -1
	UndefinedEpochOffset int64 = -1
)

// LeaderEpochFileCache is Kafka's LeaderEpochFileCache
// (storage/.../epoch/LeaderEpochFileCache.java): the ordered list of
// (leader epoch, start offset) entries of one partition log, kept in a
// leader-epoch-checkpoint file that is rewritten on every change. It is the
// spec's epochCache; the methods are the spec's operators of the same names.
//
// The entries are always well-formed: epochs and start offsets strictly
// increase (Assign preserves it, loading rejects anything else).
//
// Assign follows the release's rule (release.CacheAssign): KAFKA-7415's
// truncate-and-append (2.1+), 0.11.0's greater-only append, or none at all
// (0.10.2 keeps no cache: nothing is ever assigned and the checkpoint file
// is never written).
//
// Safe for concurrent use: every method takes the cache's lock. The file is
// written before the in-memory entries change, so after an error the cache
// still equals its file.
type LeaderEpochFileCache struct {
	mu      sync.Mutex
	path    string
	rule    release.CacheAssign
	entries []EpochEntry
	mutants []Mutant // seeded bugs of the writer (Options.Mutants)
}

// NewLeaderEpochFileCache loads the cache from the checkpoint file at path,
// with KAFKA-7415's assign rule; a missing file is an empty cache (the file
// is created on first change).
func NewLeaderEpochFileCache(path string) (*LeaderEpochFileCache, error) {
	return OpenLeaderEpochFileCache(path, release.TruncateAndAppend)
}

// OpenLeaderEpochFileCache is NewLeaderEpochFileCache with the given
// release's assign rule. Under release.NoCache no file is read or written:
// the cache stays empty.
func OpenLeaderEpochFileCache(path string, rule release.CacheAssign) (*LeaderEpochFileCache, error) {
	switch rule {
	case release.NoCache:
		return &LeaderEpochFileCache{path: path, rule: rule}, nil
	case release.GreaterOnly, release.TruncateAndAppend:
	default:
		return nil, fmt.Errorf("storage: unknown epoch cache assign rule %q", string(rule))
	}
	entries, err := ReadLeaderEpochCheckpoint(path)
	if errors.Is(err, fs.ErrNotExist) {
		entries, err = nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &LeaderEpochFileCache{path: path, rule: rule, entries: entries}, nil
}

// Rule is the cache's assign rule.
func (c *LeaderEpochFileCache) Rule() release.CacheAssign { return c.rule }

// Path is the checkpoint file's path.
func (c *LeaderEpochFileCache) Path() string { return c.path }

// Entries returns a copy of the entries, oldest first.
func (c *LeaderEpochFileCache) Entries() []EpochEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.entries)
}

// LatestEpoch is the epoch of the last entry, UndefinedEpoch when empty
// (spec LatestEpoch).
func (c *LeaderEpochFileCache) LatestEpoch() int32 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return latestEpoch(c.entries)
}

// LatestEntry is the last entry, if any.
func (c *LeaderEpochFileCache) LatestEntry() (EpochEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) == 0 {
		return EpochEntry{}, false
	}
	return c.entries[len(c.entries)-1], true
}

// Assign records that epoch starts at startOffset (spec Assign), by the
// cache's rule. TruncateAndAppend (Kafka 2.1+ assign +
// maybeTruncateNonMonotonicEntries): a no-op when epoch is the latest epoch
// and startOffset is not below its start; otherwise every entry at the tail
// with epoch >= epoch or start >= startOffset is removed, the new entry
// appended and the checkpoint written. GreaterOnly (0.11.0's assign):
// appended only when the cache is empty or epoch is above the latest epoch
// and startOffset not below its start, a no-op otherwise; nothing is ever
// removed. NoCache: always a no-op.
func (c *LeaderEpochFileCache) Assign(epoch int32, startOffset int64) error {
	if epoch < 0 || startOffset < 0 {
		return fmt.Errorf("storage: invalid leader epoch entry (epoch %d, start offset %d)", epoch, startOffset)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	next, changed := assignBy(c.rule, c.entries, epoch, startOffset)
	if !changed {
		return nil
	}
	return c.replace(next)
}

// TruncateFromEnd removes the entries whose start offset is >= endOffset
// (spec TruncateFromEnd), rewriting the checkpoint if any was removed. A
// negative endOffset (UndefinedEpochOffset) changes nothing, as in Kafka's
// LeaderEpochFileCache.truncateFromEnd, which acts only "if (endOffset >=
// 0 && ...)"; the model's TruncateFromEnd does the same.
func (c *LeaderEpochFileCache) TruncateFromEnd(endOffset int64) error {
	if endOffset < 0 {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	next := truncateFromEnd(c.entries, endOffset)
	if len(next) == len(c.entries) {
		return nil
	}
	return c.replace(next)
}

// EndOffsetFor answers OffsetsForLeaderEpoch for epoch on a log whose LEO is
// leo: (the largest epoch <= epoch, the start offset of the next epoch), with
// Kafka's special cases (spec EndOffsetFor).
func (c *LeaderEpochFileCache) EndOffsetFor(epoch int32, leo int64) (int32, int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return endOffsetFor(c.entries, epoch, leo)
}

// Kip101EndOffset is Kafka 0.11.0's endOffsetFor (OffsetsForLeaderEpoch v0):
// UndefinedEpochOffset for UndefinedEpoch (a follower with no entries),
// leo for the latest epoch, else the start offset of the next higher epoch,
// else UndefinedEpochOffset (spec Kip101EndOffset).
func (c *LeaderEpochFileCache) Kip101EndOffset(epoch int32, leo int64) int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return kip101EndOffset(c.entries, epoch, leo)
}

// replace writes next to the checkpoint and then adopts it. Caller holds mu.
func (c *LeaderEpochFileCache) replace(next []EpochEntry) error {
	if err := writeLeaderEpochCheckpoint(c.path, next, c.mutants); err != nil {
		return err
	}
	c.entries = next
	return nil
}

// The pure operators below take and return entry slices; they never modify
// their argument, so a caller can keep the old slice until the file is written.

func latestEpoch(c []EpochEntry) int32 {
	if len(c) == 0 {
		return UndefinedEpoch
	}
	return c[len(c)-1].Epoch
}

// assignBy is Assign's rule as a pure function.
func assignBy(rule release.CacheAssign, c []EpochEntry, e int32, s int64) ([]EpochEntry, bool) {
	switch rule {
	case release.NoCache:
		return c, false
	case release.GreaterOnly:
		if n := len(c); n == 0 || (e > c[n-1].Epoch && s >= c[n-1].StartOffset) {
			next := make([]EpochEntry, n, n+1)
			copy(next, c)
			return append(next, EpochEntry{Epoch: e, StartOffset: s}), true
		}
		return c, false
	}
	return assign(c, e, s)
}

// assign is KAFKA-7415's rule.
func assign(c []EpochEntry, e int32, s int64) ([]EpochEntry, bool) {
	if n := len(c); n > 0 && c[n-1].Epoch == e && s >= c[n-1].StartOffset {
		return c, false
	}
	// Remove from the tail while the entry conflicts; the entries are sorted
	// on both fields, so this equals the spec's SelectSeq filter.
	n := len(c)
	for n > 0 && (c[n-1].Epoch >= e || c[n-1].StartOffset >= s) {
		n--
	}
	next := make([]EpochEntry, n, n+1)
	copy(next, c[:n])
	return append(next, EpochEntry{Epoch: e, StartOffset: s}), true
}

func truncateFromEnd(c []EpochEntry, o int64) []EpochEntry {
	n := len(c)
	for n > 0 && c[n-1].StartOffset >= o {
		n--
	}
	return slices.Clone(c[:n])
}

func endOffsetFor(c []EpochEntry, e int32, leo int64) (int32, int64) {
	if e == UndefinedEpoch {
		return UndefinedEpoch, UndefinedEpochOffset
	}
	if e == latestEpoch(c) {
		// The leader's current epoch: it ends at the LEO.
		return e, leo
	}
	next := sort.Search(len(c), func(i int) bool { return c[i].Epoch > e })
	switch {
	case next == len(c):
		// Above every known epoch (cannot happen for a leader, whose
		// latest epoch is the largest; possible for an empty cache).
		return UndefinedEpoch, UndefinedEpochOffset
	case next == 0:
		// Below the first entry: the first known start offset, with the
		// requested epoch echoed back.
		return e, c[0].StartOffset
	default:
		return c[next-1].Epoch, c[next].StartOffset
	}
}

func kip101EndOffset(c []EpochEntry, e int32, leo int64) int64 {
	if e == UndefinedEpoch {
		// 0.11.0's endOffsetFor: "if (requestedEpoch == UNDEFINED_EPOCH)
		// UNDEFINED_EPOCH_OFFSET", checked before the latest epoch, so an
		// empty leader cache does not answer its LEO to an empty follower.
		return UndefinedEpochOffset
	}
	if e == latestEpoch(c) {
		return leo
	}
	next := sort.Search(len(c), func(i int) bool { return c[i].Epoch > e })
	if next == len(c) || e < c[0].Epoch {
		return UndefinedEpochOffset
	}
	return c[next].StartOffset
}
