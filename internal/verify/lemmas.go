package verify

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hwepoch/hwepoch/internal/lemmas"
	"github.com/hwepoch/hwepoch/model/tlccfg"
	"github.com/hwepoch/hwepoch/trace/tlcjson"
)

// LemmaRows checks the lemmas of each plan (internal/lemmas) over every
// reachable state and step of its configuration: one row per lemma, whose
// expected verdict is the plan's.
// Progress lines go to progress, each starting with prefix (the verb
// running them: "hwepoch verify: [lemma] ", "hwepoch lemmas: ").
func LemmaRows(ctx context.Context, man *tlccfg.Manifest, plans []lemmas.Plan, progress io.Writer, prefix string) []Row {
	return LemmaRowsFunc(ctx, man, plans, progress, prefix, nil)
}

// LemmaRowsFunc is LemmaRows, calling done (when not nil) with each plan's
// report as soon as its configuration has been explored: how
// `hwepoch lemmas -record` records the results.
func LemmaRowsFunc(ctx context.Context, man *tlccfg.Manifest, plans []lemmas.Plan, progress io.Writer, prefix string,
	done func(p lemmas.Plan, cfgPath string, rep *lemmas.Report) error) []Row {
	var rows []Row
	for _, p := range plans {
		e, ok := man.Lookup(p.Config)
		if !ok {
			rows = append(rows, Row{Stage: "lemma", Item: p.Config, Expected: "a configuration of the manifest", Found: "none", Status: Fail})
			continue
		}
		chk, err := man.LoadCheck(e)
		if err != nil {
			rows = append(rows, Row{Stage: "lemma", Item: p.Config, Expected: "loads", Found: "error: " + err.Error(), Status: Fail})
			continue
		}
		if progress != nil {
			fmt.Fprintf(progress, "%schecking the lemmas on every state of %s\n", prefix, p.Config)
		}
		rep, err := lemmas.Check(ctx, &chk.Config, lemmas.All, lemmas.Options{Symmetry: chk.Symmetry, Name: p.Config,
			Progress: progress, ProgressPrefix: prefix})
		if err != nil {
			rows = append(rows, Row{Stage: "lemma", Item: p.Config, Expected: "explores", Found: "error: " + err.Error(), Status: Fail})
			continue
		}
		if progress != nil {
			fmt.Fprintf(progress, "%s%s done: %d distinct states, depth %d, %v\n", prefix, p.Config, rep.Distinct, rep.Depth, rep.Duration.Round(time.Second/10))
		}
		rows = append(rows, PlanRows(p, rep, chk)...)
		if done != nil {
			if err := done(p, man.CfgPath(e), rep); err != nil {
				rows = append(rows, Row{Stage: "lemma", Item: "record @ " + p.Config, Expected: "recorded", Found: "error: " + err.Error(), Status: Fail})
			}
		}
	}
	return rows
}

