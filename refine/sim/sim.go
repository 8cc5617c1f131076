// Package sim validates the implementation's deterministic simulation
// (cluster.Simulate) against the model, decision by decision: every event
// a decision causes must be a step the model enables, taken in the order it
// happened, and after the decision the abstraction of the whole cluster —
// logs, epoch caches, HWs, ISRs, the controller, the messages in flight,
// the producer's acknowledgements (the spec's acked) and the records that
// went below a leader's HW (committed) — must equal the model's state, and
// satisfy the invariants the configuration promises. A consumer read is
// checked on the raw Fetch response the broker sent: no record at or above
// the leader's HW at that moment, and each record the one the leader's log
// holds at its offset.
//
// A run that ends in a loss or a divergence is shrunk on the model (steps
// removed while every step stays enabled and the loss or divergence stays)
// and the shrunk steps replayed on the implementation: a stepped trace that
// replays on both.
package sim

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hwepoch/hwepoch/impl/broker"
	"github.com/hwepoch/hwepoch/impl/cluster"
	"github.com/hwepoch/hwepoch/impl/controller"
	"github.com/hwepoch/hwepoch/impl/protocol"
	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/refine"
)

// unbounded is the model's bound where a run has none.
const unbounded = 1 << 30

// ModelConfig is the spec configuration a cluster's settings stand for
// (replicas r1..rN for brokers 1..N; the network is lossy, as the
// simulation loses requests).
func ModelConfig(settings []string) (*model.Config, error) {
	cc := cluster.DefaultConfig("unused")
	if err := cc.SetAll(settings); err != nil {
		return nil, err
	}
	if cc.Brokers > 9 {
		return nil, fmt.Errorf("sim: %d brokers; the model's replica names r1..r9 allow 9", cc.Brokers)
	}
	cfg := &model.Config{
		Truncation: string(cc.Policy), Fencing: cc.Fencing, Acks: cc.Acks.String(),
		MinInsyncReplicas: cc.MinInsyncReplicas, MinIsrGatesHW: cc.MinIsrGatesHW,
		UncleanLeaderElectionEnable: cc.UncleanLeaderElectionEnable, UnflushedLoss: cc.UnflushedLoss,
		LossyNetwork: true, MaxRecords: unbounded, MaxEpoch: unbounded, MaxCrashes: unbounded,
		MaxPartitionEpoch: unbounded,
	}
	for i := 1; i <= cc.Brokers; i++ {
		cfg.Replicas = append(cfg.Replicas, model.Replica(fmt.Sprintf("r%d", i)))
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return cfg, nil
}

// Validator holds a run to the model.
type Validator struct {
	cfg *model.Config
	s   model.State
	// Actions are the model actions taken so far; Steps the cluster's.
	Actions []model.Action
	Steps   []cluster.Step
	// Reads counts the consumer reads checked, Records the records in them.
	Reads, Records int
	// Elections counts the controller's elections by algorithm
	// (controller.ElectionStrategy's names); Kinds the model steps by action.
	Elections map[string]int
	Kinds     map[model.ActionKind]int
	// Unclean counts the spec's unclean elections (UncleanElection): from
	// outside the controller's ISR and not from the ELR.
	Unclean int
	// expected are the invariants checked after every decision: those the
	// configuration promises (refine.ExpectedInvariants).
	expected []string
	mutants  []Mutant
	live     liveTracker
}

// NewValidator starts at the model's initial state.
func NewValidator(cfg *model.Config) *Validator { return newValidator(cfg, nil) }

// newValidator is NewValidator with seeded bugs of the validator itself.
func newValidator(cfg *model.Config, mutants []Mutant) *Validator {
	return &Validator{cfg: cfg, s: model.Init(cfg), expected: refine.ExpectedInvariants(cfg),
		Elections: map[string]int{}, Kinds: map[model.ActionKind]int{}, mutants: mutants, live: newLiveTracker()}
}

// State is the model's state after the steps so far.
func (v *Validator) State() model.State { return v.s }

// Observe checks one decision (cluster.SimConfig.Observe).
func (v *Validator) Observe(st cluster.SimStep) error {
	for _, e := range st.Events {
		step, ok := cluster.StepOf(e)
		if !ok {
			return fmt.Errorf("event %s of broker %d has no spec step (params %v)", e.Action, e.Broker, e.Params)
		}
		a, err := refine.ActionOf(v.cfg, e)
		if err != nil {
			return err
		}
		next, err := model.Apply(v.cfg, v.s, a)
		if err != nil {
			return fmt.Errorf("the implementation took %s, which the model does not enable: %v\nthe model's state:\n%s", step, err, v.render())
		}
		v.countElection(a)
		v.s = next
		v.Kinds[a.Kind]++
		if st, ok := e.Params["strategy"]; ok {
			v.Elections[controller.ElectionStrategy(st).String()]++
		}
		v.Actions = append(v.Actions, a)
		v.Steps = append(v.Steps, step)
	}
	if _, m := refine.CheckSnapshot(v.cfg, st.Snapshot, v.s); m != nil {
		return fmt.Errorf("after %s: %s\n%s", st.Decision, m.What, m.Diff)
	}
	if bad := refine.Violated(v.cfg, v.s, v.expected); len(bad) > 0 && !v.mutant(MutantSkipsInvariants) { // mutant hook: not checked
		return &PromiseError{Decision: st.Decision, Invariants: bad, Config: v.cfg.String()}
	}
	if st.FaultFree {
		v.live.observe(st.Since, len(Stalls(v.cfg, v.s)) > 0)
	}
	if st.Read != nil {
		return v.checkRead(*st.Read)
	}
	return nil
}

// checkRead holds a raw consumer Fetch response to the model's state at
// the moment it was served: a broker that is not the leader refuses it; the
// leader returns only records below its HW, each the one its log holds.
func (v *Validator) checkRead(r cluster.ConsumerRead) error {
	v.Reads++
	i := int(r.Broker) - 1
	if i < 0 || i >= v.cfg.N() {
		return fmt.Errorf("consumer read from broker %d, which plays no replica", r.Broker)
	}
	resp := r.Resp
	if v.s.Role[i] != model.Leader {
		if resp.Error == protocol.None || len(resp.Records) > 0 {
			return fmt.Errorf("consumer read from broker %d, which is %s in the model: answered %s with %d records", r.Broker, v.s.Role[i], resp.Error, len(resp.Records))
		}
		return nil
	}
	hw := int64(v.s.Hw[i])
	log := v.s.Log[i]
	for _, rec := range resp.Records {
		v.Records++
		atHW := rec.Offset == hw && v.mutant(MutantReadAtHW) // mutant hook: a record at the HW passes
		if rec.Offset >= hw && !atHW {
			return fmt.Errorf("consumer read from leader %d at offset %d was served record %d (id %d) at or above the leader's HW %d", r.Broker, r.Offset, rec.Offset, rec.ID, hw)
		}
		if rec.Offset < r.Offset || rec.Offset >= int64(len(log)) || int64(log[rec.Offset].ID) != rec.ID || int32(log[rec.Offset].Epoch) != rec.LeaderEpoch {
			return fmt.Errorf("consumer read from leader %d at offset %d was served record %d (id %d, epoch %d), which is not the leader's record there", r.Broker, r.Offset, rec.Offset, rec.ID, rec.LeaderEpoch)
		}
	}
	if resp.Error == protocol.None && resp.HighWatermark != hw {
		return fmt.Errorf("consumer read from leader %d: answered HW %d, the leader's HW is %d", r.Broker, resp.HighWatermark, hw)
	}
	return nil
}

func (v *Validator) render() string {
	var b strings.Builder
	for i, r := range v.cfg.Replicas {
		fmt.Fprintf(&b, "  %s %s epoch %d leo %d hw %d isr %v\n", r, v.s.Role[i], v.s.LeaderEpoch[i], v.s.LEO(i), v.s.Hw[i], v.s.Isr[i])
	}
	fmt.Fprintf(&b, "  controller %s epoch %d isr %v", v.s.CtrlLeader, v.s.CtrlEpoch, v.s.CtrlIsr)
	return b.String()
}

// countElection counts a as unclean when it is an unclean election from
// the state before it (v.s).
func (v *Validator) countElection(a model.Action) {
	if a.Kind == model.Elect && UncleanElection(v.cfg, &v.s, a.R) {
		v.Unclean++
	}
}

// UncleanElection reports whether the controller electing r in state s
// (before the step) is unclean: r is neither in the controller's ISR nor
// electable from the ELR (model.ElrElectable: with ELR and an empty ISR, an
// ELR member, which Kafka's isValidNewLeader counts clean). The last known
// leader's election (model.LastKnownElectable) is unclean: Kafka's
// canElectLastKnownLeader returns an unclean ElectionResult, and
// controller.EligibleLeaderElection reports it so, whatever
// unclean.leader.election.enable says.
func UncleanElection(cfg *model.Config, s *model.State, r model.Replica) bool {
	return !slices.Contains(s.CtrlIsr, r) && !model.ElrElectable(cfg, s, r)
}

// PromiseError is the model's state breaking an invariant the configuration
// promises, after a decision whose events the model took and whose
// abstraction equals the model's state: the implementation does what the
// spec allows, and the spec allows that. When one of the invariants is a
// loss or a divergence (Safety), the run is a loss, reported, shrunk and
// written like one (Result.Lost), not a departure: seed 6467 of a
// LeaderEpoch campaign once ended so and was counted as an error.
type PromiseError struct {
	Decision   string
	Invariants []string
	Config     string
}

func (e *PromiseError) Error() string {
	return fmt.Sprintf("after %s: the model's state violates %s, which %s promises", e.Decision, strings.Join(e.Invariants, ", "), e.Config)
}

// Loss reports whether a broken promise is a loss or a divergence.
func (e *PromiseError) Loss() bool {
	for _, inv := range e.Invariants {
		if slices.Contains(Safety, inv) {
			return true
		}
	}
	return false
}

// Options are one validated run's.
type Options struct {
	Seed     uint64
	Settings []string
	Events   int
	Dir      string
	Mutants  []broker.Mutant
	// ControllerMutants are seeded controller bugs.
	ControllerMutants []controller.Mutant
	// CheckerMutants are seeded bugs of the validator itself.
	CheckerMutants []Mutant
	// LiveFor is the liveness check's budget of fault-free simulated time
	// after the heal (0: no liveness check; the heal phase ends at
	// convergence).
	LiveFor time.Duration
	// Unvalidated runs the liveness check alone: no decision is held to the
	// model, and the properties are judged on the abstraction of the
	// cluster's end state. A seeded bug that departs from the model is then
	// caught by the liveness check or not at all.
	Unvalidated bool
}

// Result is a validated run.
type Result struct {
	cluster.SimResult
	Config *model.Config
	// Model is the model's state at the end.
	Model     model.State
	Validator *Validator
	// Stalls are the liveness properties that did not progress by the end
	// of the fault-free tail (Options.LiveFor), judged on Model.
	Stalls []Stall
	// StalledAt is the tail time of the last decision after which a
	// property stalled (-1: none), ClearAt that of the first after it from
	// which none did (-1: none); TailDecisions the tail's decisions.
	StalledAt, ClearAt time.Duration
	TailDecisions      int
	mutants            []broker.Mutant // the run's seeded bugs, for its file
}

// Stalled reports a run that ended its fault-free tail with a property
// stalled (and held to the model up to there, or ran unvalidated), other
// than the one stall a loss explains (Excused).
func (r Result) Stalled() bool {
	for _, st := range r.Stalls {
		if !r.Excused(st) {
			return true
		}
	}
	return false
}

// Excused reports the stall a loss explains: ReplicasCatchUp after a run
// lost or diverged. Replicated asks every live ISR member to hold every
// committed record; once one is lost (0.10.2 and 0.11 lose them) no
// replica holds it again, so the property fails for good, and the loss is
// the run's finding, reported as one.
func (r Result) Excused(st Stall) bool {
	return st.Property == "ReplicasCatchUp" && !r.Verdict.OK()
}

// Failed reports a failure of the simulation's checks or a stall.
func (r Result) Failed() bool { return r.SimResult.Failed() || r.Stalled() }

// Status says in one phrase how the run ended: a stall is named before
// "did not converge", which a stalled run often also is.
func (r Result) Status() string {
	if len(r.Stalls) > 0 && r.Err == nil && r.Invalid == nil {
		stall := fmt.Sprintf("%s after %v of fault-free simulated time", StallString(r.Stalls), r.LiveRan)
		if r.LiveRan < r.LiveFor {
			// HealEvents bounds the tail's decisions: a budget it cuts is
			// no budget spent, and the stall may be one of a too short tail.
			stall += fmt.Sprintf(" (cut short of %v by the %d-decision bound of the heal phase)", r.LiveFor, r.HealEvents)
		}
		if !r.Verdict.OK() {
			// The loss is the finding; a ReplicasCatchUp stall follows
			// from it (Excused).
			return r.SimResult.Status() + "; " + stall
		}
		return stall
	}
	return r.SimResult.Status()
}

func (r Result) String() string {
	return fmt.Sprintf("seed %d: %d decisions, %d steps, %d produced, %d acknowledged, %d committed, %d consumer reads, %d faults, %v: %s",
		r.Seed, r.Decisions, len(r.Steps), r.Produced-1, r.Acked, r.Committed, r.Reads, len(r.Faults), r.Took.Round(time.Microsecond), r.Status())
}

// Lost reports a loss or a divergence: the cluster's own verdict at the
// end of a run that held to the model (and converged, or ran its
// liveness tail to the end), or the model's state breaking a promised
// Safety invariant on the way (PromiseError), which the implementation
// then shares.
func (r Result) Lost() bool {
	var pe *PromiseError
	if errors.As(r.Invalid, &pe) {
		return r.Err == nil && pe.Loss()
	}
	return r.Err == nil && r.Invalid == nil && (r.Converged || len(r.Stalls) > 0) && !r.Verdict.OK()
}

// Broken reports an error, a departure from the model or no convergence:
// a failure that is neither a loss nor a stall.
func (r Result) Broken() bool { return r.Failed() && !r.Lost() && !r.StalledOnly() }

// StalledOnly reports a stall of a run that neither erred nor departed
// from the model: a failure of its own kind (a stalled run often did not
// converge either; the stall names why).
func (r Result) StalledOnly() bool { return r.Stalled() && r.Err == nil && r.Invalid == nil }

// Run simulates one seed with every decision validated.
func Run(opt Options) Result { return run(opt, nil) }

// run is Run whose validator holds the model to the invariants promise
// returns instead of those the configuration promises (tests hand it a
// promise a release does not make, to see the validator keep it).
func run(opt Options, promise func(*model.Config) []string) Result {
	settings := append(cluster.DefaultSimSettings(), opt.Settings...)
	cfg, err := ModelConfig(settings)
	if err != nil {
		return Result{SimResult: cluster.SimResult{Seed: opt.Seed, Settings: settings, Err: err}}
	}
	for _, m := range opt.Mutants {
		// A seeded liveness bug is the model's too (same name): the
		// validator holds the implementation to the model with the bug.
		if slices.Contains(model.Mutants, model.Mutant(m)) {
			cfg.Mutant = model.Mutant(m)
		}
	}
	v := newValidator(cfg, opt.CheckerMutants)
	if promise != nil {
		v.expected = promise(cfg)
	}
	observe := v.Observe
	var abstractErr error
	if opt.Unvalidated {
		observe = func(st cluster.SimStep) error {
			if st.FaultFree {
				s, err := refine.Abstract(cfg, st.Snapshot)
				if err != nil {
					abstractErr = fmt.Errorf("after %s: %w", st.Decision, err)
					return abstractErr
				}
				v.s = s
				v.live.observe(st.Since, len(Stalls(cfg, s)) > 0)
			}
			return nil
		}
	}
	r := cluster.Simulate(cluster.SimConfig{Seed: opt.Seed, Settings: opt.Settings, Events: opt.Events, Dir: opt.Dir,
		Mutants: opt.Mutants, ControllerMutants: opt.ControllerMutants, Observe: observe, LiveFor: opt.LiveFor})
	res := Result{SimResult: r, Config: cfg, Model: v.s, Validator: v, StalledAt: v.live.stalledAt, ClearAt: v.live.clearAt,
		TailDecisions: v.live.decisions, mutants: opt.Mutants}
	if opt.Unvalidated {
		res.Validator = nil
		if r.Err == nil && r.Invalid == nil {
			// The state the properties are judged on: the end state's
			// abstraction (the tail's last decision's, when it ran).
			if s, err := refine.Abstract(cfg, r.Final); err != nil {
				res.Invalid = fmt.Errorf("the end state has no model counterpart: %w", err)
			} else {
				res.Model = s
			}
		}
	}
	if opt.LiveFor > 0 && res.Err == nil && res.Invalid == nil {
		res.Stalls = Stalls(cfg, res.Model)
	}
	return res
}
