package packed

import (
	"fmt"
	"sync"

	"github.com/hwepoch/hwepoch/model"
)

// Succ is the successor relation of one configuration: what the actions read
// of cfg and of its release row (cfg.Rel()) decoded once into flags, and the
// successor variable Next writes into (a State on the heap once, not once
// per call). A Succ is for one goroutine at a time and is not reentrant:
// yield must not call Next on the same Succ. It reads cfg when it is made;
// changing cfg later does not change it.
type Succ struct {
	conf
	t State
}

// conf is what the actions read of the configuration.
type conf struct {
	cfg *model.Config
	n   int

	// the release row
	reconcile             reconcile
	cacheAssign           cacheAssign
	restartOnEpoch        bool // RestartFetcherOn = "EpochChange"
	leaderEntryOnBecome   bool // LeaderEntry = "BecomeLeader"
	undefinedToHW         bool // UndefinedTo = "HW"
	asyncIsr              bool
	expandLiveOnly        bool
	expandNeedsEpochStart bool
	staleFetchServed      bool
	isrBrokerEpochs       bool // KIP-903
	elr                   bool // Eligible Leader Replicas (KIP-966)

	// the constants
	fencing, minIsrGatesHW, unclean, unflushed, lossy, missed bool
	acks                                                      acks
	minIsr, maxRecords, maxEpoch, maxCrashes, maxPartEpoch    int
	effMinIsr                                                 int // EffMinIsr

	// cfg.Mutant's hooks
	mutFetcherStops, mutHWNotAdvanced, mutControllerDrops, mutTruncationStuck bool

	bug bug // seededBug when the Succ was made
}

type reconcile uint8

const (
	truncateToHW reconcile = iota
	offsetsForLeaderEpochV0
	offsetsForLeaderEpoch
	divergingEpoch
)

type cacheAssign uint8

const (
	assignNone cacheAssign = iota
	assignGreaterOnly
	assignTruncateAndAppend
)

type acks uint8

const (
	acks0 acks = iota
	acks1
	acksAll
)

// maxBound bounds the configuration's MaxRecords, MaxEpoch, MaxCrashes and
// MaxPartitionEpoch, so that every epoch, offset and id (and partition
// epochs, which grow with all of them) fits an int8.
const maxBound = 30

// NewSucc decodes cfg for Next. It fails when cfg has more than MaxReplicas
// replicas, a truncation policy, acks or mutant the model does not know, or
// a bound above 30.
func NewSucc(cfg *model.Config) (*Succ, error) {
	s := new(Succ)
	if err := s.init(cfg); err != nil {
		return nil, err
	}
	return s, nil
}

