package verify

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/hwepoch/hwepoch/impl/broker"
	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/refine/sim"
)

// LivenessPlan sizes the liveness stage: the simulation's liveness check
// on its own (refine/sim, Options.Unvalidated), per release, over Seeds
// seeds from seed 1, each judged after LiveFor of fault-free simulated
// time. The simulate stage holds the same kind of runs to the model
// decision by decision; here nothing but progress is judged, so a seeded
// bug that also departs from the model is caught by the liveness check
// or not at all.
type LivenessPlan struct {
	Seeds    int
	LiveFor  time.Duration // 0: sim.DefaultLiveFor
	Parallel int
	// Mutants are seeded bugs, for the tests that show the stage catches
	// the liveness mutants; none otherwise.
	Mutants []broker.Mutant
}

// LivenessRows runs the plan: one row per release, expected to stall in
// no seed. One stall is excused: ReplicasCatchUp after a run lost a
// committed record (0.10.2 and 0.11 do; no replica holds the record any
// more, so Replicated fails for good, and the loss is the simulate
// stage's finding).
func LivenessRows(plan LivenessPlan, progress io.Writer) []Row {
	live := plan.LiveFor
	if live <= 0 {
		live = sim.DefaultLiveFor
	}
	var rows []Row
	for _, policy := range []string{model.HighWatermark, model.Kip101, model.LeaderEpoch, model.DivergingEpoch} {
		row := Row{Stage: "liveness", Item: fmt.Sprintf("3 brokers acks=all minISR=2, %v fault-free after the heal", live),
			Policy: policy, Expected: "no stall (ReplicasCatchUp excused after a loss)", Status: Pass}
		start := time.Now()
		type first struct {
			seed     uint64
			instance string
			n        int
		}
		stalls := map[string]*first{}
		excused, broken := 0, ""
		sim.Campaign(sim.CampaignOptions{First: 1, Seeds: plan.Seeds, Settings: []string{"Truncation=" + policy},
			Parallel: plan.Parallel, Mutants: plan.Mutants, LiveFor: live, Unvalidated: true},
			func(r sim.Result) {
				if progress != nil && (r.Stalled() || r.Seed%10 == 0) {
					fmt.Fprintf(progress, "hwepoch verify: [liveness] %s %s\n", policy, r)
				}
				if (r.Err != nil || r.Invalid != nil) && broken == "" {
					broken = fmt.Sprintf("seed %d: %s", r.Seed, firstLine(r.Status()))
				}
				for _, st := range r.Stalls {
					if r.Excused(st) {
						excused++
						continue
					}
					if f := stalls[st.Property]; f != nil {
						f.n++
					} else {
						stalls[st.Property] = &first{seed: r.Seed, instance: st.Instance, n: 1}
					}
				}
			})
		row.Time = time.Since(start)
		row.Size = fmt.Sprintf("%d seeds, unvalidated", plan.Seeds)
		var found []string
		for _, p := range sim.LiveOrder {
			if f := stalls[p]; f != nil {
				where := fmt.Sprintf("seed %d", f.seed)
				if f.instance != "" {
					where += ": " + f.instance
				}
				found = append(found, fmt.Sprintf("stalled: %s in %d seeds (first %s)", p, f.n, where))
			}
		}
		switch {
		case broken != "":
			row.Status, row.Found = Fail, broken
		case len(found) > 0:
			row.Status, row.Found = Fail, strings.Join(found, "; ")
		default:
			row.Found = fmt.Sprintf("no stall in %d seeds", plan.Seeds)
			if excused > 0 {
				row.Found += fmt.Sprintf(" (%d lost a committed record, so ReplicasCatchUp could not hold)", excused)
			}
		}
		rows = append(rows, row)
	}
	return rows
}
