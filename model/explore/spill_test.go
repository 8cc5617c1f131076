package explore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hwepoch/hwepoch/model/tlccfg"
)

// spillCase is a search the spill tests run: a configuration of the
// manifest with its options.
type spillCase struct {
	name string
	chk  *tlccfg.Check
	opts Options
}

// spillCases: live-le's state space (it holds every safety invariant), with
// and without symmetry; live-hw's, where NoAckedLoss fails (an invariant);
// w3-truncation with its symmetry, where NeverTruncates fails (an action
// property).
func spillCases(t *testing.T) []spillCase {
	t.Helper()
	load := func(name string) *tlccfg.Check {
		chk, err := tlccfg.LoadCheck(filepath.Join(specDir(t), name+".cfg"))
		if err != nil {
			t.Fatal(err)
		}
		return chk
	}
	live, liveHW, w3 := load("live-le"), load("live-hw"), load("w3-truncation")
	return []spillCase{
		{"live-le", live, Options{Invariants: benchInvariants}},
		{"live-le-symmetry", live, Options{Invariants: benchInvariants, Symmetry: true}},
		// the readable engine's frontier: variable-length encodings
		{"live-le-readable", live, Options{Invariants: benchInvariants, Engine: EngineReadable}},
		{"live-hw", liveHW, Options{Invariants: benchInvariants}},
		{"w3-truncation", w3, Options{Invariants: w3.Invariants, Properties: w3.Properties, Symmetry: w3.Symmetry}},
	}
}

// spillSeen is what a search spilled, as the afterLevel hook saw it.
type spillSeen struct {
	levels, parents, runs, merged bool
}

func (s spillSeen) String() string {
	return fmt.Sprintf("levels %t, parents %t, fingerprint runs %t (merged %t)", s.levels, s.parents, s.runs, s.merged)
}

func runSpill(t *testing.T, sc spillCase, workers int, split *memSplit, dir string, hook func(int, *store, *level)) (*Result, spillSeen, error) {
	t.Helper()
	opts := sc.opts
	opts.Workers, opts.ConfigName, opts.split, opts.SpillDir = workers, sc.name, split, dir
	var seen spillSeen
	opts.afterLevel = func(depth int, st *store, next *level) {
		seen.levels = seen.levels || next.f != nil
		seen.parents = seen.parents || st.parents.f != nil
		seen.runs = seen.runs || len(st.runs.runs) > 0
		seen.merged = seen.merged || st.runs.merges > 0
		if hook != nil {
			hook(depth, st, next)
		}
	}
	res, err := Run(context.Background(), &sc.chk.Config, opts)
	return res, seen, err
}

// sameResult fails unless b is a's search: the same counts, verdict and
// counterexample, step for step.
func sameResult(t *testing.T, what string, a, b *Result) {
	t.Helper()
	if a.Distinct != b.Distinct || a.Generated != b.Generated || a.Depth != b.Depth || a.Queue != b.Queue || a.Complete != b.Complete {
		t.Fatalf("%s: %d distinct, %d generated, depth %d, queue %d, complete %t; in memory: %d, %d, %d, %d, %t", what,
			b.Distinct, b.Generated, b.Depth, b.Queue, b.Complete, a.Distinct, a.Generated, a.Depth, a.Queue, a.Complete)
	}
	if (a.Violation == nil) != (b.Violation == nil) {
		t.Fatalf("%s: violation %v; in memory: %v", what, b.Violation, a.Violation)
	}
	if a.Violation == nil {
		return
	}
	va, vb := a.Violation, b.Violation
	if va.Property != vb.Property || va.Action != vb.Action || va.Trace.Len() != vb.Trace.Len() {
		t.Fatalf("%s: %s; in memory: %s", what, vb, va)
	}
	for i := range va.Trace.Steps {
		if va.Trace.Steps[i].Action != vb.Trace.Steps[i].Action || !va.Trace.Steps[i].State.Equal(vb.Trace.Steps[i].State) {
			t.Fatalf("%s: step %d is %s; in memory %s", what, i, vb.Trace.Steps[i].Action, va.Trace.Steps[i].Action)
		}
	}
}

