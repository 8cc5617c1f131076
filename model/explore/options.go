package explore

import (
	"fmt"
	"io"
	"time"

	"github.com/hwepoch/hwepoch/trace"
)

// Options configure a search.
type Options struct {
	// Workers is the number of goroutines; 0 means GOMAXPROCS.
	Workers int
	// Invariants and Properties name the spec's invariants and action
	// properties ([][A]_vars) to check; see model.Invariants and model.Properties.
	Invariants []string
	Properties []string
	// Symmetry explores one state per permutation class of the replicas
	// (the spec's Symmetry == Permutations(Replicas), TLC's SYMMETRY).
	Symmetry bool
	// FullSymmetry fingerprints a state by trying every permutation, as TLC
	// does, instead of only those that sort the replicas by
	// model.ReplicaKey. The classes, hence the counts, are the same; it is
	// here to measure the difference and to test that they agree.
	FullSymmetry bool
	// ConfigName labels the traces the search returns.
	ConfigName string
	// Progress, when set, receives a progress line about every
	// ProgressEvery (default 2s) once the search has run that long.
	Progress      io.Writer
	ProgressEvery time.Duration
	// Engine chooses the state form the search runs on: EnginePacked
	// (model/packed: fixed-size states, successors without allocation),
	// EngineReadable (model.State, the reference), or EngineAuto (the
	// default: packed when the configuration fits its maxima).
	Engine string
	// Reduce searches the inert-message quotient: each successor's fetcher
	// slots that hold an inert message (model.Inert: a response its handler
	// drops, or with Fencing a request its addressee can only refuse) are
	// emptied before the state is looked up. Every violation of an
	// invariant or action property the full search finds, this one finds
	// (docs/correctness.md, "The inert-message reduction"); its counts and
	// depths are those of the quotient, not TLC's. Its counterexamples are
	// behaviours of the spec: the steps that drain each emptied slot are
	// put back. Safety searches only (Run, not RunLive).
	Reduce bool
	// MaxDepth stops the search after that many BFS levels (0: no limit).
	// TLC has no such bound; it is for tests and quick looks.
	MaxDepth int

	// Run only (RunLive keeps its graph in memory): the breadth-first
	// search holds its fingerprints, frontier and parent pointers in
	// MemoryBudget bytes (0: 60% of MachineMemory; no limit when that is
	// unknown), about half for fingerprints, 30% for the frontier and 20%
	// for the parent pointers, and spills what does not fit to files in
	// SpillDir (empty: a temporary directory, made on the first spill and
	// removed at the end). The result is the same whatever the budget.
	// The budget is approximate: the fingerprint set grows by a level's
	// new states before it is flushed, and the successors of the states
	// being expanded come on top.
	SpillDir     string
	MemoryBudget int64
	// CheckpointEvery: with a SpillDir, the search writes a checkpoint
	// there at the end of a level, at most this often (0: every minute;
	// negative: never). Resume continues the search SpillDir's checkpoint
	// records, which must be of the same configuration, invariants,
	// properties and symmetry. A search that finishes removes its
	// checkpoint; one stopped part way (an error, a cancelled context,
	// MaxDepth) keeps it. A SpillDir holding a checkpoint is not started
	// afresh without Resume.
	CheckpointEvery time.Duration
	Resume          bool

	// For tests: the budget's split (overrides MemoryBudget), and a hook
	// called after each level is done (and checkpointed) with the store and
	// the level to expand next.
	split      *memSplit
	afterLevel func(depth int, st *store, next *level)
}

// The engines of Options.Engine.
const (
	EngineAuto     = ""
	EnginePacked   = "packed"
	EngineReadable = "readable"
)

// Result is the outcome of a search.
type Result struct {
	Distinct  int64         // distinct states found (TLC: "distinct states found")
	Generated int64         // states generated (TLC: "states generated")
	Depth     int           // levels of the BFS, the initial state being level 1 (TLC's "depth")
	Queue     int           // states left unexplored when the search stopped
	Duration  time.Duration // wall time
	Complete  bool          // the whole state graph was searched (no violation, no depth limit)
	// Reduced: the search ran under the inert-message reduction
	// (Options.Reduce); Distinct, Generated and Depth are the quotient's.
	Reduced bool
	// Violation is the first violation found, nil if none.
	Violation *Violation
	// MemBytes is what the fingerprint set and the parent pointers held in
	// memory at the end (about 20 bytes a state, unless spilled); the
	// frontier, encoded, comes on top.
	MemBytes int64
	// FrontierBytes is the most the encoded frontier held in memory at once
	// (two levels: the one expanded, or the window of it read back from
	// disk, and the next). MemBytes + FrontierBytes is
	// what the search needs; the Go runtime's garbage collector adds its
	// headroom on top (GOGC).
	FrontierBytes int64
	// SpilledBytes is the most the search held on disk at once (Options.MemoryBudget).
	SpilledBytes int64
	// CollisionProb is the optimistic probability that two distinct states
	// shared a fingerprint, n^2 / 2^65, as TLC reports it.
	CollisionProb float64
}

// Violation is a property that failed, with the shortest trace that shows it.
type Violation struct {
	Property string // the invariant's or action property's name
	Action   bool   // an action property, violated by the last step
	Trace    trace.Trace
	// Lasso: a liveness property, violated by the infinite behaviour that
	// runs Trace and then Trace.Steps[Loop+1:] again and again (the last
	// state equals Steps[Loop]'s; Loop = Len()-1: stuttering there for
	// ever). Instance is the binding of the property's bound variables.
	Lasso    bool
	Loop     int
	Instance string
}

func (v *Violation) String() string {
	kind := "invariant"
	if v.Action {
		kind = "action property"
	}
	if v.Lasso {
		lv := LiveViolation{Property: v.Property, Instance: v.Instance, Trace: v.Trace, Loop: v.Loop}
		return lv.String()
	}
	return fmt.Sprintf("%s %s is violated (trace of %d states)", kind, v.Property, v.Trace.Len())
}

// StatesPerSecond is Distinct / Duration.
func (r *Result) StatesPerSecond() float64 {
	if r.Duration <= 0 {
		return 0
	}
	return float64(r.Distinct) / r.Duration.Seconds()
}
