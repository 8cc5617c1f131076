package cluster

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hwepoch/hwepoch/impl/broker"
	"github.com/hwepoch/hwepoch/impl/controller"
	"github.com/hwepoch/hwepoch/impl/netsim"
	"github.com/hwepoch/hwepoch/impl/protocol"
)

// The deterministic simulation (FoundationDB's simulation, TigerBeetle's
// VOPR): the real brokers, controller, fetchers, producer and storage of a
// stepped cluster, driven by one seeded scheduler over simulated time. At
// each decision the scheduler lists what may happen next — deliver one of
// the messages in flight (in any order: reordering and delay; under
// asynchronous AlterPartition the leader's AlterPartition and the
// controller's answer too), a turn of a
// broker's fetcher loop, the next due timer (ISR expiration, HW checkpoint,
// log flush, the controller's auto leader rebalance), a produce, a consumer
// read, and, in the fault phase, a crash that loses the unflushed tail, a
// restart, a network partition and its heal, a request lost until its
// timeout, an administrator's election — and draws one with the seed's
// random source. Every step settles before the next is drawn, so the run is
// a function of the seed and the settings alone: the same seed gives the
// same event log, byte for byte.
//
// The controller elects with its own algorithms: offline elections when a
// broker fails or starts, preferred elections from the rebalance timer,
// the reassignment algorithm for an administrator's election. A follower
// leaves the ISR when the isr-expiration timer finds it has not caught up
// within replica.lag.time.max.ms of simulated time, and joins it when a
// fetch brings it in sync.
//
// After the fault phase the network heals, every broker restarts, and the
// cluster must take a write again and converge; the run's Verdict then
// judges it as RunChaos's does.

// SimConfig configures one simulation run.
type SimConfig struct {
	Seed uint64
	// Dir is where the run's directory is made ("": /dev/shm if writable,
	// else the system's temporary directory); it is removed at the end.
	Dir string
	// Settings are Config.Set settings, applied over DefaultSimSettings.
	Settings []string
	// Events is the number of decisions of the fault phase (default 400);
	// HealEvents bounds the heal phase (default 4000).
	Events, HealEvents int
	// LiveFor, if positive, makes the heal phase the liveness check's
	// fault-free tail: it runs for LiveFor of simulated time from the heal,
	// converged or not (HealEvents still bounds its decisions), and no live
	// follower leaves the ISR in it (see faultFree). The observer then
	// judges the end state (refine/sim's liveness check). Zero: the heal
	// phase ends at convergence, as before.
	LiveFor time.Duration
	// Mutants are seeded bugs passed to every broker, ControllerMutants
	// to the controller.
	Mutants           []broker.Mutant
	ControllerMutants []controller.Mutant
	// Observe, if set, is called after every decision, with the cluster
	// quiescent: the model validation hooks in here. An error stops the run
	// (SimResult.Invalid).
	Observe func(SimStep) error
}

// DefaultSimSettings is the campaign's cluster: three brokers, acks=all,
// min.insync.replicas=2, LeaderEpoch with fencing, clean elections, auto
// leader rebalance, and timers scaled to the simulated clock.
func DefaultSimSettings() []string {
	return []string{
		"brokers=3", "acks=all", "min.insync.replicas=2", "Truncation=LeaderEpoch", "Fencing=true",
		"unclean.leader.election.enable=false", "UnflushedLoss=false", "LossyNetwork=true",
		"auto.leader.rebalance.enable=true", "leader.imbalance.check.interval.seconds=0.05",
		"replica.lag.time.max.ms=30", "request.timeout.ms=20", "replica.fetch.backoff.ms=2",
		"replica.high.watermark.checkpoint.interval.ms=10", "log.flush.interval.ms=15",
	}
}

// SimStep is one decision and what it caused.
type SimStep struct {
	N        int           // decision number, from 1
	Now      time.Duration // simulated time since the start
	Decision string
	// Events are the cluster's events the decision caused, in order.
	Events []Event
	// Read is the consumer read the decision made, if it was one.
	Read *ConsumerRead
	// Snapshot is the cluster after the decision.
	Snapshot Snapshot
	// FaultFree marks the decisions of the liveness check's fault-free
	// tail (SimConfig.LiveFor); Since is then the simulated time since it
	// began.
	FaultFree bool
	Since     time.Duration
}