// init decodes cfg into s.conf (s.t is scratch and stays as it is).
func (s *Succ) init(cfg *model.Config) error {
	s.conf = conf{cfg: cfg, n: cfg.N()}
	if s.n > MaxReplicas {
		return fmt.Errorf("packed.Next: %d replicas: the packed state holds at most MaxReplicas = %d", s.n, MaxReplicas)
	}
	for _, b := range []struct {
		name string
		v    int
	}{{"MaxRecords", cfg.MaxRecords}, {"MaxEpoch", cfg.MaxEpoch}, {"MaxCrashes", cfg.MaxCrashes}, {"MaxPartitionEpoch", cfg.MaxPartitionEpoch}} {
		if b.v < 0 || b.v > maxBound {
			return fmt.Errorf("packed.Next: %s = %d: the packed state's int8 fields take bounds 0..%d", b.name, b.v, maxBound)
		}
	}
	rel := cfg.Rel()
	switch rel.Reconcile {
	case "TruncateToHW":
		s.reconcile = truncateToHW
	case "OffsetsForLeaderEpochV0":
		s.reconcile = offsetsForLeaderEpochV0
	case "OffsetsForLeaderEpoch":
		s.reconcile = offsetsForLeaderEpoch
	case "DivergingEpoch":
		s.reconcile = divergingEpoch
	default:
		return fmt.Errorf("packed.Next: truncation policy %q: no release row", cfg.Truncation)
	}
	switch rel.CacheAssign {
	case "None":
		s.cacheAssign = assignNone
	case "GreaterOnly":
		s.cacheAssign = assignGreaterOnly
	case "TruncateAndAppend":
		s.cacheAssign = assignTruncateAndAppend
	default:
		return fmt.Errorf("packed.Next: release %s: unknown CacheAssign %q", rel.Release, rel.CacheAssign)
	}
	s.restartOnEpoch = rel.RestartFetcherOn == "EpochChange"
	s.leaderEntryOnBecome = rel.LeaderEntry == "BecomeLeader"
	s.undefinedToHW = rel.UndefinedTo == "HW"
	s.asyncIsr = rel.AsyncIsr
	s.expandLiveOnly = rel.ExpandLiveOnly
	s.expandNeedsEpochStart = rel.ExpandNeedsEpochStart
	s.staleFetchServed = rel.StaleFetchServed
	s.isrBrokerEpochs = rel.IsrBrokerEpochs
	s.elr = rel.Elr

	s.fencing = cfg.Fencing
	s.minIsrGatesHW = cfg.MinIsrGatesHW
	s.unclean = cfg.UncleanLeaderElectionEnable
	s.unflushed = cfg.UnflushedLoss
	s.lossy = cfg.LossyNetwork
	s.missed = cfg.MissedLeaderAndIsr
	switch cfg.Acks {
	case "0":
		s.acks = acks0
	case "1":
		s.acks = acks1
	case "all":
		s.acks = acksAll
	default:
		return fmt.Errorf("packed.Next: Acks = %q: want \"0\", \"1\" or \"all\"", cfg.Acks)
	}
	s.minIsr = cfg.MinInsyncReplicas
	s.effMinIsr = model.EffMinIsr(cfg)
	s.maxRecords, s.maxEpoch, s.maxCrashes, s.maxPartEpoch = cfg.MaxRecords, cfg.MaxEpoch, cfg.MaxCrashes, cfg.MaxPartitionEpoch

	if cfg.Restore != "" {
		// A restored Kafka behaviour (model/restore.go) is checked on the
		// readable engine only: these actions do not have it.
		return fmt.Errorf("packed.Next: restore %s: the packed actions do not put back Kafka behaviours; use the readable engine", cfg.Restore)
	}
	switch cfg.Mutant {
	case "":
	case model.MutantFetcherStopsAfterLoss:
		s.mutFetcherStops = true
	case model.MutantHWNotAdvancedOnFetch:
		s.mutHWNotAdvanced = true
	case model.MutantControllerDropsAlterPartition:
		s.mutControllerDrops = true
	case model.MutantTruncationLoopStuck:
		s.mutTruncationStuck = true
	default:
		return fmt.Errorf("packed.Next: mutant %q: no such seeded bug (known: %v)", cfg.Mutant, model.Mutants)
	}
	s.bug = seededBug
	return nil
}

// bug is a seeded bug of this package's actions (not of the spec: see
// model.Mutant for those). It exists only for the test that proves the
// differential test against the model bites; no code but that test sets it.
type bug uint8

const (
	noBug bug = iota
	bugFetchReadHWPlusOne
	bugShrinkIsrStaleCtrl
	bugElectKeepsPartitionEpoch
	bugCrashKeepsHW
	bugInertAtSameEpoch         // Inert takes a request its addressee still serves (same epoch) as inert
	bugRestartKeepsElr          // Restart leaves the restarted broker in the ELR
	bugExpandIgnoresBrokerEpoch // ExpandIsr skips KIP-903's broker epoch check
	bugElrElectionKeepsElr      // an ELR election leaves the new leader in the ELR
	bugPermuteKeepsBrokerViews  // Permute leaves a leader's views of broker epochs in place
)

// seededBug is the bug a Succ made now carries. Only tests set it.
var seededBug bug

// BoundError is a successor that would not fit the packed state: an array
// of the struct would need more than its maximum (e.g. a controller queue
// longer than MaxQueue). The explorer then has to search on model.State.
type BoundError struct {
	Action model.Action
	Bound  string // the maximum exceeded, e.g. "MaxQueue"
	What   string
}

func (e *BoundError) Error() string {
	return fmt.Sprintf("packed.Next: %s: %s would exceed the packed state's %s", e.Action, e.What, e.Bound)
}

// bound is the panic value of an array about to overflow; Next turns it into
// a *BoundError.
type bound struct{ name, what string }

func overflow(name, what string) { panic(bound{name, what}) }

