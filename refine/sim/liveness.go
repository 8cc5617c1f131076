package sim

import (
	"fmt"
	"strings"
	"time"

	"github.com/hwepoch/hwepoch/model"
)

// The liveness check on the implementation (issue 22). After a run's
// faults heal — the network heals, every broker restarts — the simulation
// keeps the cluster running for a budget of simulated time with no fault
// at all (cluster.SimConfig.LiveFor): no crash, restart, partition, lost
// request, administrator's election, nor a shrink of a live follower
// (spec/ReplicationLiveness.tla's FaultsStop), while every step Fairness
// makes fair keeps happening: fetchers fetch, leaders answer, the
// controller answers AlterPartition and elects by itself (its offline
// election when a broker starts; every broker runs in the tail, so
// ShrinkDead and ElectLeaderless have nothing left to do after the heal's
// restarts). Preferred elections, produces until a write is acknowledged
// again and consumer reads go on. At the end of the budget the properties
// are judged on the model's state — the validator's, which equals the
// abstraction of the cluster after every decision, or for an unvalidated
// run the abstraction of the end state — with the model's predicates
// (model/liveness.go): a property whose P holds without its Q at the end
// has not progressed for as long as the budget allows, and the run stalled.

// DefaultLiveFor is the liveness check's default budget: 150 ms of
// simulated time, five times the campaign's replica.lag.time.max.ms (30),
// three auto-leader-rebalance intervals (50) and seven request.timeout.ms
// (20). A healed run of the correct releases converges in a few ms to a
// few tens (its heal phase takes tens of decisions, under a millisecond
// each).
const DefaultLiveFor = 150 * time.Millisecond

// LiveOrder lists the liveness properties in the spec's order, (a) to (e):
// the order a stalled run names them in.
var LiveOrder = []string{"TruncationEnds", "ReplicasCatchUp", "ProduceCompletes", "AlterPartitionResolves", "LeaderElected"}

// Stall is one liveness property that did not progress: its P holds and
// its Q does not (for ReplicasCatchUp: Replicated does not hold) in the
// state judged.
type Stall struct {
	Property string
	Instance string // the property's bound variables ("" when it has none)
}

func (s Stall) String() string {
	if s.Instance == "" {
		return s.Property
	}
	return fmt.Sprintf("%s (%s)", s.Property, s.Instance)
}

// Stalls judges state s: the first stalled instance of each property, in
// LiveOrder. Instances are enumerated where they can hold, not over the
// unbounded ranges a simulation's configuration has: TruncationEnds at
// each follower's own epoch, ProduceCompletes at each offset of each log.
func Stalls(cfg *model.Config, s model.State) []Stall {
	var out []Stall
	for _, name := range LiveOrder {
		p := model.LiveProperties[name]
		if p.Kind == model.EventuallyAlways {
			if !p.P(cfg, &s, 0) {
				out = append(out, Stall{Property: name, Instance: p.InstanceName(cfg, 0)})
			}
			continue
		}
		for _, i := range instances(cfg, &s, name) {
			if p.P(cfg, &s, i) && !p.Q(cfg, &s, i) {
				out = append(out, Stall{Property: name, Instance: p.InstanceName(cfg, i)})
				break
			}
		}
	}
	return out
}

// instances are the instances of a leads-to property worth judging in s.
func instances(cfg *model.Config, s *model.State, name string) []int {
	var out []int
	switch name {
	case "TruncationEnds": // i = f*(MaxEpoch+1) + e
		for f := range cfg.N() {
			if e := s.LeaderEpoch[f]; e >= 0 && e <= cfg.MaxEpoch {
				out = append(out, f*(cfg.MaxEpoch+1)+e)
			}
		}
	case "ProduceCompletes": // i = l*(MaxRecords+1) + o
		for l := range cfg.N() {
			for o := range min(s.LEO(l), cfg.MaxRecords+1) {
				out = append(out, l*(cfg.MaxRecords+1)+o)
			}
		}
	default:
		for i := range model.LiveProperties[name].Instances(cfg) {
			out = append(out, i)
		}
	}
	return out
}

// StallString says how a run stalled: "stalled: P (instance), ...".
func StallString(st []Stall) string {
	parts := make([]string, len(st))
	for i, x := range st {
		parts[i] = x.String()
	}
	return "stalled: " + strings.Join(parts, ", ")
}

// liveTracker follows the judged state through the fault-free tail: when
// the properties last stalled, so a run's report (and the boundary tests)
// can say from when on they held.
type liveTracker struct {
	// stalledAt is the tail time of the last decision after which some
	// property stalled (-1: none did); clearAt that of the first decision
	// after it (-1: none yet).
	stalledAt, clearAt time.Duration
	decisions          int
}

func newLiveTracker() liveTracker { return liveTracker{stalledAt: -1, clearAt: -1} }

func (t *liveTracker) observe(since time.Duration, stalled bool) {
	t.decisions++
	switch {
	case stalled:
		t.stalledAt, t.clearAt = since, -1
	case t.clearAt < 0:
		t.clearAt = since
	}
}

// ShrunkStall is a stalled run reduced: the same seed with a shorter fault
// phase that still stalls on the same property.
type ShrunkStall struct {
	Result Result
	// From is the fault-phase decisions of the run it came from; Runs the
	// runs tried.
	From, Runs int
}

// ShrinkStall shrinks a stalled run by its fault phase: a search over the
// number of fault decisions (Options.Events) of the same seed,
// keeping the shortest it finds whose run still stalls on the property
// the original's first stall names. The run is a function of its seed and
// length, so the result is written and replayed like any run (its .sim
// file). A shorter fault phase is a different run after its end, so the
// search needs no monotonicity: it returns a run that stalls, never one
// that does not. (Shrinking the stall's steps themselves would need the
// fault-free tail to run from a replayed prefix; a run's steps replay on
// a stepped cluster, which has no tail.)
func ShrinkStall(opt Options, r Result) ShrunkStall {
	out := ShrunkStall{Result: r, From: r.SimResult.Events}
	if !r.Stalled() {
		return out
	}
	want := r.Stalls[0].Property
	stalls := func(x Result) bool { return x.StalledOnly() && x.Stalls[0].Property == want }
	try := func(events int) bool {
		o := opt
		o.Events = events
		x := Run(o)
		out.Runs++
		if stalls(x) {
			out.Result = x
			return true
		}
		return false
	}
	// Short fault phases first (1, 2, 4, ...: a stall that needs few
	// faults is found in few runs), then halving between the last that
	// did not stall and the first that did.
	lo, hi := 0, r.SimResult.Events // hi stalls; lo is not known to
	for k := 1; k < hi; k *= 2 {
		if try(k) {
			hi = k
			break
		}
		lo = k
	}
	for hi-lo > 1 {
		if mid := (lo + hi) / 2; try(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return out
}
