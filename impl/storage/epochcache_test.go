package storage

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// entries builds a cache literal from epoch, start pairs.
func entries(pairs ...int64) []EpochEntry {
	var out []EpochEntry
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, EpochEntry{Epoch: int32(pairs[i]), StartOffset: pairs[i+1]})
	}
	return out
}

// newCache makes a file-backed cache holding c.
func newCache(t *testing.T, c []EpochEntry) *LeaderEpochFileCache {
	t.Helper()
	path := filepath.Join(t.TempDir(), LeaderEpochCheckpointFilename)
	if len(c) > 0 {
		if err := WriteLeaderEpochCheckpoint(path, c); err != nil {
			t.Fatal(err)
		}
	}
	cache, err := NewLeaderEpochFileCache(path)
	if err != nil {
		t.Fatal(err)
	}
	return cache
}

func TestEndOffsetFor(t *testing.T) {
	c := entries(1, 0, 3, 5, 4, 8) // leo 10
	tests := []struct {
		name      string
		cache     []EpochEntry
		epoch     int32
		wantEpoch int32
		wantOff   int64
	}{
		{"undefined epoch", c, -1, -1, -1},
		{"undefined epoch, empty cache", nil, -1, -1, -1},
		{"latest epoch ends at the LEO", c, 4, 4, 10},
		{"above every epoch", c, 5, -1, -1},
		{"any epoch on an empty cache", nil, 0, -1, -1},
		{"below the first entry echoes the epoch", entries(2, 3, 4, 8), 1, 1, 3},
		{"epoch 0 below the first entry", entries(2, 3, 4, 8), 0, 0, 3},
		{"known epoch: start of the next", c, 1, 1, 5},
		{"unknown epoch in a gap: largest below", c, 2, 1, 5},
		{"known epoch before the latest", c, 3, 3, 8},
		{"single entry, latest", entries(0, 0), 0, 0, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cache := newCache(t, tt.cache)
			e, o := cache.EndOffsetFor(tt.epoch, 10)
			if e != tt.wantEpoch || o != tt.wantOff {
				t.Errorf("EndOffsetFor(%d) on %v = (%d, %d), want (%d, %d)", tt.epoch, tt.cache, e, o, tt.wantEpoch, tt.wantOff)
			}
		})
	}
}

func TestKip101EndOffset(t *testing.T) {
	c := entries(1, 0, 3, 5, 4, 8) // leo 10
	tests := []struct {
		name  string
		cache []EpochEntry
		epoch int32
		want  int64
	}{
		{"latest epoch: the LEO", c, 4, 10},
		{"empty cache asked about no epoch: undefined (0.11.0 checks -1 first)", nil, -1, -1},
		{"no epoch on a non-empty cache", c, -1, -1},
		{"below the first entry", entries(2, 3, 4, 8), 1, -1},
		{"above every epoch", c, 5, -1},
		{"known epoch: start of the next higher", c, 1, 5},
		{"unknown epoch in a gap: start of the next higher", c, 2, 5},
		{"empty cache, some epoch", nil, 3, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := newCache(t, tt.cache).Kip101EndOffset(tt.epoch, 10); got != tt.want {
				t.Errorf("Kip101EndOffset(%d) on %v = %d, want %d", tt.epoch, tt.cache, got, tt.want)
			}
		})
	}
}

