package cluster

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/hwepoch/hwepoch/impl/broker"
	"github.com/hwepoch/hwepoch/impl/netsim"
	"github.com/hwepoch/hwepoch/impl/protocol"
	"github.com/hwepoch/hwepoch/impl/storage"
)

// ChaosConfig is one free-running chaos run.
type ChaosConfig struct {
	Seed    uint64
	Dir     string // a fresh directory for the run
	Brokers int
	Policy  storage.Policy
	// Settings are extra key=value settings (Config.Set), applied last.
	Settings []string
	// Acks, MinInsyncReplicas, UncleanLeaderElectionEnable, UnflushedLoss
	// and Fencing as in Config.
	Acks                        protocol.Acks
	MinInsyncReplicas           int
	UncleanLeaderElectionEnable bool
	UnflushedLoss               bool
	Fencing                     bool
	// MinIsrGatesHW as in Config (the release's value unless ablated).
	MinIsrGatesHW bool
	// Mutants are seeded bugs (Config.Mutants), for the mutation check only.
	Mutants []broker.Mutant
	// Duration of the chaos phase; Interval the mean time between two
	// chaos actions.
	Duration time.Duration
	Interval time.Duration
	// Faults of the network (drops, delays); keep delays well below the
	// request timeout.
	Faults netsim.FaultConfig
	// Producers is the number of goroutines producing.
	Producers int
	// SettleTimeout bounds the wait for convergence after healing.
	SettleTimeout time.Duration
}

// ReplaySettings are the settings that rebuild this run's cluster in
// stepped mode (Replay, WriteSteps).
func (cc ChaosConfig) ReplaySettings() []string {
	out := []string{
		"brokers=" + fmt.Sprint(cc.Brokers),
		"Truncation=" + string(cc.Policy),
		"Fencing=" + fmt.Sprint(cc.Fencing),
		"MinIsrGatesHW=" + fmt.Sprint(cc.MinIsrGatesHW),
		"acks=" + cc.Acks.String(),
		"min.insync.replicas=" + fmt.Sprint(cc.MinInsyncReplicas),
		"unclean.leader.election.enable=" + fmt.Sprint(cc.UncleanLeaderElectionEnable),
		"UnflushedLoss=" + fmt.Sprint(cc.UnflushedLoss),
		"LossyNetwork=true",
	}
	return out
}

// DefaultChaos is the campaign's configuration: RF=3, acks=all,
// min.insync.replicas=2, clean elections, fencing, LeaderEpoch.
func DefaultChaos(dir string, seed uint64) ChaosConfig {
	return ChaosConfig{
		Seed:              seed,
		Dir:               dir,
		Brokers:           3,
		Policy:            storage.LeaderEpoch,
		Acks:              protocol.AcksAll,
		MinInsyncReplicas: 2,
		Fencing:           true,
		Duration:          time.Second,
		Interval:          10 * time.Millisecond,
		Faults:            netsim.FaultConfig{DropRate: 0.01, DelayRate: 0.3, MaxDelay: 2 * time.Millisecond},
		Producers:         2,
		SettleTimeout:     20 * time.Second,
		Settings: []string{"replica.lag.time.max.ms=60", "request.timeout.ms=50",
			"replica.fetch.backoff.ms=2", "replica.fetch.wait.max.ms=1"},
	}
}

// ChaosResult is what a run found.
type ChaosResult struct {
	Seed      uint64
	Policy    storage.Policy
	Produced  int64 // ids handed out
	Acked     int
	Committed int
	Actions   []string // the chaos schedule, in order
	Converged bool
	Verdict   Verdict
	// Steps are the run's events as spec steps in the order they happened:
	// a stepped replay of the run (Replay).
	Steps []Step
	Err   error
	Final Snapshot
	Took  time.Duration
}

// Failed reports a loss, a divergence, no convergence, or an error.
func (r ChaosResult) Failed() bool { return r.Err != nil || !r.Converged || !r.Verdict.OK() }

func (r ChaosResult) String() string {
	status := "ok"
	switch {
	case r.Err != nil:
		status = "error: " + r.Err.Error()
	case !r.Converged:
		status = "did not converge"
	case !r.Verdict.OK():
		status = r.Verdict.String()
	}
	return fmt.Sprintf("seed %d %s: %d produced, %d acknowledged, %d committed, %d chaos actions, %d events, %v: %s",
		r.Seed, r.Policy, r.Produced-1, r.Acked, r.Committed, len(r.Actions), len(r.Steps), r.Took.Round(time.Millisecond), status)
}

// recorder keeps every event of a run.
type recorder struct {
	mu     sync.Mutex
	events []Event
}

func (r *recorder) hook(e Event) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
}

