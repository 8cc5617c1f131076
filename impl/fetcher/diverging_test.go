package fetcher

import (
	"slices"
	"testing"

	"github.com/hwepoch/hwepoch/impl/storage"
)

// fetchRound is one Fetch of truncation on fetch (Kafka 2.8+): the
// follower fetches at its LEO with its latest epoch as lastFetchedEpoch;
// the leader answers divergingEpoch or records.
type fetchRound struct {
	offset    int64
	lastEpoch int32
	diverging bool
	answer    EpochEndOffset
	to        int64 // the follower's LEO after the round
}

// fetchUntilCaughtUp runs truncate-on-fetch between two real logs until
// the follower holds the leader's log: DivergingEpoch on the leader,
// TruncationTarget on the follower, appends otherwise. hw is the
// follower's HW, which a diverging round does not raise (3.9's
// processFetchRequest skips processPartitionData on a divergence).
func fetchUntilCaughtUp(t *testing.T, follower, leader *storage.Log, hw *int64, leaderHW int64) []fetchRound {
	t.Helper()
	var rounds []fetchRound
	for len(rounds) < 10 {
		fo, lfe := follower.LEO(), follower.EpochCache().LatestEpoch()
		r := fetchRound{offset: fo, lastEpoch: lfe}
		if div, ok := DivergingEpoch(leader.EpochCache(), leader.LEO(), fo, lfe); ok {
			to, _, err := TruncationTarget(storage.DivergingEpoch, fo, *hw, fo, follower.EpochCache(), div)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := follower.TruncateTo(to); err != nil {
				t.Fatal(err)
			}
			*hw = min(*hw, to, follower.LEO())
			r.diverging, r.answer = true, div
		} else {
			recs, err := leader.Read(fo, 0)
			if err != nil {
				t.Fatal(err)
			}
			if err := follower.AppendAsFollower(recs); err != nil {
				t.Fatal(err)
			}
			*hw = min(leaderHW, follower.LEO())
		}
		r.to = follower.LEO()
		rounds = append(rounds, r)
		if !r.diverging {
			return rounds
		}
	}
	t.Fatalf("truncation on fetch did not converge: %v", rounds)
	return nil
}

// Kafka 3.9.0's AbstractFetcherThreadTest cases with truncateOnFetch.
func TestTruncateOnFetchKafkaCases(t *testing.T) {
	for _, tt := range []struct {
		name               string
		fLog, lLog         []int32
		fHW, lHW           int64
		wantRounds         []fetchRound
		wantHWAfterDiverge int64
	}{
		{
			// testDivergingEpochs: lastFetchedEpoch 4, then 2, then 5.
			name: "testDivergingEpochs", fLog: []int32{0, 2, 4}, lLog: []int32{0, 2, 5}, fHW: 0, lHW: 2,
			wantRounds: []fetchRound{
				{3, 4, true, EpochEndOffset{2, 2}, 2},
				{2, 2, false, EpochEndOffset{}, 3},
			},
			wantHWAfterDiverge: 0,
		},
		{
			// testTruncation: no epoch in common until the log is empty.
			name: "testTruncation", fLog: []int32{0, 2, 4}, lLog: []int32{1, 3, 5}, fHW: 0, lHW: 2,
			wantRounds: []fetchRound{
				{3, 4, true, EpochEndOffset{3, 2}, 2}, // we lack 3: end of our 2
				{2, 2, true, EpochEndOffset{1, 1}, 1}, // we lack 1: end of our 0
				{1, 0, true, EpochEndOffset{0, 0}, 0}, // below the leader's first epoch
				{0, -1, false, EpochEndOffset{}, 3},
			},
			wantHWAfterDiverge: 0,
		},
		{
			// testTruncateOnFetchDoesNotProcessPartitionData: the HW stays
			// at 1 through the divergence.
			name: "testTruncateOnFetchDoesNotProcessPartitionData", fLog: []int32{0, 0, 2, 4, 4, 4}, lLog: []int32{0, 0, 2, 5, 5},
			fHW: 1, lHW: 4,
			wantRounds: []fetchRound{
				{6, 4, true, EpochEndOffset{2, 3}, 3},
				{3, 2, false, EpochEndOffset{}, 5},
			},
			wantHWAfterDiverge: 1,
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			follower := buildLog(t, tt.fLog, nil)
			leader := buildLog(t, tt.lLog, nil)
			hw := tt.fHW
			var hwAfterFirst int64 = -1
			rounds := fetchUntilCaughtUp(t, follower, leader, &hw, tt.lHW)
			if len(rounds) > 0 && rounds[0].diverging {
				// Replay the first round alone to read the HW after it.
				f2 := buildLog(t, tt.fLog, nil)
				h2 := tt.fHW
				div, _ := DivergingEpoch(leader.EpochCache(), leader.LEO(), f2.LEO(), f2.EpochCache().LatestEpoch())
				to, _, _ := TruncationTarget(storage.DivergingEpoch, f2.LEO(), h2, f2.LEO(), f2.EpochCache(), div)
				hwAfterFirst = min(h2, to)
			}
			if !slices.Equal(rounds, tt.wantRounds) {
				t.Errorf("rounds = %v, want %v", rounds, tt.wantRounds)
			}
			if f, l := epochsOf(t, follower), epochsOf(t, leader); !slices.Equal(f, l) {
				t.Errorf("follower %v, leader %v", f, l)
			}
			if hwAfterFirst != tt.wantHWAfterDiverge {
				t.Errorf("HW after the diverging fetch = %d, want %d", hwAfterFirst, tt.wantHWAfterDiverge)
			}
			if hw != tt.lHW {
				t.Errorf("HW after catching up = %d, want the leader's %d", hw, tt.lHW)
			}
		})
	}
}

