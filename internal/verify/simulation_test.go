package verify

import (
	"strings"
	"testing"
)

// The simulation rows: LeaderEpoch holds and reproduces its event log;
// HighWatermark is caught, and its first failing seed is shrunk to a trace
// that replays, shown as the row's counterexample; with unclean elections
// every decision is validated.
func TestSimulationRows(t *testing.T) {
	rows := SimulationRows(SimulationPlan{LeaderEpochSeeds: 5, HighWatermarkSeeds: 20, UncleanSeeds: 5, Parallel: 2}, nil)
	if len(rows) != 3 {
		t.Fatalf("%d rows", len(rows))
	}
	le, hw, u := rows[0], rows[1], rows[2]
	if le.Status != Pass || !strings.Contains(le.Found, "holds in 5 of 5") || !strings.Contains(le.Found, "same hash") {
		t.Errorf("LeaderEpoch row: %+v", le)
	}
	if hw.Status != Pass || !strings.Contains(hw.Found, "shrunk from") || hw.Counterexample == nil || hw.Counterexample.Trace.Len() < 2 {
		t.Errorf("HighWatermark row: %+v", hw)
	}
	if u.Status != Pass || !strings.Contains(u.Item, "unclean elections") || !strings.Contains(u.Found, "unclean elections, all validated") {
		t.Errorf("unclean row: %+v", u)
	}
	t.Logf("%s: %s", u.Item, u.Found)
}