// PlanRows turns a lemma report into rows: one per lemma the plan judges.
func PlanRows(p lemmas.Plan, rep *lemmas.Report, chk *tlccfg.Check) []Row {
	var rows []Row
	for _, o := range rep.Outcomes {
		name := o.Lemma.Name
		hold, why := slices.Contains(p.Hold, name), p.Violate[name]
		if !hold && why == "" {
			continue
		}
		unit := "states"
		if o.Lemma.Step != nil {
			unit = "steps"
		}
		row := Row{Stage: "lemma", Item: name + " @ " + p.Config, Policy: chk.Config.Truncation,
			Size: fmt.Sprintf("%d states", rep.Distinct), Depth: fmt.Sprint(rep.Depth), Time: rep.Duration, Status: Pass}
		if hold {
			row.Expected = "holds, not vacuously"
		} else {
			row.Expected = "violated: " + why
		}
		switch {
		case o.Violated != nil:
			row.Found = fmt.Sprintf("violated (trace %d)", o.Violated.Len())
			row.Counterexample = &Counterexample{Title: fmt.Sprintf("lemma %s @ %s: violated", o.Lemma, p.Config),
				Config: &chk.Config, Trace: *o.Violated, Show: "hwepoch lemmas " + p.Config}
			if hold {
				row.Status = Fail
			}
		case o.Premise == 0:
			row.Found = "holds vacuously (premise never met)"
			row.Status = Fail
		default:
			row.Found = fmt.Sprintf("holds (premise met in %d %s)", o.Premise, unit)
			if !hold {
				row.Status = Fail
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// LemmaRecordRow holds a plan's fresh result to its record in the
// recording (traces/lemmas.json, which docs/correctness.md quotes): the
// same distinct states, steps and depth, and per lemma the same premise
// count or counterexample length; and, where TLC recorded a run of the
// configuration on this spec (specSHA256) that holds, its distinct states
// and depth: the lemmas were judged on exactly the states TLC checks. go
// test does this for hw-acked-loss only (internal/lemmas' TestLemmaPlans
// runs the other plans at smaller bounds, -lemmas.all at their own).
func LemmaRecordRow(p lemmas.Plan, rep *lemmas.Report, rec *lemmas.Recording, tlc *tlcjson.Runs, specSHA256 string) Row {
	row := Row{Stage: "lemma", Item: "record @ " + p.Config, Size: fmt.Sprintf("%d states", rep.Distinct),
		Depth: fmt.Sprint(rep.Depth), Time: rep.Duration, Status: Pass,
		Expected: "the results " + lemmas.RecordingFile + " records"}
	var bad []string
	if recorded, ok := rec.Get(p.Config); !ok {
		bad = append(bad, "no record; record it with "+lemmas.RecordCommand(p.Config))
	} else if recorded.Pending != "" {
		row.Status, row.Found = Skipped, "not compared: the record is of an earlier spec ("+recorded.Pending+"); record it with "+lemmas.RecordCommand(p.Config)
		return row
	} else if diff := recorded.Diff(lemmas.RecordOf(p.Config, rep, "", "")); len(diff) > 0 {
		bad = append(bad, diff...)
		bad = append(bad, "re-record with "+lemmas.RecordCommand(p.Config)+", then go test ./docs -update")
	}
	if tlc != nil {
		if r, ok := tlc.Get(p.Config); ok && r.Verdict == "holds" && r.SpecSHA256 == specSHA256 {
			row.Expected += fmt.Sprintf("; TLC's %d distinct states, depth %d", r.DistinctStates, r.Depth)
			if r.DistinctStates != rep.Distinct || r.Depth != rep.Depth {
				bad = append(bad, fmt.Sprintf("TLC found %d distinct states, depth %d; the lemma search %d, depth %d",
					r.DistinctStates, r.Depth, rep.Distinct, rep.Depth))
			}
		}
	}
	if len(bad) > 0 {
		row.Status, row.Found = Fail, strings.Join(bad, "; ")
	} else {
		row.Found = "the same"
	}
	return row
}

// LemmaRowsAgainstRecording is LemmaRows, then one row per plan holding
// its fresh result to the recording at recPath and to TLC's runs
// (LemmaRecordRow): hwepoch verify's lemma stage, and hwepoch lemmas
// without -record.
func LemmaRowsAgainstRecording(ctx context.Context, man *tlccfg.Manifest, plans []lemmas.Plan, progress io.Writer, prefix, recPath string, tlc *tlcjson.Runs) []Row {
	rec, recErr := lemmas.LoadRecording(recPath)
	specSum, sumErr := tlcjson.FileSHA256(filepath.Join(man.Dir, man.Spec))
	var recRows []Row
	rows := LemmaRowsFunc(ctx, man, plans, progress, prefix, func(p lemmas.Plan, _ string, rep *lemmas.Report) error {
		if err := cmp.Or(recErr, sumErr); err != nil {
			recRows = append(recRows, Row{Stage: "lemma", Item: "record @ " + p.Config, Expected: "the results " + lemmas.RecordingFile + " records",
				Found: "error: " + err.Error(), Status: Fail})
			return nil
		}
		recRows = append(recRows, LemmaRecordRow(p, rep, rec, tlc, specSum))
		return nil
	})
	return append(rows, recRows...)
}
