package verify

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/hwepoch/hwepoch/impl/broker"
	"github.com/hwepoch/hwepoch/impl/cluster"
	"github.com/hwepoch/hwepoch/impl/storage"
	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/refine"
	"github.com/hwepoch/hwepoch/refine/sim"
)

// BoundaryCheck is one deterministic check of a component at a boundary
// that no trace and no model validation reaches: a timer rule the spec
// leaves free (ShrinkIsr may drop any follower at any time), a writer's
// refusal of what the cache never holds, the checkers' own verdicts on
// input a correct implementation never gives them. Each catches seeded
// bugs (docs/mutants.md) that every other check of verify misses.
type BoundaryCheck struct {
	Name     string
	Policy   string
	Expected string
	// Catches are the seeded bugs (mutant names) the check catches.
	Catches []string
	// Run runs it in a directory under dir, with mutant (a name, "" for
	// none) seeded where the check's component knows it, and returns what
	// went wrong, if anything.
	Run func(dir, tracesDir, mutant string) error
}

// BoundaryChecks are verify's boundary stage.
var BoundaryChecks = []BoundaryCheck{
	{
		Name: "ISR lag from the last caught-up time", Policy: model.LeaderEpoch,
		Expected: "a follower stuck below the LEO leaves the ISR once replica.lag.time.max.ms has passed since it caught up",
		Catches:  []string{string(broker.MutantLagFromLastFetch), string(broker.MutantCaughtUpNow)},
		Run: func(dir, _, m string) error {
			return cluster.CheckIsrLagFromCaughtUp(dir, brokerMutants(m)...)
		},
	},
	{
		Name: "ISR lag from the previous fetch", Policy: model.LeaderEpoch,
		Expected: "a follower reaching only the LEO of its previous fetch counts caught up as of that fetch",
		Catches:  []string{string(broker.MutantLagFromLastFetch), string(broker.MutantCaughtUpNow)},
		Run: func(dir, _, m string) error {
			return cluster.CheckIsrLagFromPreviousFetch(dir, brokerMutants(m)...)
		},
	},
	{
		Name: "leader-epoch-checkpoint writer", Policy: "-",
		Expected: "an entry equal to the one before it in epoch or start offset refused, the file unchanged",
		Catches:  []string{string(storage.MutantCheckpointEqualStarts)},
		Run: func(dir, _, m string) error {
			var ms []storage.Mutant
			if m != "" {
				ms = append(ms, storage.Mutant(m))
			}
			return storage.CheckCheckpointWriter(dir, ms...)
		},
	},
	{
		Name: "simulation validator: a consumer read at the HW", Policy: model.LeaderEpoch,
		Expected: "a record at offset HW-1 passes, a record at offset HW is refused",
		Catches:  []string{string(sim.MutantReadAtHW)},
		Run: func(_, _, m string) error {
			return sim.CheckReadBoundary(simMutants(m)...)
		},
	},
	{
		Name: "simulation validator: a promised invariant broken", Policy: model.HighWatermark,
		Expected: "kip101-scenario-1's run accepted; told NoAckedLoss is promised, refused where it breaks",
		Catches:  []string{string(sim.MutantSkipsInvariants)},
		Run: func(dir, tracesDir, m string) error {
			return sim.CheckPromisedInvariants(filepath.Join(tracesDir, "scenarios", "kip101-scenario-1.scenario"),
				model.HighWatermark, "NoAckedLoss", dir, simMutants(m)...)
		},
	},
}

func brokerMutants(m string) []broker.Mutant {
	if m == "" {
		return nil
	}
	return []broker.Mutant{broker.Mutant(m)}
}

func simMutants(m string) []sim.Mutant {
	if m == "" {
		return nil
	}
	return []sim.Mutant{sim.Mutant(m)}
}

// BoundaryRows runs every boundary check, with mutant ("" for none)
// seeded: one row per check.
func BoundaryRows(tracesDir, mutant string, progress io.Writer) []Row {
	var rows []Row
	for _, c := range BoundaryChecks {
		if progress != nil {
			fmt.Fprintf(progress, "hwepoch verify: [boundary] %s\n", c.Name)
		}
		start := time.Now()
		row := Row{Stage: "boundary", Item: c.Name, Policy: c.Policy, Expected: c.Expected, Status: Pass, Found: "as expected"}
		dir, err := os.MkdirTemp(refine.TempRoot(""), "hwepoch-boundary-")
		if err == nil {
			err = c.Run(dir, tracesDir, mutant)
			os.RemoveAll(dir)
		}
		row.Time = time.Since(start)
		if err != nil {
			row.Status, row.Found = Fail, firstLine(err.Error())
		}
		rows = append(rows, row)
	}
	return rows
}