// fail turns what Next recovered while evaluating binding (k, i, j, keep)
// into its error: a *BoundError, or a *model.EvalError as model.NextPtr
// returns.
func (s *Succ) fail(k model.ActionKind, i, j, keep int, r any) error {
	a := Action(s.cfg, k, i, j, keep)
	if b, ok := r.(bound); ok {
		return &BoundError{Action: a, Bound: b.name, What: b.what}
	}
	return &model.EvalError{Action: a, Cause: r}
}

// Action names binding (i, j, keep) of kind k as the model does (its
// makeAction): one-parameter kinds bind i, the (l, f) kinds i and j, Crash
// i and keep.
func Action(cfg *model.Config, k model.ActionKind, i, j, keep int) model.Action {
	a := model.Action{Kind: k}
	name := func(x int) model.Replica {
		if x >= 0 && x < cfg.N() {
			return cfg.Replicas[x]
		}
		return model.Replica(fmt.Sprintf("#%d", x))
	}
	switch k {
	case model.Elect, model.HandleLeaderAndIsr, model.CheckpointHW, model.Restart, model.MissLeaderAndIsr:
		a.R = name(i)
	case model.Crash:
		a.R, a.Keep = name(i), keep
	case model.Produce, model.HandleAlterPartition, model.HandleAlterPartitionResponse:
		a.L = name(i)
	case model.SendOffsetsForLeaderEpoch, model.HandleOffsetsForLeaderEpochResponse, model.SendFetch,
		model.HandleFetchResponse, model.LoseMessage:
		a.F = name(i)
	case model.HandleOffsetsForLeaderEpoch, model.HandleFetch, model.UpdateFollowerFetchState,
		model.ShrinkIsr, model.ExpandIsr:
		a.L, a.F = name(i), name(j)
	}
	return a
}

// step mirrors the model's step: binding (i, j, keep) of kind k's successor
// of p into t, false (t untouched) when it is not enabled. Every action
// decides whether it is enabled on p before it writes t.
func (s *Succ) step(p *State, k model.ActionKind, i, j, keep int, t *State) bool {
	switch k {
	case model.Elect:
		return s.elect(p, i, t)
	case model.HandleLeaderAndIsr:
		return s.handleLeaderAndIsr(p, i, t)
	case model.Produce:
		return s.produce(p, i, t)
	case model.SendOffsetsForLeaderEpoch:
		return s.sendOffsetsForLeaderEpoch(p, i, t)
	case model.HandleOffsetsForLeaderEpoch:
		return s.handleOffsetsForLeaderEpoch(p, i, j, t)
	case model.HandleOffsetsForLeaderEpochResponse:
		return s.handleOffsetsForLeaderEpochResponse(p, i, t)
	case model.SendFetch:
		return s.sendFetch(p, i, t)
	case model.HandleFetch:
		return s.handleFetch(p, i, j, t)
	case model.UpdateFollowerFetchState:
		return s.updateFollowerFetchState(p, i, j, t)
	case model.HandleFetchResponse:
		return s.handleFetchResponse(p, i, t)
	case model.ShrinkIsr:
		return s.shrinkIsr(p, i, j, t)
	case model.ExpandIsr:
		return s.expandIsr(p, i, j, t)
	case model.HandleAlterPartition:
		return s.handleAlterPartition(p, i, t)
	case model.HandleAlterPartitionResponse:
		return s.handleAlterPartitionResponse(p, i, t)
	case model.CheckpointHW:
		return s.checkpointHW(p, i, t)
	case model.Crash:
		return s.crash(p, i, keep, t)
	case model.Restart:
		return s.restart(p, i, t)
	case model.LoseMessage:
		return s.loseMessage(p, i, t)
	case model.MissLeaderAndIsr:
		return s.missLeaderAndIsr(p, i, t)
	}
	return false
}

// twoParams reports whether kind k is bound over (l, f).
func twoParams(k model.ActionKind) bool {
	switch k {
	case model.HandleOffsetsForLeaderEpoch, model.HandleFetch, model.UpdateFollowerFetchState,
		model.ShrinkIsr, model.ExpandIsr:
		return true
	}
	return false
}

