// Package deviation checks the rows of docs/spec.md's deviation table that
// put a Kafka behaviour back (model.Restore): it explores a manifest
// configuration with the spec's behaviour and with Kafka's, and compares the
// verdicts. Equal verdicts with states added show the deviation cannot
// change that configuration's verdict at its bounds; with no state added
// the verdict is the spec's by construction, and the check says so.
package deviation

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hwepoch/hwepoch/internal/tlc"
	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/model/explore"
	"github.com/hwepoch/hwepoch/model/tlccfg"
)

// DefaultMaxStates: configurations whose TLC run found more states are not
// checked by default (hwepoch deviations -max-states).
const DefaultMaxStates = 6_000_000

// Entries are the manifest's configurations a restoration concerns: safety
// configurations (no LiveSpec, no mutant, no reduction) of its releases,
// and with ablations the ablations of those release rows (an ablation is
// no release, so a deviation from a release does not bear on its verdict).
func Entries(man *tlccfg.Manifest, r model.Restore, ablations bool) ([]tlccfg.Entry, error) {
	info, ok := model.RestoreInfos[r]
	if !ok {
		return nil, fmt.Errorf("restore %q: no such Kafka behaviour (known: %v)", r, model.Restores)
	}
	var out []tlccfg.Entry
	for _, e := range man.Configs {
		if !slices.Contains(info.Policies, e.Policy) || e.Mutant != "" || e.Reduce != "" {
			continue
		}
		if !ablations && strings.HasPrefix(e.Release, "ablation") {
			continue
		}
		chk, err := man.LoadCheck(e)
		if err != nil {
			return nil, err
		}
		if chk.Live {
			continue
		}
		out = append(out, e)
	}
	return out, nil
}

// Verdict is one search's outcome: "holds" or the violated property.
type Verdict struct {
	Holds     bool
	Property  string // the violated property when !Holds
	Distinct  int64
	Depth     int
	TraceLen  int // the counterexample's length when !Holds
	Duration  time.Duration
	Generated int64
	// Violation is the counterexample when !Holds.
	Violation *explore.Violation
}

func (v Verdict) String() string {
	if v.Holds {
		return "holds"
	}
	return "violated " + v.Property
}

// Result is one configuration checked with and without the restoration.
type Result struct {
	Config   string
	Restore  model.Restore
	Expect   string // the manifest's verdict: "holds" or "violated P"
	Base     Verdict
	Restored Verdict
	// TLC is TLC's run on the spec with the behaviour put back, when asked
	// for (CheckTLC): its verdict must be the explorer's, and for a holds
	// verdict its distinct states and depth too.
	TLC *tlc.Result
}

// TLCAgrees: there is no TLC run, or it agrees with the restored search.
func (r Result) TLCAgrees() bool {
	if r.TLC == nil {
		return true
	}
	v := "holds"
	if r.TLC.Verdict == "violated" {
		v = "violated " + r.TLC.Property
	} else if r.TLC.Verdict != "holds" {
		return false
	}
	if v != r.Restored.String() {
		return false
	}
	return !r.Restored.Holds || (r.TLC.DistinctStates == r.Restored.Distinct && r.TLC.Depth == r.Restored.Depth)
}

// CheckTLC runs TLC on config with r put back (tlc.Run.Restore).
func CheckTLC(ctx context.Context, jar, specDir, outDir, config string, r model.Restore, workers int) (*tlc.Result, error) {
	if workers == 0 {
		workers = 1
	}
	run := tlc.Run{Jar: jar, SpecDir: specDir, Module: "Replication", Config: config, Workers: workers,
		OutDir: outDir, OutName: config + "-" + string(r), Restore: r}
	res, _, err := run.Execute(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s with %s restored: TLC: %w", config, r, err)
	}
	return &res, nil
}

// Equal: the restored search gives the manifest's verdict (and TLC, when
// run, agrees with it).
func (r Result) Equal() bool { return r.Restored.String() == r.Expect && r.TLCAgrees() }

// Vacuous: the restoration added no state here (for a holds verdict: every
// state the restored search reaches the spec's reaches too, so the equal
// verdict holds by construction).
func (r Result) Vacuous() bool {
	return r.Base.Holds && r.Restored.Holds && r.Base.Distinct == r.Restored.Distinct
}

