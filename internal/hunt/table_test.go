package hunt

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/hwepoch/hwepoch/model/explore"
	"github.com/hwepoch/hwepoch/trace"
)

// runsOf makes one cell per time: a positive time found the bug then, a
// negative one timed out at -time.
func runsOf(m Method, times ...float64) []Cell {
	var out []Cell
	for i, x := range times {
		c := Cell{Method: m, Seed: uint64(i + 1), Status: Found, Seconds: x}
		if x < 0 {
			c.Status, c.Seconds = TimedOut, -x
		}
		out = append(out, c)
	}
	return out
}

// The median over the runs counts a run that found nothing as longer than
// any; the spread is the fastest and slowest run; fewer than N/2+1 finds
// give no median.
func TestRunTextMedianAndSpread(t *testing.T) {
	const T = 60 * time.Second
	for _, tc := range []struct {
		times  []float64
		median float64
		want   string
	}{
		{[]float64{3, 1, 5, 2, 4}, 3, "3.0s (1.0–5.0) 5/5"},
		{[]float64{19.6, 17.1, 28.5, 18.2, 21}, 19.6, "19.6s (17.1–28.5) 5/5"},
		{[]float64{10, -60, 30, 20, -60}, 30, "30.0s (10.0–>60) 3/5"},
		{[]float64{4, 1, 3, 2}, 2.5, "2.5s (1.0–4.0) 4/4"},
		{[]float64{1, 2, 3, -60}, 2.5, "2.5s (1.0–>60) 3/4"},
		{[]float64{0.9}, 0.9, "0.90s 0 0"},
		{[]float64{1, 2, -60, -60}, math.Inf(1), "> 60s (2/4)"},
		{[]float64{1, -60, 2, -60, -60}, math.Inf(1), "> 60s (2/5)"},
		{[]float64{-60, -60, -60}, math.Inf(1), "> 60s (0/3)"},
	} {
		runs := runsOf(Swarm, tc.times...)
		if got := RunText(runs, T); got != tc.want {
			t.Errorf("%v: %q, want %q", tc.times, got, tc.want)
		}
		if s := Summarize(runs); s.Median != tc.median {
			t.Errorf("%v: median %v, want %v", tc.times, s.Median, tc.median)
		}
	}
	// One run reads as it always has: time, states, length.
	one := runsOf(Cells, 12.25)
	one[0].States = 804585
	if got := RunText(one, T); got != "12s 805k 0" {
		t.Errorf("one run: %q", got)
	}
	// Runs that searched the whole space without the signature.
	fin := runsOf(Cells, -1, -2)
	for i := range fin {
		fin[i].Status = Finished
	}
	if got := RunText(fin, T); got != "none (0/2)" {
		t.Errorf("finished runs: %q", got)
	}
	// The run the notes show: found, closest to the median.
	if k := Representative(runsOf(Swarm, 3, 1, 5, 2, 4)); k != 0 {
		t.Errorf("representative run %d, want 0 (3s, the median)", k)
	}
	if k := Representative(runsOf(Swarm, -60, 9, -60)); k != 1 {
		t.Errorf("representative run %d, want 1 (the only find)", k)
	}
}

// With several seeds the table has each seeded method's median, spread
// and k/N, the breadth-first search once, the runs' times under the
// table, and why a search found nothing.
func TestWriteTableSeeds(t *testing.T) {
	b := mustBug(t, "kafka-7128")
	tr := trace.Trace{Steps: make([]trace.Step, 29)}
	cells := runsOf(Cells, 12.2, 9.6, 16.3, -60)
	for i := range cells[:3] {
		cells[i].Trace = &tr
		cells[i].Cells = &explore.CellResult{Rounds: 1, K: 8}
		cells[i].Note = "round 1 (K 8 per cell), 85k cells"
	}
	cells[3].Cells = &explore.CellResult{Rounds: 2, K: 16, Depth: 14, Level: 22887, LevelCut: 40000, Cells: 6829}
	swarm := runsOf(Swarm, -60, -60, -60, -60)
	for i := range swarm {
		swarm[i].Walks, swarm[i].States = 20000, 5_000_000
	}
	bfs := []Cell{{Method: BFS, Status: TimedOut, Seconds: 60, States: 3_200_000, AtLeast: true,
		Level: 19, LevelStates: 900_000, PrevLevel: 600_000}}
	row := Row{Bug: b, Runs: [][]Cell{bfs, swarm, cells}, Certs: [][]*Certified{{nil}, {nil, nil, nil, nil}, {{}, {}, {}, nil}}}
	var out bytes.Buffer
	opt := Options{Workers: 2, Seed: 1, Seeds: 4, Timeout: time.Minute, TLCTimeout: time.Minute}
	WriteTable(&out, []Row{row}, []Method{BFS, Swarm, Cells}, opt)
	got := out.String()
	for _, want := range []string{
		"> 60s (3.2M)",        // bfs: one run
		"> 60s (0/4)",         // swarm: no run found it
		"14.2s (9.6–>60) 3/4", // cells: the median, the spread, 3 of 4
		"ok 3/3",              // every counterexample replayed
		"Seeds: swarm and cells 1, 2, ..., 4. bfs and tlc-bfs",
		"bfs and tlc-bfs do not depend on a seed and run once",
		"  bfs     level 19 (900k states) still growing ×1.50 at the timeout: no violation in the first 18 levels, so a counterexample has at least 19 states; the shortest found here has 29 states",
		"  swarm   runs (seed time): 1 >60.0s, 2 >60.0s, 3 >60.0s, 4 >60.0s; seed 1: 20000 walks (5.0M steps) at the timeout, none of them to a counterexample with the signature",
		"  cells   runs (seed time): 1 12.2s, 2 9.6s, 3 16.3s, 4 >60.0s; seed 1: round 1 (K 8 per cell), 85k cells; " +
			"seed 4 found nothing: round 2 (K 16 per cell) at depth 14 at the timeout: level of 23k states kept (40k cut), 6829 cells; the shortest found here has 29 states",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the table lacks %q:\n%s", want, got)
		}
	}
}
