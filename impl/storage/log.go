package storage

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"github.com/hwepoch/hwepoch/impl/release"
)

var (
	// ErrOffsetOutOfRange is a read outside [0, LEO] (Kafka's
	// OFFSET_OUT_OF_RANGE).
	ErrOffsetOutOfRange = errors.New("storage: offset out of range")
	// ErrClosed is any use of a Log after Close or a simulated crash.
	ErrClosed = errors.New("storage: log is closed")
)

// Options configure a Log.
type Options struct {
	// SegmentBytes is the size at which the active segment is rolled;
	// 0 means DefaultSegmentBytes.
	SegmentBytes int64
	// CacheAssign is the release's epoch cache rule (release.CacheAssign);
	// empty means KAFKA-7415's TruncateAndAppend, every release since 2.1.
	CacheAssign release.CacheAssign
	// Recover makes Open repair a torn or corrupt tail of the LAST segment
	// by truncating it at the first bad record, as Kafka's log recovery after
	// an unclean shutdown does, instead of failing. What was cut is reported
	// by Log.Recovered. Damage in any earlier segment is always an error.
	Recover bool
	// TolerateEpochMismatch skips Open's checks that the records' epochs
	// never decrease and that the leader-epoch-checkpoint matches them (the
	// spec's EpochCacheMatchesLog). Under LeaderEpoch truncation with
	// fencing the spec keeps the two consistent, so either at recovery is
	// damage and Open refuses it; the older policies (HighWatermark,
	// Kip101) and LeaderEpoch without fencing can legitimately leave a
	// follower with records its cache does not cover, and even a log whose
	// epochs decrease (the explorer reaches a log of epochs [2, 1] in
	// hw-divergence, kip101-divergence and le-unfenced-cache: a replica
	// that copied a record of epoch 2 is then made leader in epoch 1 and
	// appends), and a broker running them passes this. Entries beyond the
	// LEO are dropped either way (see Open).
	TolerateEpochMismatch bool
	// Mutants are seeded bugs (Mutant), for the checks that must catch
	// them; never set otherwise.
	Mutants []Mutant
}

// Recovery describes the tail that Open cut off under Options.Recover.
type Recovery struct {
	Cause        *CorruptError // the first bad header or record
	DroppedBytes int64         // bytes removed from Cause.File
}

// Log is one partition's log: Kafka's UnifiedLog reduced to what the spec
// needs (log, epochCache; offsets are 0-based, the LEO exclusive). It owns
// its directory: segment files and the leader-epoch-checkpoint.
//
// Durability is Kafka's: appends reach the files (the page cache) at once
// but are only on stable storage after Flush; RecoveryPoint is the offset up
// to which they are. CrashLoseUnflushed simulates a power loss.
//
// Safe for concurrent use: every method takes the log's lock (and, inside it,
// the epoch cache's).
type Log struct {
	mu        sync.Mutex
	dir       string
	opts      Options
	segs      []*segment // sorted by base offset, contiguous, never empty
	cache     *LeaderEpochFileCache
	flushed   int64 // recovery point: records [0, flushed) are fsynced
	dirtyDir  bool  // a segment was created since the directory's last fsync
	closed    bool
	failed    error // sticky I/O error, see fail
	recovered *Recovery
}

