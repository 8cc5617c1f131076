package verify

import (
	"fmt"
	"strings"
	"time"

	"github.com/hwepoch/hwepoch/trace/scenario"
)

// ScenarioRows runs every case of every scenario in dir on the model and
// compares its verdict with the scenario's expect and final lines: one row
// per case. A case that violates what it is expected to violate carries
// its trace as the counterexample.
func ScenarioRows(dir string) ([]Row, []scenario.Scenario) {
	scs, err := scenario.LoadDir(dir)
	if err != nil {
		return []Row{{Stage: "scenario", Item: dir, Expected: "loads", Found: "error: " + err.Error(), Status: Fail}}, nil
	}
	var rows []Row
	for _, sc := range scs {
		for _, c := range sc.Cases() {
			rows = append(rows, scenarioRow(sc, c))
		}
	}
	return rows, scs
}

func scenarioRow(sc scenario.Scenario, c scenario.Case) Row {
	start := time.Now()
	row := Row{Stage: "scenario", Item: sc.Name, Policy: c.String(), Expected: sc.Expectation(c).String(), Status: Fail}
	tr, v, err := sc.Run(c)
	row.Time = time.Since(start)
	if err != nil {
		row.Found = "error: " + err.Error()
		return row
	}
	row.Size = fmt.Sprintf("%d steps", tr.Len()-1)
	row.Found = VerdictSummary(v)
	if err := v.Meets(sc.Expectation(c)); err != nil {
		row.Found += " -- UNEXPECTED: " + err.Error()
	} else {
		row.Status = Pass
	}
	if !v.Holds {
		cfg := sc.Config(c)
		show := fmt.Sprintf("hwepoch scenario %s -policy %s", sc.Name, c.Policy)
		if c.Variant.Name != "" {
			show += " -variant " + c.Variant.String()
		}
		row.Counterexample = &Counterexample{
			Title:  fmt.Sprintf("scenario %s %s: %s", sc.Name, c, v),
			Config: &cfg, Trace: tr, Show: show,
		}
	}
	return row
}

// VerdictSummary is a scenario verdict in a table cell: "holds", or
// "violates A@12 B@17" (each invariant with the step where it first fails).
func VerdictSummary(v scenario.Verdict) string {
	if v.Holds {
		return "holds"
	}
	parts := make([]string, len(v.Broken))
	for i, b := range v.Broken {
		parts[i] = fmt.Sprintf("%s@%d", b.Invariant, b.Step)
	}
	return "violates " + strings.Join(parts, " ")
}
