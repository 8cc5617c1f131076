package verify

import (
	"context"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/hwepoch/hwepoch/internal/lemmas"
	"github.com/hwepoch/hwepoch/model/tlccfg"
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
