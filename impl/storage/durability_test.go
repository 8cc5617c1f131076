package storage

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func seg(dir string, base int64) string { return filepath.Join(dir, segmentName(base)) }

// fiveRecords writes a closed log of five records (epochs 1 1 1 2 2) in
// one segment and returns its directory and the segment's bytes.
func fiveRecords(t *testing.T) (string, []byte) {
	t.Helper()
	dir := t.TempDir()
	l, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	leaderAppend(t, l, 1, 1, 2, 3)
	leaderAppend(t, l, 2, 4, 5)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(seg(dir, 0))
	if err != nil {
		t.Fatal(err)
	}
	return dir, data
}

// recordPos is the byte position of record i in fiveRecords' segment (each
// record carries a 2-byte payload).
func recordPos(i int) int64 { return headerSize + int64(i)*(recordHeaderSize+recordFixedBody+2) }

func TestLoadDetectsDamage(t *testing.T) {
	// A record re-encoded with a valid CRC but the wrong offset.
	wrongOffset := appendRecord(nil, Record{Offset: 7, LeaderEpoch: 2, ID: 5, Payload: []byte{5, 'p'}})
	negEpoch := appendRecord(nil, Record{Offset: 4, LeaderEpoch: -3, ID: 5, Payload: []byte{5, 'p'}})
	tests := []struct {
		name   string
		damage func(b []byte) []byte
		pos    int64
		record int
		torn   bool
		reason string
	}{
		{"flipped payload bit", func(b []byte) []byte { b[recordPos(2)+29] ^= 0x10; return b }, recordPos(2), 2, false, "crc mismatch"},
		{"flipped crc bit", func(b []byte) []byte { b[recordPos(1)+5] ^= 1; return b }, recordPos(1), 1, false, "crc mismatch"},
		{"damaged length", func(b []byte) []byte { b[recordPos(3)+3]++; return b }, recordPos(3), 3, false, "crc mismatch"},
		{"absurd length", func(b []byte) []byte { b[recordPos(3)] = 0x7f; return b }, recordPos(3), 3, false, "invalid record length"},
		{"torn record body", func(b []byte) []byte { return b[:recordPos(4)+12] }, recordPos(4), 4, true, "runs past the end"},
		{"torn record header", func(b []byte) []byte { return b[:recordPos(4)+3] }, recordPos(4), 4, true, "shorter than a record header"},
		{"wrong offset", func(b []byte) []byte { return append(b[:recordPos(4)], wrongOffset...) }, recordPos(4), 4, false, "offset 7, expected 4"},
		{"negative epoch", func(b []byte) []byte { return append(b[:recordPos(4)], negEpoch...) }, recordPos(4), 4, false, "negative leader epoch"},
		{"torn header", func(b []byte) []byte { return b[:11] }, 0, -1, true, "shorter than the 20-byte header"},
		{"bad magic", func(b []byte) []byte { b[0] = 'X'; return b }, 0, -1, false, "bad magic"},
		{"header crc", func(b []byte) []byte { b[9] ^= 4; return b }, 0, -1, false, "header crc mismatch"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, data := fiveRecords(t)
			path := seg(dir, 0)
			os.WriteFile(path, tt.damage(data), 0o644)
			_, err := Open(dir, Options{})
			var ce *CorruptError
			if !errors.As(err, &ce) {
				t.Fatalf("Open = %v, want a *CorruptError", err)
			}
			if ce.File != path || ce.Pos != tt.pos || ce.Record != tt.record || ce.Torn != tt.torn {
				t.Errorf("error = %+v, want file %s pos %d record %d torn %v", ce, path, tt.pos, tt.record, tt.torn)
			}
			msg := err.Error()
			for _, want := range []string{path, fmt.Sprintf("at byte %d", tt.pos), tt.reason} {
				if !strings.Contains(msg, want) {
					t.Errorf("error %q does not mention %q", msg, want)
				}
			}
		})
	}
}

// CRC32C catches every single-bit error: no flipped bit anywhere in a
// segment goes unnoticed by the loader.
func TestEverySingleBitFlipIsDetected(t *testing.T) {
	_, data := fiveRecords(t)
	for bit := 0; bit < len(data)*8; bit++ {
		b := slices.Clone(data)
		b[bit/8] ^= 1 << (bit % 8)
		if _, _, _, err := scanSegment("seg", 0, b); err == nil {
			t.Fatalf("flipping bit %d (byte %d) went unnoticed", bit, bit/8)
		}
	}
	// And every truncation that is not at a record boundary is torn.
	for n := 0; n < len(data); n++ {
		_, _, end, err := scanSegment("seg", 0, data[:n])
		boundary := n >= headerSize && (int64(n)-headerSize)%(recordHeaderSize+recordFixedBody+2) == 0
		if boundary != (err == nil) || (err != nil && !err.Torn) || (err == nil && end != int64(n)) {
			t.Fatalf("truncation to %d bytes: err %v, end %d", n, err, end)
		}
	}
}

