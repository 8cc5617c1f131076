package verify

import (
	"fmt"
	"io"
	"time"

	"github.com/hwepoch/hwepoch/impl/controller"
	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/refine/sim"
)

// SimulationPlan sizes the deterministic simulation's rows (refine/sim):
// the real brokers, controller, fetchers, producer and storage driven by
// one seeded scheduler over simulated time, every decision validated
// against the model.
type SimulationPlan struct {
	LeaderEpochSeeds   int // LeaderEpoch seeds, every one of which must hold
	HighWatermarkSeeds int // HighWatermark seeds, which must lose or diverge
	// UncleanSeeds are LeaderEpoch seeds with unclean.leader.election.enable,
	// every one validated: the controller's own offline elections, clean
	// and unclean, held to the spec's Elect (a loss is allowed: the
	// configuration promises no NoAckedLoss).
	UncleanSeeds int
	Parallel     int
	// ControllerMutants are seeded controller bugs, for the test that shows
	// the rows catch them; none otherwise.
	ControllerMutants []controller.Mutant
}

// SimulationRows runs the plan. LeaderEpoch: every seed validated and
// holding, and seed 1 simulated twice to the same event-log hash.
// HighWatermark: every seed validated and at least one losing or
// diverging, the first one shrunk to a trace that replays on model and
// implementation (the row's counterexample). Unclean: every seed validated.
// A kind of seed the plan has none of has no row. Each seed is a function
// of its number alone, so these rows do not depend on the machine's timing.
func SimulationRows(plan SimulationPlan, progress io.Writer) []Row {
	item := "3 brokers acks=all minISR=2 fencing, validated"
	run := func(policy string, n int, settings ...string) (rows Row, fails []sim.Result) {
		row := Row{Stage: "simulate", Item: item, Policy: policy, Status: Pass}
		start := time.Now()
		decisions, acked, reads := 0, 0, 0
		unclean := 0
		sim.Campaign(sim.CampaignOptions{First: 1, Seeds: n, Settings: append([]string{"Truncation=" + policy}, settings...),
			Parallel: plan.Parallel, ControllerMutants: plan.ControllerMutants},
			func(r sim.Result) {
				decisions += r.Decisions
				acked += r.Acked
				if r.Validator != nil {
					reads += r.Validator.Reads
					unclean += r.Validator.Unclean
				}
				if progress != nil && (r.Failed() || r.Seed%50 == 0) {
					fmt.Fprintf(progress, "hwepoch verify: [simulate] %s %s\n", policy, r)
				}
				switch {
				case r.Broken():
					if row.Status == Pass {
						row.Status = Fail
						row.Found = fmt.Sprintf("seed %d: %s", r.Seed, firstLine(r.Status()))
						row.Counterexample = &Counterexample{Title: fmt.Sprintf("simulation %s seed %d", policy, r.Seed), Text: r.Status()}
					}
				case r.Failed():
					fails = append(fails, r)
				}
			})
		row.Time = time.Since(start)
		row.Size = fmt.Sprintf("%d seeds, %d decisions, %.0f runs/s", n, decisions, float64(n)/row.Time.Seconds())
		if row.Status == Pass {
			row.Found = fmt.Sprintf("%d acked, %d consumer reads, all validated", acked, reads)
			if len(settings) > 0 {
				row.Found = fmt.Sprintf("%d acked, %d unclean elections, all validated", acked, unclean)
			}
		}
		return row, fails
	}

	var rows []Row
	if plan.LeaderEpochSeeds > 0 {
		le, fails := run(model.LeaderEpoch, plan.LeaderEpochSeeds)
		le.Expected = "no loss, no divergence; same seed, same event log"
		if le.Status == Pass && len(fails) > 0 {
			r := fails[0]
			le.Status, le.Found = Fail, fmt.Sprintf("seed %d: %s", r.Seed, firstLine(r.Status()))
			le.Counterexample = &Counterexample{Title: fmt.Sprintf("simulation LeaderEpoch seed %d", r.Seed), Text: r.Status()}
		}
		if le.Status == Pass {
			a, b := sim.Run(sim.Options{Seed: 1}), sim.Run(sim.Options{Seed: 1})
			if a.Hash() != b.Hash() {
				le.Status, le.Found = Fail, fmt.Sprintf("seed 1 twice: event-log hashes %.12s and %.12s differ", a.Hash(), b.Hash())
			} else {
				le.Found = fmt.Sprintf("holds in %d of %d (%s); seed 1 twice: same hash %.12s", plan.LeaderEpochSeeds, plan.LeaderEpochSeeds, le.Found, a.Hash())
			}
		}
		rows = append(rows, le)
	}
	if plan.HighWatermarkSeeds > 0 {
		hw, fails := run(model.HighWatermark, plan.HighWatermarkSeeds)
		hw.Expected = "loss or divergence; shrunk, replays"
		if hw.Status == Pass {
			if len(fails) == 0 {
				hw.Status, hw.Found = Fail, fmt.Sprintf("nothing caught in %d seeds", plan.HighWatermarkSeeds)
			} else {
				r := fails[0]
				hw.Found = fmt.Sprintf("%d of %d seeds lose or diverge (first: seed %d)", len(fails), plan.HighWatermarkSeeds, r.Seed)
				s, err := sim.Shrink(r.Config, r.Validator.Actions)
				if err == nil {
					err = sim.ReplayShrunk(s)
				}
				if err != nil {
					hw.Status, hw.Found = Fail, hw.Found+"; shrinking failed: "+firstLine(err.Error())
				} else {
					hw.Found += fmt.Sprintf("; shrunk from %d to %d steps, replays", s.From, s.Trace.Len()-1)
					hw.Counterexample = &Counterexample{
						Title:  fmt.Sprintf("simulation HighWatermark seed %d, shrunk: violates %s", r.Seed, s.Invariant),
						Config: s.Config, Trace: s.Trace,
					}
				}
			}
		}
		rows = append(rows, hw)
	}
	if plan.UncleanSeeds > 0 {
		u, _ := run(model.LeaderEpoch, plan.UncleanSeeds, "unclean.leader.election.enable=true")
		u.Item = "3 brokers acks=all minISR=2 fencing, unclean elections, validated"
		u.Expected = "every decision validated (the controller's own elections as the spec's Elect)"
		rows = append(rows, u)
	}
	return rows
}
