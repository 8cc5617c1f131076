package storage

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// ReadDir reads the log in dir as its files hold it, and changes nothing:
// no directory or segment is created, nothing is opened for writing,
// truncated or repaired, and the epoch cache is the leader-epoch-checkpoint
// as written, not truncated to the LEO as Open (Kafka's LogLoader) does. It
// is the view of a stopped or crashed replica's durable state (the spec's
// log and epochCache between Crash and Restart), which opening the log would
// change.
//
// Every segment is validated as Open validates it, but nothing is recovered:
// damage anywhere, a torn tail of the last segment included, is an error. It
// is a *CorruptError naming the segment file, byte position and record for
// a bad segment; a *CheckpointError naming the file and line for a bad
// checkpoint; or an error naming the segment file for a bad layout (a stray
// .log file, a first segment not at offset 0, a gap between segments). A
// missing dir is an error wrapping fs.ErrNotExist; a missing checkpoint is
// an empty cache.
//
// The Snapshot's RecoveryPoint is its LEO: what the files hold is what
// there is, as Open reports it.
func ReadDir(dir string) (Snapshot, error) {
	bases, err := segmentBases(dir)
	if err != nil {
		return Snapshot{}, err
	}
	var recs []Record
	var leo int64
	for i, base := range bases {
		path := filepath.Join(dir, segmentName(base))
		if err := checkSegmentStart(path, base, leo, i == 0); err != nil {
			return Snapshot{}, err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return Snapshot{}, err
		}
		seg, _, _, cerr := scanSegment(path, base, data)
		if cerr != nil {
			return Snapshot{}, cerr
		}
		recs = append(recs, seg...)
		leo = base + int64(len(seg))
	}
	epochs, err := ReadLeaderEpochCheckpoint(filepath.Join(dir, LeaderEpochCheckpointFilename))
	if errors.Is(err, fs.ErrNotExist) {
		epochs, err = nil, nil
	}
	if err != nil {
		return Snapshot{}, err
	}
	return Snapshot{LEO: leo, RecoveryPoint: leo, Records: recs, Epochs: epochs}, nil
}

// segmentBases lists the base offsets of the segment files in dir, in
// increasing order, refusing a .log file not named as a segment.
func segmentBases(dir string) ([]int64, error) {
	names, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var bases []int64
	for _, e := range names {
		name := e.Name()
		if filepath.Ext(name) != segmentSuffix {
			continue
		}
		base, ok := parseSegmentName(name)
		if !ok {
			return nil, fmt.Errorf("storage: unexpected file %s in log directory (segment files are named <20-digit base offset>.log)", filepath.Join(dir, name))
		}
		bases = append(bases, base)
	}
	slices.Sort(bases)
	return bases, nil
}

// checkSegmentStart checks that the segment at path, starting at base,
// continues the log: the first starts at 0, any other where the previous
// one (prevEnd) ends.
func checkSegmentStart(path string, base, prevEnd int64, first bool) error {
	switch {
	case first && base != 0:
		return fmt.Errorf("storage: first segment %s starts at offset %d, not 0", path, base)
	case !first && base != prevEnd:
		return fmt.Errorf("storage: segment %s starts at offset %d but the previous segment ends at offset %d", path, base, prevEnd)
	}
	return nil
}
