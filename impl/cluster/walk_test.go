package cluster

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/hwepoch/hwepoch/impl/broker"
	"github.com/hwepoch/hwepoch/impl/release"
	"github.com/hwepoch/hwepoch/impl/storage"
)

// walkActions are the stepped API's actions with their arity, for random
// walks (Crash keeps everything: no unflushed loss).
var walkActions = []struct {
	name  string
	arity int
}{
	{"Elect", 1}, {"HandleLeaderAndIsr", 1}, {"Produce", 1}, {"SendOffsetsForLeaderEpoch", 1},
	{"HandleOffsetsForLeaderEpoch", 2}, {"HandleOffsetsForLeaderEpochResponse", 1}, {"SendFetch", 1},
	{"HandleFetch", 2}, {"UpdateFollowerFetchState", 2}, {"HandleFetchResponse", 1}, {"ShrinkIsr", 2},
	{"ExpandIsr", 2}, {"HandleAlterPartition", 1}, {"HandleAlterPartitionResponse", 1}, {"CheckpointHW", 1},
	{"Crash", 2}, {"Restart", 1},
}

// Random walks of the stepped API under the releases that must hold with
// clean elections, acks=all and no unflushed loss (2.1 and 3.9): after
// every step no acknowledged or visible record is missing from the
// controller's leader and no live replica differs from it below their HWs
// (Check), and every live replica's HW is within its log. Each walk also
// counts the steps taken with an AlterPartition pending, which only 3.9
// has between steps.
func TestRandomWalksHold(t *testing.T) {
	for _, p := range []storage.Policy{storage.LeaderEpoch, storage.DivergingEpoch, storage.EligibleLeader} {
		t.Run(string(p), func(t *testing.T) {
			w := randomWalks(t, p, nil, 40)
			t.Logf("%s: %d steps taken, %d with an AlterPartition pending, %d crashes", p, w.taken, w.pending, w.crashes)
			if w.violation != "" {
				t.Fatal(w.violation)
			}
			if w.taken < 1000 {
				t.Fatalf("only %d steps were enabled: the walk does not exercise the cluster", w.taken)
			}
			if rel, _ := release.Of(p); rel.AsyncIsr && w.pending == 0 {
				t.Fatal("no step ran with an AlterPartition pending")
			}
		})
	}
}

// The walks' check bites: seeded bugs are caught.
func TestRandomWalksCatchSeededBugs(t *testing.T) {
	for _, c := range []struct {
		p storage.Policy
		m broker.Mutant
	}{
		{storage.DivergingEpoch, broker.MutantUpdateDivergingFetchState},
		{storage.LeaderEpoch, broker.MutantAckOnAppend},
	} {
		if w := randomWalks(t, c.p, []broker.Mutant{c.m}, 40); w.violation == "" {
			t.Errorf("%s under %s: %d steps, no violation found", c.m, c.p, w.taken)
		} else {
			t.Logf("%s under %s caught: %.200s", c.m, c.p, w.violation)
		}
	}
}

type walkResult struct {
	taken, pending, crashes int
	violation               string
}

// randomWalks runs walks random walks of 60 steps on fresh 3-broker
// clusters (acks=all, min.insync.replicas=2, the release's HW gate) and
// stops at the first violation.
func randomWalks(t *testing.T, p storage.Policy, mutants []broker.Mutant, walks int) walkResult {
	t.Helper()
	var w walkResult
	rng := rand.New(rand.NewPCG(7, uint64(len(p))))
	for walk := 0; walk < walks; walk++ {
		c := newStepped(t, 3, p, func(c *Config) {
			c.MinInsyncReplicas = 2
			rel, _ := release.Of(p)
			c.MinIsrGatesHW = rel.MinIsrGatesHW
			c.Mutants = mutants
		})
		var trail []Step
		walkCrashes, produced := 0, 0
		for step := 0; step < 60; step++ {
			// Draw until an enabled step turns up (at most 50 tries);
			// crashes and restarts are drawn rarely, so the walk mostly
			// replicates.
			var s Step
			ok := false
			for try := 0; try < 50 && !ok; try++ {
				a := walkActions[rng.IntN(len(walkActions))]
				s = Step{Action: a.name}
				for range a.arity {
					s.Args = append(s.Args, int64(1+rng.IntN(3)))
				}
				switch a.name {
				case "Crash":
					if walkCrashes >= 2 || rng.IntN(8) != 0 {
						continue
					}
					s.Args[1] = brokerOf(c.Snapshot(), int32(s.Args[0])).Partition.LEO
				case "Restart":
					if rng.IntN(3) != 0 {
						continue
					}
				case "Produce":
					if produced >= 4 {
						continue
					}
				}
				ok = c.Apply(s) == nil
			}
			if !ok {
				break
			}
			trail = append(trail, s)
			w.taken++
			switch s.Action {
			case "Crash":
				walkCrashes++
				w.crashes++
			case "Produce":
				produced++
			}
			snap := c.Snapshot()
			for _, b := range snap.Brokers {
				if len(b.Partition.PendingIsr) > 0 {
					w.pending++
					break
				}
			}
			if v := Check(snap); !v.OK() {
				w.violation = fmt.Sprintf("walk %d: after %v: %s\n%s", walk, trail, v, dump(snap))
				return w
			}
			for _, b := range snap.Brokers {
				if b.Alive && b.Partition.HW > b.Partition.LEO {
					w.violation = fmt.Sprintf("walk %d: after %v: broker %d HW %d above LEO %d", walk, trail, b.ID, b.Partition.HW, b.Partition.LEO)
					return w
				}
			}
		}
	}
	return w
}
