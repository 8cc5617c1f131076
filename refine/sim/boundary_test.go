package sim

import (
	"path/filepath"
	"testing"
)

// The validator at its boundaries (boundary.go, which verify runs too): a
// consumer read at exactly the HW is refused and one at HW-1 passes; a run
// whose model state breaks an invariant the validator is told the
// configuration promises is refused at the step it breaks. Each check
// catches the seeded bug of its side of the validator, and passes without.
func TestValidatorAtItsBoundaries(t *testing.T) {
	kip101 := filepath.Join("..", "..", "traces", "scenarios", "kip101-scenario-1.scenario")
	for _, c := range []struct {
		name string
		m    Mutant
		run  func(...Mutant) error
	}{
		{"CheckReadBoundary", MutantReadAtHW, CheckReadBoundary},
		{"CheckPromisedInvariants", MutantSkipsInvariants, func(ms ...Mutant) error {
			return CheckPromisedInvariants(kip101, "HighWatermark", "NoAckedLoss", t.TempDir(), ms...)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := c.run(); err != nil {
				t.Fatal(err)
			}
			for _, m := range Mutants {
				err := c.run(m)
				switch {
				case m == c.m && err == nil:
					t.Errorf("%s: the check passes with the seeded bug: it cannot see it", m)
				case m == c.m:
					t.Logf("%s caught: %v", m, err)
				case err != nil:
					t.Errorf("%s, a bug of the other side of the validator, fails the check: %v", m, err)
				}
			}
		})
	}
}
