package storage

import (
	"fmt"
	"os"
)

// AppendAsLeader appends records written by the leader in leader epoch
// epoch (UnifiedLog.appendAsLeader): offsets from the LEO on and the epoch are
// assigned here, whatever the records' Offset and LeaderEpoch fields say.
// Like Kafka it also assigns (epoch, first offset) in the epoch cache by the
// release's rule, a no-op when the leader already assigned its epoch on
// election. An epoch below the cache's latest is not refused: Kafka does not
// (UnifiedLog.appendAsLeader), and without KIP-320 fencing a follower can
// hold records of a later epoch than the one it is then made leader in
// (the spec's Produce appends there too; the cache rule decides what the
// entry becomes). It returns the first offset written.
func (l *Log) AppendAsLeader(epoch int32, recs []Record) (int64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.usable(); err != nil {
		return 0, err
	}
	if epoch < 0 {
		return 0, fmt.Errorf("storage: append as leader with negative epoch %d", epoch)
	}
	first := l.leo()
	if len(recs) == 0 {
		return first, nil
	}
	out := make([]Record, len(recs))
	for i, r := range recs {
		if len(r.Payload) > MaxPayloadBytes {
			return 0, fmt.Errorf("storage: record %d has a %d-byte payload, above the %d-byte limit", i, len(r.Payload), MaxPayloadBytes)
		}
		out[i] = Record{Offset: first + int64(i), LeaderEpoch: epoch, ID: r.ID, Payload: r.Payload}
	}
	if err := l.cache.Assign(epoch, first); err != nil {
		return 0, err
	}
	return first, l.fail(l.write(out))
}

// AppendAsFollower appends records fetched from the leader
// (UnifiedLog.appendAsFollower): they keep their offsets and epochs, and
// must start at the LEO and be contiguous. Each record assigns (its epoch,
// its offset) in the epoch cache (spec AppendToCache).
func (l *Log) AppendAsFollower(recs []Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.usable(); err != nil {
		return err
	}
	leo := l.leo()
	for i, r := range recs {
		switch {
		case r.Offset != leo+int64(i):
			return fmt.Errorf("storage: append as follower: record %d has offset %d, expected %d", i, r.Offset, leo+int64(i))
		case r.LeaderEpoch < 0:
			return fmt.Errorf("storage: append as follower: record at offset %d has negative epoch %d", r.Offset, r.LeaderEpoch)
		case len(r.Payload) > MaxPayloadBytes:
			return fmt.Errorf("storage: append as follower: record at offset %d has a %d-byte payload, above the %d-byte limit", r.Offset, len(r.Payload), MaxPayloadBytes)
		}
	}
	// The cache first, as in Kafka: a crash between the two leaves entries
	// beyond the LEO, which Open truncates away.
	for _, r := range recs {
		if err := l.cache.Assign(r.LeaderEpoch, r.Offset); err != nil {
			return err
		}
	}
	return l.fail(l.write(recs))
}

// AssignEpochStartOffset records that leader epoch epoch starts at
// startOffset (UnifiedLog.maybeAssignEpochStartOffset): a new leader calls it
// with its LEO (spec BecomeLeader). An offset beyond the LEO is refused.
func (l *Log) AssignEpochStartOffset(epoch int32, startOffset int64) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.usable(); err != nil {
		return err
	}
	if startOffset > l.leo() {
		return fmt.Errorf("storage: epoch %d cannot start at offset %d beyond the log end offset %d", epoch, startOffset, l.leo())
	}
	return l.cache.Assign(epoch, startOffset)
}

// write appends already-validated records to the segment files, rolling
// the active segment when it would exceed SegmentBytes. Caller holds mu.
func (l *Log) write(recs []Record) error {
	var buf []byte
	for _, r := range recs {
		s := l.segs[len(l.segs)-1]
		n := encodedSize(r)
		if len(s.pos) > 0 && s.size+n > l.opts.SegmentBytes {
			ns, err := createSegment(l.dir, r.Offset)
			if err != nil {
				return err
			}
			l.segs = append(l.segs, ns)
			l.dirtyDir = true
			s = ns
		}
		buf = appendRecord(buf[:0], r)
		if _, err := s.f.WriteAt(buf, s.size); err != nil {
			// Cut whatever part of the record reached the file, so the
			// file never holds a torn record we did not account for.
			s.f.Truncate(s.size)
			return fmt.Errorf("storage: write %s at byte %d: %w", s.path, s.size, err)
		}
		s.pos = append(s.pos, s.size)
		if r.Payload != nil {
			r.Payload = append([]byte(nil), r.Payload...)
		}
		s.recs = append(s.recs, r)
		s.size += n
		s.dirty = true
	}
	return nil
}

// TruncateTo removes the records at offsets >= offset (UnifiedLog.truncateTo;
// spec TruncLog / TruncCache). When offset >= LEO the records are untouched,
// but the epoch cache is still truncated to the LEO, as Kafka does, to drop
// an entry a leader assigned before it could append anything. The truncation
// is fsynced. It reports whether records were removed. The caller lowers
// its HW to min(HW, offset, LEO) (spec TruncHW).
func (l *Log) TruncateTo(offset int64) (bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.usable(); err != nil {
		return false, err
	}
	if offset < 0 {
		return false, fmt.Errorf("storage: truncate to negative offset %d", offset)
	}
	if offset >= l.leo() {
		return false, l.cache.TruncateFromEnd(l.leo())
	}
	if err := l.fail(l.truncateSegments(offset)); err != nil {
		return false, err
	}
	return true, l.cache.TruncateFromEnd(offset)
}

// truncateSegments cuts the files to the first offset records and fsyncs
// the cut. Later segments are removed first, last to first, so a crash
// part-way leaves a contiguous prefix. Caller holds mu; offset <= LEO.
func (l *Log) truncateSegments(offset int64) error {
	i := l.segmentFor(offset)
	if i > 0 && l.segs[i].base == offset {
		i-- // keep no empty segment behind: segment i-1 ends at offset
	}
	for len(l.segs) > i+1 {
		s := l.segs[len(l.segs)-1]
		s.f.Close()
		l.segs = l.segs[:len(l.segs)-1]
		if err := os.Remove(s.path); err != nil {
			return fmt.Errorf("storage: remove segment: %w", err)
		}
	}
	s := l.segs[i]
	if err := s.truncate(int(offset - s.base)); err != nil {
		return fmt.Errorf("storage: truncate %s: %w", s.path, err)
	}
	if err := s.f.Sync(); err != nil {
		return fmt.Errorf("storage: fsync %s: %w", s.path, err)
	}
	s.dirty = false
	if err := syncDir(l.dir); err != nil {
		return err
	}
	l.dirtyDir = false
	if !hasMutant(l.opts.Mutants, MutantTruncateKeepsRecoveryPoint) { // mutant hook: the recovery point stays
		l.flushed = min(l.flushed, offset)
	}
	return nil
}
