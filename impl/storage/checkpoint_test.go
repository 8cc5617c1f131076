package storage

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestLeaderEpochCheckpointRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), LeaderEpochCheckpointFilename)
	for _, want := range [][]EpochEntry{
		nil,
		entries(0, 0),
		entries(0, 0, 2, 3, 7, 9, 2147483647, 9223372036854775807),
	} {
		if err := WriteLeaderEpochCheckpoint(path, want); err != nil {
			t.Fatal(err)
		}
		got, err := ReadLeaderEpochCheckpoint(path)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("round trip of %v = %v, %v", want, got, err)
		}
	}
	data, _ := os.ReadFile(path)
	if want := "0\n4\n0 0\n2 3\n7 9\n2147483647 9223372036854775807\n"; string(data) != want {
		t.Errorf("file = %q, want %q", data, want)
	}
	if _, err := os.Stat(path + ".tmp"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("temp file left behind: %v", err)
	}
}

func TestReplicationOffsetCheckpointRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), ReplicationOffsetCheckpointFilename)
	want := []TopicPartitionOffset{{"t", 0, 5}, {"orders.v2_x-y", 3, 0}, {"t", 1, 9223372036854775807}}
	if err := WriteReplicationOffsetCheckpoint(path, want); err != nil {
		t.Fatal(err)
	}
	got, err := ReadReplicationOffsetCheckpoint(path)
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("round trip = %v, %v; want %v", got, err, want)
	}
	data, _ := os.ReadFile(path)
	if w := "0\n3\nt 0 5\norders.v2_x-y 3 0\nt 1 9223372036854775807\n"; string(data) != w {
		t.Errorf("file = %q, want %q", data, w)
	}
}

func TestReadMissingCheckpoint(t *testing.T) {
	_, err := ReadLeaderEpochCheckpoint(filepath.Join(t.TempDir(), "nope"))
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v, want fs.ErrNotExist", err)
	}
}

func TestWriteRefusesInvalidEntries(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, LeaderEpochCheckpointFilename)
	good := entries(1, 0)
	if err := WriteLeaderEpochCheckpoint(path, good); err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][]EpochEntry{
		entries(-1, 0), entries(0, -1), entries(2, 0, 1, 5), entries(1, 0, 1, 5), entries(1, 5, 2, 5),
	} {
		if err := WriteLeaderEpochCheckpoint(path, bad); err == nil {
			t.Errorf("wrote invalid entries %v", bad)
		}
	}
	for _, bad := range [][]TopicPartitionOffset{
		{{"", 0, 0}}, {{"a b", 0, 0}}, {{"..", 0, 0}}, {{strings.Repeat("x", 250), 0, 0}},
		{{"t", -1, 0}}, {{"t", 0, -1}}, {{"t", 0, 1}, {"t", 0, 2}},
	} {
		if err := WriteReplicationOffsetCheckpoint(filepath.Join(dir, "r"), bad); err == nil {
			t.Errorf("wrote invalid entries %v", bad)
		}
	}
	if got, err := ReadLeaderEpochCheckpoint(path); err != nil || !slices.Equal(got, good) {
		t.Errorf("refused write changed the file: %v, %v", got, err)
	}
}

