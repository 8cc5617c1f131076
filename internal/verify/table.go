package verify

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

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
	// Show is the command that prints it in full on its own ("hwepoch
	// check NAME"); "" when only hwepoch verify -traces does.
	Show string
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

// Width is the widest line verify's summary prints: a terminal of 120
// columns shows it without wrapping.
const Width = 120

// WriteSummary prints one line per stage: its checks, how many gave the
// expected verdict, how many did not and how many were skipped, and the
// time it took.
func WriteSummary(w io.Writer, rows []Row, took map[string]time.Duration) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "stage\tchecks\tas expected\tnot\tskipped\ttime\t")
	var order []string
	by := map[string][]Row{}
	for _, r := range rows {
		if _, ok := by[r.Stage]; !ok {
			order = append(order, r.Stage)
		}
		by[r.Stage] = append(by[r.Stage], r)
	}
	for _, st := range order {
		p, f, sk := Count(by[st])
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%s\t\n", st, len(by[st]), p, f, sk, fmtDuration(took[st]))
	}
	tw.Flush()
}

// WriteRecords prints rows one record each, no line wider than width: a
// header line (mark, stage, item, policy, size, depth, time), then what
// was expected and what was found, wrapped and indented.
func WriteRecords(w io.Writer, rows []Row, width int) {
	for _, r := range rows {
		t := "-"
		if r.Status != Skipped || r.Time > 0 {
			t = fmtDuration(r.Time)
		}
		head := fmt.Sprintf("%s %s %s", r.Status.Mark(), r.Stage, r.Item)
		for _, x := range []string{r.Policy, r.Size} {
			if x != "" {
				head += " · " + x
			}
		}
		if r.Depth != "" && r.Depth != "-" {
			head += " · depth " + r.Depth
		}
		head += " · " + t
		for _, l := range Wrap(head, width, "    ") {
			fmt.Fprintln(w, l)
		}
		for _, l := range Wrap("expected: "+r.Expected, width, "        ") {
			fmt.Fprintln(w, "    "+l)
		}
		for _, l := range Wrap("found:    "+r.Found, width, "        ") {
			fmt.Fprintln(w, "    "+l)
		}
	}
}

// Wrap breaks s at spaces into lines of at most width-4 runes (WriteRecords
// indents each by 4); lines after the first start with indent. A word too
// long for a line is cut.
func Wrap(s string, width int, indent string) []string {
	limit := width - 4
	n := utf8.RuneCountInString
	var out []string
	cur, empty := "", true // empty: cur holds no word yet
	for _, word := range strings.Fields(s) {
		switch {
		case empty:
			cur += word
		case n(cur)+1+n(word) <= limit:
			cur += " " + word
		default:
			out = append(out, cur)
			cur = indent + word
		}
		empty = false
		for n(cur) > limit { // a word longer than a line
			r := []rune(cur)
			out = append(out, string(r[:limit]))
			cur = indent + string(r[limit:])
		}
	}
	if !empty {
		out = append(out, cur)
	}
	return out
}

// Clip shortens s to at most n runes, ending it with "…" when cut.
func Clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// OneLine is a row's counterexample in one line of at most width runes.
// Where a command prints it in full, the line is that command, ready to
// copy, and what was found as a shell comment: "[n] hwepoch check NAME  #
// FOUND". Otherwise it is "[n] STAGE ITEM POLICY: FOUND  # in full:
// FALLBACK". FOUND is clipped to fit; commands never are.
func (r Row) OneLine(n, width int, fallback string) string {
	found := strings.TrimSuffix(r.Found, fmt.Sprintf(" [%d]", n))
	var head, tail string
	if show := r.Counterexample.Show; show != "" {
		head = fmt.Sprintf("[%d] %s  # ", n, show)
	} else {
		head = fmt.Sprintf("[%d] %s %s", n, r.Stage, r.Item)
		if r.Policy != "" {
			head += " " + r.Policy
		}
		head += ": "
		tail = "  # in full: " + fallback
	}
	// At least 10 columns of what was found; a head too long for that (a
	// long item name) is clipped instead, so the line stays within width.
	if room := width - utf8.RuneCountInString(tail) - 10; utf8.RuneCountInString(head) > room {
		head = Clip(head, room-2) + ": "
	}
	room := width - utf8.RuneCountInString(head) - utf8.RuneCountInString(tail)
	return head + Clip(found, room) + tail
}
