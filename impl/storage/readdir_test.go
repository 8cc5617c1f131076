package storage

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// fingerprint is everything about a directory tree that a write could
// change: each entry's name, mode, size, modification time and contents.
func fingerprint(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		sum := ""
		if !d.IsDir() {
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			sum = fmt.Sprintf("%x", sha256.Sum256(data))
		}
		out[path] = fmt.Sprintf("%v %d %v %s", info.Mode(), info.Size(), info.ModTime().UnixNano(), sum)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameFingerprint(t *testing.T, what string, before, after map[string]string) {
	t.Helper()
	if maps.Equal(before, after) {
		return
	}
	for _, k := range slices.Sorted(maps.Keys(before)) {
		if before[k] != after[k] {
			t.Errorf("%s changed %s: %q -> %q", what, k, before[k], after[k])
		}
	}
	for _, k := range slices.Sorted(maps.Keys(after)) {
		if _, ok := before[k]; !ok {
			t.Errorf("%s created %s", what, k)
		}
	}
}

// crashedLog leaves in dir what a broker that crashed keeping 3 of its 6
// records leaves: three segments of two records, the last two lost, and an
// epoch cache that still names epochs starting at offsets 3 and 5 (the
// checkpoint is written when an epoch starts, and a crash keeps it). It
// returns the records that survived.
func crashedLog(t *testing.T, dir string) []Record {
	t.Helper()
	l, err := Open(dir, Options{SegmentBytes: 90})
	if err != nil {
		t.Fatal(err)
	}
	leaderAppend(t, l, 1, 1, 2, 3)
	leaderAppend(t, l, 2, 4, 5)
	leaderAppend(t, l, 3, 6)
	want, err := l.Read(0, 3)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.CrashKeeping(3); err != nil {
		t.Fatal(err)
	}
	return want
}

// ReadDir shows a crashed broker's files as they are, and changes nothing;
// Open, as Kafka's LogLoader, truncates the epoch cache to the LEO.
func TestReadDirIsReadOnly(t *testing.T) {
	dir := t.TempDir()
	want := crashedLog(t, dir)
	before := fingerprint(t, dir)
	for range 2 {
		snap, err := ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		if snap.LEO != 3 || snap.RecoveryPoint != 3 {
			t.Errorf("LEO %d, recovery point %d; want 3, 3", snap.LEO, snap.RecoveryPoint)
		}
		if !reflect.DeepEqual(snap.Records, want) {
			t.Errorf("records %v, want %v", snap.Records, want)
		}
		if got := snap.Epochs; !slices.Equal(got, entries(1, 0, 2, 3, 3, 5)) {
			t.Errorf("epochs %v, want the checkpoint untruncated", got)
		}
		sameFingerprint(t, "ReadDir", before, fingerprint(t, dir))
	}

	// What Open does to the same files: the reason ReadDir exists.
	l, err := Open(dir, Options{SegmentBytes: 90})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if got := l.EpochCache().Entries(); !slices.Equal(got, entries(1, 0)) {
		t.Fatalf("Open's cache %v, want it truncated to the LEO", got)
	}
	if maps.Equal(before, fingerprint(t, dir)) {
		t.Fatal("Open changed nothing; this test no longer shows the difference")
	}
}

// On a cleanly closed log ReadDir and Open agree.
func TestReadDirMatchesOpen(t *testing.T) {
	dir := t.TempDir()
	l, err := Open(dir, Options{SegmentBytes: 90})
	if err != nil {
		t.Fatal(err)
	}
	leaderAppend(t, l, 1, 1, 2, 3)
	leaderAppend(t, l, 4, 4, 5, 6, 7)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	l = openLog(t, dir, Options{SegmentBytes: 90})
	want, err := l.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("ReadDir %+v\nOpen    %+v", got, want)
	}
}

