package storage

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/hwepoch/hwepoch/impl/release"
)

// specGreaterOnly is the spec's Assign under cacheAssign = "GreaterOnly"
// (Kafka 0.11.0's LeaderEpochFileCache.assign).
func specGreaterOnly(c []EpochEntry, e int32, s int64) []EpochEntry {
	if len(c) == 0 || (e > c[len(c)-1].Epoch && s >= c[len(c)-1].StartOffset) {
		return append(slices.Clone(c), EpochEntry{e, s})
	}
	return c
}

func openRule(t *testing.T, rule release.CacheAssign) *LeaderEpochFileCache {
	t.Helper()
	c, err := OpenLeaderEpochFileCache(filepath.Join(t.TempDir(), LeaderEpochCheckpointFilename), rule)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Kafka's LeaderEpochFileCacheTest, at the tag of each release, as
// sequences of assign calls and the entries they leave.
func TestAssignPerRelease(t *testing.T) {
	type call struct {
		e int32
		s int64
	}
	tests := []struct {
		name  string
		rule  release.CacheAssign
		calls []call
		want  []EpochEntry
	}{
		// 0.11.0.3 shouldNotLetEpochGoBackwardsEvenIfMessageEpochsDo.
		{"0.11: an older epoch later is ignored", release.GreaterOnly, []call{{1, 5}, {2, 6}, {1, 7}}, entries(1, 5, 2, 6)},
		// 2.1.0 shouldEnforceMonotonicallyIncreasingEpochs.
		{"2.1: an older epoch later replaces the newer", release.TruncateAndAppend, []call{{1, 5}, {2, 6}, {1, 7}}, entries(1, 7)},
		// 0.11.0.3 shouldNotLetOffsetsGoBackwardsEvenIfEpochsProgress.
		{"0.11: a newer epoch at an earlier offset is ignored", release.GreaterOnly, []call{{2, 6}, {3, 5}}, entries(2, 6)},
		// 2.1.0 shouldEnforceOffsetsIncreaseMonotonically.
		{"2.1: a newer epoch at an earlier offset wins", release.TruncateAndAppend, []call{{2, 6}, {3, 5}}, entries(3, 5)},
		// Both: shouldNotOverwriteOffsetForALeaderEpochOnceItHasBeenAssigned.
		{"0.11: same epoch later keeps its start", release.GreaterOnly, []call{{2, 6}, {2, 10}}, entries(2, 6)},
		{"2.1: same epoch later keeps its start", release.TruncateAndAppend, []call{{2, 6}, {2, 10}}, entries(2, 6)},
		// 2.1.0 shouldTruncateIfMatchingEpochButEarlierStartingOffset.
		{"2.1: same epoch earlier moves its start", release.TruncateAndAppend, []call{{5, 11}, {6, 12}, {7, 13}, {7, 12}}, entries(5, 11, 7, 12)},
		{"0.11: same epoch earlier is ignored", release.GreaterOnly, []call{{5, 11}, {6, 12}, {7, 13}, {7, 12}}, entries(5, 11, 6, 12, 7, 13)},
		// 0.10.2 has no cache.
		{"0.10.2: nothing is ever assigned", release.NoCache, []call{{0, 0}, {1, 3}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := openRule(t, tt.rule)
			for _, x := range tt.calls {
				if err := c.Assign(x.e, x.s); err != nil {
					t.Fatal(err)
				}
			}
			if got := c.Entries(); !slices.Equal(got, tt.want) {
				t.Errorf("after %v: %v, want %v", tt.calls, got, tt.want)
			}
		})
	}
}

// Under 0.10.2 no leader-epoch-checkpoint is ever written, and one left in
// the directory is not read.
func TestNoCacheWritesNoCheckpoint(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, LeaderEpochCheckpointFilename)
	if err := WriteLeaderEpochCheckpoint(path, entries(3, 0)); err != nil {
		t.Fatal(err)
	}
	c, err := OpenLeaderEpochFileCache(path, release.NoCache)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Entries()) != 0 {
		t.Fatalf("no-cache release read %v", c.Entries())
	}
	os.Remove(path)
	l, err := Open(filepath.Join(dir, "log"), Options{CacheAssign: release.NoCache})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := l.AppendAsLeader(2, []Record{{ID: 1}, {ID: 2}}); err != nil {
		t.Fatal(err)
	}
	if _, err := l.TruncateTo(1); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "log", LeaderEpochCheckpointFilename)); !os.IsNotExist(err) {
		t.Fatalf("leader-epoch-checkpoint exists under 0.10.2 (stat: %v)", err)
	}
	if e := l.EpochCache().LatestEpoch(); e != UndefinedEpoch {
		t.Fatalf("latest epoch %d, want none", e)
	}
}

// Under 0.11 a leader has no entry for its epoch until its first append;
// the append creates it at the record's offset.
func TestKip101LeaderEntryAtFirstAppend(t *testing.T) {
	l, err := Open(t.TempDir(), Options{CacheAssign: release.GreaterOnly})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := l.AppendAsLeader(0, []Record{{ID: 1}, {ID: 2}}); err != nil {
		t.Fatal(err)
	}
	if got := l.EpochCache().Entries(); !slices.Equal(got, entries(0, 0)) {
		t.Fatalf("after epoch 0's appends: %v", got)
	}
	// The leader of epoch 1 has appended nothing: asked about epoch 0 it
	// answers the LEO (0.11's endOffsetFor, latest epoch), the KIP-279 case.
	if o := l.EpochCache().Kip101EndOffset(0, l.LEO()); o != 2 {
		t.Fatalf("Kip101EndOffset(0) before epoch 1's first append = %d, want the LEO 2", o)
	}
	if _, err := l.AppendAsLeader(1, []Record{{ID: 3}}); err != nil {
		t.Fatal(err)
	}
	if got := l.EpochCache().Entries(); !slices.Equal(got, entries(0, 0, 1, 2)) {
		t.Fatalf("after epoch 1's first append: %v", got)
	}
}

func TestOpenRejectsUnknownRule(t *testing.T) {
	if _, err := OpenLeaderEpochFileCache(filepath.Join(t.TempDir(), "x"), "Sometimes"); err == nil {
		t.Fatal("unknown rule accepted")
	}
	if _, err := Open(t.TempDir(), Options{CacheAssign: "Sometimes"}); err == nil {
		t.Fatal("Open accepted an unknown rule")
	}
}

// The greater-only rule against the spec's operator, on random walks.
func TestGreaterOnlyMatchesSpec(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for walk := 0; walk < 300; walk++ {
		var c []EpochEntry
		for step := 0; step < 30; step++ {
			if rng.IntN(4) == 0 {
				c = truncateFromEnd(c, int64(rng.IntN(12)))
				continue
			}
			e, s := int32(rng.IntN(8)), int64(rng.IntN(12))
			got, _ := assignBy(release.GreaterOnly, c, e, s)
			if want := specGreaterOnly(c, e, s); !slices.Equal(got, want) {
				t.Fatalf("greater-only assign(%v, %d, %d) = %v, spec says %v", c, e, s, got, want)
			}
			c = got
		}
	}
}
