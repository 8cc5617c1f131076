package verify

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/trace"
)

// Status is a row's outcome.
type Status int

const (
	Pass    Status = iota // the verdict is the expected one
	Fail                  // it is not (or the check could not run)
	Skipped               // not run, and the row says why and how to run it
)

// Mark is the table's last column: ✓, ✗ or - (skipped).
func (s Status) Mark() string {
	switch s {
	case Pass:
		return "✓"
	case Fail:
		return "✗"
	}
	return "-"
}

// Row is one line of the verdict table.
type Row struct {
	Stage    string // explore, tlc-trace, scenario, refine-replay, refine-random, freerun, chaos
	Item     string // a configuration, a trace file, a scenario, a campaign
	Policy   string // the truncation policy (and variant)
	Size     string // "1095142 states", "13 states", "31 steps", "3 seeds", or why it was skipped
	Depth    string // BFS depth, or "-"
	Time     time.Duration
	Expected string
	Found    string
	Status   Status
	// Counterexample, if set, is printed below the table: a violation that
	// was expected (the evidence), or the failure of an unexpected verdict.
	Counterexample *Counterexample
}

// Counterexample is a trace to print one line per replica per step, or a
// text when the evidence is not a model trace (a chaos run's final state).
type Counterexample struct {
	Title  string
	Config *model.Config
	Trace  trace.Trace
	Text   string
}

// Write prints c: its title, then the dense trace (trace.Render, as
// `hwepoch check` prints it) or its text.
func (c *Counterexample) Write(w io.Writer) {
	fmt.Fprintf(w, "%s\n", c.Title)
	if c.Config != nil && c.Trace.Len() > 0 {
		trace.Render(w, c.Config, c.Trace)
	}
	if c.Text != "" {
		fmt.Fprint(w, c.Text)
		if !strings.HasSuffix(c.Text, "\n") {
			fmt.Fprintln(w)
		}
	}
}

// WriteTable prints rows as one aligned table.
func WriteTable(w io.Writer, rows []Row) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "stage\titem\tpolicy\tstates/steps\tdepth\ttime\texpected\tfound\t")
	for _, r := range rows {
		t := "-"
		if r.Status != Skipped || r.Time > 0 {
			t = fmtDuration(r.Time)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Stage, r.Item, dash(r.Policy), dash(r.Size), dash(r.Depth),
			t, r.Expected, r.Found, r.Status.Mark())
	}
	tw.Flush()
}

// Count tallies rows by status.
func Count(rows []Row) (pass, fail, skipped int) {
	for _, r := range rows {
		switch r.Status {
		case Pass:
			pass++
		case Fail:
			fail++
		default:
			skipped++
		}
	}
	return
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func fmtDuration(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return "<1ms"
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return d.Round(10 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}