func TestLoadDetectsSegmentLayoutErrors(t *testing.T) {
	// Three segments of two records each, then damage the layout.
	build := func(t *testing.T) string {
		dir := t.TempDir()
		l, err := Open(dir, Options{SegmentBytes: 90})
		if err != nil {
			t.Fatal(err)
		}
		leaderAppend(t, l, 1, 1, 2, 3, 4, 5, 6)
		l.Close()
		if _, err := os.Stat(seg(dir, 4)); err != nil {
			t.Fatalf("expected segment 4: %v", err)
		}
		return dir
	}
	t.Run("missing middle segment", func(t *testing.T) {
		dir := build(t)
		os.Remove(seg(dir, 2))
		_, err := Open(dir, Options{Recover: true})
		if err == nil || !strings.Contains(err.Error(), seg(dir, 4)) || !strings.Contains(err.Error(), "previous segment ends at offset 2") {
			t.Errorf("Open = %v", err)
		}
	})
	t.Run("missing first segment", func(t *testing.T) {
		dir := build(t)
		os.Remove(seg(dir, 0))
		if _, err := Open(dir, Options{}); err == nil || !strings.Contains(err.Error(), "not 0") {
			t.Errorf("Open = %v", err)
		}
	})
	t.Run("damage in an earlier segment is never recovered", func(t *testing.T) {
		dir := build(t)
		b, _ := os.ReadFile(seg(dir, 2))
		b[len(b)-1] ^= 1
		os.WriteFile(seg(dir, 2), b, 0o644)
		_, err := Open(dir, Options{Recover: true})
		var ce *CorruptError
		if !errors.As(err, &ce) || ce.File != seg(dir, 2) || ce.Record != 1 || ce.Offset != 3 {
			t.Errorf("Open = %v", err)
		}
	})
}

func TestRecoverTruncatesTornTail(t *testing.T) {
	dir, data := fiveRecords(t)
	os.WriteFile(seg(dir, 0), data[:recordPos(3)+17], 0o644)
	l := openLog(t, dir, Options{Recover: true})
	if l.LEO() != 3 {
		t.Errorf("recovered LEO = %d, want 3", l.LEO())
	}
	r := l.Recovered()
	if r == nil || !r.Cause.Torn || r.Cause.Record != 3 || r.DroppedBytes != 17 {
		t.Errorf("Recovered = %+v", r)
	}
	// The cache entry for epoch 2 (start 3) is beyond the LEO now.
	if got := l.EpochCache().Entries(); !slices.Equal(got, entries(1, 0)) {
		t.Errorf("cache after recovery = %v", got)
	}
	leaderAppend(t, l, 3, 9)
	l.Close()
	// The repair is on disk: a strict open now succeeds.
	l2 := openLog(t, dir, Options{})
	if got := epochsOf(t, l2); !slices.Equal(got, []int32{1, 1, 1, 3}) {
		t.Errorf("log after recovery and append = %v", got)
	}
	if l2.Recovered() != nil {
		t.Error("clean open reports a recovery")
	}
}

func TestRecoverRewritesTornHeader(t *testing.T) {
	dir := t.TempDir()
	l := openLog(t, dir, Options{SegmentBytes: 90})
	leaderAppend(t, l, 1, 1, 2)
	l.Close()
	// A crash right after rolling: the new segment's header is torn.
	os.WriteFile(seg(dir, 2), encodeHeader(2)[:7], 0o644)
	if _, err := Open(dir, Options{SegmentBytes: 90}); err == nil {
		t.Fatal("strict Open accepted a torn header")
	}
	l2 := openLog(t, dir, Options{SegmentBytes: 90, Recover: true})
	if l2.LEO() != 2 || l2.Recovered() == nil || l2.Recovered().Cause.Record != -1 {
		t.Errorf("LEO %d, recovered %+v", l2.LEO(), l2.Recovered())
	}
	leaderAppend(t, l2, 1, 3)
	if got := epochsOf(t, l2); !slices.Equal(got, []int32{1, 1, 1}) {
		t.Errorf("log = %v", got)
	}
}