// Check explores e with and without r.
func Check(ctx context.Context, man *tlccfg.Manifest, e tlccfg.Entry, r model.Restore, workers int) (Result, error) {
	chk, err := man.LoadCheck(e)
	if err != nil {
		return Result{}, err
	}
	expect := "holds"
	if e.Expect == "violated" {
		expect = "violated " + e.Property
	}
	res := Result{Config: e.Name, Restore: r, Expect: expect}
	base := chk.Config
	if res.Base, err = search(ctx, &base, chk, nil, workers, explore.EngineAuto); err != nil {
		return Result{}, fmt.Errorf("%s: %w", e.Name, err)
	}
	if got := res.Base.String(); got != expect {
		return Result{}, fmt.Errorf("%s: the spec's own search gives %s, the manifest expects %s", e.Name, got, expect)
	}
	restored := chk.Config
	restored.Restore = r
	if err := restored.Validate(); err != nil {
		return Result{}, fmt.Errorf("%s: %w", e.Name, err)
	}
	if res.Restored, err = search(ctx, &restored, chk, unasserted(r), workers, explore.EngineReadable); err != nil {
		return Result{}, fmt.Errorf("%s with %s restored: %w", e.Name, r, err)
	}
	return res, nil
}

// unasserted is the invariants the restored search leaves out: a variable
// so that the test proving the comparison bites can keep them.
var unasserted = func(r model.Restore) []string { return model.RestoreInfos[r].Unasserted }

func search(ctx context.Context, cfg *model.Config, chk *tlccfg.Check, drop []string, workers int, engine string) (Verdict, error) {
	var invs []string
	for _, n := range chk.Invariants {
		if !slices.Contains(drop, n) {
			invs = append(invs, n)
		}
	}
	res, err := explore.Run(ctx, cfg, explore.Options{Workers: workers, Invariants: invs, Properties: chk.Properties,
		Symmetry: chk.Symmetry, ConfigName: chk.Name, Engine: engine})
	if err != nil {
		return Verdict{}, err
	}
	v := Verdict{Holds: res.Violation == nil, Distinct: res.Distinct, Generated: res.Generated, Depth: res.Depth, Duration: res.Duration}
	if res.Violation != nil {
		v.Property, v.TraceLen, v.Violation = res.Violation.Property, res.Violation.Trace.Len(), res.Violation
	} else if !res.Complete {
		return Verdict{}, fmt.Errorf("the search stopped before it was complete")
	}
	return v, nil
}

// Header is the line above a behaviour's results.
func Header(r model.Restore) string {
	info := model.RestoreInfos[r]
	sup := ""
	if info.Superset {
		sup = ", superset"
	}
	return fmt.Sprintf("%s (issue 21 item %d%s): %s", r, info.Item, sup, info.Source)
}

// Line is one result as a line of text (under its behaviour's Header): the
// outcome, the configuration, the restored search's verdict (holds, or the
// violated property), its states (and what the behaviour added to the
// spec's own), depth and time, and TLC's run when there is one.
func Line(r Result) string {
	outcome := "equal"
	switch {
	case !r.Equal():
		outcome = "DIFFERS"
	case r.Vacuous():
		outcome = "vacuous"
	}
	v := "holds"
	if !r.Restored.Holds {
		v = r.Restored.Property
	}
	states := tlc.Commas(r.Restored.Distinct) + " (" + added(r) + ")"
	tl := ""
	if r.TLC != nil {
		switch {
		case !r.TLCAgrees():
			tl = fmt.Sprintf(" TLC DISAGREES: %s %s %s states depth %d", r.TLC.Verdict, r.TLC.Property, tlc.Commas(r.TLC.DistinctStates), r.TLC.Depth)
		case r.Restored.Holds:
			tl = " TLC ="
		default:
			tl = " TLC too"
		}
	}
	line := fmt.Sprintf("  %-7s %-28s %-34s %-24s d%-3d %6s%s", outcome, r.Config, v, states, r.Restored.Depth,
		r.Restored.Duration.Round(100*time.Millisecond), tl)
	if !r.Equal() {
		line += "\n          the manifest expects " + r.Expect
	}
	return line
}

// added is what the restored search added to the spec's own (a holds
// verdict), or "stopped" at a violation, where the counts are partial.
func added(r Result) string {
	if !r.Base.Holds || !r.Restored.Holds {
		return "stopped"
	}
	d := r.Restored.Distinct - r.Base.Distinct
	if d < 0 {
		return "-" + tlc.Commas(-d)
	}
	return "+" + tlc.Commas(d)
}
