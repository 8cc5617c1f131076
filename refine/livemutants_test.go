package refine

import (
	"slices"
	"testing"

	"github.com/hwepoch/hwepoch/impl/broker"
	"github.com/hwepoch/hwepoch/model"
)

// TestLivenessMutantsShareNames: each seeded liveness bug of the model (and
// so of the spec, model.MutantSpec) is the implementation's of the same
// name, so that a lasso found with it replays on both.
func TestLivenessMutantsShareNames(t *testing.T) {
	for _, m := range model.Mutants {
		if !slices.Contains(broker.LivenessMutants, broker.Mutant(m)) {
			t.Errorf("model mutant %s has no implementation twin in broker.LivenessMutants %v", m, broker.LivenessMutants)
		}
	}
	if len(broker.LivenessMutants) != len(model.Mutants) {
		t.Errorf("broker.LivenessMutants %v, model.Mutants %v", broker.LivenessMutants, model.Mutants)
	}
}
