package explore

import (
	"context"
	"reflect"
	"testing"

	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/model/tlccfg"
)

// The cell searches here run on swarmCheck's configuration (two replicas,
// 2.1.0, unclean elections), under symmetry, in well under a second each:
// round 1 with K 1 cuts its way to the end without a violation, and K 4
// (round 3) finds NeverTruncatesCommitted broken at depth 14 or 15.

func cellSearch(t *testing.T, chk *tlccfg.Check, opts CellOptions) *CellResult {
	t.Helper()
	opts.Options = Options{Workers: opts.Workers, Invariants: chk.Invariants, Properties: chk.Properties,
		ConfigName: chk.Name, Symmetry: true}
	res, err := CellSearch(context.Background(), &chk.Config, opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.Violation != nil {
		checkSwarmViolation(t, &chk.Config, res.Violation)
	}
	return res
}

func cellActions(r *CellResult) []model.Action { return traceActions(r.Violation) }

// Same seed, same rounds, counts and counterexample, with one worker or
// two; other seeds order the levels otherwise, so they keep other states.
func TestCellSearchIsAFunctionOfItsSeed(t *testing.T) {
	chk := swarmCheck(t)
	type key struct {
		Rounds, K, Depth, Level, LevelCut, Cells int
		States, Generated, Cut                   int64
		Rejected                                 int
		Acts                                     []model.Action
	}
	keyOf := func(r *CellResult) key {
		if r.Violation == nil {
			t.Fatalf("no violation after %d rounds", r.Rounds)
		}
		return key{r.Rounds, r.K, r.Depth, r.Level, r.LevelCut, r.Cells, r.States, r.Generated, r.Cut, r.Rejected, cellActions(r)}
	}
	var keys []key
	for seed := uint64(1); seed <= 3; seed++ {
		opts := CellOptions{Seed: seed, K: 1}
		opts.Workers = 1
		a := keyOf(cellSearch(t, chk, opts))
		opts.Workers = 2
		b := keyOf(cellSearch(t, chk, opts))
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("seed %d: one worker gave %+v, two %+v", seed, a, b)
		}
		keys = append(keys, a)
	}
	if reflect.DeepEqual(keys[0], keys[1]) && reflect.DeepEqual(keys[1], keys[2]) {
		t.Fatalf("seeds 1, 2 and 3 kept the same states: %+v", keys[0])
	}
}

// A round that runs out of states without an accepted violation is
// followed by one with twice the K: K 1 alone finds nothing (it cuts, so
// it is not the whole space), while rounds from K 1 go on to K 4 and find
// it. With nothing to violate, the rounds widen until one cuts nothing:
// that round is the whole breadth-first search (with K large enough, the
// first round is, and keeps the explorer's distinct states).
func TestCellSearchRoundsWiden(t *testing.T) {
	chk := swarmCheck(t)
	one := cellSearch(t, chk, CellOptions{Seed: 1, K: 1, Rounds: 1})
	if one.Violation != nil || one.Exhausted || one.Cut == 0 || one.Rounds != 1 || one.K != 1 {
		t.Fatalf("K 1, one round: violation %v, exhausted %t, %d cut, %d rounds, K %d; want no violation after cutting",
			one.Violation, one.Exhausted, one.Cut, one.Rounds, one.K)
	}
	all := cellSearch(t, chk, CellOptions{Seed: 1, K: 1})
	if all.Violation == nil || all.Rounds < 2 || all.K != 1<<(all.Rounds-1) || all.States <= one.States {
		t.Fatalf("K 1, rounds: violation %v after %d rounds, K %d, %d states (one round: %d)", all.Violation, all.Rounds, all.K, all.States, one.States)
	}

	cfg := chk.Config
	cfg.MaxRecords, cfg.MaxEpoch = 1, 1
	bfs, err := Run(context.Background(), &cfg, Options{Workers: 2, Symmetry: true})
	if err != nil || !bfs.Complete {
		t.Fatalf("the breadth-first search: %v, complete %t", err, bfs != nil && bfs.Complete)
	}
	wide, err := CellSearch(context.Background(), &cfg, CellOptions{Options: Options{Workers: 2, Symmetry: true}, Seed: 1, K: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if !wide.Exhausted || wide.Rounds != 1 || wide.Cut != 0 || wide.States != bfs.Distinct {
		t.Fatalf("K 2^20: exhausted %t after %d rounds, %d cut, %d states; the explorer's distinct states %d",
			wide.Exhausted, wide.Rounds, wide.Cut, wide.States, bfs.Distinct)
	}
	res, err := CellSearch(context.Background(), &cfg, CellOptions{Options: Options{Workers: 2, Symmetry: true}, Seed: 1, K: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Exhausted || res.Rounds < 2 || res.K != 1<<(res.Rounds-1) || res.States <= bfs.Distinct || res.Violation != nil {
		t.Fatalf("K 1: exhausted %t after %d rounds (K %d), %d states in all; the explorer's distinct states %d",
			res.Exhausted, res.Rounds, res.K, res.States, bfs.Distinct)
	}
}

// Accept sends the search past violations it rejects: the one returned is
// accepted, and the rejected ones are counted (the same with two workers).
func TestCellSearchWalksOnUntilAccepted(t *testing.T) {
	chk := swarmCheck(t)
	first := cellSearch(t, chk, CellOptions{Seed: 1})
	long := func(v *Violation) bool { return v.Trace.Len() > first.Violation.Trace.Len() }
	var got []model.Action
	for _, workers := range []int{1, 2} {
		opts := CellOptions{Seed: 1, Accept: long}
		opts.Workers = workers
		r := cellSearch(t, chk, opts)
		if r.Violation == nil || !long(r.Violation) {
			t.Fatalf("workers %d: returned %v, which Accept rejects", workers, r.Violation)
		}
		if r.Rejected == 0 {
			t.Fatalf("workers %d: no violation was rejected on the way", workers)
		}
		if got != nil && !reflect.DeepEqual(got, cellActions(r)) {
			t.Fatalf("one worker and two returned different counterexamples")
		}
		got = cellActions(r)
	}
}