func TestReadDetectsDamageAfterLoad(t *testing.T) {
	dir := t.TempDir()
	l := openLog(t, dir, Options{})
	leaderAppend(t, l, 1, 1, 2, 3)
	f, _ := os.OpenFile(seg(dir, 0), os.O_RDWR, 0)
	var b [1]byte
	f.ReadAt(b[:], recordPos(1)+25)
	b[0] ^= 0x80
	f.WriteAt(b[:], recordPos(1)+25)
	f.Close()
	if recs, err := l.Read(0, 1); err != nil || len(recs) != 1 {
		t.Errorf("Read before the damage = %v, %v", recs, err)
	}
	_, err := l.Read(0, 0)
	var ce *CorruptError
	if !errors.As(err, &ce) || ce.Record != 1 || ce.Pos != recordPos(1) {
		t.Errorf("Read over the damage = %v", err)
	}
}

func TestCrashLoseUnflushed(t *testing.T) {
	dir := t.TempDir()
	opts := Options{SegmentBytes: 90}
	l, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	leaderAppend(t, l, 1, 1, 2, 3)
	if err := l.Flush(); err != nil {
		t.Fatal(err)
	}
	if l.RecoveryPoint() != 3 {
		t.Errorf("RecoveryPoint after Flush = %d", l.RecoveryPoint())
	}
	// Unflushed: a new epoch, across a segment roll.
	if err := l.AssignEpochStartOffset(2, 3); err != nil {
		t.Fatal(err)
	}
	leaderAppend(t, l, 2, 4, 5, 6)
	if l.RecoveryPoint() != 3 || l.LEO() != 6 {
		t.Fatalf("RecoveryPoint %d, LEO %d", l.RecoveryPoint(), l.LEO())
	}
	if err := l.CrashLoseUnflushed(); err != nil {
		t.Fatal(err)
	}
	if _, err := l.AppendAsLeader(2, []Record{{ID: 7}}); !errors.Is(err, ErrClosed) {
		t.Errorf("append after crash: %v", err)
	}
	// The checkpoint survived whole; Open truncates it to the LEO.
	if got, _ := ReadLeaderEpochCheckpoint(filepath.Join(dir, LeaderEpochCheckpointFilename)); !slices.Equal(got, entries(1, 0, 2, 3)) {
		t.Errorf("checkpoint after crash = %v", got)
	}
	l2 := openLog(t, dir, opts)
	if got := epochsOf(t, l2); !slices.Equal(got, []int32{1, 1, 1}) {
		t.Errorf("log after crash = %v, want the flushed [1 1 1]", got)
	}
	if got := l2.EpochCache().Entries(); !slices.Equal(got, entries(1, 0)) {
		t.Errorf("cache after restart = %v", got)
	}
	if segs, _ := filepath.Glob(filepath.Join(dir, "*.log")); len(segs) != 2 {
		t.Errorf("segments after crash: %v", segs)
	}
}

// A truncation is durable at once: a crash after it must not bring the
// truncated records back, even though they had been flushed.
func TestTruncationSurvivesCrash(t *testing.T) {
	dir := t.TempDir()
	l, _ := Open(dir, Options{})
	leaderAppend(t, l, 1, 1, 2, 3, 4)
	l.Flush()
	if _, err := l.TruncateTo(2); err != nil {
		t.Fatal(err)
	}
	if l.RecoveryPoint() != 2 {
		t.Errorf("RecoveryPoint after truncation = %d", l.RecoveryPoint())
	}
	leaderAppend(t, l, 2, 5) // unflushed
	l.CrashLoseUnflushed()
	l2 := openLog(t, dir, Options{})
	recs, _ := l2.Read(0, 0)
	if len(recs) != 2 || recs[1].ID != 2 {
		t.Errorf("log after truncate+crash = %v", recs)
	}
}

func TestCrashKeeping(t *testing.T) {
	for keep := int64(0); keep <= 5; keep++ {
		dir := t.TempDir()
		l, _ := Open(dir, Options{SegmentBytes: 90})
		leaderAppend(t, l, 1, 1, 2)
		leaderAppend(t, l, 3, 3, 4, 5)
		l.Flush()
		if err := l.CrashKeeping(keep); err != nil {
			t.Fatal(err)
		}
		l2 := openLog(t, dir, Options{SegmentBytes: 90})
		if got := epochsOf(t, l2); !slices.Equal(got, []int32{1, 1, 3, 3, 3}[:keep]) {
			t.Errorf("CrashKeeping(%d) left %v", keep, got)
		}
		if got, want := l2.EpochCache().Entries(), truncateFromEnd(entries(1, 0, 3, 2), keep); !slices.Equal(got, want) {
			t.Errorf("CrashKeeping(%d) cache %v, want %v", keep, got, want)
		}
	}
	l := openLog(t, t.TempDir(), Options{})
	leaderAppend(t, l, 1, 1)
	for _, keep := range []int64{-1, 2} {
		if err := l.CrashKeeping(keep); err == nil {
			t.Errorf("CrashKeeping(%d) of a 1-record log succeeded", keep)
		}
	}
}