func TestAssign(t *testing.T) {
	tests := []struct {
		name    string
		before  []EpochEntry
		epoch   int32
		start   int64
		want    []EpochEntry
		noWrite bool // a no-op must not rewrite the file
	}{
		{"first entry", nil, 0, 0, entries(0, 0), false},
		{"new epoch appended", entries(0, 0), 2, 3, entries(0, 0, 2, 3), false},
		{"latest epoch, later start: no-op", entries(0, 0, 2, 3), 2, 7, entries(0, 0, 2, 3), true},
		{"latest epoch, same start: no-op", entries(0, 0, 2, 3), 2, 3, entries(0, 0, 2, 3), true},
		{"latest epoch, earlier start: replaced", entries(0, 0, 2, 3), 2, 1, entries(0, 0, 2, 1), false},
		{"lower epoch removes the higher ones", entries(1, 0, 3, 5, 4, 8), 2, 6, entries(1, 0, 2, 6), false},
		{"lower epoch, lower start removes more", entries(1, 0, 3, 5, 4, 8), 3, 2, entries(1, 0, 3, 2), false},
		{"higher epoch at an existing start replaces it", entries(1, 0, 3, 5), 4, 5, entries(1, 0, 4, 5), false},
		{"higher epoch below an existing start", entries(1, 0, 3, 5), 4, 4, entries(1, 0, 4, 4), false},
		{"epoch 0 at 0 clears everything", entries(1, 0, 3, 5), 0, 0, entries(0, 0), false},
		{"equal epoch in the middle", entries(1, 0, 3, 5, 4, 8), 3, 6, entries(1, 0, 3, 6), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cache := newCache(t, tt.before)
			// Remove the file so we can tell whether Assign wrote it.
			if tt.noWrite {
				os.Remove(cache.Path())
			}
			if err := cache.Assign(tt.epoch, tt.start); err != nil {
				t.Fatal(err)
			}
			if got := cache.Entries(); !slices.Equal(got, tt.want) {
				t.Errorf("Assign(%d, %d) on %v = %v, want %v", tt.epoch, tt.start, tt.before, got, tt.want)
			}
			onDisk, err := ReadLeaderEpochCheckpoint(cache.Path())
			if tt.noWrite {
				if err == nil {
					t.Errorf("no-op Assign rewrote the checkpoint")
				}
				return
			}
			if err != nil || !slices.Equal(onDisk, tt.want) {
				t.Errorf("checkpoint after Assign = %v, %v; want %v", onDisk, err, tt.want)
			}
		})
	}
}

func TestAssignRejectsNegative(t *testing.T) {
	cache := newCache(t, entries(0, 0))
	for _, c := range [][2]int64{{-1, 0}, {0, -1}, {-5, -5}} {
		if err := cache.Assign(int32(c[0]), c[1]); err == nil {
			t.Errorf("Assign(%d, %d) succeeded", c[0], c[1])
		}
	}
	if got := cache.Entries(); !slices.Equal(got, entries(0, 0)) {
		t.Errorf("rejected Assign changed the cache: %v", got)
	}
}

func TestTruncateFromEnd(t *testing.T) {
	c := entries(1, 0, 3, 5, 4, 8)
	for _, tt := range []struct {
		end  int64
		want []EpochEntry
	}{
		{20, c}, {9, c}, {8, entries(1, 0, 3, 5)}, {6, entries(1, 0, 3, 5)},
		{5, entries(1, 0)}, {1, entries(1, 0)}, {0, nil},
	} {
		cache := newCache(t, c)
		if err := cache.TruncateFromEnd(tt.end); err != nil {
			t.Fatal(err)
		}
		if got := cache.Entries(); !slices.Equal(got, tt.want) {
			t.Errorf("TruncateFromEnd(%d) = %v, want %v", tt.end, got, tt.want)
		}
		reloaded, err := NewLeaderEpochFileCache(cache.Path())
		if err != nil || !slices.Equal(reloaded.Entries(), tt.want) {
			t.Errorf("TruncateFromEnd(%d) reloaded = %v, %v; want %v", tt.end, reloaded.Entries(), err, tt.want)
		}
	}
	// Kafka's truncateFromEnd(UNDEFINED_EPOCH_OFFSET) is a no-op; so is
	// the model's (TestTruncateFromEndUndefinedOffset in model).
	for _, end := range []int64{UndefinedEpochOffset, -7} {
		cache := newCache(t, c)
		if err := cache.TruncateFromEnd(end); err != nil || !slices.Equal(cache.Entries(), c) {
			t.Errorf("TruncateFromEnd(%d) = %v with entries %v; want no error and %v unchanged", end, err, cache.Entries(), c)
		}
		reloaded, err := NewLeaderEpochFileCache(cache.Path())
		if err != nil || !slices.Equal(reloaded.Entries(), c) {
			t.Errorf("TruncateFromEnd(%d) reloaded = %v, %v; want %v", end, reloaded.Entries(), err, c)
		}
	}
}

func TestLatest(t *testing.T) {
	cache := newCache(t, nil)
	if e := cache.LatestEpoch(); e != UndefinedEpoch {
		t.Errorf("LatestEpoch of empty cache = %d", e)
	}
	if _, ok := cache.LatestEntry(); ok {
		t.Error("LatestEntry of empty cache exists")
	}
	cache = newCache(t, entries(1, 0, 3, 5))
	if e := cache.LatestEpoch(); e != 3 {
		t.Errorf("LatestEpoch = %d, want 3", e)
	}
	if got, ok := cache.LatestEntry(); !ok || got != (EpochEntry{3, 5}) {
		t.Errorf("LatestEntry = %v, %v", got, ok)
	}
}