// Budgets that force each kind of spill, alone and together, change
// nothing in the result, with one worker or two.
func TestSpillSameResult(t *testing.T) {
	const tiny = 1 // below any structure's size: spill at once
	budgets := []struct {
		name  string
		split memSplit
		want  spillSeen
	}{
		{"frontier", memSplit{fps: unlimited, frontier: 0, parents: unlimited}, spillSeen{levels: true}}, // a third of the base's largest frontier
		{"frontier-tiny", memSplit{fps: unlimited, frontier: tiny, parents: unlimited}, spillSeen{levels: true}},
		{"parents", memSplit{fps: unlimited, frontier: unlimited, parents: 4 << 10}, spillSeen{parents: true}},
		{"fingerprints", memSplit{fps: tiny, frontier: unlimited, parents: unlimited}, spillSeen{runs: true, merged: true}},
		{"all", memSplit{fps: tiny, frontier: 0, parents: tiny}, spillSeen{levels: true, parents: true, runs: true, merged: true}}, // an eighth
	}
	for _, sc := range spillCases(t) {
		t.Run(sc.name, func(t *testing.T) {
			base, seen, err := runSpill(t, sc, 2, nil, "", nil)
			if err != nil {
				t.Fatal(err)
			}
			if base.SpilledBytes != 0 || seen != (spillSeen{}) {
				t.Fatalf("the default budget spilled %d bytes (%s)", base.SpilledBytes, seen)
			}
			if holds := strings.HasPrefix(sc.name, "live-le"); holds != (base.Violation == nil) || sc.name == "live-le" && base.Distinct != 34384 {
				t.Fatalf("unexpected in-memory result: %d distinct, %v", base.Distinct, base.Violation)
			}
			if base.Violation != nil {
				checkViolation(t, &sc.chk.Config, base.Violation)
			}
			for _, b := range budgets {
				// Frontier budgets are shares of the unspilled search's
				// largest frontier: the engines' states differ in size.
				switch b.name {
				case "frontier":
					b.split.frontier = base.FrontierBytes / 3
				case "all":
					b.split.frontier = base.FrontierBytes / 8
				}
				for _, workers := range []int{1, 2} {
					what := fmt.Sprintf("%s budget, %d workers", b.name, workers)
					res, seen, err := runSpill(t, sc, workers, &b.split, "", nil)
					if err != nil {
						t.Fatalf("%s: %v", what, err)
					}
					sameResult(t, what, base, res)
					if res.Violation == nil && seen != b.want || res.Violation != nil && (seen.levels != b.want.levels || seen.parents != b.want.parents) {
						t.Errorf("%s: spilled %s, want %s", what, seen, b.want)
					}
					if res.SpilledBytes == 0 {
						t.Errorf("%s: SpilledBytes 0", what)
					}
					if b.split.frontier < unlimited && res.FrontierBytes >= base.FrontierBytes {
						t.Errorf("%s: %d frontier bytes in memory, as many as unspilled (%d)", what, res.FrontierBytes, base.FrontierBytes)
					}
				}
			}
		})
	}
}

// A search stopped part way (its context cancelled after a level) resumes
// from its checkpoint to the uninterrupted search's result, also when
// stopped again after resuming, and under budgets that spill everything.
func TestResume(t *testing.T) {
	cases := spillCases(t)
	for _, sc := range []spillCase{cases[0], cases[3]} {
		for _, split := range []*memSplit{nil, {fps: 1, frontier: 32 << 10, parents: 1}} {
			name := sc.name
			if split != nil {
				name += "-spilling"
			}
			t.Run(name, func(t *testing.T) {
				base, _, err := runSpill(t, sc, 2, nil, "", nil)
				if err != nil {
					t.Fatal(err)
				}
				dir := t.TempDir()
				sc := sc
				sc.opts.CheckpointEvery = 1 // at the end of every level
				// Stop after level 3, resume and stop after level 6, resume to the end.
				for i, depth := range []int{3, 6, 0} {
					sc.opts.Resume = i > 0
					res, err := runStopped(t, sc, split, dir, depth)
					if depth > 0 {
						if !errors.Is(err, context.Canceled) {
							t.Fatalf("stopped after level %d: %v, %v", depth, res, err)
						}
						if !hasCheckpoint(dir) {
							t.Fatalf("no checkpoint left after level %d", depth)
						}
						continue
					}
					if err != nil {
						t.Fatal(err)
					}
					sameResult(t, "resumed twice", base, res)
					if ents, _ := os.ReadDir(dir); len(ents) != 0 {
						t.Errorf("a finished search left %d files in its spill directory: %s", len(ents), ents[0].Name())
					}
				}
			})
		}
	}
}

