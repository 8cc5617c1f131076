package storage

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hwepoch/hwepoch/impl/release"
)

func openLog(t *testing.T, dir string, opts Options) *Log {
	t.Helper()
	l, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func leaderAppend(t *testing.T, l *Log, epoch int32, ids ...int64) {
	t.Helper()
	recs := make([]Record, len(ids))
	for i, id := range ids {
		recs[i] = Record{ID: id, Payload: []byte{byte(id), 'p'}}
	}
	if _, err := l.AppendAsLeader(epoch, recs); err != nil {
		t.Fatal(err)
	}
}

// epochsOf is a log as the epochs of its records, offset by offset.
func epochsOf(t *testing.T, l *Log) []int32 {
	t.Helper()
	recs, err := l.Read(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []int32
	for i, r := range recs {
		if r.Offset != int64(i) {
			t.Fatalf("record %d has offset %d", i, r.Offset)
		}
		out = append(out, r.LeaderEpoch)
	}
	return out
}

func TestAppendAsLeader(t *testing.T) {
	l := openLog(t, t.TempDir(), Options{})
	if l.LEO() != 0 {
		t.Fatalf("new log LEO = %d", l.LEO())
	}
	first, err := l.AppendAsLeader(2, []Record{{ID: 10, Offset: 99, LeaderEpoch: 7}, {ID: 11}})
	if err != nil || first != 0 {
		t.Fatalf("AppendAsLeader = %d, %v", first, err)
	}
	first, err = l.AppendAsLeader(4, []Record{{ID: 12, Payload: []byte("hello")}})
	if err != nil || first != 2 {
		t.Fatalf("AppendAsLeader = %d, %v", first, err)
	}
	recs, err := l.Read(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []Record{{0, 2, 10, nil}, {1, 2, 11, nil}, {2, 4, 12, []byte("hello")}}
	if !reflect.DeepEqual(recs, want) {
		t.Errorf("records = %v, want %v", recs, want)
	}
	if got := l.EpochCache().Entries(); !slices.Equal(got, entries(2, 0, 4, 2)) {
		t.Errorf("epoch cache = %v", got)
	}
	if l.LEO() != 3 {
		t.Errorf("LEO = %d, want 3", l.LEO())
	}
}

// Without fencing a replica can be made leader in an epoch below one it
// already holds records of (it fetched them from a later leader before its
// own LeaderAndIsr arrived): the append goes through, as in Kafka and the
// spec's Produce, and the cache rule decides the entry (KAFKA-7415: the
// later epoch's entry is dropped; 0.11: nothing is assigned).
func TestAppendAsLeaderBelowLatestEpoch(t *testing.T) {
	for _, c := range []struct {
		rule release.CacheAssign
		want []EpochEntry
	}{
		{release.TruncateAndAppend, entries(2, 1)},
		{release.GreaterOnly, entries(3, 0)},
	} {
		l := openLog(t, t.TempDir(), Options{CacheAssign: c.rule})
		leaderAppend(t, l, 3, 1)
		if _, err := l.AppendAsLeader(2, []Record{{ID: 2}}); err != nil {
			t.Fatalf("%s: %v", c.rule, err)
		}
		if got := l.EpochCache().Entries(); l.LEO() != 2 || !slices.Equal(got, c.want) {
			t.Errorf("%s: LEO %d cache %v, want 2, %v", c.rule, l.LEO(), got, c.want)
		}
	}
}

func TestAppendAsLeaderRefusesBadInput(t *testing.T) {
	l := openLog(t, t.TempDir(), Options{})
	leaderAppend(t, l, 3, 1)
	if _, err := l.AppendAsLeader(-1, []Record{{ID: 2}}); err == nil {
		t.Error("append in a negative epoch succeeded")
	}
	if _, err := l.AppendAsLeader(3, []Record{{ID: 2, Payload: make([]byte, MaxPayloadBytes+1)}}); err == nil {
		t.Error("append of an oversized payload succeeded")
	}
	if l.LEO() != 1 {
		t.Errorf("refused appends changed the LEO to %d", l.LEO())
	}
}

func TestAppendAsFollower(t *testing.T) {
	l := openLog(t, t.TempDir(), Options{})
	recs := []Record{{0, 0, 1, nil}, {1, 0, 2, nil}, {2, 2, 3, nil}, {3, 5, 4, nil}}
	if err := l.AppendAsFollower(recs[:3]); err != nil {
		t.Fatal(err)
	}
	if err := l.AppendAsFollower(recs[3:]); err != nil {
		t.Fatal(err)
	}
	if got := l.EpochCache().Entries(); !slices.Equal(got, entries(0, 0, 2, 2, 5, 3)) {
		t.Errorf("epoch cache = %v", got)
	}
	got, _ := l.Read(0, 0)
	if !reflect.DeepEqual(got, recs) {
		t.Errorf("records = %v, want %v", got, recs)
	}
	for _, bad := range [][]Record{
		{{5, 5, 9, nil}},                 // gap
		{{3, 5, 9, nil}},                 // overlap
		{{4, 5, 9, nil}, {6, 5, 9, nil}}, // not contiguous
		{{4, -1, 9, nil}},                // negative epoch
		{{4, 5, 9, make([]byte, 1<<21)}}, // oversized
	} {
		if err := l.AppendAsFollower(bad); err == nil {
			t.Errorf("AppendAsFollower(%v) succeeded", bad)
		}
	}
	if l.LEO() != 4 {
		t.Errorf("refused appends changed the LEO to %d", l.LEO())
	}
}

// A follower appending a lower epoch than its latest (possible under the
// HighWatermark policy) gets the spec's Assign, not an error.
func TestAppendAsFollowerLowerEpoch(t *testing.T) {
	l := openLog(t, t.TempDir(), Options{})
	if err := l.AppendAsFollower([]Record{{0, 0, 1, nil}, {1, 3, 2, nil}, {2, 1, 3, nil}}); err != nil {
		t.Fatal(err)
	}
	if got := l.EpochCache().Entries(); !slices.Equal(got, entries(0, 0, 1, 2)) {
		t.Errorf("epoch cache = %v, want the spec's Assign result [0→0, 1→2]", got)
	}
}

func TestReopenKeepsRecordsAndCache(t *testing.T) {
	dir := t.TempDir()
	l, err := Open(dir, Options{SegmentBytes: 100})
	if err != nil {
		t.Fatal(err)
	}
	for e := int32(0); e < 5; e++ {
		if err := l.AssignEpochStartOffset(e, l.LEO()); err != nil {
			t.Fatal(err)
		}
		leaderAppend(t, l, e, int64(e*10), int64(e*10+1), int64(e*10+2))
	}
	before, err := l.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if before.RecoveryPoint != 0 {
		t.Errorf("recovery point %d before any Flush", before.RecoveryPoint)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	before.RecoveryPoint = before.LEO // Close flushes
	if _, err := l.Read(0, 0); !errors.Is(err, ErrClosed) {
		t.Errorf("Read after Close: %v", err)
	}
	l2 := openLog(t, dir, Options{SegmentBytes: 100})
	after, err := l2.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(before, after) {
		t.Errorf("reopened log differs:\nbefore %+v\nafter  %+v", before, after)
	}
	segs, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	if len(segs) < 3 {
		t.Errorf("SegmentBytes 100 made only %d segments", len(segs))
	}
}

func TestReadRanges(t *testing.T) {
	l := openLog(t, t.TempDir(), Options{SegmentBytes: 90}) // ~2 records a segment
	for i := int64(0); i < 9; i++ {
		leaderAppend(t, l, 1, 100+i)
	}
	for from := int64(0); from <= 9; from++ {
		for max := 0; max <= 10; max++ {
			recs, err := l.Read(from, max)
			if err != nil {
				t.Fatal(err)
			}
			want := 9 - from
			if max > 0 && int64(max) < want {
				want = int64(max)
			}
			if int64(len(recs)) != want {
				t.Fatalf("Read(%d, %d) gave %d records, want %d", from, max, len(recs), want)
			}
			for i, r := range recs {
				if r.Offset != from+int64(i) || r.ID != 100+from+int64(i) {
					t.Fatalf("Read(%d, %d)[%d] = %+v", from, max, i, r)
				}
			}
		}
	}
	for _, from := range []int64{-1, 10, 1000} {
		if _, err := l.Read(from, 0); !errors.Is(err, ErrOffsetOutOfRange) {
			t.Errorf("Read(%d) = %v, want ErrOffsetOutOfRange", from, err)
		}
	}
}

func TestTruncateTo(t *testing.T) {
	for _, segBytes := range []int64{0, 90} { // one segment; ~2 records a segment
		for to := int64(0); to <= 7; to++ {
			dir := t.TempDir()
			l := openLog(t, dir, Options{SegmentBytes: segBytes})
			leaderAppend(t, l, 0, 1, 2)
			leaderAppend(t, l, 2, 3, 4, 5)
			leaderAppend(t, l, 3, 6)
			full := []int32{0, 0, 2, 2, 2, 3}
			truncated, err := l.TruncateTo(to)
			if err != nil {
				t.Fatal(err)
			}
			wantLEO := min(to, 6)
			if truncated != (to < 6) || l.LEO() != wantLEO {
				t.Errorf("TruncateTo(%d) = %v, LEO %d", to, truncated, l.LEO())
			}
			if got := epochsOf(t, l); !slices.Equal(got, full[:wantLEO]) {
				t.Errorf("TruncateTo(%d): log %v", to, got)
			}
			wantCache := truncateFromEnd(entries(0, 0, 2, 2, 3, 5), wantLEO)
			if got := l.EpochCache().Entries(); !slices.Equal(got, wantCache) {
				t.Errorf("TruncateTo(%d): cache %v, want %v", to, got, wantCache)
			}
			// Appending after a truncation continues at the new LEO, and the
			// result survives a reopen.
			leaderAppend(t, l, 4, 99)
			l.Close()
			l2 := openLog(t, dir, Options{SegmentBytes: segBytes})
			if got := epochsOf(t, l2); !slices.Equal(got, append(slices.Clone(full[:wantLEO]), 4)) {
				t.Errorf("TruncateTo(%d) then append, reopened: %v", to, got)
			}
		}
	}
}

// UnifiedLog.truncateTo truncates the epoch cache to the LEO even when the
// records are untouched: a leader that assigned its epoch at the LEO and
// appended nothing loses that entry (spec TruncCache with o >= LEO).
func TestTruncateBeyondLEOStillTruncatesCache(t *testing.T) {
	l := openLog(t, t.TempDir(), Options{})
	leaderAppend(t, l, 1, 1, 2)
	if err := l.AssignEpochStartOffset(3, 2); err != nil {
		t.Fatal(err)
	}
	if got := l.EpochCache().Entries(); !slices.Equal(got, entries(1, 0, 3, 2)) {
		t.Fatalf("cache = %v", got)
	}
	truncated, err := l.TruncateTo(10)
	if err != nil || truncated {
		t.Fatalf("TruncateTo beyond LEO = %v, %v", truncated, err)
	}
	if l.LEO() != 2 {
		t.Errorf("LEO = %d", l.LEO())
	}
	if got := l.EpochCache().Entries(); !slices.Equal(got, entries(1, 0)) {
		t.Errorf("cache = %v, want [1→0]", got)
	}
	if _, err := l.TruncateTo(-1); err == nil {
		t.Error("TruncateTo(-1) succeeded")
	}
	if err := l.AssignEpochStartOffset(4, 3); err == nil {
		t.Error("assigned an epoch start beyond the LEO")
	}
}

func TestOffsetsForLeaderEpoch(t *testing.T) {
	l := openLog(t, t.TempDir(), Options{})
	leaderAppend(t, l, 0, 1)
	leaderAppend(t, l, 2, 2, 3, 4)
	leaderAppend(t, l, 4, 5, 6) // cache 0→0, 2→1, 4→4; LEO 6
	for _, tt := range []struct {
		p     Policy
		epoch int32
		e     int32
		o     int64
	}{
		{LeaderEpoch, 3, 2, 4}, {LeaderEpoch, 4, 4, 6}, {LeaderEpoch, 1, 0, 1}, {LeaderEpoch, -1, -1, -1},
		{Kip101, 3, -1, 4}, {Kip101, 4, -1, 6}, {Kip101, 1, -1, 1}, {Kip101, 5, -1, -1},
		{HighWatermark, 3, 2, 4},
	} {
		e, o, err := l.OffsetsForLeaderEpoch(tt.p, tt.epoch)
		if err != nil || e != tt.e || o != tt.o {
			t.Errorf("%s OffsetsForLeaderEpoch(%d) = (%d, %d, %v), want (%d, %d)", tt.p, tt.epoch, e, o, err, tt.e, tt.o)
		}
	}
	if _, _, err := l.OffsetsForLeaderEpoch("Bogus", 1); err == nil {
		t.Error("unknown policy accepted")
	}
	if e, o := l.EndOffsetForEpoch(2); e != 2 || o != 4 {
		t.Errorf("EndOffsetForEpoch(2) = (%d, %d)", e, o)
	}
}

func TestPolicy(t *testing.T) {
	for _, p := range Policies {
		got, err := ParsePolicy(p.String())
		if err != nil || got != p || !p.Valid() {
			t.Errorf("ParsePolicy(%q) = %q, %v", p, got, err)
		}
	}
	if Policies[0] != "HighWatermark" || Policies[1] != "Kip101" || Policies[2] != "LeaderEpoch" {
		t.Errorf("policy spellings differ from the spec: %v", Policies)
	}
	for _, s := range []string{"", "leaderepoch", "KIP101"} {
		if _, err := ParsePolicy(s); err == nil {
			t.Errorf("ParsePolicy(%q) succeeded", s)
		}
	}
	if Policy("").Valid() {
		t.Error("zero Policy is valid")
	}
}

func TestOpenRejectsBadDirectory(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "junk.log"), nil, 0o644)
	if _, err := Open(dir, Options{}); err == nil {
		t.Error("opened a directory with a misnamed segment")
	}
	if _, err := Open(t.TempDir(), Options{SegmentBytes: 5}); err == nil {
		t.Error("opened with a segment size below the header")
	}
}

// Readers (fetch handlers, OffsetsForLeaderEpoch, snapshots) run while the
// leader appends; run with -race.
func TestConcurrentUse(t *testing.T) {
	l := openLog(t, t.TempDir(), Options{SegmentBytes: 200})
	done := make(chan struct{})
	errs := make(chan error, 4)
	go func() {
		defer close(done)
		for i := int64(0); i < 200; i++ {
			if _, err := l.AppendAsLeader(int32(i/50), []Record{{ID: i}}); err != nil {
				errs <- err
				return
			}
		}
	}()
	for r := 0; r < 3; r++ {
		go func() {
			for {
				select {
				case <-done:
					errs <- nil
					return
				default:
				}
				s, err := l.Snapshot()
				if err == nil && int64(len(s.Records)) != s.LEO {
					err = errors.New("snapshot records do not match its LEO")
				}
				if err == nil {
					_, err = l.Read(s.LEO/2, 10)
				}
				l.EndOffsetForEpoch(1)
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for r := 0; r < 3; r++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	<-done
	if l.LEO() != 200 {
		t.Errorf("LEO = %d", l.LEO())
	}
}

// Recovery holds the leader-epoch-checkpoint to the records' epochs
// (EpochCacheMatchesLog): a checkpoint (5, 0) over records of epochs
// [0, 0, 2] is refused, naming the file and the entry, as is a checkpoint
// that leaves a record uncovered or names the wrong epoch for a later
// record; a matching one opens. A broker running a policy that can leave
// them mismatched tolerates it (TolerateEpochMismatch).
func TestOpenRefusesEpochCacheThatDoesNotMatchTheLog(t *testing.T) {
	dir := t.TempDir()
	l := openLog(t, dir, Options{})
	leaderAppend(t, l, 0, 1, 2)
	leaderAppend(t, l, 2, 3)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	ckpt := filepath.Join(dir, LeaderEpochCheckpointFilename)
	good, err := ReadLeaderEpochCheckpoint(ckpt)
	if err != nil {
		t.Fatal(err)
	}
	if want := []EpochEntry{{0, 0}, {2, 2}}; !reflect.DeepEqual(good, want) {
		t.Fatalf("checkpoint %v, want %v", good, want)
	}
	for _, c := range []struct {
		entries []EpochEntry
		want    string
	}{
		{[]EpochEntry{{5, 0}}, "entry (epoch 5, start offset 0) covers offset 0, whose record has epoch 0"},
		{[]EpochEntry{{0, 0}}, "entry (epoch 0, start offset 0) covers offset 2, whose record has epoch 2"},
		{[]EpochEntry{{0, 0}, {2, 1}}, "entry (epoch 2, start offset 1) covers offset 1, whose record has epoch 0"},
		{[]EpochEntry{{0, 1}, {2, 2}}, "no entry covers offset 0"},
		{nil, "no entry covers offset 0 (a record of epoch 0); the first entry is missing"},
	} {
		if err := WriteLeaderEpochCheckpoint(ckpt, c.entries); err != nil {
			t.Fatal(err)
		}
		l, err := Open(dir, Options{})
		if err == nil {
			l.Close()
			t.Errorf("checkpoint %v over epochs [0 0 2] opened", c.entries)
			continue
		}
		if !strings.Contains(err.Error(), ckpt) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("checkpoint %v: %v\nwant the file %s and %q", c.entries, err, ckpt, c.want)
		}
		tolerant, err := Open(dir, Options{TolerateEpochMismatch: true})
		if err != nil {
			t.Errorf("checkpoint %v, tolerated: %v", c.entries, err)
			continue
		}
		tolerant.Close()
	}
	if err := WriteLeaderEpochCheckpoint(ckpt, good); err != nil {
		t.Fatal(err)
	}
	l = openLog(t, dir, Options{})
	if e, o := l.EndOffsetForEpoch(0); e != 0 || o != 2 {
		t.Fatalf("EndOffsetFor(0) = (%d, %d), want (0, 2)", e, o)
	}
}

// followerLog writes a closed log of records of the given epochs, appended
// as a follower would (ids 1, 2, ...), in segments of segmentBytes, with
// the epoch-checkpoint written as ckpt (nil: as the appends left it). It
// returns the directory.
func followerLog(t *testing.T, segmentBytes int64, ckpt []EpochEntry, epochs ...int32) string {
	t.Helper()
	dir := t.TempDir()
	l := openLog(t, dir, Options{SegmentBytes: segmentBytes, TolerateEpochMismatch: true})
	recs := make([]Record, len(epochs))
	for i, e := range epochs {
		recs[i] = Record{Offset: int64(i), LeaderEpoch: e, ID: int64(i + 1), Payload: []byte{byte(i), 'p'}}
	}
	if err := l.AppendAsFollower(recs); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if ckpt != nil {
		if err := WriteLeaderEpochCheckpoint(filepath.Join(dir, LeaderEpochCheckpointFilename), ckpt); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// A log whose record epochs decrease is damage under fenced leader-epoch
// truncation: Open refuses it with a *CorruptError naming the segment file,
// the byte and the offset of the batch whose epoch is lower than the one
// before it, Options.Recover or not, and changes no file (the checkpoint's
// entry beyond the LEO stays: the cache is not touched). It used to be
// refused only as a cache that does not match the log, naming the
// checkpoint, after rewriting it. A broker under a release that can reach
// such a log (TolerateEpochMismatch) opens it, its cache truncated to the LEO.
func TestOpenRefusesALogWhoseEpochsDecrease(t *testing.T) {
	const recBytes = recordHeaderSize + recordFixedBody + 2
	for _, tc := range []struct {
		name         string
		segmentBytes int64
		epochs       []int32
		ckpt         []EpochEntry
		base         int64 // the segment holding the offending batch
		offset       int64
		want         string
	}{
		{"in one segment", 0, []int32{0, 2, 1}, entries(0, 0, 1, 2, 5, 7), 0, 2,
			"the record batch at offset 2 has leader epoch 1, below epoch 2 of the batch before it (offset 1)"},
		{"at a segment's first batch", headerSize + 2*recBytes, []int32{0, 2, 1, 1}, nil, 2, 2,
			"the record batch at offset 2 has leader epoch 1, below epoch 2 of the batch before it (offset 1)"},
		{"back to an epoch long gone", 0, []int32{3, 3, 4, 4, 0}, nil, 0, 4,
			"the record batch at offset 4 has leader epoch 0, below epoch 4 of the batch before it (offset 3)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := followerLog(t, tc.segmentBytes, tc.ckpt, tc.epochs...)
			ckptPath := filepath.Join(dir, LeaderEpochCheckpointFilename)
			before, err := os.ReadFile(ckptPath)
			if err != nil {
				t.Fatal(err)
			}
			segBefore, err := os.ReadFile(seg(dir, tc.base))
			if err != nil {
				t.Fatal(err)
			}
			for _, recover := range []bool{false, true} {
				l, err := Open(dir, Options{SegmentBytes: tc.segmentBytes, Recover: recover})
				if err == nil {
					l.Close()
					t.Fatalf("Recover %v: a log of epochs %v opened", recover, tc.epochs)
				}
				var ce *CorruptError
				if !errors.As(err, &ce) || ce.File != seg(dir, tc.base) || ce.Offset != tc.offset || ce.Record != int(tc.offset-tc.base) ||
					ce.Pos != headerSize+int64(ce.Record)*recBytes || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("Recover %v: %v\nwant a *CorruptError of %s, offset %d: %s", recover, err, seg(dir, tc.base), tc.offset, tc.want)
				}
				if after, _ := os.ReadFile(ckptPath); !slices.Equal(after, before) {
					t.Errorf("Recover %v: the refused Open rewrote the checkpoint:\n%s\nwas\n%s", recover, after, before)
				}
				if after, _ := os.ReadFile(seg(dir, tc.base)); !slices.Equal(after, segBefore) {
					t.Errorf("Recover %v: the refused Open changed the segment", recover)
				}
			}
			l := openLog(t, dir, Options{SegmentBytes: tc.segmentBytes, TolerateEpochMismatch: true})
			if got := epochsOf(t, l); !slices.Equal(got, tc.epochs) {
				t.Errorf("tolerated: log %v, want %v", got, tc.epochs)
			}
			for _, e := range l.EpochCache().Entries() {
				if e.StartOffset >= l.LEO() {
					t.Errorf("tolerated: cache %v keeps an entry at or beyond the LEO %d", l.EpochCache().Entries(), l.LEO())
				}
			}
		})
	}
}

// An epoch-checkpoint entry starting at or beyond the log end is one a
// crash left ahead of the records it lost: Open drops it and rewrites the
// checkpoint, as Kafka's load does (Log.scala / LogLoader.load:
// truncateFromEnd(log end offset)), under every release with a cache and
// whether or not the release tolerates a mismatched cache; what is kept
// matches the log. ReadDir, the crashed replica's view, shows the file as
// written before, and as Open left it after.
func TestOpenDropsEpochEntriesBeyondTheLogEnd(t *testing.T) {
	for _, rule := range []release.CacheAssign{release.TruncateAndAppend, release.GreaterOnly} {
		for _, tolerate := range []bool{false, true} {
			dir := followerLog(t, 0, entries(0, 0, 3, 2, 4, 3, 6, 9), 0, 0, 3) // LEO 3
			snap, err := ReadDir(dir)
			if err != nil || !slices.Equal(snap.Epochs, entries(0, 0, 3, 2, 4, 3, 6, 9)) {
				t.Fatalf("ReadDir before Open: %v, %v", snap.Epochs, err)
			}
			l := openLog(t, dir, Options{CacheAssign: rule, TolerateEpochMismatch: tolerate})
			if got := l.EpochCache().Entries(); !slices.Equal(got, entries(0, 0, 3, 2)) {
				t.Errorf("%s, tolerate %v: cache %v, want [(0, 0) (3, 2)]", rule, tolerate, got)
			}
			l.Close()
			if snap, err := ReadDir(dir); err != nil || !slices.Equal(snap.Epochs, entries(0, 0, 3, 2)) {
				t.Errorf("%s, tolerate %v: checkpoint after Open %v, %v; want it rewritten as [(0, 0) (3, 2)]", rule, tolerate, snap.Epochs, err)
			}
		}
	}
}
