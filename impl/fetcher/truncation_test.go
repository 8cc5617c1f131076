package fetcher

import (
	"fmt"
	"slices"
	"testing"

	"github.com/hwepoch/hwepoch/impl/storage"
)

// buildLog makes a real log whose records have the given epochs, offset by
// offset, and whose epoch cache is exactly cache (entries beyond the
// records' are assigned the way a leader assigns its epoch on election).
func buildLog(t *testing.T, epochs []int32, cache []storage.EpochEntry) *storage.Log {
	t.Helper()
	l, err := storage.Open(t.TempDir(), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	recs := make([]storage.Record, len(epochs))
	for i, e := range epochs {
		recs[i] = storage.Record{Offset: int64(i), LeaderEpoch: e, ID: int64(100*e) + int64(i)}
	}
	if err := l.AppendAsFollower(recs); err != nil {
		t.Fatal(err)
	}
	for _, c := range cache {
		if err := l.AssignEpochStartOffset(c.Epoch, c.StartOffset); err != nil {
			t.Fatal(err)
		}
	}
	if cache != nil {
		if got := l.EpochCache().Entries(); !slices.Equal(got, cache) {
			t.Fatalf("built cache %v, table says %v", got, cache)
		}
	}
	return l
}

func epochsOf(t *testing.T, l *storage.Log) []int32 {
	t.Helper()
	recs, err := l.Read(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := []int32{}
	for _, r := range recs {
		out = append(out, r.LeaderEpoch)
	}
	return out
}

// round is one OffsetsForLeaderEpoch round trip of the truncation phase.
type round struct {
	answer EpochEndOffset
	to     int64
	done   bool
}

// reconcile runs the follower's truncation phase against the leader until
// it completes, as the spec does: send the latest epoch
// (SendOffsetsForLeaderEpoch), let the leader answer by policy
// (HandleOffsetsForLeaderEpoch), truncate (HandleOffsetsForLeaderEpochResponse).
func reconcile(t *testing.T, p storage.Policy, follower, leader *storage.Log, hw int64) []round {
	t.Helper()
	var rounds []round
	for len(rounds) < 10 {
		e, o, err := leader.OffsetsForLeaderEpoch(p, follower.EpochCache().LatestEpoch())
		if err != nil {
			t.Fatal(err)
		}
		ans := EpochEndOffset{LeaderEpoch: e, EndOffset: o}
		to, done, err := TruncationTarget(p, follower.LEO(), hw, hw, follower.EpochCache(), ans)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := follower.TruncateTo(to); err != nil {
			t.Fatal(err)
		}
		hw = min(hw, to, follower.LEO()) // spec TruncHW
		rounds = append(rounds, round{ans, to, done})
		if done {
			return rounds
		}
	}
	t.Fatalf("%s truncation did not complete in 10 rounds: %v", p, rounds)
	return nil
}

func isPrefix(short, long []int32) bool {
	return len(short) <= len(long) && slices.Equal(short, long[:len(short)])
}

// design.md §6: truncation by diverging epoch, cases a–g. "L answers" is
// checked as the leader's EndOffsetFor(F's latest epoch); for a and b,
// where the table says "no divergence", as KIP-595's test (the answer ends
// at or after the fetch offset, in the fetched epoch). Kip101 is run on the
// same rows: it gets f and g wrong, which is why KIP-279 exists.
func TestDivergenceCases(t *testing.T) {
	ent := func(pairs ...int64) []storage.EpochEntry {
		var out []storage.EpochEntry
		for i := 0; i < len(pairs); i += 2 {
			out = append(out, storage.EpochEntry{Epoch: int32(pairs[i]), StartOffset: pairs[i+1]})
		}
		return out
	}
	noDivergence := EpochEndOffset{-2, -2} // marker
	tests := []struct {
		name       string
		fLog       []int32
		lLog       []int32
		lCache     []storage.EpochEntry
		fetch      [2]int64 // (offset, lastFetchedEpoch)
		answer     EpochEndOffset
		want       int64
		wantKip101 int64
	}{
		{"a", []int32{1, 1}, []int32{1, 1, 1, 1}, ent(1, 0, 2, 4), [2]int64{2, 1}, noDivergence, 2, 2},
		{"b", []int32{1, 1}, []int32{1, 1, 2, 2}, ent(1, 0, 2, 2, 3, 4), [2]int64{2, 1}, noDivergence, 2, 2},
		{"c", []int32{1, 1, 1, 1}, []int32{1, 1}, ent(1, 0, 2, 2), [2]int64{4, 1}, EpochEndOffset{1, 2}, 2, 2},
		{"d", []int32{1, 1, 2, 2}, []int32{1, 1}, ent(1, 0, 3, 2), [2]int64{4, 2}, EpochEndOffset{1, 2}, 2, 2},
		{"e", []int32{1, 1, 2, 2}, []int32{1, 1, 3, 3}, ent(1, 0, 3, 2, 4, 4), [2]int64{4, 2}, EpochEndOffset{1, 2}, 2, 2},
		{"f", []int32{1, 2, 2}, []int32{1, 1}, ent(1, 0, 3, 2), [2]int64{3, 2}, EpochEndOffset{1, 2}, 1, 2},
		{"g", []int32{2}, []int32{1, 3}, ent(1, 0, 3, 1, 4, 2), [2]int64{1, 2}, EpochEndOffset{1, 1}, 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			follower := buildLog(t, tt.fLog, nil)
			leader := buildLog(t, tt.lLog, tt.lCache)
			if got := [2]int64{follower.LEO(), int64(follower.EpochCache().LatestEpoch())}; got != tt.fetch {
				t.Fatalf("follower would fetch %v, table says %v", got, tt.fetch)
			}

			rounds := reconcile(t, storage.LeaderEpoch, follower, leader, 0)
			first := rounds[0].answer
			if tt.answer == noDivergence {
				if first.LeaderEpoch != int32(tt.fetch[1]) || first.EndOffset < tt.fetch[0] {
					t.Errorf("leader answered %v: a divergence, table says none", first)
				}
			} else if first != tt.answer {
				t.Errorf("leader answered %v, table says %v", first, tt.answer)
			}
			if len(rounds) != 1 || follower.LEO() != tt.want {
				t.Errorf("LeaderEpoch: follower truncated to %d in %v, want %d in one round", follower.LEO(), rounds, tt.want)
			}
			if f, l := epochsOf(t, follower), epochsOf(t, leader); !isPrefix(f, l) {
				t.Errorf("LeaderEpoch: follower %v is not a prefix of leader %v", f, l)
			}

			follower = buildLog(t, tt.fLog, nil)
			reconcile(t, storage.Kip101, follower, leader, 0)
			if follower.LEO() != tt.wantKip101 {
				t.Errorf("Kip101: follower truncated to %d, want %d", follower.LEO(), tt.wantKip101)
			}
			f, l := epochsOf(t, follower), epochsOf(t, leader)
			if wantDiverged := tt.want != tt.wantKip101; isPrefix(f, l) == wantDiverged {
				t.Errorf("Kip101: follower %v vs leader %v: diverged = %v, want %v", f, l, !isPrefix(f, l), wantDiverged)
			}
		})
	}
}

// design.md §6, KIP-279 (fast leader changes): A leads with
// [0:e0 1:e2 2:e2 3:e2 4:e4 5:e4], B follows with [0:e0 1:e1 2:e3].
func TestKip279Example(t *testing.T) {
	aLog := []int32{0, 2, 2, 2, 4, 4}
	bLog := []int32{0, 1, 3}

	t.Run("Kip101 diverges", func(t *testing.T) {
		a, b := buildLog(t, aLog, nil), buildLog(t, bLog, nil)
		rounds := reconcile(t, storage.Kip101, b, a, 0)
		// B asks about epoch 3; the 0.11 rule answers the start of epoch 4.
		want := []round{{EpochEndOffset{storage.UndefinedEpoch, 4}, 3, true}}
		if !slices.Equal(rounds, want) {
			t.Errorf("rounds = %v, want %v", rounds, want)
		}
		if got := epochsOf(t, b); !slices.Equal(got, bLog) {
			t.Errorf("B = %v, want untouched %v (offsets 1-2 diverge forever)", got, bLog)
		}
	})
	t.Run("LeaderEpoch converges", func(t *testing.T) {
		a, b := buildLog(t, aLog, nil), buildLog(t, bLog, nil)
		rounds := reconcile(t, storage.LeaderEpoch, b, a, 0)
		want := []round{
			{EpochEndOffset{2, 4}, 2, false}, // B lacks epoch 2: end of its epoch 1, ask again
			{EpochEndOffset{0, 1}, 1, true},  // both know epoch 0, which ends at 1
		}
		if !slices.Equal(rounds, want) {
			t.Errorf("rounds = %v, want %v", rounds, want)
		}
		if got := epochsOf(t, b); !slices.Equal(got, []int32{0}) {
			t.Errorf("B = %v, want [0]", got)
		}
		if got := b.EpochCache().Entries(); !slices.Equal(got, []storage.EpochEntry{{Epoch: 0, StartOffset: 0}}) {
			t.Errorf("B's cache = %v", got)
		}
	})
}

// fakeCache answers EndOffsetFor from a fixed table, so each branch of the
// rule can be driven directly.
type fakeCache map[int32][2]int64

func (c fakeCache) EndOffsetFor(epoch int32, leo int64) (int32, int64) {
	if r, ok := c[epoch]; ok {
		return int32(r[0]), r[1]
	}
	return storage.UndefinedEpoch, storage.UndefinedEpochOffset
}

func TestTruncationTargetBranches(t *testing.T) {
	own := fakeCache{3: {3, 9}, 2: {1, 4}, 1: {1, 4}}
	tests := []struct {
		p           storage.Policy
		leo, hw, fo int64
		cache       EpochCache
		ans         EpochEndOffset
		to          int64
		complete    bool
	}{
		// Undefined leader offset: 0.11's HW, 2.0+'s fetch offset (the HW
		// while truncating, the LEO under truncation on fetch).
		{storage.LeaderEpoch, 10, 3, 3, own, EpochEndOffset{-1, -1}, 3, true},
		{storage.LeaderEpoch, 10, 3, 10, own, EpochEndOffset{-1, -1}, 10, true},
		{storage.Kip101, 10, 3, 10, own, EpochEndOffset{-1, -1}, 3, true},
		{storage.LeaderEpoch, 10, 3, 3, own, EpochEndOffset{5, -1}, 3, true},
		{storage.DivergingEpoch, 10, 3, 10, own, EpochEndOffset{-1, -1}, 10, true},
		// DivergingEpoch follows getOffsetTruncationState like 2.1.
		{storage.DivergingEpoch, 10, 3, 10, own, EpochEndOffset{2, 8}, 4, false},
		{storage.DivergingEpoch, 10, 3, 10, own, EpochEndOffset{3, 7}, 7, true},
		// Kip101: min(offset, LEO); the epoch field is not looked at.
		{storage.Kip101, 10, 3, 10, nil, EpochEndOffset{-1, 7}, 7, true},
		{storage.Kip101, 10, 3, 10, nil, EpochEndOffset{-1, 12}, 10, true},
		{storage.Kip101, 10, 3, 10, nil, EpochEndOffset{3, 7}, 7, true},
		// LeaderEpoch, the follower has no such epoch.
		{storage.LeaderEpoch, 10, 3, 10, own, EpochEndOffset{7, 6}, 6, true},
		{storage.LeaderEpoch, 10, 3, 10, own, EpochEndOffset{7, 60}, 10, true},
		// LeaderEpoch, the follower does not know the leader's epoch: KIP-279.
		{storage.LeaderEpoch, 10, 3, 10, own, EpochEndOffset{2, 8}, 4, false},
		{storage.LeaderEpoch, 2, 0, 2, own, EpochEndOffset{2, 8}, 2, false},
		// LeaderEpoch, both know the epoch: the smallest of the three.
		{storage.LeaderEpoch, 10, 3, 10, own, EpochEndOffset{3, 7}, 7, true},
		{storage.LeaderEpoch, 10, 3, 10, own, EpochEndOffset{3, 12}, 9, true},
		{storage.LeaderEpoch, 8, 3, 8, own, EpochEndOffset{3, 12}, 8, true},
		{storage.LeaderEpoch, 10, 3, 10, own, EpochEndOffset{1, 2}, 2, true},
		// HighWatermark: the HW.
		{storage.HighWatermark, 10, 3, 10, nil, EpochEndOffset{3, 7}, 3, true},
		{storage.HighWatermark, 10, 0, 10, nil, EpochEndOffset{-1, -1}, 0, true},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/leo%d/hw%d/%v", tt.p, tt.leo, tt.hw, tt.ans), func(t *testing.T) {
			to, done, err := TruncationTarget(tt.p, tt.leo, tt.hw, tt.fo, tt.cache, tt.ans)
			if err != nil || to != tt.to || done != tt.complete {
				t.Errorf("TruncationTarget = (%d, %v, %v), want (%d, %v)", to, done, err, tt.to, tt.complete)
			}
		})
	}
}

func TestTruncationTargetRejectsBadInput(t *testing.T) {
	ans := EpochEndOffset{1, 5}
	for _, tt := range []struct {
		p       storage.Policy
		leo, hw int64
		cache   EpochCache
	}{
		{"", 10, 3, fakeCache{}},
		{"leaderepoch", 10, 3, fakeCache{}},
		{storage.LeaderEpoch, -1, 0, fakeCache{}},
		{storage.DivergingEpoch, 10, 3, nil},
		{storage.Kip101, 5, -2, nil},
		{storage.LeaderEpoch, 10, 3, nil},
	} {
		if _, _, err := TruncationTarget(tt.p, tt.leo, tt.hw, tt.leo, tt.cache, ans); err == nil {
			t.Errorf("TruncationTarget(%q, %d, %d, %v) succeeded", tt.p, tt.leo, tt.hw, tt.cache)
		}
	}
}
