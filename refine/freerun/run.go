package freerun

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"sync"
	"time"

	"github.com/hwepoch/hwepoch/impl/broker"
	"github.com/hwepoch/hwepoch/impl/client"
	"github.com/hwepoch/hwepoch/impl/cluster"
	"github.com/hwepoch/hwepoch/impl/netsim"
	"github.com/hwepoch/hwepoch/impl/protocol"
	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/refine"
)

// Options configure one free run.
type Options struct {
	Seed uint64
	// Config gives the spec constants the run is validated against; its
	// replica count is the broker count. The bounds are ignored (a free run
	// has none): Config is copied with them lifted.
	Config *model.Config
	// Duration of the chaos phase, Interval the mean time between two chaos
	// actions, Settle how long the healed cluster then runs on.
	Duration, Interval, Settle time.Duration
	// Faults of the network.
	Faults netsim.FaultConfig
	// Producers writing concurrently.
	Producers int
	// Dir for the brokers' directories ("": refine.TempRoot).
	Dir string
	// Cluster, if set, changes the cluster's configuration (mutants).
	Cluster func(*cluster.Config)
}

// DefaultOptions are CI-sized: a quarter second of chaos on two or three
// brokers with a lossy, delaying network, then a short settle.
func DefaultOptions(cfg *model.Config, seed uint64) Options {
	return Options{
		Seed:      seed,
		Config:    cfg,
		Duration:  250 * time.Millisecond,
		Interval:  8 * time.Millisecond,
		Settle:    60 * time.Millisecond,
		Faults:    netsim.FaultConfig{DropRate: 0.01, DelayRate: 0.3, MaxDelay: 2 * time.Millisecond},
		Producers: 2,
	}
}

// Recording is what a free run left: every event the cluster reported,
// in the order the hook received them, and the configuration to check them
// against.
type Recording struct {
	Config *model.Config
	Focus  string
	Events []cluster.Event
	// Chaos is the driver's schedule, for reports.
	Chaos []string
	// Acked is every record the producers saw acknowledged (offset and
	// the implementation's id), taken when they stopped; Validate checks it
	// against the spec's ghost acked. Recordings made before it existed
	// have none, and that check is then empty.
	Acked []client.OffsetID `json:",omitempty"`
	Err   error             `json:"-"`
}

// unbounded lifts the model's bounds, which exist only to make TLC's state
// space finite: a free run produces, elects and crashes as often as it likes.
func unbounded(cfg *model.Config) *model.Config {
	c := *cfg
	c.MaxRecords, c.MaxEpoch, c.MaxCrashes, c.MaxPartitionEpoch = 1<<30, 1<<30, 1<<30, 1<<30
	return &c
}

// Record runs the implementation free (real goroutines, timers, the seeded
// network's drops and delays) under producers and a seeded chaos driver
// that elects, crashes, restarts and partitions; then heals and lets it
// settle. The network always counts as lossy for the spec (a request that
// times out is the spec's LoseMessage), whatever Config.LossyNetwork says.
func Record(opt Options) Recording {
	cfg := unbounded(opt.Config)
	cfg.LossyNetwork = true
	rec := Recording{Config: cfg}
	var mu sync.Mutex
	hook := func(e cluster.Event) {
		mu.Lock()
		rec.Events = append(rec.Events, e)
		mu.Unlock()
	}
	dir, err := os.MkdirTemp(refine.TempRoot(opt.Dir), "hwepoch-free-")
	if err != nil {
		rec.Err = err
		return rec
	}
	defer os.RemoveAll(dir)
	cc, err := refine.ClusterConfig(cfg, dir)
	if err != nil {
		rec.Err = err
		return rec
	}
	cc.Mode = cluster.Free
	cc.Seed = opt.Seed
	cc.Faults = opt.Faults
	cc.Hook = hook
	// Short timers, so that a quarter second sees fetches, timeouts, ISR
	// shrinks and expansions, and checkpoints.
	if err := cc.SetAll([]string{"replica.lag.time.max.ms=40", "request.timeout.ms=30",
		"replica.fetch.backoff.ms=2", "replica.fetch.wait.max.ms=1",
		"replica.high.watermark.checkpoint.interval.ms=10"}); err != nil {
		rec.Err = err
		return rec
	}
	if opt.Cluster != nil {
		opt.Cluster(&cc)
	}
	c, err := cluster.New(cc)
	if err != nil {
		rec.Err = err
		return rec
	}
	rec.Focus = c.Focus().String()
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range max(opt.Producers, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				if r, err := c.Producer().Produce(ctx, c.Focus()); err == nil && !r.Acked() {
					time.Sleep(time.Millisecond)
				}
			}
		}()
	}
	rng := rand.New(rand.NewPCG(opt.Seed, 0xf7ee))
	start := time.Now()
	for time.Since(start) < opt.Duration {
		time.Sleep(time.Duration(rng.Int64N(int64(2*opt.Interval)) + 1))
		if a := chaos(c, rng, cfg); a != "" {
			rec.Chaos = append(rec.Chaos, fmt.Sprintf("%6.1fms %s", float64(time.Since(start).Microseconds())/1000, a))
		}
	}
	c.Network().Heal()
	for _, id := range c.BrokerIDs() {
		if !c.Alive(id) {
			if err := c.Restart(id); err == nil {
				rec.Chaos = append(rec.Chaos, fmt.Sprintf("heal: restart %d", id))
			}
		}
	}
	time.Sleep(opt.Settle)
	stop()
	wg.Wait()
	rec.Acked = c.Producer().Acked()
	if err := c.Err(); err != nil {
		rec.Err = err
	}
	if err := c.Close(); err != nil && rec.Err == nil {
		rec.Err = err
	}
	mu.Lock()
	defer mu.Unlock()
	return rec
}