// The spec's operators transliterated as literally as Go allows: sets of
// indices, CHOOSE min/max, SelectSeq filters. The cache's implementation
// (tail removal, binary search) must agree with them on every input.

func specAssign(c []EpochEntry, e int32, s int64) []EpochEntry {
	if len(c) > 0 && e == c[len(c)-1].Epoch && s >= c[len(c)-1].StartOffset {
		return c
	}
	var out []EpochEntry
	for _, x := range c {
		if x.Epoch < e && x.StartOffset < s {
			out = append(out, x)
		}
	}
	return append(out, EpochEntry{e, s})
}

func specTruncateFromEnd(c []EpochEntry, o int64) []EpochEntry {
	var out []EpochEntry
	for _, x := range c {
		if x.StartOffset < o {
			out = append(out, x)
		}
	}
	return out
}

func specLatestEpoch(c []EpochEntry) int32 {
	if len(c) == 0 {
		return -1
	}
	return c[len(c)-1].Epoch
}

func specEndOffsetFor(c []EpochEntry, leo int64, e int32) (int32, int64) {
	var higher, floor []int
	for i := range c {
		if c[i].Epoch > e {
			higher = append(higher, i)
		} else {
			floor = append(floor, i)
		}
	}
	switch {
	case e == -1:
		return -1, -1
	case e == specLatestEpoch(c):
		return e, leo
	case len(higher) == 0:
		return -1, -1
	}
	next := slices.Min(higher)
	if len(floor) == 0 {
		return e, c[next].StartOffset
	}
	return c[slices.Max(floor)].Epoch, c[next].StartOffset
}

func specKip101EndOffset(c []EpochEntry, leo int64, e int32) int64 {
	var higher []int
	for i := range c {
		if c[i].Epoch > e {
			higher = append(higher, i)
		}
	}
	switch {
	case e == -1:
		return -1
	case e == specLatestEpoch(c):
		return leo
	case len(higher) == 0 || len(c) == 0 || e < c[0].Epoch:
		return -1
	}
	return c[slices.Min(higher)].StartOffset
}

func TestEpochCacheMatchesSpecOperators(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for walk := 0; walk < 300; walk++ {
		var c []EpochEntry
		for step := 0; step < 30; step++ {
			leo := int64(rng.IntN(12))
			if len(c) > 0 {
				leo = max(leo, c[len(c)-1].StartOffset)
			}
			for e := int32(-1); e <= 8; e++ {
				ge, go_ := endOffsetFor(c, e, leo)
				we, wo := specEndOffsetFor(c, leo, e)
				if ge != we || go_ != wo {
					t.Fatalf("endOffsetFor(%v, %d, leo %d) = (%d, %d), spec says (%d, %d)", c, e, leo, ge, go_, we, wo)
				}
				if g, w := kip101EndOffset(c, e, leo), specKip101EndOffset(c, leo, e); g != w {
					t.Fatalf("kip101EndOffset(%v, %d, leo %d) = %d, spec says %d", c, e, leo, g, w)
				}
			}
			orig, before := c, slices.Clone(c)
			if rng.IntN(4) == 0 {
				o := int64(rng.IntN(12))
				got, want := truncateFromEnd(c, o), specTruncateFromEnd(c, o)
				if !slices.Equal(got, want) {
					t.Fatalf("truncateFromEnd(%v, %d) = %v, spec says %v", c, o, got, want)
				}
				c = got
			} else {
				e, s := int32(rng.IntN(8)), int64(rng.IntN(12))
				got, _ := assign(c, e, s)
				if want := specAssign(c, e, s); !slices.Equal(got, want) {
					t.Fatalf("assign(%v, %d, %d) = %v, spec says %v", c, e, s, got, want)
				}
				c = got
			}
			if !slices.Equal(orig, before) {
				t.Fatalf("operator modified its argument in place: %v became %v", before, orig)
			}
			for i := 1; i < len(c); i++ {
				if c[i-1].Epoch >= c[i].Epoch || c[i-1].StartOffset >= c[i].StartOffset {
					t.Fatalf("cache not well-formed: %v", c)
				}
			}
		}
	}
}