// Open opens (creating if needed) the log in dir, validating every segment.
// As Kafka's recovery does, it then truncates the epoch cache to the LEO, so
// entries written ahead of records that a crash lost (an entry starting at
// or beyond the log end) are dropped, and the checkpoint rewritten: Kafka
// 2.1.0, core/src/main/scala/kafka/log/Log.scala, Log's constructor after
// loadSegments(): "_leaderEpochCache.truncateFromEnd(nextOffsetMetadata.
// messageOffset)"; Kafka 3.9.0 (tag 3.9.0-rc3), core/src/main/scala/kafka/
// log/LogLoader.scala, LogLoader.load(): "leaderEpochCache.ifPresent(
// _.truncateFromEndAsyncFlush(nextOffset))". It is the spec's Restart
// (TruncateFromEnd(epochCache[r], LEO(r))). Under a release with fenced
// leader-epoch truncation (!Options.TolerateEpochMismatch) it then refuses
// a log whose epochs decrease and a cache that does not match the log.
func Open(dir string, opts Options) (*Log, error) {
	if opts.SegmentBytes == 0 {
		opts.SegmentBytes = DefaultSegmentBytes
	}
	if opts.SegmentBytes < headerSize {
		return nil, fmt.Errorf("storage: segment size %d is below the %d-byte header", opts.SegmentBytes, headerSize)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	l := &Log{dir: dir, opts: opts}
	if err := l.load(); err != nil {
		l.closeFiles()
		return nil, err
	}
	if !opts.TolerateEpochMismatch {
		// Before the cache is touched: a corrupt log changes no file.
		if err := l.checkEpochsIncrease(); err != nil {
			l.closeFiles()
			return nil, err
		}
	}
	rule := opts.CacheAssign
	if rule == "" {
		rule = release.TruncateAndAppend
	}
	cache, err := OpenLeaderEpochFileCache(filepath.Join(dir, LeaderEpochCheckpointFilename), rule)
	if err != nil {
		l.closeFiles()
		return nil, err
	}
	cache.mutants = opts.Mutants
	l.cache = cache
	if err := cache.TruncateFromEnd(l.leo()); err != nil {
		l.closeFiles()
		return nil, err
	}
	if !opts.TolerateEpochMismatch {
		if err := l.checkEpochCache(); err != nil {
			l.closeFiles()
			return nil, err
		}
	}
	l.flushed = l.leo()
	return l, nil
}

// checkEpochCache holds the leader-epoch-checkpoint to the segments' record
// epochs at recovery (EpochCacheMatchesLog): the entry covering each offset
// (the last one starting at or before it) must name the epoch of the record
// there. A mismatch is refused, naming the file, the entry and the record:
// answering OffsetsForLeaderEpoch from such a cache would send a follower's
// truncation to the wrong offset. (Kafka rebuilds the cache from the
// batches of the segments it recovers; here the checkpoint is fsynced on
// every change, so a mismatch is not a torn write but damage.)
func (l *Log) checkEpochCache() error {
	recs, err := l.read(0, 0)
	if err != nil {
		return err
	}
	entries := l.cache.Entries()
	cover := -1
	for _, r := range recs {
		for cover+1 < len(entries) && entries[cover+1].StartOffset <= r.Offset {
			cover++
		}
		switch {
		case cover < 0:
			return fmt.Errorf("storage: %s does not match the log: no entry covers offset %d (a record of epoch %d); the first entry is %s",
				l.cache.Path(), r.Offset, r.LeaderEpoch, entryOrNone(entries))
		case entries[cover].Epoch != r.LeaderEpoch:
			e := entries[cover]
			return fmt.Errorf("storage: %s does not match the log: entry (epoch %d, start offset %d) covers offset %d, whose record has epoch %d",
				l.cache.Path(), e.Epoch, e.StartOffset, r.Offset, r.LeaderEpoch)
		}
	}
	return nil
}

// checkEpochsIncrease refuses a log whose record epochs decrease, naming
// the segment file, the byte position and the offset of the first record
// (Kafka: batch) whose epoch is below the one before it. Under fenced
// leader-epoch truncation a leader appends in its own epoch, which is above
// every epoch of its log (the cache's Assign and KIP-320's fencing see to
// it: EpochCacheMatchesLog with a well-formed cache), and a follower copies
// the leader's records after truncating to where they agree, so a lower
// epoch after a higher one is damage, and no cache can match it. Kafka
// does not truncate there: its recovery of an unflushed segment assigns a
// batch's epoch only when it is above the cache's latest (2.1.0,
// core/src/main/scala/kafka/log/LogSegment.scala, LogSegment.recover: "if
// (batch.partitionLeaderEpoch > cache.latestEpoch) cache.assign(...)";
// 3.9.0-rc3, storage/.../internals/log/LogSegment.java, recover(), the same
// test) and leaves the batch in the log. So the log is refused, not cut,
// Options.Recover or not.
func (l *Log) checkEpochsIncrease() error {
	prev := Record{LeaderEpoch: UndefinedEpoch}
	for _, s := range l.segs {
		recs, err := s.read(s.base, 0)
		if err != nil {
			return err
		}
		for k, r := range recs {
			if r.LeaderEpoch < prev.LeaderEpoch {
				return &CorruptError{File: s.path, Pos: s.pos[k], Record: k, Offset: r.Offset,
					Reason: fmt.Sprintf("the record batch at offset %d has leader epoch %d, below epoch %d of the batch before it (offset %d): a log's epochs never decrease under fenced leader-epoch truncation",
						r.Offset, r.LeaderEpoch, prev.LeaderEpoch, prev.Offset)}
			}
			prev = r
		}
	}
	return nil
}

func entryOrNone(es []EpochEntry) string {
	if len(es) == 0 {
		return "missing (the checkpoint is empty)"
	}
	return fmt.Sprintf("(epoch %d, start offset %d)", es[0].Epoch, es[0].StartOffset)
}

// load opens and validates the segment files.
func (l *Log) load() error {
	bases, err := segmentBases(l.dir)
	if err != nil {
		return err
	}
	if len(bases) == 0 {
		s, err := createSegment(l.dir, 0)
		if err != nil {
			return err
		}
		l.segs = []*segment{s}
		return l.flushLocked()
	}
	if err := checkSegmentStart(filepath.Join(l.dir, segmentName(bases[0])), bases[0], 0, true); err != nil {
		return err
	}
	for i, base := range bases {
		last := i == len(bases)-1
		s, err := l.loadSegment(base, last)
		if err != nil {
			return err
		}
		if i > 0 {
			if err := checkSegmentStart(s.path, base, l.segs[i-1].end(), false); err != nil {
				s.f.Close()
				return err
			}
		}
		l.segs = append(l.segs, s)
	}
	return nil
}

func (l *Log) loadSegment(base int64, last bool) (*segment, error) {
	path := filepath.Join(l.dir, segmentName(base))
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	recs, pos, end, cerr := scanSegment(path, base, data)
	if cerr != nil && !(l.opts.Recover && last) {
		return nil, cerr
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	s := &segment{base: base, path: path, f: f, pos: pos, recs: recs, size: end}
	if cerr != nil {
		if err := s.repair(cerr, int64(len(data))); err != nil {
			f.Close()
			return nil, err
		}
		l.recovered = &Recovery{Cause: cerr, DroppedBytes: int64(len(data)) - s.size}
	}
	return s, nil
}

// repair cuts a damaged segment back to its valid prefix and makes that
// durable; a damaged header is rewritten (the segment then holds nothing).
func (s *segment) repair(cause *CorruptError, fileSize int64) error {
	if cause.Record < 0 {
		if err := s.f.Truncate(0); err != nil {
			return err
		}
		if _, err := s.f.WriteAt(encodeHeader(s.base), 0); err != nil {
			return err
		}
		s.pos, s.recs, s.size = nil, nil, headerSize
	} else if err := s.f.Truncate(s.size); err != nil {
		return err
	}
	return s.f.Sync()
}

// Dir is the log's directory.
func (l *Log) Dir() string { return l.dir }

// EpochCache is the log's leader epoch cache. Change it through the Log
// (appends, TruncateTo, AssignEpochStartOffset), which keeps it consistent
// with the records; read it freely.
func (l *Log) EpochCache() *LeaderEpochFileCache { return l.cache }

// Recovered reports the tail Open cut off under Options.Recover, or nil.
func (l *Log) Recovered() *Recovery {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.recovered
}

// LEO is the log end offset: the offset of the next record.
func (l *Log) LEO() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.leo()
}

func (l *Log) leo() int64 { return l.segs[len(l.segs)-1].end() }

// RecoveryPoint is the offset below which every record is fsynced (Kafka's
// recoveryPoint): what survives CrashLoseUnflushed.
func (l *Log) RecoveryPoint() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.flushed
}

// Read returns the records from offset from up to the LEO, at most max of
// them (max <= 0: no limit). from == LEO gives none; outside [0, LEO] is
// ErrOffsetOutOfRange.
func (l *Log) Read(from int64, max int) ([]Record, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.usable(); err != nil {
		return nil, err
	}
	return l.read(from, max)
}

func (l *Log) read(from int64, max int) ([]Record, error) {
	if from < 0 || from > l.leo() {
		return nil, fmt.Errorf("%w: offset %d, log end offset %d", ErrOffsetOutOfRange, from, l.leo())
	}
	var out []Record
	for i := l.segmentFor(from); i < len(l.segs) && from < l.leo(); i++ {
		want := 0
		if max > 0 {
			want = max - len(out)
			if want == 0 {
				break
			}
		}
		recs, err := l.segs[i].read(from, want)
		if err != nil {
			return nil, err
		}
		out = append(out, recs...)
		from = l.segs[i].end()
	}
	return out, nil
}

// segmentFor is the index of the segment holding offset o (the last segment
// for o == LEO).
func (l *Log) segmentFor(o int64) int {
	return sort.Search(len(l.segs), func(i int) bool { return l.segs[i].base > o }) - 1
}
