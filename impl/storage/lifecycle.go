package storage

import (
	"github.com/hwepoch/hwepoch/impl/release"

	"errors"
	"fmt"
)

// usable is the error every operation returns once the log is closed or
// failed. Caller holds mu.
func (l *Log) usable() error {
	if l.closed {
		return ErrClosed
	}
	return l.failed
}

// fail makes an I/O error sticky: after a failed write or truncation the
// files no longer match what the Log believes, so it refuses further use
// (Kafka takes the whole log directory offline through LogDirFailureChannel).
// Reopening the directory reloads whatever the files hold.
func (l *Log) fail(err error) error {
	if err != nil && l.failed == nil {
		l.failed = err
	}
	return err
}

// Flush fsyncs every segment written since the last Flush, and the
// directory if segments were created, advancing the recovery point to the LEO.
func (l *Log) Flush() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.usable(); err != nil {
		return err
	}
	return l.fail(l.flushLocked())
}

func (l *Log) flushLocked() error {
	for _, s := range l.segs {
		if s.dirty {
			if err := s.f.Sync(); err != nil {
				return fmt.Errorf("storage: fsync %s: %w", s.path, err)
			}
			s.dirty = false
		}
	}
	if l.dirtyDir {
		if err := syncDir(l.dir); err != nil {
			return fmt.Errorf("storage: fsync %s: %w", l.dir, err)
		}
		l.dirtyDir = false
	}
	l.flushed = l.leo()
	return nil
}

// Close flushes and closes the log (a clean shutdown).
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	var err error
	if l.failed == nil {
		err = l.flushLocked()
	}
	return errors.Join(err, l.closeFiles())
}

func (l *Log) closeFiles() error {
	var errs []error
	for _, s := range l.segs {
		errs = append(errs, s.f.Close())
	}
	l.closed = true
	return errors.Join(errs...)
}

// CrashLoseUnflushed simulates a power loss: the files lose every record
// written since the last Flush (offsets >= RecoveryPoint), and the log is
// closed; reopen the directory to restart. The epoch-cache checkpoint is
// fsynced on every change and so survives whole, as in the spec's Crash.
func (l *Log) CrashLoseUnflushed() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.crash(l.flushed)
}

// CrashKeeping simulates a crash after which exactly the first keep records
// survive, 0 <= keep <= LEO: the spec's Crash(r, keep) under UnflushedLoss,
// which has no notion of flushing, so it may also drop flushed records. Use
// it to replay a spec trace; use CrashLoseUnflushed for free runs.
func (l *Log) CrashKeeping(keep int64) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.usable(); err != nil {
		return err
	}
	if keep < 0 || keep > l.leo() {
		return fmt.Errorf("storage: crash keeping %d records of a log with %d", keep, l.leo())
	}
	return l.crash(keep)
}

func (l *Log) crash(keep int64) error {
	if err := l.usable(); err != nil {
		return err
	}
	var err error
	if keep < l.leo() {
		err = l.truncateSegments(keep)
	}
	return errors.Join(err, l.closeFiles())
}

// EndOffsetForEpoch is the epoch cache's EndOffsetFor at the current LEO,
// read atomically with respect to appends (UnifiedLog.endOffsetForEpoch).
func (l *Log) EndOffsetForEpoch(epoch int32) (int32, int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.cache.EndOffsetFor(epoch, l.leo())
}

// OffsetsForLeaderEpoch is the leader's answer to OffsetsForLeaderEpoch for
// the follower's epoch under policy p (spec HandleOffsetsForLeaderEpoch,
// without the error cases): (UndefinedEpoch, Kip101EndOffset) under a
// release that answers OffsetsForLeaderEpoch v0 (0.11.0, no epoch in the
// answer), EndOffsetFor otherwise.
func (l *Log) OffsetsForLeaderEpoch(p Policy, epoch int32) (int32, int64, error) {
	rel, ok := release.Of(p)
	if !ok {
		return 0, 0, fmt.Errorf("storage: unknown truncation policy %q", string(p))
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.usable(); err != nil {
		return 0, 0, err
	}
	if rel.Reconcile == release.OffsetsForLeaderEpochV0 {
		return UndefinedEpoch, l.cache.Kip101EndOffset(epoch, l.leo()), nil
	}
	e, o := l.cache.EndOffsetFor(epoch, l.leo())
	return e, o, nil
}

// Snapshot is a log's state as plain values, for the abstraction function.
type Snapshot struct {
	LEO           int64
	RecoveryPoint int64
	Records       []Record
	Epochs        []EpochEntry
}

// Snapshot is the whole log and epoch cache, in one critical section. The
// records are the log's own copy of what it wrote to its segment files and
// validated when it loaded them, not read back from the files: a snapshot
// is taken after every decision of a simulation, and reading every file
// each time was a sixth of a campaign's time. Read, what a broker serves,
// reads the files (and reports damage found there); reopening the log
// validates them whole.
func (l *Log) Snapshot() (Snapshot, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.usable(); err != nil {
		return Snapshot{}, err
	}
	var recs []Record // nil when empty, as a read of the files
	if n := l.leo(); n > 0 {
		recs = make([]Record, 0, n)
	}
	for _, s := range l.segs {
		recs = s.held(recs, s.base)
	}
	return Snapshot{LEO: l.leo(), RecoveryPoint: l.flushed, Records: recs, Epochs: l.cache.Entries()}, nil
}
