package verify

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/hwepoch/hwepoch/model/tlccfg"
	"github.com/hwepoch/hwepoch/trace/tlcjson"
)

// Mode is how much `hwepoch verify` runs.
type Mode int

const (
	Quick   Mode = iota // seconds: ci-marked configurations, the model-side stages, a tiny campaign
	Default             // minutes: configurations up to a state budget, every stage
	All                 // everything, whatever it costs
)

func (m Mode) String() string {
	switch m {
	case Quick:
		return "--quick"
	case All:
		return "--all"
	}
	return "default"
}

// ExplorePlan says which configurations the explore stage runs.
type ExplorePlan struct {
	Mode Mode
	// Budget: in Default mode, a configuration whose recorded TLC run
	// counted more distinct states than this is skipped.
	Budget  int64
	Workers int
	// Verbose: a progress line before each configuration, not only the
	// explorer's periodic ones.
	Verbose bool
}

// ExploreRows explores the configurations of man the plan selects and
// returns one row per configuration of the manifest: explored, or skipped
// with the reason and the command that runs it.
func ExploreRows(ctx context.Context, man *tlccfg.Manifest, runs *tlcjson.Runs, plan ExplorePlan, progress io.Writer) []Row {
	var rows []Row
	for _, e := range man.Configs {
		if why := skipConfig(e, runs, plan); why != "" {
			rows = append(rows, Row{Stage: "explore", Item: e.Name, Policy: e.Policy, Size: why,
				Expected: Expectation(e), Found: "not run", Status: Skipped})
			continue
		}
		start := time.Now()
		// Without Verbose, a line every 10s of a long search, not every 2s:
		// verify's whole output then fits a screen.
		every := 10 * time.Second
		if plan.Verbose {
			every = 0
		}
		r, err := ExploreConfig(ctx, man, e, runs, ExploreOptions{Workers: plan.Workers, Progress: progress,
			ProgressPrefix: "hwepoch verify: [explore] ", Announce: plan.Verbose, ProgressEvery: every})
		if err != nil {
			rows = append(rows, Row{Stage: "explore", Item: e.Name, Policy: e.Policy, Time: time.Since(start),
				Expected: Expectation(e), Found: "error: " + err.Error(), Status: Fail})
			continue
		}
		rows = append(rows, exploreRow(r))
	}
	return rows
}

// skipConfig says why the plan does not explore e, or "".
func skipConfig(e tlccfg.Entry, runs *tlcjson.Runs, plan ExplorePlan) string {
	switch plan.Mode {
	case All:
		return ""
	case Quick:
		if e.CI {
			return ""
		}
		return `skipped (not in --quick's set: manifest "ci": false; run without --quick)`
	}
	if runs != nil {
		if tlc, ok := runs.Exhaustive(e.Name); ok {
			if tlc.DistinctStates > plan.Budget {
				return fmt.Sprintf("skipped (%d states; run hwepoch check %s)", tlc.DistinctStates, e.Name)
			}
			return ""
		}
	}
	if e.CI {
		return ""
	}
	return fmt.Sprintf("skipped (size unknown: no TLC run recorded; run hwepoch check %s)", e.Name)
}

func exploreRow(r ConfigResult) Row {
	row := Row{Stage: "explore", Item: r.Entry.Name, Policy: r.Check.Config.Truncation,
		Size: fmt.Sprintf("%d states", r.Res.Distinct), Depth: fmt.Sprint(r.Res.Depth), Time: r.Res.Duration,
		Expected: Expectation(r.Entry), Found: r.FoundString(), Status: Pass}
	if r.TLC != nil {
		if r.TLC.Verdict == "holds" {
			row.Expected += fmt.Sprintf(" (TLC: %d distinct states, depth %d)", r.TLC.DistinctStates, r.TLC.Depth)
		} else {
			row.Expected += fmt.Sprintf(" (TLC's counterexample: %d states)", r.TLC.TraceLength)
		}
	}
	if v := r.Res.Violation; v != nil {
		row.Found += fmt.Sprintf(" (counterexample: %d states)", v.Trace.Len())
		row.Counterexample = &Counterexample{
			Title:  fmt.Sprintf("explore %s: %s", r.Entry.Name, v),
			Config: &r.Check.Config, Trace: v.Trace,
			Show: "hwepoch check " + r.Entry.Name,
		}
	} else if r.TLC != nil {
		row.Found += fmt.Sprintf(" (%d states, depth %d)", r.Res.Distinct, r.Res.Depth)
	}
	if !r.OK {
		row.Status = Fail
		row.Found += " WRONG"
	}
	switch r.VsTLC {
	case VsMismatch:
		row.Status = Fail
		row.Found += "; MISMATCH WITH TLC: " + r.Why
	case VsCfgChanged:
		row.Found += "; NOT COMPARED WITH TLC: " + r.Why
	}
	return row
}