// steps orders the events by their sequence number (real-time order, so
// causal order, with crashes in their place) and turns them into spec
// steps.
func (r *recorder) steps() []Step {
	r.mu.Lock()
	evs := slices.Clone(r.events)
	r.mu.Unlock()
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].Seq < evs[j].Seq })
	out := make([]Step, 0, len(evs))
	for _, e := range evs {
		if s, ok := StepOf(e); ok {
			out = append(out, s)
		}
	}
	return out
}

// argNames is each action's parameters in the spec's order.
var argNames = map[string][]string{
	ActElect: {"r"}, "HandleLeaderAndIsr": {"r"}, "Produce": {"l"},
	"SendOffsetsForLeaderEpoch": {"f"}, "HandleOffsetsForLeaderEpoch": {"l", "f"},
	"HandleOffsetsForLeaderEpochResponse": {"f"}, "SendFetch": {"f"}, "HandleFetch": {"l", "f"},
	"UpdateFollowerFetchState": {"l", "f"},
	"HandleFetchResponse":      {"f"}, "ShrinkIsr": {"l", "f"}, "ExpandIsr": {"l", "f"},
	ActHandleAlterPartition: {"l"}, "HandleAlterPartitionResponse": {"l"},
	"CheckpointHW": {"r"}, ActCrash: {"r", "keep"}, ActRestart: {"r"}, "LoseMessage": {"f"},
	ActMissLeaderAndIsr: {"r"},
}

// StepOf turns an event into the step that replays it.
func StepOf(e Event) (Step, bool) {
	names, ok := argNames[e.Action]
	if !ok {
		return Step{}, false
	}
	s := Step{Action: e.Action}
	for _, n := range names {
		v, ok := e.Params[n]
		if !ok {
			return Step{}, false
		}
		s.Args = append(s.Args, v)
	}
	return s, true
}

// RunChaos runs one seed: a free cluster under producers and random
// crashes, restarts, partitions, clean elections, drops and delays; then
// heals, restarts everything, waits for convergence and checks.
func RunChaos(cc ChaosConfig) (res ChaosResult) {
	start := time.Now()
	res = ChaosResult{Seed: cc.Seed, Policy: cc.Policy}
	defer func() { res.Took = time.Since(start) }()
	rec := &recorder{}
	cfg := DefaultConfig(cc.Dir)
	cfg.Mode = Free
	cfg.Brokers = cc.Brokers
	cfg.Policy = cc.Policy
	cfg.Fencing = cc.Fencing
	cfg.MinIsrGatesHW = cc.MinIsrGatesHW
	cfg.Mutants = cc.Mutants
	cfg.Acks = cc.Acks
	cfg.MinInsyncReplicas = cc.MinInsyncReplicas
	cfg.UncleanLeaderElectionEnable = cc.UncleanLeaderElectionEnable
	cfg.UnflushedLoss = cc.UnflushedLoss
	cfg.LossyNetwork = cc.Faults.DropRate > 0
	cfg.Seed = cc.Seed
	cfg.Faults = cc.Faults
	cfg.Hook = rec.hook
	if err := cfg.SetAll(cc.Settings); err != nil {
		res.Err = err
		return res
	}
	c, err := New(cfg)
	if err != nil {
		res.Err = err
		return res
	}
	defer c.Close()

	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range max(cc.Producers, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				r, err := c.producer.Produce(ctx, c.focus)
				if err == nil && !r.Acked() {
					time.Sleep(time.Millisecond)
				}
			}
		}()
	}
	rng := rand.New(rand.NewPCG(cc.Seed, 0x5eed))
	deadline := time.Now().Add(cc.Duration)
	for time.Now().Before(deadline) {
		time.Sleep(time.Duration(rng.Int64N(int64(2*cc.Interval)) + 1))
		if a := c.chaosAction(rng, cfg.UncleanLeaderElectionEnable); a != "" {
			res.Actions = append(res.Actions, fmt.Sprintf("%6.1fms %s", float64(time.Since(start).Microseconds())/1000, a))
		}
	}
	stop()
	wg.Wait()

	// Heal: the network, then every broker.
	c.net.Heal()
	for _, id := range c.BrokerIDs() {
		if !c.Alive(id) {
			if err := c.Restart(id); err != nil {
				res.Err = err
			}
			res.Actions = append(res.Actions, fmt.Sprintf("heal: restart %d", id))
		}
	}
	// The healed network is reliable again, and the healed cluster must take
	// a write again: this makes every run's loss check non-vacuous however
	// few records the chaos phase let through (a loaded machine lets few),
	// and it is a liveness check of its own.
	if err := c.net.SetFaults(netsim.FaultConfig{}); err != nil && res.Err == nil {
		res.Err = err
	}
	until := time.Now().Add(cc.SettleTimeout)
	pctx, cancel := context.WithDeadline(context.Background(), until)
	for pctx.Err() == nil {
		if r, err := c.producer.Produce(pctx, c.focus); err == nil && r.Acked() {
			break
		}
		time.Sleep(time.Millisecond)
	}
	if pctx.Err() != nil && res.Err == nil {
		res.Err = fmt.Errorf("no write was acknowledged within %v of healing", cc.SettleTimeout)
	}
	cancel()
	for {
		res.Final = c.Snapshot()
		if Converged(res.Final) {
			// Stable twice in a row: nothing was still on its way.
			time.Sleep(20 * time.Millisecond)
			if again := c.Snapshot(); Converged(again) && again.Brokers[0].Partition.LEO == res.Final.Brokers[0].Partition.LEO {
				res.Converged = true
				res.Final = again
				break
			}
		}
		if time.Now().After(until) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := c.Err(); err != nil && res.Err == nil {
		res.Err = err
	}
	res.Verdict = Check(res.Final)
	res.Produced = res.Final.Producer.NextID
	res.Acked = len(res.Final.Producer.Acked)
	res.Committed = len(res.Final.Committed)
	res.Steps = rec.steps()
	return res
}