// runStopped runs sc in dir, cancelling its context after level stop (0: never).
func runStopped(t *testing.T, sc spillCase, split *memSplit, dir string, stop int) (*Result, error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opts := sc.opts
	opts.Workers, opts.ConfigName, opts.split, opts.SpillDir = 2, sc.name, split, dir
	opts.afterLevel = func(depth int, _ *store, _ *level) {
		if depth == stop {
			cancel()
		}
	}
	return Run(ctx, &sc.chk.Config, opts)
}

// A checkpoint is resumed only by the same search, whole: another
// configuration's, a truncated or corrupt one, a missing one, or one whose
// files are gone or cut short is an error; and a directory holding one is
// not started afresh.
func TestResumeRefused(t *testing.T) {
	cases := spillCases(t)
	sc := cases[0]
	sc.opts.CheckpointEvery = 1
	split := &memSplit{fps: 1, frontier: 32 << 10, parents: unlimited}
	stopped := func(t *testing.T) string {
		dir := t.TempDir()
		if _, err := runStopped(t, sc, split, dir, 5); !errors.Is(err, context.Canceled) {
			t.Fatal(err)
		}
		return dir
	}
	resume := func(sc spillCase, dir string) error {
		sc.opts.Resume = true
		_, err := runStopped(t, sc, split, dir, 0)
		return err
	}
	expectErr := func(t *testing.T, err error, says string) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), says) {
			t.Fatalf("got %v, want an error saying %q", err, says)
		}
	}
	t.Run("another configuration", func(t *testing.T) {
		dir := stopped(t)
		expectErr(t, resume(cases[2], dir), "of another search")
		sym := sc
		sym.opts.Symmetry = true
		expectErr(t, resume(sym, dir), "of another search")
		if err := resume(sc, dir); err != nil { // the refusals left it whole
			t.Fatalf("the checkpoint does not resume after the refusals: %v", err)
		}
	})
	t.Run("truncated checkpoint", func(t *testing.T) {
		dir := stopped(t)
		path := filepath.Join(dir, checkpointName)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b[:len(b)/2], 0o644); err != nil {
			t.Fatal(err)
		}
		expectErr(t, resume(sc, dir), "corrupt or truncated")
	})
	t.Run("edited checkpoint", func(t *testing.T) {
		dir := stopped(t)
		path := filepath.Join(dir, checkpointName)
		b, _ := os.ReadFile(path)
		b = []byte(strings.Replace(string(b), `"Distinct": `, `"Distinct": 1`, 1))
		os.WriteFile(path, b, 0o644)
		expectErr(t, resume(sc, dir), "SHA-256 does not match")
	})
	for _, prefix := range []string{levelPrefix, statesPrefix, runPrefix} {
		t.Run("truncated "+prefix, func(t *testing.T) {
			dir := stopped(t)
			ents, _ := os.ReadDir(dir)
			cut := 0
			for _, e := range ents {
				if strings.HasPrefix(e.Name(), prefix) {
					p := filepath.Join(dir, e.Name())
					st, _ := os.Stat(p)
					if err := os.Truncate(p, st.Size()-3); err != nil {
						t.Fatal(err)
					}
					cut++
				}
			}
			if cut == 0 {
				t.Fatalf("no %s file in the checkpoint", prefix)
			}
			expectErr(t, resume(sc, dir), "resuming from")
		})
	}
	t.Run("missing checkpoint", func(t *testing.T) {
		expectErr(t, resume(sc, t.TempDir()), "no checkpoint to resume")
		sc := sc
		sc.opts.Resume = true
		_, err := Run(context.Background(), &sc.chk.Config, sc.opts)
		expectErr(t, err, "needs the spill directory")
	})
	t.Run("not started afresh", func(t *testing.T) {
		dir := stopped(t)
		_, err := runStopped(t, sc, split, dir, 0)
		expectErr(t, err, "holds the checkpoint of an earlier search")
	})
}

