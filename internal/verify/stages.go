package verify

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/hwepoch/hwepoch/internal/explorerruns"
	"github.com/hwepoch/hwepoch/model/tlccfg"
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
	// Budget: in Default mode, a configuration whose recorded run (TLC's,
	// else the explorer's) counted more distinct states than this is
	// skipped; so is one the manifest does not mark "ci" with no recorded
	// run of its .cfg and spec at all, whose size nothing says.
	Budget  int64
	Workers int
	// Verbose: a progress line before each configuration, not only the
	// explorer's periodic ones.
	Verbose bool
}

// ExploreRows explores the configurations of man the plan selects and
// returns one row per configuration of the manifest: explored, or skipped
// with the reason and the command that runs it.
func ExploreRows(ctx context.Context, man *tlccfg.Manifest, rec Records, plan ExplorePlan, progress io.Writer) []Row {
	var rows []Row
	for _, e := range man.Configs {
		if why := skipConfig(man, e, rec, plan); why != "" {
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
		r, err := ExploreConfig(ctx, man, e, rec, ExploreOptions{Workers: plan.Workers, Progress: progress,
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
func skipConfig(man *tlccfg.Manifest, e tlccfg.Entry, rec Records, plan ExplorePlan) string {
	switch plan.Mode {
	case All:
		return ""
	case Quick:
		if e.CI {
			return ""
		}
		return `skipped (not in --quick's set: manifest "ci": false; run without --quick)`
	}
	size, by, stale := recordedSize(man, e, rec)
	switch {
	case by != "" && size > plan.Budget:
		return fmt.Sprintf("skipped (%d states, %s; run hwepoch check %s)", size, by, e.Name)
	case by != "" || e.CI:
		return ""
	case stale:
		return fmt.Sprintf("skipped (size unknown: its runs were recorded on another %s.cfg or spec; run hwepoch check %s)", e.Name, e.Name)
	}
	return fmt.Sprintf("skipped (size unknown: no TLC or explorer run recorded; run hwepoch check %s)", e.Name)
}

// recordedSize is the distinct states of e's recorded run on its files as
// they are now: TLC's, or else the explorer's; by names which ("" when
// there is none). stale says there are runs, but only of other versions
// of the files: a run of another .cfg says nothing about this one's size
// (one more record can multiply it a hundredfold). TLC's runs of another
// spec never get here: LoadRuns drops them all.
func recordedSize(man *tlccfg.Manifest, e tlccfg.Entry, rec Records) (size int64, by string, stale bool) {
	cfgSum, specSum, err := Sums(man, e)
	if err != nil {
		return 0, "", false // ExploreConfig will say what is wrong with the files
	}
	if rec.TLC != nil {
		if tlc, ok := rec.TLC.Exhaustive(e.Name); ok {
			if tlc.CfgSHA256 == cfgSum {
				return tlc.DistinctStates, "TLC's run", false
			}
			stale = true
		}
	}
	if r, ok := rec.Explorer.Get(e.Name); ok {
		if r.CfgSHA256 == cfgSum && r.SpecSHA256 == specSum {
			return r.DistinctStates, "the explorer's recorded run", false
		}
		stale = true
	}
	return 0, "", stale
}

func exploreRow(r ConfigResult) Row {
	row := Row{Stage: "explore", Item: r.Entry.Name, Policy: r.Check.Config.Truncation,
		Size: fmt.Sprintf("%d states", r.Res.Distinct), Depth: fmt.Sprint(r.Res.Depth), Time: r.Res.Duration,
		Expected: Expectation(r.Entry), Found: r.FoundString(), Status: Pass}
	switch {
	case r.TLC != nil && r.TLC.Verdict == "holds":
		row.Expected += fmt.Sprintf(" (TLC: %d distinct states, depth %d)", r.TLC.DistinctStates, r.TLC.Depth)
	case r.TLC != nil:
		row.Expected += fmt.Sprintf(" (TLC's counterexample: %d states)", r.TLC.TraceLength)
	case r.Entry.NoTLCRun() != "":
		row.Expected += " (no TLC run: " + r.Entry.NoTLCRun() + ")"
	}
	if p := r.Recorded; p != nil && r.VsRec == explorerruns.Same && r.TLC == nil {
		if p.Verdict == "holds" {
			row.Expected += fmt.Sprintf(" (recorded: %d distinct states, depth %d)", p.DistinctStates, p.Depth)
		} else {
			row.Expected += fmt.Sprintf(" (recorded counterexample: %d states)", p.TraceLength)
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
	case VsCfgChanged, VsSpecChanged:
		row.Found += "; NOT COMPARED WITH TLC: " + r.Why
	}
	switch r.VsRec {
	case explorerruns.Mismatch:
		row.Status = Fail
		row.Found += "; MISMATCH WITH THE RECORDED RUN: " + r.WhyRec
	case explorerruns.CfgChanged, explorerruns.SpecChanged:
		row.Found += "; NOT COMPARED WITH THE RECORDED RUN: " + r.WhyRec
	}
	return row
}