// chaosAction does one random thing to the cluster and describes it.
func (c *Cluster) chaosAction(rng *rand.Rand, unclean bool) string {
	ids := c.BrokerIDs()
	live, dead := c.LiveAndDead()
	switch k := rng.IntN(100); {
	case k < 22: // a clean (or allowed unclean) election: fast leader changes
		if len(live) == 0 {
			return ""
		}
		r := live[rng.IntN(len(live))]
		if err := c.Elect(r); err != nil {
			return ""
		}
		return fmt.Sprintf("elect %d", r)
	case k < 32: // fast leader changes: two elections in quick succession
		if len(live) == 0 {
			return ""
		}
		r1, r2 := live[rng.IntN(len(live))], live[rng.IntN(len(live))]
		pause := time.Duration(rng.Int64N(int64(2 * time.Millisecond)))
		e1 := c.Elect(r1)
		time.Sleep(pause)
		e2 := c.Elect(r2)
		return fmt.Sprintf("elect %d (%v), %v later elect %d (%v)", r1, e1 == nil, pause.Round(time.Microsecond), r2, e2 == nil)
	case k < 40: // crash
		if len(live) <= 1 {
			return ""
		}
		r := live[rng.IntN(len(live))]
		if err := c.CrashLoseUnflushed(r); err != nil {
			return fmt.Sprintf("crash %d failed: %v", r, err)
		}
		return fmt.Sprintf("crash %d", r)
	case k < 62: // restart
		if len(dead) == 0 {
			return ""
		}
		r := dead[rng.IntN(len(dead))]
		if err := c.Restart(r); err != nil {
			return fmt.Sprintf("restart %d failed: %v", r, err)
		}
		return fmt.Sprintf("restart %d", r)
	case k < 68: // partition one broker (with or without the controller and clients)
		r := ids[rng.IntN(len(ids))]
		side := c.nodesOf(r)
		other := []netsim.NodeID{ControllerNode, ProducerNode, ConsumerNode}
		if rng.IntN(2) == 0 {
			side, other = append(side, other...), nil
		}
		for _, id := range ids {
			if id != r {
				other = append(other, c.nodesOf(id)...)
			}
		}
		if err := c.net.Partition(side, other); err != nil {
			return ""
		}
		return fmt.Sprintf("partition %d (with controller: %t)", r, len(side) > len(c.nodesOf(r)))
	case k < 85:
		c.net.Heal()
		return "heal"
	}
	return ""
}

// tempDir makes a directory for a run under base (os.TempDir if empty).
func tempDir(base string, seed uint64) (string, error) {
	return os.MkdirTemp(base, fmt.Sprintf("chaos-%d-", seed))
}

// RunChaosSeeds runs seeds first..first+n-1, calling progress after each.
func RunChaosSeeds(base ChaosConfig, first uint64, n int, progress func(ChaosResult)) []ChaosResult {
	var out []ChaosResult
	for i := range n {
		cc := base
		cc.Seed = first + uint64(i)
		dir, err := tempDir(base.Dir, cc.Seed)
		var r ChaosResult
		if err != nil {
			r = ChaosResult{Seed: cc.Seed, Policy: cc.Policy, Err: err}
		} else {
			cc.Dir = dir
			r = RunChaos(cc)
			os.RemoveAll(dir)
		}
		out = append(out, r)
		if progress != nil {
			progress(r)
		}
	}
	return out
}
