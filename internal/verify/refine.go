package verify

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/refine"
	"github.com/hwepoch/hwepoch/refine/random"
	"github.com/hwepoch/hwepoch/trace"
)

// RefineReplayRows replays every trace under tracesDir that refine
// discovers (TLC's exports in tlc/ and tlc/sim/, regressions, every case of
// every scenario) on the model
// and on the implementation in stepped mode: after every step the
// abstraction of the cluster must equal the model's state (refine.ReplayCase).
func RefineReplayRows(tracesDir string, progress io.Writer) []Row {
	return RefineReplayRowsWith(tracesDir, refine.Options{}, progress)
}

// RefineReplayRowsWith is RefineReplayRows with the replays' options (the
// test that shows these rows catch seeded bugs seeds them there).
func RefineReplayRowsWith(tracesDir string, opt refine.Options, progress io.Writer) []Row {
	files, err := refine.Discover(tracesDir)
	if err != nil {
		return []Row{{Stage: "refine", Item: tracesDir, Expected: "traces found", Found: "error: " + err.Error(), Status: Fail}}
	}
	var rows []Row
	for _, f := range files {
		item, _ := filepath.Rel(tracesDir, f)
		item = filepath.ToSlash(item)
		start := time.Now()
		cases, err := refine.Load(f)
		var stale *refine.StaleRunError
		if errors.As(err, &stale) {
			rows = append(rows, Row{Stage: "refine", Item: item, Size: fmt.Sprintf("skipped (%s.cfg changed since TLC's run made this trace; rerun hwepoch tlc %s)", stale.Config, stale.Config),
				Expected: "impl = model at every step", Found: "not replayed", Status: Skipped})
			continue
		}
		if err != nil {
			rows = append(rows, Row{Stage: "refine", Item: item, Time: time.Since(start),
				Expected: "impl = model at every step", Found: "does not load: " + err.Error(), Status: Fail})
			continue
		}
		for _, c := range cases {
			if progress != nil {
				fmt.Fprintf(progress, "hwepoch verify: [refine] replaying %s on the implementation\n", c.Name)
			}
			row := refineRow(item, c.Config, c.Trace.Len(), time.Now(), refine.ReplayCase(c, opt))
			if c.Refuse != nil {
				refused := trace.ActionString(*c.Refuse)
				row.Expected += ", then refuses " + refused
				if row.Status == Pass {
					row.Found += ", then refused " + refused
				}
			}
			// A scenario's case is named "FILE [POLICY VARIANT]".
			if i := strings.LastIndex(c.Name, " ["); i >= 0 && strings.HasSuffix(c.Name, "]") {
				row.Policy = c.Name[i+2 : len(c.Name)-1]
			}
			rows = append(rows, row)
		}
	}
	return rows
}

func refineRow(item string, cfg *model.Config, states int, start time.Time, err error) Row {
	row := Row{Stage: "refine", Item: item, Policy: cfg.Truncation, Size: fmt.Sprintf("%d states", states),
		Time: time.Since(start), Expected: "impl = model at every step", Status: Pass}
	if err == nil {
		row.Found = fmt.Sprintf("equal at all %d states", states)
		return row
	}
	row.Status = Fail
	var m *refine.Mismatch
	if errors.As(err, &m) {
		act := "Init"
		if m.Action.Kind != model.NoAction {
			act = trace.ActionString(m.Action)
		}
		row.Found = fmt.Sprintf("%s differs at step %d %s", m.Side, m.Step, act)
		if f := diffFields(m.Diff); f != "" {
			row.Found += ": " + f
		} else {
			row.Found += ": " + firstLine(m.What)
		}
	} else {
		row.Found = "error: " + firstLine(err.Error())
	}
	row.Counterexample = &Counterexample{Title: "refine " + item + ": does not refine", Text: err.Error()}
	return row
}

// RandomPlan sizes the random-trace campaign.
type RandomPlan struct {
	Traces int // per policy
	Seed   int64
}

// RandomRows runs refine/random's gopter campaign for each policy: random
// traces of enabled actions (and probes of disabled ones) on the model and
// a fresh stepped cluster; the abstraction must equal the model's state
// and the invariants the configuration promises must hold after every step.
func RandomRows(plan RandomPlan, progress io.Writer) []Row {
	var rows []Row
	for i, p := range model.Policies {
		if progress != nil {
			fmt.Fprintf(progress, "hwepoch verify: [random] %d random traces under %s\n", plan.Traces, p)
		}
		seed := plan.Seed + int64(i)
		res, err := random.Run(random.Options{Policy: p, Traces: plan.Traces, Seed: seed})
		row := Row{Stage: "random", Item: fmt.Sprintf("refine/random seed %d", seed), Policy: p,
			Size: fmt.Sprintf("%d traces", res.Passed), Time: res.Took,
			Expected: fmt.Sprintf("%d traces: impl = model, promised invariants hold", plan.Traces), Status: Pass}
		switch {
		case err != nil:
			row.Status, row.Found = Fail, "error: "+firstLine(err.Error())
		case res.Failure != nil:
			f := res.Failure
			row.Status = Fail
			row.Found = fmt.Sprintf("failed after %d held; shrunk to %d steps", res.Passed, f.Trace.Len()-1)
			if d := diffFields(f.Problem); d != "" {
				row.Found += ": differs in " + d
			}
			row.Counterexample = &Counterexample{Title: fmt.Sprintf("random %s seed %d: shrunk failing trace", p, seed),
				Config: f.Config, Trace: f.Trace, Text: refuseNote(f) + f.Problem}
		case res.Passed < plan.Traces:
			row.Status, row.Found = Fail, fmt.Sprintf("only %d traces ran", res.Passed)
		default:
			row.Found = fmt.Sprintf("%d held (%d clusters started)", res.Passed, res.Started)
		}
		rows = append(rows, row)
	}
	return rows
}

func refuseNote(f *random.Failure) string {
	if f.Refuse == nil {
		return ""
	}
	return fmt.Sprintf("then the implementation must refuse %s\n", trace.ActionString(*f.Refuse))
}

// diffFields names the fields a cmp.Diff of two model states shows as
// different ("NextId, Hw"), or "".
func diffFields(diff string) string {
	var names []string
	for _, line := range strings.Split(diff, "\n") {
		t := strings.TrimSpace(line)
		if !strings.HasPrefix(t, "-") && !strings.HasPrefix(t, "+") {
			continue
		}
		t = strings.TrimSpace(t[1:])
		i := strings.IndexAny(t, ": ")
		if i <= 0 {
			continue
		}
		n := t[:i]
		if n[0] < 'A' || n[0] > 'Z' || slices.Contains(names, n) {
			continue
		}
		names = append(names, n)
	}
	return strings.Join(names, ", ")
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