// loseLeaderAndIsrAnswer drops the first answer to a LeaderAndIsr it sees
// in flight within a few milliseconds, and reports whether it found one.
func loseLeaderAndIsrAnswer(c *cluster.Cluster) bool {
	deadline := time.Now().Add(3 * time.Millisecond)
	for time.Now().Before(deadline) {
		for _, m := range c.Network().InFlight() {
			if _, ok := m.Payload.(protocol.LeaderAndIsrResponse); ok {
				return c.Network().Drop(m.ID) == nil
			}
		}
		time.Sleep(100 * time.Microsecond)
	}
	return false
}

// nodesOf is broker id's network addresses: its request handler and its
// fetchers, one per other broker.
func nodesOf(id int32, ids []int32) []netsim.NodeID {
	out := []netsim.NodeID{broker.Node(id)}
	for _, l := range ids {
		if l != id {
			out = append(out, broker.FetcherNode(id, l))
		}
	}
	return out
}

// chaos does one random thing to the cluster and describes it, or returns
// "" when it did nothing.
func chaos(c *cluster.Cluster, rng *rand.Rand, cfg *model.Config) string {
	ids := c.BrokerIDs()
	live, dead := c.LiveAndDead()
	switch k := rng.IntN(100); {
	case k < 30: // an election (clean, or unclean where allowed): fast leader changes
		if len(live) == 0 {
			return ""
		}
		r := live[rng.IntN(len(live))]
		if c.Elect(r) != nil {
			return ""
		}
		if rng.IntN(3) == 0 && loseLeaderAndIsrAnswer(c) {
			// The controller resends the request, which the broker has
			// applied already: it must not apply it twice.
			return fmt.Sprintf("elect %d, lose a LeaderAndIsr answer", r)
		}
		return fmt.Sprintf("elect %d", r)
	case k < 42: // a crash, keeping all or (UnflushedLoss) part of the log
		if len(live) <= 1 {
			return ""
		}
		r := live[rng.IntN(len(live))]
		if err := c.CrashLoseUnflushed(r); err != nil {
			return fmt.Sprintf("crash %d failed: %v", r, err)
		}
		return fmt.Sprintf("crash %d", r)
	case k < 65:
		if len(dead) == 0 {
			return ""
		}
		r := dead[rng.IntN(len(dead))]
		if err := c.Restart(r); err != nil {
			return fmt.Sprintf("restart %d failed: %v", r, err)
		}
		return fmt.Sprintf("restart %d", r)
	case k < 72: // cut one broker (handler and fetchers) off its peers for a while
		r := ids[rng.IntN(len(ids))]
		var other []netsim.NodeID
		for _, id := range ids {
			if id != r {
				other = append(other, nodesOf(id, ids)...)
			}
		}
		if c.Network().Partition(nodesOf(r, ids), other) != nil {
			return ""
		}
		return fmt.Sprintf("partition %d", r)
	case k < 78: // cut the controller off one broker: its LeaderAndIsr or the answer is lost and resent
		r := ids[rng.IntN(len(ids))]
		if c.Network().Partition([]netsim.NodeID{cluster.ControllerNode}, []netsim.NodeID{broker.Node(r)}) != nil {
			return ""
		}
		return fmt.Sprintf("partition the controller from %d", r)
	case k < 88:
		c.Network().Heal()
		return "heal"
	}
	return ""
}
