package hunt

import (
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// Row is one bug's searches.
type Row struct {
	Bug Bug
	// Runs are, per method run (in order), its searches: one per seed
	// (Options.SeedsFor), one for a method without a seed.
	Runs [][]Cell
	// Certs are, per run, its counterexample's certificate, nil where
	// there was no counterexample.
	Certs [][]*Certified
}

// runs returns the row's runs of method m and their certificates, nil if
// it was not run.
func (r *Row) runs(m Method) ([]Cell, []*Certified) {
	for i := range r.Runs {
		if len(r.Runs[i]) > 0 && r.Runs[i][0].Method == m {
			return r.Runs[i], r.Certs[i]
		}
	}
	return nil, nil
}

// Summary is what a method's runs on one bug came to.
type Summary struct {
	N, Found int // runs, and those that found the bug with its signature
	// Median is the median time over the runs, a run that did not find
	// the bug counting as longer than any that did (+Inf when fewer than
	// N/2+1 found it); Min and Max are the fastest and slowest runs (Max
	// +Inf when a run did not find it).
	Median, Min, Max float64
}

// Summarize computes the runs' summary.
func Summarize(runs []Cell) Summary {
	s := Summary{N: len(runs)}
	ts := make([]float64, len(runs))
	for i, c := range runs {
		ts[i] = math.Inf(1)
		if c.Status == Found {
			s.Found++
			ts[i] = c.Seconds
		}
	}
	if len(ts) == 0 {
		return s
	}
	sort.Float64s(ts)
	s.Min, s.Max = ts[0], ts[len(ts)-1]
	if n := len(ts); n%2 == 1 {
		s.Median = ts[n/2]
	} else {
		s.Median = (ts[n/2-1] + ts[n/2]) / 2
	}
	if s.Found < s.N/2+1 {
		s.Median = math.Inf(1)
	}
	return s
}

// Representative is the index of the run the table's notes and -out's
// files show: of the runs that found the bug, the one whose time is
// closest to the median (the first such in seed order), else the first.
func Representative(runs []Cell) int {
	s := Summarize(runs)
	best := -1
	for i, c := range runs {
		if c.Status != Found {
			continue
		}
		if best < 0 || math.Abs(c.Seconds-s.Median) < math.Abs(runs[best].Seconds-s.Median) ||
			math.IsInf(s.Median, 1) && c.Seconds < runs[best].Seconds {
			best = i
		}
	}
	return max(best, 0)
}

// RunText is a table cell for a method's runs: as cellText for one run;
// for several, the median time, the spread (fastest–slowest run, '>T' for
// a run that found nothing within the timeout T) and the runs that found
// the bug, k/N, or "> T (k/N)" when fewer than N/2+1 did.
func RunText(runs []Cell, timeout time.Duration) string {
	switch len(runs) {
	case 0:
		return "-"
	case 1:
		return cellText(&runs[0])
	}
	for i := range runs {
		if runs[i].Status == Failed || runs[i].Status == NoTLC {
			return cellText(&runs[i])
		}
	}
	s := Summarize(runs)
	if s.Found < s.N/2+1 {
		if allFinished(runs) {
			return fmt.Sprintf("none (%d/%d)", s.Found, s.N)
		}
		return fmt.Sprintf("> %s (%d/%d)", durSecs(timeout), s.Found, s.N)
	}
	hi := ">" + strings.TrimSuffix(durSecs(timeout), "s")
	if !math.IsInf(s.Max, 1) {
		hi = fmt.Sprintf("%.1f", s.Max)
	}
	return fmt.Sprintf("%.1fs (%.1f–%s) %d/%d", s.Median, s.Min, hi, s.Found, s.N)
}

func allFinished(runs []Cell) bool {
	for _, c := range runs {
		if c.Status != Finished {
			return false
		}
	}
	return true
}

// durSecs is a timeout in seconds: "60s", "0.5s".
func durSecs(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s" }

// summaryCell stands for a method's runs in the TLC ratio columns: for one
// run the run itself; for several, found at the median time if the median
// is a time, else timed out.
func summaryCell(runs []Cell, timeout time.Duration) *Cell {
	switch len(runs) {
	case 0:
		return nil
	case 1:
		return &runs[0]
	}
	s := Summarize(runs)
	if math.IsInf(s.Median, 1) {
		return &Cell{Status: TimedOut, Seconds: timeout.Seconds()}
	}
	return &Cell{Status: Found, Seconds: s.Median}
}

// WriteTable prints the time-to-bug table: one row per bug, per method
// the time to the counterexample, the states it took and the
// counterexample's length (for several seeds: the median time, the
// spread and how many runs found it), TLC's time over the explorer's, and
// whether every counterexample replayed on the implementation; then the
// notes that say what each row shows and, where a search found nothing,
// why.
func WriteTable(w io.Writer, rows []Row, methods []Method, opt Options) {
	timeout := func(m Method) time.Duration {
		if m.IsTLC() {
			return opt.TLCTimeout
		}
		return opt.Timeout
	}
	multi := false
	for _, m := range methods {
		multi = multi || len(opt.SeedsFor(m)) > 1
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := []string{"bug", "release", "bounds"}
	for _, m := range methods {
		head = append(head, string(m))
	}
	head = append(head, "x TLC bfs", "x TLC sim", "impl")
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	for _, r := range rows {
		cols := []string{r.Bug.Name, r.Bug.Release, r.Bug.Bounds()}
		for _, m := range methods {
			runs, _ := r.runs(m)
			cols = append(cols, RunText(runs, timeout(m)))
		}
		sum := func(m Method) *Cell {
			runs, _ := r.runs(m)
			return summaryCell(runs, timeout(m))
		}
		cols = append(cols, ratio(sum(TLCBFS), sum(BFS)), ratio(sum(TLCSim), sum(Swarm)), implText(r))
		fmt.Fprintln(tw, strings.Join(cols, "\t"))
	}
	tw.Flush()

	if multi {
		fmt.Fprintf(w, "\nEach cell of a method run with several seeds: the median wall time to the first counterexample with the bug's signature over the runs\n")
		fmt.Fprintf(w, "  (a run that found nothing counts as longer than any), in brackets the fastest and slowest run ('>T': a run found nothing within T),\n")
		fmt.Fprintf(w, "  then k/N: the runs, of N, that found it. '> T (k/N)': fewer than N/2+1 runs found it within the timeout T, so the median is not a time.\n")
		var seeded []string
		if slices.Contains(methods, Swarm) || slices.Contains(methods, Cells) {
			seeded = append(seeded, "swarm and cells "+seedList(opt.SeedsFor(Swarm)))
		}
		if slices.Contains(methods, TLCSim) {
			seeded = append(seeded, "tlc-sim "+seedList(opt.SeedsFor(TLCSim))+" (a TLC run goes on to the next seeds itself)")
		}
		fmt.Fprintf(w, "Seeds: %s. bfs and tlc-bfs do not depend on a seed and run once;\n", strings.Join(seeded, "; "))
		fmt.Fprintf(w, "  a cell of one run: ")
	} else {
		fmt.Fprintf(w, "\nEach cell: ")
	}
	fmt.Fprintf(w, "wall time to the first counterexample with the bug's signature, states, counterexample length (states).\n")
	fmt.Fprintf(w, "States: distinct states for bfs and tlc-bfs (under symmetry; at a timeout, as the last progress report said: the explorer's each second, TLC's each minute),\n")
	fmt.Fprintf(w, "  steps over all walks for swarm, states kept over all rounds for cells, states TLC checked for tlc-sim.\n")
	fmt.Fprintf(w, "'*': the search stopped at a counterexample WITHOUT the bug's signature (a breadth-first search stops at its first violation).\n")
	fmt.Fprintf(w, "'> T': nothing within the timeout (explorer %s, TLC %s); the explorer stops within a chunk of states of it, TLC within a second or so.\n", opt.Timeout, opt.TLCTimeout)
	fmt.Fprintf(w, "x TLC: TLC's time over the explorer's (tlc-bfs / bfs, tlc-sim / swarm), '>'/'<' where one side timed out.\n")
	fmt.Fprintf(w, "impl: counterexamples that replayed step for step on the implementation (refine.Replay) and rendered, of those found.\n")
	if multi {
		fmt.Fprintf(w, "Workers %d, seeds as above, %d CPUs.\n\n", opt.workers(), runtime.NumCPU())
	} else {
		fmt.Fprintf(w, "Workers %d, seed %d, %d CPUs.\n\n", opt.workers(), opt.Seed, runtime.NumCPU())
	}
	for _, r := range rows {
		fmt.Fprintf(w, "%s: %s. %s, invariant %s, signature: %s.\n", r.Bug.Name, r.Bug.Title, r.Bug.Release, r.Bug.Invariant, r.Bug.SignatureText)
		shortest := shortestFound(r)
		for i, runs := range r.Runs {
			if len(runs) == 0 {
				continue
			}
			k := Representative(runs)
			c := runs[k]
			var parts []string
			if len(runs) > 1 {
				parts = append(parts, runList(runs))
			}
			note := cellNote(&c, r.Certs[i][k])
			if why := whyNot(&c, shortest); why != "" {
				note = joinNote(why, note)
			}
			if len(runs) > 1 && note != "" && c.Method.Seeded() {
				parts = append(parts, fmt.Sprintf("seed %d:", c.Seed))
			}
			// The runs that found nothing while the one shown did: why.
			if c.Status == Found {
				for j := range runs {
					if why := whyNot(&runs[j], shortest); j != k && why != "" {
						note = joinNote(note, fmt.Sprintf("seed %d found nothing: %s", runs[j].Seed, why))
					}
				}
			}
			if note == "" && len(parts) == 0 {
				continue
			}
			line := strings.Join(append(parts, note), " ")
			fmt.Fprintf(w, "  %-7s %s\n", c.Method, strings.TrimSpace(line))
		}
	}
}

func joinNote(a, b string) string {
	if b == "" {
		return a
	}
	return a + "; " + b
}

func seedList(seeds []uint64) string {
	if len(seeds) <= 3 {
		var out []string
		for _, s := range seeds {
			out = append(out, fmt.Sprint(s))
		}
		return strings.Join(out, ", ")
	}
	return fmt.Sprintf("%d, %d, ..., %d", seeds[0], seeds[1], seeds[len(seeds)-1])
}

// runList says each run's outcome: "runs: 1 19.6s, 2 17.1s, 3 >60s".
func runList(runs []Cell) string {
	var out []string
	for _, c := range runs {
		t := fmt.Sprintf("%.1fs", c.Seconds)
		switch c.Status {
		case Found:
		case Finished:
			t = "none " + t
		case Failed:
			t = "error"
		default:
			t = ">" + t
		}
		out = append(out, fmt.Sprintf("%d %s", c.Seed, t))
	}
	return "runs (seed time): " + strings.Join(out, ", ") + ";"
}

// shortestFound is the shortest counterexample with the signature any
// search of the row found (0: none).
func shortestFound(r Row) int {
	best := 0
	for _, runs := range r.Runs {
		for i := range runs {
			if runs[i].Status == Found && (best == 0 || runs[i].Length() < best) {
				best = runs[i].Length()
			}
		}
	}
	return best
}

// whyNot says why a search that timed out or finished found nothing.
func whyNot(c *Cell, shortest int) string {
	if c.Status != TimedOut && c.Status != Finished {
		return ""
	}
	found := ""
	if shortest > 0 {
		found = fmt.Sprintf("; the shortest found here has %d states", shortest)
	}
	switch c.Method {
	case BFS:
		if c.Status == Finished {
			return "the whole state space has no violation"
		}
		if c.Level == 0 {
			return "timed out before its first progress report"
		}
		growth := ""
		if c.PrevLevel > 0 {
			growth = fmt.Sprintf(" ×%.2f", float64(c.LevelStates)/float64(c.PrevLevel))
		}
		return fmt.Sprintf("level %d (%s states) still growing%s at the timeout: no violation in the first %d levels, so a counterexample has at least %d states%s",
			c.Level, count(c.LevelStates), growth, c.Level-1, c.Level, found)
	case Swarm:
		return fmt.Sprintf("%d walks (%s steps) at the timeout, none of them to a counterexample with the signature", c.Walks, count(c.States))
	case Cells:
		r := c.Cells
		if r == nil {
			return ""
		}
		if c.Status == Finished {
			return fmt.Sprintf("round %d (K %d) cut nothing: the whole state space, no counterexample with the signature", r.Rounds, r.K)
		}
		return fmt.Sprintf("round %d (K %d per cell) at depth %d at the timeout: level of %s states kept (%s cut), %s cells%s",
			r.Rounds, r.K, r.Depth, count(int64(r.Level)), count(int64(r.LevelCut)), count(int64(r.Cells)), found)
	case TLCBFS, TLCSim:
		if c.Status == TimedOut {
			return fmt.Sprintf("TLC at %s states at the timeout", count(c.States))
		}
	}
	return ""
}

func cellText(c *Cell) string {
	if c == nil {
		return "-"
	}
	switch c.Status {
	case NoTLC:
		return "no TLC"
	case Failed:
		return "error"
	case TimedOut:
		if c.States > 0 {
			return fmt.Sprintf("> %.0fs (%s)", c.Seconds, count(c.States))
		}
		return fmt.Sprintf("> %.0fs", c.Seconds)
	case Finished:
		return fmt.Sprintf("none %.1fs %s", c.Seconds, count(c.States))
	}
	mark := ""
	if c.Status == Other {
		mark = "*"
	}
	return fmt.Sprintf("%s %s %d%s", secs(c.Seconds), count(c.States), c.Length(), mark)
}

func secs(s float64) string {
	if s < 10 {
		return fmt.Sprintf("%.2fs", s)
	}
	return fmt.Sprintf("%.0fs", s)
}

// count prints n with a k/M suffix.
func count(n int64) string {
	switch {
	case n >= 10_000_000:
		return fmt.Sprintf("%.0fM", float64(n)/1e6)
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 10_000:
		return fmt.Sprintf("%.0fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}

// ratio is tlc's time over the explorer's, with '>' ('<') where only the
// explorer (only TLC) ended with a counterexample within its timeout.
func ratio(tlc, ex *Cell) string {
	if tlc == nil || ex == nil || ex.Seconds <= 0 {
		return "-"
	}
	ended := func(c *Cell) bool { return c.Status == Found || c.Status == Other }
	r := tlc.Seconds / ex.Seconds
	switch {
	case ended(tlc) && ended(ex):
		return fmt.Sprintf("%.1f", r)
	case tlc.Status == TimedOut && ended(ex):
		return fmt.Sprintf("> %.1f", r)
	case ended(tlc) && ex.Status == TimedOut:
		return fmt.Sprintf("< %.1f", r)
	}
	return "-"
}

func implText(r Row) string {
	found, ok := 0, 0
	for _, certs := range r.Certs {
		for _, c := range certs {
			if c == nil {
				continue
			}
			found++
			if c.OK() {
				ok++
			}
		}
	}
	if found == 0 {
		return "-"
	}
	if ok == found {
		return fmt.Sprintf("ok %d/%d", ok, found)
	}
	return fmt.Sprintf("FAIL %d/%d", found-ok, found)
}

func cellNote(c *Cell, cert *Certified) string {
	var parts []string
	switch c.Status {
	case Other:
		carries := "no bug's signature"
		if len(c.Carries) > 0 {
			carries = "the signature of " + strings.Join(c.Carries, ", ")
		}
		parts = append(parts, fmt.Sprintf("stopped at %s violated without this bug's signature; it carries %s", c.Property, carries))
	case Failed:
		parts = append(parts, fmt.Sprintf("error: %v", c.Err))
	}
	if c.Walks > 0 && c.Method == Swarm && c.Status != TimedOut { // whyNot counts them
		parts = append(parts, fmt.Sprintf("%d walks", c.Walks))
	}
	if c.Walks > 1 && c.Method == TLCSim {
		parts = append(parts, fmt.Sprintf("%d TLC runs (one per seed)", c.Walks))
	}
	if c.Rejected > 0 {
		parts = append(parts, fmt.Sprintf("went past %d violations without the signature", c.Rejected))
	}
	if c.Note != "" && c.Method != Swarm {
		parts = append(parts, c.Note)
	}
	if c.Method == Swarm && c.Trace != nil {
		parts = append(parts, c.Trace.Source)
	}
	if cert != nil {
		switch {
		case cert.ReplayErr != nil:
			parts = append(parts, fmt.Sprintf("REPLAY ON THE IMPLEMENTATION FAILED: %v", firstLine(cert.ReplayErr.Error())))
		case cert.RenderErr != nil:
			parts = append(parts, fmt.Sprintf("rendering failed: %v", cert.RenderErr))
		}
		for _, f := range cert.Files {
			parts = append(parts, "wrote "+f)
		}
	}
	return strings.Join(parts, "; ")
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