// SimResult is a simulation run.
type SimResult struct {
	Seed uint64
	// Settings are every setting of the run, in Config.Set form: with Seed
	// and Events they rebuild it.
	Settings   []string
	Events     int
	HealEvents int
	// LiveFor is the fault-free tail's budget (SimConfig.LiveFor; 0: none);
	// LiveRan how long the tail ran, in simulated time (short of LiveFor
	// only when HealEvents cut it).
	LiveFor, LiveRan time.Duration
	// Log is the event log: per decision, the time, the decision, the
	// events it caused, then one dense status line per broker.
	Log []string
	// Steps are the run's events as stepped-API steps, in order: a stepped
	// replay of the run (Replay).
	Steps []Step
	// Faults is the fault schedule (crashes, restarts, partitions, heals,
	// lost requests, elections asked for).
	Faults    []string
	Decisions int
	Produced  int64
	Acked     int
	Committed int
	Reads     int
	Final     Snapshot
	Converged bool
	Verdict   Verdict
	// Err is an error of the run itself (a broker's internal error, a step
	// that did not settle); Invalid the observer's objection, at decision
	// InvalidAt.
	Err       error
	Invalid   error
	InvalidAt int
	Took      time.Duration
}

// Hash is the SHA-256 of the event log.
func (r SimResult) Hash() string {
	h := sha256.New()
	for _, l := range r.Log {
		h.Write([]byte(l))
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Failed reports an error, an objection of the observer, no convergence,
// or a loss or divergence.
func (r SimResult) Failed() bool {
	return r.Err != nil || r.Invalid != nil || !r.Converged || !r.Verdict.OK()
}

// Status says in one phrase how the run ended.
func (r SimResult) Status() string {
	switch {
	case r.Err != nil:
		return "error: " + r.Err.Error()
	case r.Invalid != nil:
		return fmt.Sprintf("invalid at decision %d: %v", r.InvalidAt, r.Invalid)
	case !r.Converged:
		return "did not converge"
	}
	return r.Verdict.String()
}

func (r SimResult) String() string {
	return fmt.Sprintf("seed %d: %d decisions, %d steps, %d produced, %d acknowledged, %d committed, %d consumer reads, %d faults, %v: %s",
		r.Seed, r.Decisions, len(r.Steps), r.Produced-1, r.Acked, r.Committed, r.Reads, len(r.Faults), r.Took.Round(time.Microsecond), r.Status())
}

// simRoot is where a run's directory goes when the caller names none:
// /dev/shm when it is a writable directory (the brokers fsync as Kafka does,
// which costs nothing there; the crashes are simulated in the process, so
// nothing the run sees changes), else the system's temporary directory.
func simRoot(dir string) string {
	if dir != "" {
		return dir
	}
	const shm = "/dev/shm"
	if f, err := os.CreateTemp(shm, "hwepoch-probe-"); err == nil {
		f.Close()
		os.Remove(f.Name())
		return shm
	}
	return ""
}

// simEpoch is the simulated clock's zero: fixed, so timestamps are too.
var simEpoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// simTimer is a periodic timer on the simulated clock: a broker's (id > 0)
// or the controller's (id 0).
type simTimer struct {
	due, every time.Duration
	broker     int32
	kind       broker.Timer // "" is the controller's rebalance
}

func (t simTimer) String() string {
	if t.broker == 0 {
		return "controller auto-leader-rebalance"
	}
	return fmt.Sprintf("broker %d %s", t.broker, t.kind)
}

// simulator is one run's scheduler.
type simulator struct {
	sc       SimConfig
	cfg      Config
	c        *Cluster
	rng      *rand.Rand
	now      atomic.Int64 // simulated nanoseconds since simEpoch
	mu       sync.Mutex
	events   []Event
	timers   []*simTimer
	isolated map[int32]bool
	res      *SimResult
	// healed: the fault phase is over; reacked: since then the cluster
	// has acknowledged a write.
	healed, reacked bool
	// faultFree: the liveness check's tail runs, from healedAt.
	faultFree   bool
	healedAt    time.Duration
	ackedAtHeal int
	snap        Snapshot      // after the last decision
	read        *ConsumerRead // the consumer read of the decision running
}

// option is one thing that may happen next.
type option struct {
	weight int
	run    func() (string, error)
}

// Simulate runs one seed.
func Simulate(sc SimConfig) (res SimResult) {
	start := time.Now()
	if sc.Events <= 0 {
		sc.Events = 400
	}
	if sc.HealEvents <= 0 {
		sc.HealEvents = 4000
	}
	settings := append(DefaultSimSettings(), sc.Settings...)
	res = SimResult{Seed: sc.Seed, Settings: settings, Events: sc.Events, HealEvents: sc.HealEvents, LiveFor: max(sc.LiveFor, 0)}
	defer func() { res.Took = time.Since(start) }()
	dir, err := os.MkdirTemp(simRoot(sc.Dir), fmt.Sprintf("sim-%d-", sc.Seed))
	if err != nil {
		res.Err = err
		return res
	}
	defer os.RemoveAll(dir)
	s := &simulator{sc: sc, rng: rand.New(rand.NewPCG(sc.Seed, 0x51a1)), isolated: map[int32]bool{}, res: &res}
	cfg := DefaultConfig(dir)
	if err := cfg.SetAll(settings); err != nil {
		res.Err = err
		return res
	}
	cfg.Mode = Stepped
	cfg.Simulated = true
	cfg.Seed = sc.Seed
	cfg.Mutants = sc.Mutants
	cfg.ControllerMutants = sc.ControllerMutants
	cfg.Now = func() time.Time { return simEpoch.Add(time.Duration(s.now.Load())) }
	cfg.Hook = func(e Event) {
		s.mu.Lock()
		s.events = append(s.events, e)
		s.mu.Unlock()
	}
	s.cfg = cfg
	c, err := New(cfg)
	if err != nil {
		res.Err = err
		return res
	}
	defer c.Close()
	s.c = c
	s.startTimers()
	// The first election happened in New: it is decision 0.
	if !s.record(0, "start: the controller elects", nil) {
		return res
	}
	n := 1
	for ; n <= sc.Events; n++ {
		opts, faults := s.chaosOptions()
		if len(faults) > 0 && s.rng.IntN(100) < faultPercent {
			opts = faults
		}
		if !s.decide(n, opts) {
			return res
		}
	}
	for _, d := range s.healDecisions() {
		if !s.decide(n, []option{{1, d}}) {
			return res
		}
		n++
	}
	if sc.LiveFor > 0 {
		s.faultFree, s.healedAt = true, time.Duration(s.now.Load())
	}
	for last := n + sc.HealEvents; n < last; n++ {
		if !s.decide(n, s.healOptions()) {
			return res
		}
		if s.reacked && Converged(s.lastSnapshot()) {
			res.Converged = true
			if !s.faultFree {
				break
			}
		}
		if s.faultFree && s.since() >= sc.LiveFor {
			break
		}
	}
	if s.faultFree {
		res.LiveRan = s.since()
	}
	s.finish()
	return res
}

// since is the simulated time since the fault-free tail began.
func (s *simulator) since() time.Duration { return time.Duration(s.now.Load()) - s.healedAt }

func (s *simulator) lastSnapshot() Snapshot { return s.snap }

// decide draws one option, runs it, and records it; false stops the run.
func (s *simulator) decide(n int, opts []option) bool {
	total := 0
	for _, o := range opts {
		total += o.weight
	}
	if total == 0 {
		// Nothing may happen but time passing: the next timer fires.
		opts = []option{{1, s.fireNextTimer}}
		total = 1
	}
	k := s.rng.IntN(total)
	var pick option
	for _, o := range opts {
		if k < o.weight {
			pick = o
			break
		}
		k -= o.weight
	}
	// Time passes between two decisions: up to 200µs of latency.
	s.advance(time.Duration(s.rng.Int64N(int64(200 * time.Microsecond))))
	desc, err := pick.run()
	if err != nil {
		s.res.Err = fmt.Errorf("decision %d (%s): %w", n, desc, err)
		s.res.Decisions = n
		s.finish()
		return false
	}
	return s.record(n, desc, s.read)
}

// finish judges the cluster's state at the end of the run.
func (s *simulator) finish() {
	s.res.Final = s.c.Snapshot()
	s.res.Verdict = Check(s.res.Final)
	s.res.Produced = s.res.Final.Producer.NextID
	s.res.Acked = len(s.res.Final.Producer.Acked)
	s.res.Committed = len(s.res.Final.Committed)
}

// record logs decision n with the events it caused and the brokers'
// status, hands it to the observer, and reports whether to go on.
func (s *simulator) record(n int, desc string, read *ConsumerRead) bool {
	s.read = nil
	s.mu.Lock()
	evs := s.events
	s.events = nil
	s.mu.Unlock()
	st := SimStep{N: n, Now: time.Duration(s.now.Load()), Decision: desc, Events: evs, Read: read, FaultFree: s.faultFree}
	if s.faultFree {
		st.Since = s.since()
	}
	var names []string
	for _, e := range evs {
		if step, ok := StepOf(e); ok {
			s.res.Steps = append(s.res.Steps, step)
			names = append(names, step.String())
		}
	}
	line := fmt.Sprintf("%5d %9.3fms %s", n, float64(st.Now)/float64(time.Millisecond), desc)
	if len(names) > 0 {
		line += " => " + strings.Join(names, ", ")
	}
	s.res.Log = append(s.res.Log, line)
	s.snap = s.c.Snapshot()
	st.Snapshot = s.snap
	s.res.Log = append(s.res.Log, statusLines(s.snap)...)
	s.res.Decisions = n
	if s.healed && len(s.snap.Producer.Acked) > s.ackedAtHeal {
		s.reacked = true
	}
	if err := s.c.Err(); err != nil {
		s.res.Err = fmt.Errorf("decision %d (%s): %w", n, desc, err)
		s.finish()
		return false
	}
	if s.sc.Observe != nil {
		if err := s.sc.Observe(st); err != nil {
			s.res.Invalid, s.res.InvalidAt = err, n
			s.finish()
			return false
		}
	}
	return true
}

// statusLines are the brokers' dense status lines, then the controller's.
func statusLines(snap Snapshot) []string {
	var out []string
	for _, b := range snap.Brokers {
		p := b.Partition
		role := "down"
		if b.Alive {
			role = p.Role
		}
		out = append(out, fmt.Sprintf("      b%d %-8s e%-3d leo %-4d hw %-4d ckpt %-4d isr %v fetch %s cache %v",
			b.ID, role, p.LeaderEpoch, p.LEO, p.HW, p.HWCheckpoint, p.Isr, p.FetchState, p.EpochCache))
	}
	ctl := snap.Controller
	// The ELR and the last known leader only when there are some (never
	// without ELR), so that the other releases' logs, and their hashes,
	// stay as they were.
	var elr string
	if len(ctl.Elr) > 0 || len(ctl.LastKnownElr) > 0 {
		elr = fmt.Sprintf(" elr %v last known leader %v", ctl.Elr, ctl.LastKnownElr)
	}
	out = append(out, fmt.Sprintf("      controller leader %d epoch %d isr %v%s offline %t; producer next %d acked %d; committed %d",
		ctl.Leader, ctl.Epoch, ctl.Isr, elr, ctl.OfflinePartition, snap.Producer.NextID, len(snap.Producer.Acked), len(snap.Committed)))
	return out
}

func (s *simulator) advance(d time.Duration) {
	if d > 0 {
		s.now.Add(int64(d))
	}
}

func (s *simulator) advanceTo(t time.Duration) {
	if cur := time.Duration(s.now.Load()); t > cur {
		s.now.Store(int64(t))
	}
}

// startTimers schedules every broker's timers and the controller's.
func (s *simulator) startTimers() {
	t := s.cfg.Timing
	for _, id := range s.c.BrokerIDs() {
		add := func(kind broker.Timer, every time.Duration) {
			if every > 0 {
				// Brokers start their timers at different phases.
				phase := time.Duration(s.rng.Int64N(int64(every)))
				s.timers = append(s.timers, &simTimer{due: every + phase, every: every, broker: id, kind: kind})
			}
		}
		add(broker.TimerIsrExpiration, max(t.ReplicaLagTimeMax/2, time.Millisecond))
		add(broker.TimerHWCheckpoint, t.HighWatermarkCheckpointInterval)
		add(broker.TimerLogFlush, t.LogFlushInterval)
	}
	if s.cfg.AutoLeaderRebalanceEnable && t.LeaderImbalanceCheckInterval > 0 {
		s.timers = append(s.timers, &simTimer{due: t.LeaderImbalanceCheckInterval, every: t.LeaderImbalanceCheckInterval})
	}
}

// fireNextTimer moves the clock to the earliest due timer and fires it.
func (s *simulator) fireNextTimer() (string, error) {
	if len(s.timers) == 0 {
		return "no timer", nil
	}
	next := s.timers[0]
	for _, t := range s.timers[1:] {
		if t.due < next.due || (t.due == next.due && (t.broker < next.broker || (t.broker == next.broker && t.kind < next.kind))) {
			next = t
		}
	}
	s.advanceTo(next.due)
	next.due += next.every
	desc := "timer " + next.String()
	if next.broker == 0 {
		// The rebalance check runs the controller's preferred elections.
		// Deviation, so that each election is one spec Elect: the check is
		// skipped while a dead broker is in the ISR (Kafka's preferred
		// election keeps the ISR as it is, the spec's Elect drops dead
		// members).
		if s.deadInIsr() {
			return desc + ": skipped, a dead broker is in the ISR", nil
		}
		return desc, s.c.RebalanceLeaders()
	}
	if !s.c.Alive(next.broker) {
		return desc + ": broker down", nil
	}
	if s.faultFree && next.kind == broker.TimerIsrExpiration && !s.deadInIsr() {
		// The spec's fault-free suffix (FaultsStop) has no ShrinkIsr of a
		// live follower: in the spec that is time, abstracted, and has no
		// fairness; only ShrinkDead does. Every broker runs after the heal,
		// so the tail's ISR-expiration check would only ever take out a
		// live follower that lags, which hides a follower that has stopped
		// replicating (fetcher-stops-after-loss) instead of showing it.
		return desc + ": skipped, the fault-free tail shrinks no live follower", nil
	}
	return desc, s.c.FireTimer(next.broker, next.kind)
}

func (s *simulator) deadInIsr() bool {
	st, ok := s.c.ctrl.partition(s.c.focus)
	if !ok {
		return false
	}
	for _, id := range st.Isr {
		if !s.c.Alive(int32(id)) {
			return true
		}
	}
	return false
}

// benign are the options of both phases: deliveries, fetcher turns,
// timers, produces and consumer reads.
func (s *simulator) benign(produce bool) []option {
	var opts []option
	for _, m := range s.c.net.InFlight() {
		if step, ok := s.deliveryStep(m); ok {
			opts = append(opts, option{10, func() (string, error) { return s.apply(step, "deliver") }})
		}
	}
	for _, id := range s.c.BrokerIDs() {
		b, err := s.c.broker(id)
		if err != nil {
			continue
		}
		if _, wm, ok := s.c.fetcherMessage(id, ""); ok && wm.Orphan {
			// A fetch the broker sent before its last crash is still in
			// flight (the spec's orphan, KIP-903): it holds the spec's one
			// fetcher slot of the broker until it is served or lost, so the
			// new incarnation's fetcher waits. Kafka's would send at once;
			// the spec cannot have two requests of one follower in flight.
			continue
		}
		if b.FetcherReady() {
			opts = append(opts, option{6, func() (string, error) {
				return fmt.Sprintf("broker %d fetcher turn", id), s.c.FireTimer(id, broker.TimerFetcher)
			}})
		} else if until, ok := b.FetcherBackoff(); ok {
			opts = append(opts, option{2, func() (string, error) {
				s.advanceTo(time.Duration(until - simEpoch.UnixNano()))
				return fmt.Sprintf("broker %d fetcher turn after its backoff", id), s.c.FireTimer(id, broker.TimerFetcher)
			}})
		}
	}
	opts = append(opts, option{6, s.fireNextTimer})
	if produce {
		opts = append(opts, option{8, s.produce})
	}
	opts = append(opts, option{2, s.consumerRead})
	return opts
}

// deliveryStep is the stepped step that delivers in-flight message m, if
// it may be delivered now (its receiver runs and no partition cuts it).
func (s *simulator) deliveryStep(m netsim.Message) (Step, bool) {
	if _, ok := m.Payload.(protocol.LeaderAndIsrRequest); ok {
		r, ok := brokerOfNode(m.To)
		if !ok || !s.c.Alive(r) || s.isolated[r] {
			return Step{}, false
		}
		return S(broker.ActHandleLeaderAndIsr, int64(r)), true
	}
	switch p := m.Payload.(type) {
	case protocol.AlterPartitionRequest:
		// Under asynchronous AlterPartition (3.9) the request and its
		// answer are in flight between steps: the controller's decision
		// and the leader's applying of it are steps of their own. Lost
		// only with the leader's crash, otherwise only delayed
		// (AlterPartitionManager resends until it gets an answer; the
		// spec's LoseMessage is the fetchers' only): a partitioned
		// leader's request waits for the heal.
		l, ok := brokerOfNode(m.From)
		if !ok || p.Partition != s.c.focus || !s.c.Alive(l) || s.isolated[l] {
			return Step{}, false
		}
		return S(ActHandleAlterPartition, int64(l)), true
	case protocol.AlterPartitionResponse:
		l, ok := brokerOfNode(m.To)
		if !ok || p.Partition != s.c.focus || !s.c.Alive(l) || s.isolated[l] {
			return Step{}, false
		}
		return S(broker.ActHandleAlterPartitionResponse, int64(l)), true
	}
	wm, ok := s.c.wireMessage(m)
	if !ok || !s.c.Alive(wm.Dst) || s.isolated[wm.Src] || s.isolated[wm.Dst] {
		return Step{}, false
	}
	switch wm.Type {
	case MsgFetch:
		return S(broker.ActHandleFetch, int64(wm.Dst), int64(wm.Src)), true
	case MsgOffsetsForLeaderEpoch:
		return S(broker.ActHandleOffsetsForLeaderEpoch, int64(wm.Dst), int64(wm.Src)), true
	case MsgFetchResponse:
		return S(broker.ActHandleFetchResponse, int64(wm.Dst)), true
	case MsgOffsetsForLeaderEpochResponse:
		return S(broker.ActHandleOffsetsForLeaderEpochResponse, int64(wm.Dst)), true
	}
	return Step{}, false
}

// apply performs a stepped step; a refusal is an outcome, not an error,
// but a step that does not settle is.
func (s *simulator) apply(step Step, verb string) (string, error) {
	desc := verb + " " + step.String()
	if err := s.c.Apply(step); err != nil {
		if isStuck(err) {
			return desc, err
		}
		return desc + ": refused: " + err.Error(), nil
	}
	return desc, nil
}

func isStuck(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "did not settle") || strings.Contains(msg, "not settling") || strings.Contains(msg, "closed")
}

// leader is the controller's leader of the focus partition, if it runs.
func (s *simulator) leader() (int32, bool) {
	st, ok := s.c.ctrl.partition(s.c.focus)
	if !ok || st.Leader < 0 || !s.c.Alive(int32(st.Leader)) {
		return 0, false
	}
	return int32(st.Leader), true
}

func (s *simulator) produce() (string, error) {
	l, ok := s.leader()
	if !ok {
		return "produce: no leader", nil
	}
	return s.apply(S(broker.ActProduce, int64(l)), "produce")
}

// consumerRead reads the leader's log as a consumer, from a random offset
// at or below its LEO.
func (s *simulator) consumerRead() (string, error) {
	l, ok := s.leader()
	if !ok {
		return "consumer read: no leader", nil
	}
	var leo int64
	if b, err := s.c.broker(l); err == nil {
		if p, ok := b.Partition(s.c.focus); ok {
			leo = p.State().LEO
		}
	}
	off := s.rng.Int64N(leo + 1)
	r, err := s.c.ReadAsConsumer(l, off)
	desc := fmt.Sprintf("consumer read from %d at %d", l, off)
	if err != nil {
		if isStuck(err) {
			return desc, err
		}
		return desc + ": " + err.Error(), nil
	}
	s.read = &r
	s.res.Reads++
	return fmt.Sprintf("%s: %s, hw %d, %d records", desc, r.Resp.Error, r.Resp.HighWatermark, len(r.Resp.Records)), nil
}

// faultPercent is the chance that a decision of the fault phase is a fault:
// rare enough that the cluster makes progress between two of them (a
// restarted broker needs a few dozen steps to catch up and rejoin the ISR).
const faultPercent = 5

// chaosOptions are the fault phase's options: the benign ones, and the
// faults, one of which is drawn at a decision with chance faultPercent.
func (s *simulator) chaosOptions() (benign, faults []option) {
	benign = s.benign(true)
	live, dead := s.c.LiveAndDead()
	fault := func(w int, f func() (string, error)) {
		faults = append(faults, option{w, func() (string, error) {
			desc, err := f()
			s.res.Faults = append(s.res.Faults, fmt.Sprintf("%9.3fms %s", float64(s.now.Load())/1e6, desc))
			return desc, err
		}})
	}
	if len(live) > 1 {
		fault(3, func() (string, error) {
			r := live[s.rng.IntN(len(live))]
			return s.apply2(fmt.Sprintf("crash %d", r), s.c.CrashLoseUnflushed(r))
		})
	}
	if len(dead) > 0 {
		fault(4, func() (string, error) {
			r := dead[s.rng.IntN(len(dead))]
			return s.apply(S(ActRestart, int64(r)), "restart")
		})
	}
	if len(live) > 0 {
		fault(3, func() (string, error) {
			r := live[s.rng.IntN(len(live))]
			return s.apply(S(ActElect, int64(r)), "administrator elects")
		})
	}
	fault(1, func() (string, error) {
		ids := s.c.BrokerIDs()
		r := ids[s.rng.IntN(len(ids))]
		s.isolated[r] = true
		return fmt.Sprintf("partition broker %d from the other brokers and the controller", r), nil
	})
	if len(s.isolated) > 0 {
		fault(2, func() (string, error) {
			clear(s.isolated)
			return "heal the network", nil
		})
	}
	for _, f := range live {
		m, wm, ok := s.c.fetcherMessage(f, "")
		if !ok {
			continue
		}
		lose := func() (string, error) {
			s.advance(s.cfg.Timing.RequestTimeout)
			return s.apply(S(broker.ActLoseMessage, int64(f)), fmt.Sprintf("%s of broker %d lost, its request times out:", wm.Type, f))
		}
		if _, deliverable := s.deliveryStep(m); deliverable {
			fault(1, lose) // dropped
		} else {
			benign = append(benign, option{10, lose}) // cut off: it can only time out
		}
	}
	return benign, faults
}

func (s *simulator) apply2(desc string, err error) (string, error) {
	if err != nil {
		if isStuck(err) {
			return desc, err
		}
		return desc + ": refused: " + err.Error(), nil
	}
	return desc, nil
}

// healDecisions end the fault phase: the network heals and every broker
// restarts.
func (s *simulator) healDecisions() []func() (string, error) {
	out := []func() (string, error){func() (string, error) {
		clear(s.isolated)
		s.healed = true
		s.ackedAtHeal = len(s.snap.Producer.Acked)
		return "heal: the network heals", nil
	}}
	_, dead := s.c.LiveAndDead()
	for _, r := range dead {
		out = append(out, func() (string, error) { return s.apply(S(ActRestart, int64(r)), "heal: restart") })
	}
	return out
}

// healOptions: the benign options, producing until the healed cluster has
// acknowledged a write, one request at a time.
func (s *simulator) healOptions() []option {
	return s.benign(!s.reacked && s.c.producer.Pending() == 0)
}

// SimSteps renders steps one per line (for logs and reports).
func SimSteps(steps []Step) string {
	var b strings.Builder
	for i, st := range steps {
		fmt.Fprintf(&b, "%4d %s\n", i+1, st)
	}
	return b.String()
}
