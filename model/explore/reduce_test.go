package explore

import (
	"context"
	"testing"

	"github.com/hwepoch/hwepoch/model/tlccfg"
)

// Under the inert-message reduction every ci configuration of the manifest
// (its counterexamples and witnesses) gives the manifest's verdict, by a
// counterexample that is a behaviour of the spec ending in the violation,
// no longer than the full search's; the readable and packed engines agree
// on the quotient's counts; and a configuration that holds has no more
// states than in full.
func TestReducedSearchKeepsVerdicts(t *testing.T) {
	m, err := tlccfg.LoadManifest(specDir(t))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range m.Configs {
		if !e.CI || e.Mutant != "" {
			continue
		}
		chk, err := m.LoadCheck(e)
		if err != nil {
			t.Fatal(err)
		}
		if chk.Live {
			continue // the reduction is for safety searches (RunLive refuses it)
		}
		n++
		t.Run(e.Name, func(t *testing.T) {
			opts := Options{Workers: 2, Invariants: chk.Invariants, Properties: chk.Properties,
				Symmetry: chk.Symmetry, ConfigName: chk.Name}
			full, err := Run(context.Background(), &chk.Config, opts)
			if err != nil {
				t.Fatal(err)
			}
			opts.Reduce = true
			var res [2]*Result
			for i, engine := range []string{EnginePacked, EngineReadable} {
				opts.Engine = engine
				if res[i], err = Run(context.Background(), &chk.Config, opts); err != nil {
					t.Fatal(err)
				}
				if !res[i].Reduced {
					t.Fatalf("%s: Result.Reduced is false", engine)
				}
			}
			red := res[0]
			if a, b := res[0], res[1]; a.Distinct != b.Distinct || a.Generated != b.Generated || a.Depth != b.Depth {
				t.Errorf("packed: %d distinct, %d generated, depth %d; readable: %d, %d, depth %d",
					a.Distinct, a.Generated, a.Depth, b.Distinct, b.Generated, b.Depth)
			}
			switch {
			case (red.Violation == nil) != (e.Expect == "holds"):
				t.Fatalf("reduced: %v, manifest expects %s", red.Violation, e.Expect)
			case red.Violation != nil && red.Violation.Property != e.Property:
				t.Fatalf("reduced search violated %s, manifest expects %s", red.Violation.Property, e.Property)
			case red.Violation != nil:
				checkViolation(t, &chk.Config, red.Violation)
				if red.Violation.Trace.Len() > full.Violation.Trace.Len() {
					t.Errorf("reduced counterexample has %d states, the full search's %d", red.Violation.Trace.Len(), full.Violation.Trace.Len())
				}
				if b := res[1].Violation; b == nil || b.Trace.Len() != red.Violation.Trace.Len() {
					t.Errorf("the readable engine's reduced counterexample differs: %v", b)
				}
			case red.Distinct > full.Distinct:
				t.Errorf("reduced: %d states, full: %d", red.Distinct, full.Distinct)
			}
			t.Logf("full %d states, reduced %d", full.Distinct, red.Distinct)
		})
	}
	if n < 20 {
		t.Fatalf("only %d configurations", n)
	}
}

// The small configurations behind TestSmallConfigsMatchTLC (go test's
// representative subset) all hold, as TLC found; under the reduction they
// hold too, in no more states than TLC's.
func TestReducedSmallConfigsHold(t *testing.T) {
	s := loadSmall(t)
	for _, r := range s.Representative() {
		t.Run(r.Name, func(t *testing.T) {
			if testing.Short() && r.TLC.Distinct > 100_000 {
				t.Skipf("%d states: not in -short mode", r.TLC.Distinct)
			}
			t.Parallel()
			cfg := r.Config
			res, err := Run(context.Background(), &cfg, Options{Workers: 1, Invariants: r.Invariants,
				Symmetry: r.Symmetry, ConfigName: r.Name, Reduce: true})
			if err != nil {
				t.Fatal(err)
			}
			verdict := "holds"
			if res.Violation != nil {
				verdict = "violated " + res.Violation.Property
			}
			if verdict != r.TLC.Verdict || res.Distinct > r.TLC.Distinct {
				t.Errorf("reduced: %s in %d states; TLC: %s in %d", verdict, res.Distinct, r.TLC.Verdict, r.TLC.Distinct)
			}
		})
	}
}
