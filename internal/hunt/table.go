package hunt

import (
	"fmt"
	"io"
	"runtime"
	"strings"
	"text/tabwriter"
)

// Row is one bug's searches.
type Row struct {
	Bug   Bug
	Cells []Cell       // in the order of the methods run
	Certs []*Certified // per cell, nil where there was no counterexample
}

// cell returns the row's cell of method m, nil if it was not run.
func (r *Row) cell(m Method) *Cell {
	for i := range r.Cells {
		if r.Cells[i].Method == m {
			return &r.Cells[i]
		}
	}
	return nil
}

// WriteTable prints the time-to-bug table: one row per bug, per method
// the time to the counterexample, the states it took and the
// counterexample's length, TLC's time over the explorer's, and whether
// every counterexample replayed on the implementation; then the notes
// that say what each row shows.
func WriteTable(w io.Writer, rows []Row, methods []Method, opt Options) {
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
			cols = append(cols, cellText(r.cell(m)))
		}
		cols = append(cols, ratio(r.cell(TLCBFS), r.cell(BFS)), ratio(r.cell(TLCSim), r.cell(Swarm)), implText(r))
		fmt.Fprintln(tw, strings.Join(cols, "\t"))
	}
	tw.Flush()

	fmt.Fprintf(w, "\nEach cell: wall time to the first counterexample with the bug's signature, states, counterexample length (states).\n")
	fmt.Fprintf(w, "States: distinct states for bfs and tlc-bfs (under symmetry; at a timeout, as the last progress report said: the explorer's each second, TLC's each minute),\n")
	fmt.Fprintf(w, "  steps over all walks for swarm, states TLC checked for tlc-sim.\n")
	fmt.Fprintf(w, "'*': the search stopped at a counterexample WITHOUT the bug's signature (a breadth-first search stops at its first violation).\n")
	fmt.Fprintf(w, "'> T': nothing within the timeout (explorer %s, TLC %s); the explorer checks its timeout between BFS levels, so T can exceed it.\n", opt.Timeout, opt.TLCTimeout)
	fmt.Fprintf(w, "x TLC: TLC's time over the explorer's (tlc-bfs / bfs, tlc-sim / swarm), '>'/'<' where one side timed out.\n")
	fmt.Fprintf(w, "impl: counterexamples that replayed step for step on the implementation (refine.Replay) and rendered, of those found.\n")
	fmt.Fprintf(w, "Workers %d, seed %d, %d CPUs.\n\n", opt.workers(), opt.Seed, runtime.NumCPU())
	for _, r := range rows {
		fmt.Fprintf(w, "%s: %s. %s, invariant %s, signature: %s.\n", r.Bug.Name, r.Bug.Title, r.Bug.Release, r.Bug.Invariant, r.Bug.SignatureText)
		for i, c := range r.Cells {
			if note := cellNote(&c, r.Certs[i]); note != "" {
				fmt.Fprintf(w, "  %-7s %s\n", c.Method, note)
			}
		}
	}
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
	for _, c := range r.Certs {
		if c == nil {
			continue
		}
		found++
		if c.OK() {
			ok++
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
	if c.Walks > 0 && c.Method == Swarm {
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
