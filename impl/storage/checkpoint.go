package storage

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// This file is the generic part of Kafka's CheckpointFile
// (server-common/.../CheckpointFile.java): a text file of
//
//	line 1: version
//	line 2: number of entries
//	line 3...: one entry per line
//
// written to "<file>.tmp", fsynced, renamed over the file, and the directory
// fsynced (Utils.atomicMoveWithFallback), so a crash leaves either the old or
// the new file, never a mix.
//
// Reading is stricter than Kafka's CheckpointReadBuffer, on purpose: every
// file we read is one we wrote, so anything but the canonical form (single
// spaces, "\n" line ends including after the last line, decimal numbers
// without sign or leading zeros) is a sign of corruption and is rejected with
// the file name and 1-based line. A parsed file therefore re-serializes to
// the same bytes, which FuzzReadCheckpoint checks.

// CheckpointError is a checkpoint file that cannot be read or written. Line
// is 1-based; 0 means the error is about the file as a whole (I/O).
type CheckpointError struct {
	File string
	Line int
	Msg  string
	Err  error // underlying I/O error, if any
}

func (e *CheckpointError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("storage: checkpoint file %s, line %d: %s", e.File, e.Line, e.Msg)
	}
	if e.Err != nil {
		return fmt.Sprintf("storage: checkpoint file %s: %s: %v", e.File, e.Msg, e.Err)
	}
	return fmt.Sprintf("storage: checkpoint file %s: %s", e.File, e.Msg)
}

func (e *CheckpointError) Unwrap() error { return e.Err }

// entryFormat is Kafka's CheckpointFile.EntryFormatter plus the checks that
// make a list of entries valid (shared by reader and writer, so we never
// write what we would refuse to read).
type entryFormat[T any] struct {
	version int
	fields  int
	format  func(T) string
	// parse turns the fields of one line into an entry; the returned
	// string is the reason when it fails.
	parse func(fields []string) (T, string)
	// follows checks entry cur against the entries before it (seen);
	// "" when fine.
	follows func(seen []T, cur T) string
}

// formatCheckpoint renders entries, refusing invalid ones.
func formatCheckpoint[T any](f entryFormat[T], entries []T) ([]byte, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "%d\n%d\n", f.version, len(entries))
	for i, e := range entries {
		line := f.format(e)
		// Re-parse the line: one definition of validity for both directions.
		cur, msg := f.parse(strings.Split(line, " "))
		if msg == "" {
			msg = f.follows(entries[:i], cur)
		}
		if msg != "" {
			return nil, fmt.Errorf("storage: invalid checkpoint entry %d (%s): %s", i, line, msg)
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return []byte(b.String()), nil
}

// parseCheckpoint parses data read from the file named name.
func parseCheckpoint[T any](f entryFormat[T], name string, data []byte) ([]T, error) {
	bad := func(line int, format string, args ...any) error {
		return &CheckpointError{File: name, Line: line, Msg: fmt.Sprintf(format, args...)}
	}
	if len(data) == 0 {
		return nil, bad(1, "empty file (missing version line)")
	}
	if data[len(data)-1] != '\n' {
		n := strings.Count(string(data), "\n") + 1
		return nil, bad(n, "missing newline at end of file (torn write?)")
	}
	lines := strings.Split(string(data[:len(data)-1]), "\n")

	version, msg := parseNonNegative(lines[0], 31)
	if msg != "" {
		return nil, bad(1, "version: %s", msg)
	}
	if version != int64(f.version) {
		return nil, bad(1, "unsupported version %d (want %d)", version, f.version)
	}
	if len(lines) < 2 {
		return nil, bad(2, "missing entry count line")
	}
	count, msg := parseNonNegative(lines[1], 31)
	if msg != "" {
		return nil, bad(2, "entry count: %s", msg)
	}
	body := lines[2:]
	// Never allocate by the declared count: it is untrusted.
	entries := make([]T, 0, min(int(count), len(body)))
	for i, line := range body {
		lineNo := i + 3
		if int64(i) >= count {
			return nil, bad(lineNo, "expected %d entries but found more", count)
		}
		fields := strings.Split(line, " ")
		if len(fields) != f.fields {
			return nil, bad(lineNo, "malformed entry %q: want %d space-separated fields, got %d", line, f.fields, len(fields))
		}
		e, msg := f.parse(fields)
		if msg == "" {
			msg = f.follows(entries, e)
		}
		if msg != "" {
			return nil, bad(lineNo, "malformed entry %q: %s", line, msg)
		}
		entries = append(entries, e)
	}
	if int64(len(entries)) < count {
		return nil, bad(len(lines)+1, "expected %d entries but found only %d", count, len(entries))
	}
	return entries, nil
}

// parseNonNegative parses a canonical non-negative decimal below 2^bits
// (31 for a Kafka int, 63 for a long).
func parseNonNegative(s string, bits int) (int64, string) {
	if s == "" {
		return 0, "empty number"
	}
	if s[0] == '-' {
		if _, err := strconv.ParseInt(s, 10, 64); err == nil {
			return 0, fmt.Sprintf("negative number %s", s)
		}
		return 0, fmt.Sprintf("not a number: %q", s)
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, fmt.Sprintf("not a number: %q", s)
		}
	}
	if len(s) > 1 && s[0] == '0' {
		return 0, fmt.Sprintf("number with leading zero: %q", s)
	}
	// A signed bitSize of bits+1 bounds a non-negative value to 2^bits-1.
	v, err := strconv.ParseInt(s, 10, bits+1)
	if err != nil {
		return 0, fmt.Sprintf("number out of range: %s", s)
	}
	return v, ""
}

// readCheckpoint reads and parses the file at path. A missing file is
// reported with an error wrapping fs.ErrNotExist so callers can treat it as
// "no checkpoint yet".
func readCheckpoint[T any](f entryFormat[T], path string) ([]T, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &CheckpointError{File: path, Msg: "read", Err: err}
	}
	return parseCheckpoint(f, path, data)
}

// writeCheckpoint formats entries and writes them atomically to path.
func writeCheckpoint[T any](f entryFormat[T], path string, entries []T) error {
	data, err := formatCheckpoint(f, entries)
	if err != nil {
		return &CheckpointError{File: path, Msg: "format", Err: err}
	}
	if err := writeFileAtomic(path, data); err != nil {
		return &CheckpointError{File: path, Msg: "write", Err: err}
	}
	return nil
}

// writeFileAtomic is CheckpointFile.write: temp file, fsync, rename, fsync
// of the directory so the rename itself is durable.
func writeFileAtomic(path string, data []byte) (err error) {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp, path); err != nil {
		return err
	}
	return syncDir(filepath.Dir(path))
}

// syncDir fsyncs a directory so that creations, renames and removals in it
// survive a power loss.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	// Some file systems refuse fsync on directories; that is not a
	// durability bug we can fix, so do not fail the write for it.
	if errors.Is(err, os.ErrInvalid) {
		return nil
	}
	return err
}