// Fingerprint runs: a lookup finds what any run holds, duplicates across
// runs included; merging past maxRuns keeps the union, each once; and
// sealing a level drops its states found in a run and numbers the others
// in BFS order.
func TestFingerprintRuns(t *testing.T) {
	d := newSpillDir(t.TempDir(), nil)
	runs := &fpRuns{d: d}
	set := func(fps ...uint64) *fpSet {
		s := newFPSet()
		for _, fp := range fps {
			s.add(fp)
		}
		return s
	}
	big := make([]uint64, 0, 3*runBlock)
	for i := range uint64(3 * runBlock) {
		big = append(big, i*i*0x9e3779b97f4a7c15+7) // several blocks, spread over the shards
	}
	if err := runs.flush(set(big...)); err != nil {
		t.Fatal(err)
	}
	if err := runs.flush(set(5, 10, big[17], 1<<63, 0)); err != nil { // 0 is stored as 1 (norm)
		t.Fatal(err)
	}
	if len(runs.runs) != 2 || runs.count() != int64(len(big))+5 {
		t.Fatalf("%d runs of %d fingerprints", len(runs.runs), runs.count())
	}
	probe := []uint64{1, 2, 5, 6, big[0], big[17], big[runBlock], big[len(big)-1], 1<<63 - 1, 1 << 63}
	slices.Sort(probe)
	probe = slices.Compact(probe)
	hits, err := runs.lookup(probe)
	if err != nil {
		t.Fatal(err)
	}
	want := []uint64{1, 5, big[0], big[17], big[runBlock], big[len(big)-1], 1 << 63}
	slices.Sort(want)
	if !slices.Equal(hits, want) {
		t.Fatalf("hits %x, want %x", hits, want)
	}
	// Past maxRuns the runs merge into one: the union, each fingerprint once.
	const more = maxRuns - 1 // runs 3 to 5: the fifth makes them too many
	for i := range more {
		if err := runs.flush(set(5, uint64(100+i), big[1])); err != nil {
			t.Fatal(err)
		}
	}
	if len(runs.runs) != 1 || runs.merges != 1 || runs.count() != int64(len(big))+4+more { // big[17] was in two runs
		t.Fatalf("after merging: %d runs of %d fingerprints, want 1 of %d", len(runs.runs), runs.count(), len(big)+4+more)
	}
	hits, _ = runs.lookup([]uint64{5, 100, 100 + more - 1, 100 + more})
	if !slices.Equal(hits, []uint64{5, 100, 100 + more - 1}) {
		t.Fatalf("after merging, hits %v", hits)
	}
	files, _ := os.ReadDir(d.path)
	if len(files) != 1 {
		t.Fatalf("%d files after merging, want 1", len(files))
	}

	// A level of six states, one of them twice over (the in-memory set
	// lets a repeat through only when a run holds it: both are dropped);
	// in memory and spilled.
	for _, limit := range []int64{unlimited, 1} {
		ps := &parentStore{limit: unlimited, d: d}
		for range 10 {
			ps.add(0, 0, 0)
		}
		l := &level{d: d, limit: limit}
		for i, fp := range []uint64{42, 5, 43, big[2], 44, 5} {
			if err := l.add(fp, uint32(i), packed(100+i), []byte{byte(i), byte(i)}); err != nil {
				t.Fatal(err)
			}
		}
		if err := l.seal(runs, ps); err != nil {
			t.Fatal(err)
		}
		var got []string
		l.windows(unlimited, 1, func(w []node) error {
			for _, nd := range w {
				p, a, _ := ps.get(nd.idx)
				got = append(got, fmt.Sprintf("%d:%d<-%d/%d", nd.idx, nd.enc[0], p, a))
			}
			return nil
		})
		if want := []string{"10:0<-0/100", "11:2<-2/102", "12:4<-4/104"}; !slices.Equal(got, want) || l.count != 3 || ps.len() != 13 {
			t.Fatalf("limit %d: sealed %v (count %d, %d states), want %v", limit, got, l.count, ps.len(), want)
		}
		l.release()
	}
}