// FuzzScanSegment: arbitrary segment bytes never panic the loader, and what
// it accepts decodes to contiguous offsets from the base.
func FuzzScanSegment(f *testing.F) {
	f.Add(encodeHeader(0))
	f.Add(appendRecord(encodeHeader(0), Record{Offset: 0, LeaderEpoch: 1, ID: 1, Payload: []byte("x")}))
	f.Add(appendRecord(encodeHeader(3), Record{Offset: 3, LeaderEpoch: 1, ID: 1}))
	f.Fuzz(func(t *testing.T, data []byte) {
		var base int64
		if len(data) >= 16 {
			base = int64(binary.BigEndian.Uint64(data[8:16]))
		}
		recs, pos, end, err := scanSegment("fuzz", base, data)
		if err == nil && end != int64(len(data)) {
			t.Fatalf("accepted %d bytes but the file has %d", end, len(data))
		}
		if len(recs) != len(pos) {
			t.Fatalf("%d records at %d positions", len(recs), len(pos))
		}
		for i, p := range pos {
			r, _, derr := decodeRecord(data[p:])
			if derr != nil || r.Offset != base+int64(i) {
				t.Fatalf("record %d at %d: %+v, %v", i, p, r, derr)
			}
			if !reflect.DeepEqual(r, recs[i]) {
				t.Fatalf("record %d: scanned %+v, decoded %+v", i, recs[i], r)
			}
		}
	})
}

// Snapshot reports the log's own copy of its records, not a read of the
// files: through appends that roll segments, truncations, flushes, crashes
// that lose the unflushed tail and reopenings, the copy equals what Read
// and ReadDir read from the files, payloads included, and a caller changing
// a snapshot's payload changes nothing in the log.
func TestSnapshotEqualsTheFiles(t *testing.T) {
	dir := t.TempDir()
	opts := Options{SegmentBytes: 120}
	l := openLog(t, dir, opts)
	rng := rand.New(rand.NewPCG(1, 2))
	id, epoch := int64(0), int32(1)
	check := func(step int, what string) {
		t.Helper()
		snap, err := l.Snapshot()
		if err != nil {
			t.Fatalf("step %d (%s): %v", step, what, err)
		}
		read, err := l.Read(0, 0)
		if err != nil {
			t.Fatalf("step %d (%s): %v", step, what, err)
		}
		if !reflect.DeepEqual(snap.Records, read) || snap.LEO != l.LEO() {
			t.Fatalf("step %d (%s): snapshot %v (LEO %d), files %v", step, what, snap.Records, snap.LEO, read)
		}
		files, err := ReadDir(dir)
		if err != nil || !reflect.DeepEqual(snap.Records, files.Records) {
			t.Fatalf("step %d (%s): snapshot %v, ReadDir %v (%v)", step, what, snap.Records, files.Records, err)
		}
		for _, r := range snap.Records {
			if len(r.Payload) > 0 {
				r.Payload[0] ^= 0xff
			}
		}
		if again, _ := l.Snapshot(); !reflect.DeepEqual(again.Records, read) {
			t.Fatalf("step %d (%s): changing a snapshot's payload changed the log", step, what)
		}
	}
	check(0, "empty")
	for step := 1; step <= 200; step++ {
		var what string
		switch k := rng.IntN(10); {
		case k < 5:
			n := 1 + rng.IntN(3)
			recs := make([]Record, n)
			for i := range recs {
				id++
				recs[i].ID = id
				if rng.IntN(3) > 0 {
					recs[i].Payload = []byte(fmt.Sprintf("p%d", id))
				}
			}
			if rng.IntN(4) == 0 {
				epoch++
			}
			if _, err := l.AppendAsLeader(epoch, recs); err != nil {
				t.Fatal(err)
			}
			what = fmt.Sprintf("append %d", n)
		case k < 7:
			to := rng.Int64N(l.LEO() + 1)
			if _, err := l.TruncateTo(to); err != nil {
				t.Fatal(err)
			}
			what = fmt.Sprintf("truncate to %d", to)
		case k < 8:
			if err := l.Flush(); err != nil {
				t.Fatal(err)
			}
			what = "flush"
		default:
			if err := l.CrashLoseUnflushed(); err != nil {
				t.Fatal(err)
			}
			var err error
			if l, err = Open(dir, opts); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { l.Close() })
			what = "crash and reopen"
		}
		check(step, what)
	}
}