// Damage is an error naming the file and the position, never repaired and
// never skipped, whichever segment it is in.
func TestReadDirReportsDamage(t *testing.T) {
	tests := []struct {
		name   string
		damage func(b []byte) []byte
		pos    int64
		record int
		torn   bool
	}{
		// Open with Recover would cut this tail off the file.
		{"torn tail", func(b []byte) []byte { return b[:recordPos(3)+17] }, recordPos(3), 3, true},
		{"flipped payload bit", func(b []byte) []byte { b[recordPos(2)+29] ^= 0x10; return b }, recordPos(2), 2, false},
		{"torn header", func(b []byte) []byte { return b[:11] }, 0, -1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, data := fiveRecords(t)
			path := seg(dir, 0)
			if err := os.WriteFile(path, tt.damage(data), 0o644); err != nil {
				t.Fatal(err)
			}
			before := fingerprint(t, dir)
			_, err := ReadDir(dir)
			var ce *CorruptError
			if !errors.As(err, &ce) {
				t.Fatalf("ReadDir = %v, want a *CorruptError", err)
			}
			if ce.File != path || ce.Pos != tt.pos || ce.Record != tt.record || ce.Torn != tt.torn {
				t.Errorf("error = %+v, want file %s pos %d record %d torn %v", ce, path, tt.pos, tt.record, tt.torn)
			}
			for _, want := range []string{path, fmt.Sprintf("at byte %d", tt.pos)} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not mention %q", err, want)
				}
			}
			sameFingerprint(t, "ReadDir", before, fingerprint(t, dir))
		})
	}

	t.Run("corrupt epoch checkpoint", func(t *testing.T) {
		dir, _ := fiveRecords(t)
		ckpt := filepath.Join(dir, LeaderEpochCheckpointFilename)
		if err := os.WriteFile(ckpt, []byte("0\n2\n1 0\n0 3\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		before := fingerprint(t, dir)
		_, err := ReadDir(dir)
		var ce *CheckpointError
		if !errors.As(err, &ce) || ce.File != ckpt || ce.Line != 4 {
			t.Fatalf("ReadDir = %v, want a *CheckpointError at %s line 4", err, ckpt)
		}
		sameFingerprint(t, "ReadDir", before, fingerprint(t, dir))
	})
}

func TestReadDirLayoutErrors(t *testing.T) {
	for _, tt := range []struct {
		name   string
		change func(dir string)
		names  string // the file the error must name
		reason string
	}{
		{"missing middle segment", func(dir string) { os.Remove(seg(dir, 2)) }, "00000000000000000004.log", "previous segment ends at offset 2"},
		{"missing first segment", func(dir string) { os.Remove(seg(dir, 0)) }, "00000000000000000002.log", "not 0"},
		{"stray .log file", func(dir string) { os.WriteFile(filepath.Join(dir, "junk.log"), nil, 0o644) }, "junk.log", "unexpected file"},
		{"damage in an earlier segment", func(dir string) {
			b, _ := os.ReadFile(seg(dir, 0))
			b[len(b)-1] ^= 1
			os.WriteFile(seg(dir, 0), b, 0o644)
		}, "00000000000000000000.log", "record 1, offset 1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// Three segments of two records each.
			dir := t.TempDir()
			l, err := Open(dir, Options{SegmentBytes: 90})
			if err != nil {
				t.Fatal(err)
			}
			leaderAppend(t, l, 1, 1, 2, 3, 4, 5, 6)
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(seg(dir, 4)); err != nil {
				t.Fatalf("expected segment 4: %v", err)
			}
			tt.change(dir)
			before := fingerprint(t, dir)
			_, err = ReadDir(dir)
			if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, tt.names)) || !strings.Contains(err.Error(), tt.reason) {
				t.Errorf("ReadDir = %v, want an error naming %s: %s", err, tt.names, tt.reason)
			}
			sameFingerprint(t, "ReadDir", before, fingerprint(t, dir))
		})
	}
}

// A missing directory is an error (not created); an empty one an empty
// log (no segment created, unlike Open).
func TestReadDirMissingOrEmpty(t *testing.T) {
	parent := t.TempDir()
	missing := filepath.Join(parent, "t-0")
	if _, err := ReadDir(missing); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadDir(missing) = %v, want fs.ErrNotExist", err)
	}
	if _, err := os.Stat(missing); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadDir created %s", missing)
	}
	empty := t.TempDir()
	before := fingerprint(t, empty)
	snap, err := ReadDir(empty)
	if err != nil || snap.LEO != 0 || len(snap.Records) != 0 || len(snap.Epochs) != 0 {
		t.Errorf("ReadDir(empty) = %+v, %v", snap, err)
	}
	sameFingerprint(t, "ReadDir", before, fingerprint(t, empty))
}
