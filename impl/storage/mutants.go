package storage

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// Mutant is a deliberately seeded storage bug, for the checks that must
// catch it (docs/mutants.md): with one enabled (Options.Mutants) the log
// misbehaves in exactly the documented way. Production code never enables
// one; the hooks are marked "mutant hook" where they sit.
type Mutant string

const (
	// MutantTruncateKeepsRecoveryPoint: truncating the log does not lower
	// the recovery point (the flushed offset) to the new end, so records
	// appended after the truncation count as flushed before any fsync and
	// survive a power loss they would not survive. Kafka lowers it with the
	// log end (LocalLog.updateLogEndOffset: "if (recoveryPoint > endOffset)
	// updateRecoveryPoint(endOffset)").
	MutantTruncateKeepsRecoveryPoint Mutant = "truncate-keeps-recovery-point"
	// MutantCheckpointEqualStarts: the leader-epoch-checkpoint writer
	// accepts an entry whose start offset equals the previous entry's. The
	// cache's entries strictly increase in epoch and start offset (the
	// spec's EpochCacheWellFormed; Kafka's assign drops every entry whose
	// start offset is at or past the new one's), and the reader refuses a
	// file that breaks it, so the writer would write what recovery refuses.
	MutantCheckpointEqualStarts Mutant = "checkpoint-equal-start-offsets"
)

// Mutants lists the storage's seeded bugs.
var Mutants = []Mutant{MutantTruncateKeepsRecoveryPoint, MutantCheckpointEqualStarts}

func hasMutant(ms []Mutant, m Mutant) bool { return slices.Contains(ms, m) }

// CheckCheckpointWriter holds the leader-epoch-checkpoint writer to the
// cache's well-formedness at its boundary, in a file under dir: entries
// strictly increasing in epoch and start offset are written and read back
// as they are, the closest ones included (start offsets one apart); an
// entry equal to the one before it in epoch or in start offset, or below
// it, is refused and leaves the file as it was. It returns what went
// wrong, if anything; mutants seeds bugs (the mutation check's).
func CheckCheckpointWriter(dir string, mutants ...Mutant) error {
	path := filepath.Join(dir, LeaderEpochCheckpointFilename)
	good := []EpochEntry{{0, 0}, {1, 5}, {2, 6}}
	if err := writeLeaderEpochCheckpoint(path, good, mutants); err != nil {
		return fmt.Errorf("entries %v, strictly increasing, refused: %w", good, err)
	}
	if got, err := ReadLeaderEpochCheckpoint(path); err != nil || !slices.Equal(got, good) {
		return fmt.Errorf("entries %v written, read back as %v (%v)", good, got, err)
	}
	before, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	for _, bad := range []struct {
		what    string
		entries []EpochEntry
	}{
		{"an equal start offset", []EpochEntry{{0, 0}, {1, 5}, {2, 5}}},
		{"an equal epoch", []EpochEntry{{0, 0}, {1, 5}, {1, 6}}},
		{"a lower start offset", []EpochEntry{{0, 0}, {1, 5}, {2, 4}}},
		{"a lower epoch", []EpochEntry{{0, 0}, {2, 5}, {1, 6}}},
	} {
		err := writeLeaderEpochCheckpoint(path, bad.entries, mutants)
		if err == nil {
			return fmt.Errorf("entries %v, %s after the entry before it, were written: recovery would refuse the file", bad.entries, bad.what)
		}
		after, rerr := os.ReadFile(path)
		if rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
			return rerr
		}
		if string(after) != string(before) {
			return fmt.Errorf("refusing entries %v changed the file: %q, was %q", bad.entries, after, before)
		}
	}
	return nil
}
