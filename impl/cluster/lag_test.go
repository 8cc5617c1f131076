package cluster

import (
	"testing"

	"github.com/hwepoch/hwepoch/impl/broker"
)

// The ISR's lag rule on the simulated clock (lagcheck.go, which verify
// runs too): a follower stuck below the LEO leaves once
// replica.lag.time.max.ms has passed since it last caught up, and acks=all
// then completes; a follower whose fetches reach the LEO of its previous
// fetch counts caught up as of that fetch. Each check catches both seeded
// bugs of the rule: the lag measured from the last fetch, and a follower
// counted as caught up at a fetch that did not reach the leader's LEO.
func TestIsrShrinksByLagOnTheSimulatedClock(t *testing.T) {
	for _, check := range []struct {
		name string
		run  func(string, ...broker.Mutant) error
	}{
		{"CheckIsrLagFromCaughtUp", CheckIsrLagFromCaughtUp},
		{"CheckIsrLagFromPreviousFetch", CheckIsrLagFromPreviousFetch},
	} {
		t.Run(check.name, func(t *testing.T) {
			if err := check.run(t.TempDir()); err != nil {
				t.Fatal(err)
			}
			for _, m := range []broker.Mutant{broker.MutantLagFromLastFetch, broker.MutantCaughtUpNow} {
				if err := check.run(t.TempDir(), m); err == nil {
					t.Errorf("%s: the check passes with the seeded bug: it cannot see it", m)
				} else {
					t.Logf("%s caught: %v", m, err)
				}
			}
		})
	}
}