// Every kind of damage is rejected with an error naming the file and the
// 1-based line.
func TestCheckpointCorruption(t *testing.T) {
	tests := []struct {
		name     string
		epochs   bool // leader-epoch-checkpoint, else replication-offset-checkpoint
		data     string
		wantLine int
		wantMsg  string
	}{
		{"empty file", true, "", 1, "empty file"},
		{"bad version", true, "1\n0\n", 1, "unsupported version 1"},
		{"version not a number", true, "v0\n0\n", 1, "not a number"},
		{"negative version", true, "-1\n0\n", 1, "negative"},
		{"missing count", true, "0\n", 2, "missing entry count"},
		{"count not a number", true, "0\ntwo\n1 0\n2 5\n", 2, "not a number"},
		{"negative count", true, "0\n-1\n", 2, "negative"},
		{"count too small", true, "0\n1\n1 0\n2 5\n", 4, "expected 1 entries but found more"},
		{"trailing garbage", true, "0\n1\n1 0\ngarbage\n", 4, "expected 1 entries but found more"},
		{"trailing garbage, offsets", false, "0\n1\nt 0 5\n\x00\n", 4, "expected 1 entries but found more"},
		{"count too large", true, "0\n3\n1 0\n2 5\n", 5, "expected 3 entries but found only 2"},
		{"huge count", true, "0\n2147483647\n1 0\n", 4, "found only 1"},
		{"count out of range", true, "0\n2147483648\n", 2, "out of range"},
		{"one field", true, "0\n2\n1 0\n7\n", 4, "want 2 space-separated fields, got 1"},
		{"three fields", true, "0\n1\n1 0 0\n", 3, "got 3"},
		{"double space", true, "0\n1\n1  0\n", 3, "got 3"},
		{"blank line", true, "0\n2\n1 0\n\n", 4, "got 1"},
		{"negative epoch", true, "0\n1\n-1 0\n", 3, "epoch: negative number -1"},
		{"negative start offset", true, "0\n2\n1 0\n2 -5\n", 4, "start offset: negative number -5"},
		{"epoch out of int32 range", true, "0\n1\n2147483648 0\n", 3, "out of range"},
		{"non-monotonic epochs", true, "0\n3\n1 0\n3 5\n2 7\n", 5, "non-monotonic epoch: 2 after 3"},
		{"repeated epoch", true, "0\n2\n1 0\n1 5\n", 4, "non-monotonic epoch"},
		{"non-monotonic start offsets", true, "0\n2\n1 5\n2 3\n", 4, "non-monotonic start offset: 3 after 5"},
		{"leading zero", true, "0\n1\n01 0\n", 3, "leading zero"},
		{"plus sign", true, "0\n1\n+1 0\n", 3, "not a number"},
		{"garbage bytes", true, "0\n1\n1 \x00\n", 3, "not a number"},
		{"missing final newline", true, "0\n2\n1 0\n2 5", 4, "missing newline at end of file"},
		{"CRLF line ends", true, "0\r\n0\r\n", 1, "not a number"},
		{"bad topic", false, "0\n1\nto/pic 0 5\n", 3, "illegal character"},
		{"dot topic", false, "0\n1\n. 0 5\n", 3, "illegal topic name"},
		{"negative partition", false, "0\n1\nt -2 5\n", 3, "partition: negative number -2"},
		{"negative offset", false, "0\n2\nt 0 1\nt 1 -9\n", 4, "offset: negative number -9"},
		{"duplicate partition", false, "0\n2\nt 0 1\nt 0 2\n", 4, "duplicate partition t-0"},
		{"offset out of range", false, "0\n1\nt 0 9223372036854775808\n", 3, "out of range"},
		{"two fields", false, "0\n1\nt 0\n", 3, "want 3 space-separated fields"},
		{"bad version offsets", false, "3\n0\n", 1, "unsupported version 3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "some-checkpoint")
			if err := os.WriteFile(path, []byte(tt.data), 0o644); err != nil {
				t.Fatal(err)
			}
			var err error
			if tt.epochs {
				_, err = ReadLeaderEpochCheckpoint(path)
			} else {
				_, err = ReadReplicationOffsetCheckpoint(path)
			}
			var ce *CheckpointError
			if !errors.As(err, &ce) {
				t.Fatalf("got %v, want a *CheckpointError", err)
			}
			if ce.File != path || ce.Line != tt.wantLine {
				t.Errorf("error names %s line %d, want %s line %d (%v)", ce.File, ce.Line, path, tt.wantLine, err)
			}
			msg := err.Error()
			for _, want := range []string{path, fmt.Sprintf("line %d", tt.wantLine), tt.wantMsg} {
				if !strings.Contains(msg, want) {
					t.Errorf("error %q does not mention %q", msg, want)
				}
			}
		})
	}
}

// A corrupt leader-epoch-checkpoint makes the cache (and so the log)
// refuse to load rather than start empty.
func TestCorruptEpochCheckpointRefusesToLoad(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, LeaderEpochCheckpointFilename)
	os.WriteFile(path, []byte("0\n2\n3 0\n1 4\n"), 0o644)
	if _, err := NewLeaderEpochFileCache(path); err == nil {
		t.Error("cache loaded a corrupt checkpoint")
	}
	if _, err := Open(dir, Options{}); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("Open with a corrupt checkpoint: %v", err)
	}
}

// The writer at its boundary (CheckCheckpointWriter, which verify runs
// too): it refuses an entry equal to the one before it in epoch or start
// offset, and the check catches a writer that lets an equal start offset
// through.
func TestCheckpointWriterAtItsBoundary(t *testing.T) {
	if err := CheckCheckpointWriter(t.TempDir()); err != nil {
		t.Fatal(err)
	}
	err := CheckCheckpointWriter(t.TempDir(), MutantCheckpointEqualStarts)
	if err == nil || !strings.Contains(err.Error(), "an equal start offset") {
		t.Fatalf("with the writer accepting equal start offsets: %v, want the equal start offset named", err)
	}
	t.Logf("caught: %v", err)
}
