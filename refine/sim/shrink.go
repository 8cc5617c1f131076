package sim

import (
	"fmt"

	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/refine"
	"github.com/hwepoch/hwepoch/trace"
)

// Safety lists the invariants a loss or a divergence violates, in the
// order a shrunk failure names the first one violated.
var Safety = []string{"NoAckedLoss", "NoVisibleLoss", "CommittedPrefixesAgree", "NoDivergence"}

// maxShrinkTests bounds the candidate traces a shrink tries on the model.
const maxShrinkTests = 50_000

// Shrunk is a failing run reduced to few steps.
type Shrunk struct {
	// Config is the run's configuration with bounds that fit the shrunk
	// trace (MaxRecords, MaxEpoch and MaxCrashes as it uses them), so it
	// can be written and replayed as a regression.
	Config *model.Config
	// Trace is the shrunk trace with the model's states.
	Trace trace.Trace
	// Invariant is the safety invariant its last state violates.
	Invariant string
	// From is the number of steps of the run it came from; Tests the
	// candidates tried.
	From, Tests int
}

// Shrink reduces a run's model actions to a short trace that still
// violates the same safety invariant: the run is cut after the first step
// that violates one, then steps are removed — in halves, quarters, ... down
// to one at a time, then each step together with the later steps it
// enabled, then windows of up to six steps at every position, while any
// removal succeeds — as long as every remaining
// step stays enabled and the invariant stays violated at the end (delta
// debugging over the run's events, faults included). Every candidate is
// checked on the model; the caller replays the result on the
// implementation.
func Shrink(cfg *model.Config, actions []model.Action) (Shrunk, error) {
	s := model.Init(cfg)
	cut, inv := -1, ""
	for i, a := range actions {
		next, err := model.Apply(cfg, s, a)
		if err != nil {
			return Shrunk{}, fmt.Errorf("step %d %s of the run is not enabled in the model: %w", i+1, trace.ActionString(a), err)
		}
		s = next
		if bad := refine.Violated(cfg, s, Safety); len(bad) > 0 {
			cut, inv = i+1, bad[0]
			break
		}
	}
	if cut < 0 {
		return Shrunk{}, fmt.Errorf("no state of the run's %d model steps violates %v", len(actions), Safety)
	}
	tests := 0
	fails := func(xs []model.Action) bool {
		tests++
		s := model.Init(cfg)
		for _, a := range xs {
			next, err := model.Apply(cfg, s, a)
			if err != nil {
				return false
			}
			s = next
		}
		return len(refine.Violated(cfg, s, []string{inv})) > 0
	}
	cur := append([]model.Action(nil), actions[:cut]...)
	for chunk := max(len(cur)/2, 1); ; {
		removed := false
		for start := len(cur) - chunk; start >= 0 && tests < maxShrinkTests; start -= chunk {
			cand := append(append([]model.Action(nil), cur[:start]...), cur[start+chunk:]...)
			if fails(cand) {
				cur, removed = cand, true
				start = min(start, len(cur))
			}
		}
		if tests >= maxShrinkTests {
			break
		}
		if !removed {
			if chunk == 1 {
				break
			}
			chunk = max(chunk/2, 1)
		}
		chunk = min(chunk, max(len(cur)/2, 1))
	}
	// Then each step with whatever it enabled: without step i, the later
	// steps the model no longer enables are dropped too (a fetch's handling
	// and response go with the fetch).
	cascade := func(xs []model.Action, skip int) []model.Action {
		s := model.Init(cfg)
		out := make([]model.Action, 0, len(xs))
		for j, a := range xs {
			if j == skip {
				continue
			}
			if next, err := model.Apply(cfg, s, a); err == nil {
				s = next
				out = append(out, a)
			}
		}
		return out
	}
	cascadePass := func() (removed bool) {
		for i := len(cur) - 1; i >= 0 && tests < maxShrinkTests; i-- {
			if cand := cascade(cur, i); fails(cand) {
				cur, removed = cand, true
				i = min(i, len(cur))
			}
		}
		return removed
	}
	// Windows of a few steps at every position, not only at multiples of
	// their size: a request, its handling and its response go together.
	windowPass := func() (removed bool) {
		for size := 6; size >= 1; size-- {
			for start := len(cur) - size; start >= 0 && tests < maxShrinkTests; start-- {
				cand := append(append([]model.Action(nil), cur[:start]...), cur[start+size:]...)
				if fails(cand) {
					cur, removed = cand, true
					start = min(start, len(cur)-size+1)
				}
			}
		}
		return removed
	}
	for tests < maxShrinkTests && (cascadePass() || windowPass()) {
		// A removal can make another possible: go round until none is.
	}
	bounded := *cfg
	tr, err := refine.ActionsTrace("shrunk", cfg, cur)
	if err != nil {
		return Shrunk{}, err
	}
	last := tr.Steps[len(tr.Steps)-1].State
	bounded.MaxRecords = max(last.NextId-1, 1)
	bounded.MaxEpoch = max(last.CtrlEpoch, 1)
	bounded.MaxCrashes = max(last.Crashes, 1)
	if bounded.MaxPartitionEpoch > 0 {
		// A proposal needs its leader's partition epoch below the bound, and
		// the controller's only grows: one above its last is enough.
		bounded.MaxPartitionEpoch = max(last.CtrlPartitionEpoch+1, 1)
	}
	tr, err = refine.ActionsTrace("shrunk", &bounded, cur)
	if err != nil {
		return Shrunk{}, fmt.Errorf("the shrunk trace under its own bounds: %w", err)
	}
	return Shrunk{Config: &bounded, Trace: tr, Invariant: inv, From: len(actions), Tests: tests}, nil
}

// ReplayShrunk replays a shrunk trace on the model and on a stepped
// cluster, comparing them after every step.
func ReplayShrunk(s Shrunk) error { return refine.Replay(s.Config, s.Trace, refine.Options{}) }