// The leader's check alone, one case per branch: leader log with epochs 0
// at 0, 2 at 2, 4 at 5, LEO 8 (Kafka's own cases follow below).
func TestDivergingEpochLeaderCheck(t *testing.T) {
	leader := buildLog(t, []int32{0, 0, 2, 2, 2, 4, 4, 4}, nil)
	for _, tt := range []struct {
		offset int64
		lfe    int32
		want   EpochEndOffset
		div    bool
	}{
		{8, 4, EpochEndOffset{}, false},      // caught up in the latest epoch
		{5, 2, EpochEndOffset{}, false},      // at the end of epoch 2
		{6, 2, EpochEndOffset{2, 5}, true},   // beyond the end of the leader's epoch 2
		{4, 3, EpochEndOffset{2, 5}, true},   // an epoch the leader never had
		{3, 1, EpochEndOffset{0, 2}, true},   // epoch 1: the leader has 0, ending at 2
		{2, 0, EpochEndOffset{}, false},      // at the end of epoch 0
		{0, -1, EpochEndOffset{}, false},     // an empty follower is not checked
		{9, 5, EpochEndOffset{-1, -1}, true}, // above every epoch: undefined
	} {
		got, div := DivergingEpoch(leader.EpochCache(), leader.LEO(), tt.offset, tt.lfe)
		if div != tt.div || got != tt.want {
			t.Errorf("fetch at %d with lastFetchedEpoch %d: (%v, %t), want (%v, %t)", tt.offset, tt.lfe, got, div, tt.want, tt.div)
		}
	}
}

// Kafka 3.9.0's PartitionTest.testLastFetchedOffsetValidation (before its
// log start offset moves): the leader, in epoch 10, holds epochs 0 at 0, 3
// at 2, 4 at 8, 7 at 13, 9 at 14 and its own 10 at the LEO 17. Kafka throws
// OFFSET_OUT_OF_RANGE for an epoch above every one it knows; the spec (and
// this) answer that as a divergence at (-1, -1).
func TestLastFetchedOffsetValidationKafkaCases(t *testing.T) {
	var epochs []int32
	for _, run := range []struct {
		epoch int32
		n     int
	}{{0, 2}, {3, 6}, {4, 5}, {7, 1}, {9, 3}} {
		for range run.n {
			epochs = append(epochs, run.epoch)
		}
	}
	ent := []storage.EpochEntry{{Epoch: 0, StartOffset: 0}, {Epoch: 3, StartOffset: 2}, {Epoch: 4, StartOffset: 8},
		{Epoch: 7, StartOffset: 13}, {Epoch: 9, StartOffset: 14}, {Epoch: 10, StartOffset: 17}}
	leader := buildLog(t, epochs, ent)
	if leader.LEO() != 17 {
		t.Fatalf("LEO %d, want 17", leader.LEO())
	}
	for _, tt := range []struct {
		lfe    int32
		offset int64
		div    bool
		want   EpochEndOffset
	}{
		{2, 5, true, EpochEndOffset{0, 2}},
		{0, 4, true, EpochEndOffset{0, 2}},
		{6, 6, true, EpochEndOffset{4, 13}},
		{5, 9, true, EpochEndOffset{4, 13}},
		{10, 18, true, EpochEndOffset{10, 17}},
		{0, 2, false, EpochEndOffset{}},
		{7, 14, false, EpochEndOffset{}},
		{9, 17, false, EpochEndOffset{}},
		{10, 17, false, EpochEndOffset{}},
		{11, 5, true, EpochEndOffset{-1, -1}}, // Kafka: OFFSET_OUT_OF_RANGE
	} {
		got, div := DivergingEpoch(leader.EpochCache(), leader.LEO(), tt.offset, tt.lfe)
		if div != tt.div || got != tt.want {
			t.Errorf("read(lastFetchedEpoch = %d, fetchOffset = %d) = (%v, %t), want (%v, %t)", tt.lfe, tt.offset, got, div, tt.want, tt.div)
		}
	}
}