// Next mirrors model.NextPtr on the packed state: it calls yield with every
// enabled binding of the spec's Next and its successor, in exactly
// model.NextPtr's order (kinds in ActionKind order, replicas by index, l
// outermost, Crash's keep 0..MaxRecords), the successor in *t (yield must not
// keep t, which the next binding overwrites). Disabled bindings are skipped;
// a binding whose successor equals p is still yielded. yield returns false to
// stop. It never allocates. A successor that would exceed a fixed-size array
// is a *BoundError, any other evaluation failure a *model.EvalError, both
// naming the binding.
func (s *Succ) Next(p *State, yield func(k model.ActionKind, i, j, keep int, t *State) bool) (err error) {
	var k model.ActionKind
	var i, j, keep int
	defer func() {
		if r := recover(); r != nil {
			err = s.fail(k, i, j, keep, r)
		}
	}()
	t := &s.t
	n := s.n
	for k = model.Elect; k <= model.MissLeaderAndIsr; k++ {
		if !s.mayEnable(p, k) {
			continue
		}
		switch {
		case twoParams(k):
			for i = 0; i < n; i++ {
				if !s.mayEnableAt(p, k, i) {
					continue
				}
				for j = 0; j < n; j++ {
					if s.step(p, k, i, j, 0, t) && !yield(k, i, j, 0, t) {
						return nil
					}
				}
			}
		case k == model.Crash:
			for i = 0; i < n; i++ {
				lo, hi := 0, s.maxRecords
				if !s.unflushed { // only keep = LEO(r) is enabled
					lo, hi = int(p.R[i].LogLen), min(hi, int(p.R[i].LogLen))
				}
				for keep = lo; keep <= hi; keep++ {
					if s.step(p, k, i, 0, keep, t) && !yield(k, i, 0, keep, t) {
						return nil
					}
				}
				keep = 0
			}
		default:
			for i = 0; i < n; i++ {
				if s.step(p, k, i, 0, 0, t) && !yield(k, i, 0, 0, t) {
					return nil
				}
			}
		}
		i, j = 0, 0
	}
	return nil
}

// mayEnable is false when kind k is disabled in p for every binding, by the
// first conjunct its action checks (a shortcut: the action checks again).
func (s *Succ) mayEnable(p *State, k model.ActionKind) bool {
	switch k {
	case model.Elect:
		return int(p.CtrlEpoch) < s.maxEpoch
	case model.Produce:
		return int(p.NextID) <= s.maxRecords
	case model.SendOffsetsForLeaderEpoch:
		return s.reconcile != divergingEpoch
	case model.Crash:
		return int(p.Crashes) < s.maxCrashes
	case model.LoseMessage:
		return s.lossy
	case model.MissLeaderAndIsr:
		return s.missed
	}
	return true
}

// mayEnableAt is false when the (l, f) kind k is disabled in p for l and
// every f, by a conjunct on l alone (a shortcut: the action checks again).
func (s *Succ) mayEnableAt(p *State, k model.ActionKind, l int) bool {
	switch k {
	case model.HandleOffsetsForLeaderEpoch, model.HandleFetch:
		return p.up(l)
	case model.ShrinkIsr, model.ExpandIsr:
		return s.mayChangeIsr(p, l)
	}
	return true
}

// succs holds the Succs Next lends itself, so that a call allocates
// nothing once the pool is warm.
var succs = sync.Pool{New: func() any { return new(Succ) }}

// Next calls yield with every enabled binding of the spec's Next and its
// successor, in exactly model.NextPtr's order (kinds in ActionKind order,
// replicas by index, l outermost, Crash's keep 0..MaxRecords), the successor
// in *t (yield must not keep t). Disabled bindings are skipped; a binding
// whose successor equals p is still yielded. It never allocates (it borrows
// a Succ from a pool; a caller with a loop of its own should hold one from
// NewSucc). A state that would exceed a fixed-size array (e.g. a controller
// queue longer than MaxQueue) is returned as a *BoundError naming the bound,
// any other evaluation failure as a *model.EvalError, as model.NextPtr does.
func Next(cfg *model.Config, p *State, yield func(k model.ActionKind, i, j, keep int, t *State) bool) error {
	s := succs.Get().(*Succ)
	defer succs.Put(s)
	if err := s.init(cfg); err != nil {
		return err
	}
	return s.Next(p, yield)
}
