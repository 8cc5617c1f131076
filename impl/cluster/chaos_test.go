package cluster

import (
	"strings"
	"testing"

	"github.com/hwepoch/hwepoch/impl/storage"
)

// The campaign at CI size: LeaderEpoch must lose nothing and never diverge;
// HighWatermark, under the same chaos, must be caught at least once.

func TestChaosLeaderEpochHolds(t *testing.T) {
	base := DefaultChaos(t.TempDir(), 0)
	for _, r := range RunChaosSeeds(base, 1, 3, nil) {
		t.Log(r)
		if r.Failed() {
			t.Errorf("%s\nchaos:\n  %s\nreplay (%d steps): %s", r, strings.Join(r.Actions, "\n  "), len(r.Steps), stepsHead(r.Steps, 40))
		}
		if r.Acked == 0 {
			t.Errorf("seed %d acknowledged nothing: the check would be vacuous", r.Seed)
		}
	}
}

func TestChaosHighWatermarkIsCaught(t *testing.T) {
	base := DefaultChaos(t.TempDir(), 0)
	base.Policy = storage.HighWatermark
	// About four seeds in ten are caught; stop at the first one.
	for seed := uint64(1); seed <= 12; seed++ {
		r := RunChaosSeeds(base, seed, 1, nil)[0]
		t.Log(r)
		if r.Err != nil {
			t.Errorf("seed %d: %v", r.Seed, r.Err)
		}
		if !r.Verdict.OK() {
			return
		}
	}
	t.Errorf("no seed lost or diverged under HighWatermark: the campaign does not bite")
}

func stepsHead(steps []Step, n int) string {
	var b strings.Builder
	for i, s := range steps {
		if i == n {
			b.WriteString(" ...")
			break
		}
		b.WriteString(" " + s.String())
	}
	return b.String()
}
