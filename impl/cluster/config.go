package cluster

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/hwepoch/hwepoch/impl/broker"
	"github.com/hwepoch/hwepoch/impl/controller"
	"github.com/hwepoch/hwepoch/impl/netsim"
	"github.com/hwepoch/hwepoch/impl/protocol"
	"github.com/hwepoch/hwepoch/impl/storage"
)

// Mode is stepped or free.
type Mode uint8

const (
	Stepped Mode = iota + 1
	Free
)

func (m Mode) String() string {
	if m == Stepped {
		return "stepped"
	}
	return "free"
}

// Topic is a topic to create at start.
type Topic struct {
	Name       string
	Partitions int
	// ReplicationFactor <= 0 means every broker.
	ReplicationFactor int
}

// Config configures a cluster. The settings with Kafka names can also be
// set by name with Set.
type Config struct {
	Mode Mode
	// Dir is the root directory; broker b uses Dir/broker-<b>.
	Dir string
	// Brokers is the number of brokers; their ids are 1..Brokers.
	Brokers int
	// Topics to create; default one topic "t" with one partition on every
	// broker. The first partition of the first topic is the focus of the
	// stepped API and of the snapshot's single-partition fields.
	Topics []Topic

	Policy                      storage.Policy // the spec's Truncation
	Fencing                     bool           // KIP-320
	Acks                        protocol.Acks  // acks
	MinInsyncReplicas           int            // min.insync.replicas
	MinIsrGatesHW               bool
	UncleanLeaderElectionEnable bool // unclean.leader.election.enable
	// UnflushedLoss lets a crash lose records: in stepped mode Crash(r, keep)
	// may keep fewer than all; in free mode a crash loses the unflushed tail.
	UnflushedLoss bool
	// LossyNetwork allows LoseMessage (stepped); in free mode the network's
	// drop rate is Faults.DropRate.
	LossyNetwork bool
	// MissedLeaderAndIsr allows MissLeaderAndIsr (stepped): a broker never
	// sees a queued LeaderAndIsr that a later one follows (a ZooKeeper
	// controller failover or session expiry, a KRaft metadata delta
	// spanning several records; spec MissLeaderAndIsr).
	MissedLeaderAndIsr bool
	// AutoLeaderRebalanceEnable is auto.leader.rebalance.enable (free mode).
	AutoLeaderRebalanceEnable bool

	// Simulated (with Mode Stepped) is the deterministic simulation's
	// cluster (Simulate): messages move only when delivered, nothing runs
	// on its own, but the controller reacts to broker failures and startups
	// with its own elections, brokers propose ISR expansions and back off
	// as in free mode, and Now is the simulated clock of every broker.
	Simulated bool
	// Now, if set, is the brokers' clock (lag bookkeeping, backoffs,
	// request deadlines).
	Now func() time.Time

	// Free mode.
	Seed   uint64
	Faults netsim.FaultConfig
	Timing Timing

	// Mutants are seeded bugs passed to every broker (broker.Mutant), for
	// the mutation check only.
	Mutants []broker.Mutant
	// ControllerMutants are seeded controller bugs (controller.Mutant),
	// for the simulation's checks only.
	ControllerMutants []controller.Mutant

	// Hook, if set, receives every event (see broker.Event). It is called
	// from the brokers' and the controller's goroutines, sometimes with
	// locks held: it must be quick and must not call into the cluster.
	Hook func(Event)
}

// Timing holds free mode's timers (Kafka names in the comments).
type Timing struct {
	ReplicaLagTimeMax               time.Duration // replica.lag.time.max.ms
	ReplicaFetchBackoff             time.Duration // replica.fetch.backoff.ms
	ReplicaFetchWaitMax             time.Duration // replica.fetch.wait.max.ms
	RequestTimeout                  time.Duration // request.timeout.ms
	HighWatermarkCheckpointInterval time.Duration // replica.high.watermark.checkpoint.interval.ms
	LogFlushInterval                time.Duration // log.flush.interval.ms
	ControllerRetry                 time.Duration // how long the controller's channel waits before resending
	LeaderImbalanceCheckInterval    time.Duration // leader.imbalance.check.interval.seconds
}

// DefaultTiming is scaled for the simulated network (milliseconds, not
// seconds).
func DefaultTiming() Timing {
	return Timing{
		ReplicaLagTimeMax:               200 * time.Millisecond,
		ReplicaFetchBackoff:             5 * time.Millisecond,
		ReplicaFetchWaitMax:             2 * time.Millisecond,
		RequestTimeout:                  100 * time.Millisecond,
		HighWatermarkCheckpointInterval: 20 * time.Millisecond,
		LogFlushInterval:                50 * time.Millisecond,
		ControllerRetry:                 50 * time.Millisecond,
		LeaderImbalanceCheckInterval:    300 * time.Millisecond,
	}
}

// DefaultConfig is a stepped two-broker cluster with Kafka's defaults for
// the rest: LeaderEpoch with fencing, acks=all, min.insync.replicas=1.
func DefaultConfig(dir string) Config {
	return Config{
		Mode:              Stepped,
		Dir:               dir,
		Brokers:           2,
		Policy:            storage.LeaderEpoch,
		Fencing:           true,
		Acks:              protocol.AcksAll,
		MinInsyncReplicas: 1,
		Timing:            DefaultTiming(),
	}
}

// Set sets a setting by its Kafka (or spec) name: brokers, acks,
// min.insync.replicas, unclean.leader.election.enable,
// auto.leader.rebalance.enable, replica.lag.time.max.ms,
// replica.fetch.backoff.ms, replica.fetch.wait.max.ms, request.timeout.ms,
// replica.high.watermark.checkpoint.interval.ms, log.flush.interval.ms,
// leader.imbalance.check.interval.seconds (fractions allowed),
// and the spec's Truncation, Fencing, MinIsrGatesHW, UnflushedLoss,
// LossyNetwork.
func (c *Config) Set(key, value string) error {
	bad := func(err error) error { return fmt.Errorf("cluster: %s=%s: %w", key, value, err) }
	dur := func(d *time.Duration) error {
		ms, err := strconv.ParseFloat(value, 64)
		if err != nil || ms < 0 {
			return bad(fmt.Errorf("want milliseconds"))
		}
		*d = time.Duration(ms * float64(time.Millisecond))
		return nil
	}
	boolean := func(b *bool) error {
		v, err := strconv.ParseBool(value)
		if err != nil {
			return bad(err)
		}
		*b = v
		return nil
	}
	switch key {
	case "brokers":
		n, err := strconv.Atoi(value)
		if err != nil || n < 1 {
			return bad(fmt.Errorf("want a positive integer"))
		}
		c.Brokers = n
	case "acks":
		a, err := protocol.ParseAcks(value)
		if err != nil {
			return bad(err)
		}
		c.Acks = a
	case "min.insync.replicas":
		n, err := strconv.Atoi(value)
		if err != nil || n < 1 {
			return bad(fmt.Errorf("want a positive integer"))
		}
		c.MinInsyncReplicas = n
	case "unclean.leader.election.enable":
		return boolean(&c.UncleanLeaderElectionEnable)
	case "auto.leader.rebalance.enable":
		return boolean(&c.AutoLeaderRebalanceEnable)
	case "replica.lag.time.max.ms":
		return dur(&c.Timing.ReplicaLagTimeMax)
	case "replica.fetch.backoff.ms":
		return dur(&c.Timing.ReplicaFetchBackoff)
	case "replica.fetch.wait.max.ms":
		return dur(&c.Timing.ReplicaFetchWaitMax)
	case "request.timeout.ms":
		return dur(&c.Timing.RequestTimeout)
	case "replica.high.watermark.checkpoint.interval.ms":
		return dur(&c.Timing.HighWatermarkCheckpointInterval)
	case "log.flush.interval.ms":
		return dur(&c.Timing.LogFlushInterval)
	case "leader.imbalance.check.interval.seconds":
		secs, err := strconv.ParseFloat(value, 64)
		if err != nil || secs < 0 {
			return bad(fmt.Errorf("want seconds"))
		}
		c.Timing.LeaderImbalanceCheckInterval = time.Duration(secs * float64(time.Second))
	case "Truncation", "truncation", "policy":
		p, err := storage.ParsePolicy(value)
		if err != nil {
			return bad(err)
		}
		c.Policy = p
	case "Fencing":
		return boolean(&c.Fencing)
	case "MinIsrGatesHW":
		return boolean(&c.MinIsrGatesHW)
	case "UnflushedLoss":
		return boolean(&c.UnflushedLoss)
	case "LossyNetwork":
		return boolean(&c.LossyNetwork)
	case "MissedLeaderAndIsr":
		return boolean(&c.MissedLeaderAndIsr)
	default:
		return fmt.Errorf("cluster: unknown setting %q", key)
	}
	return nil
}

// SetAll applies "key=value" settings.
func (c *Config) SetAll(kvs []string) error {
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return fmt.Errorf("cluster: setting %q is not key=value", kv)
		}
		if err := c.Set(strings.TrimSpace(k), strings.TrimSpace(v)); err != nil {
			return err
		}
	}
	return nil
}

func (c Config) validate() error {
	switch {
	case c.Mode != Stepped && c.Mode != Free:
		return fmt.Errorf("cluster: unknown mode %d", c.Mode)
	case c.Simulated && c.Mode != Stepped:
		return fmt.Errorf("cluster: a simulated cluster is stepped")
	case c.Dir == "":
		return fmt.Errorf("cluster: Dir is empty")
	case c.Brokers < 1 || c.Brokers > 99:
		return fmt.Errorf("cluster: %d brokers, want 1..99", c.Brokers)
	case !c.Policy.Valid():
		return fmt.Errorf("cluster: unknown truncation policy %q", string(c.Policy))
	case c.MinInsyncReplicas < 1:
		return fmt.Errorf("cluster: min.insync.replicas must be >= 1")
	}
	for _, t := range c.Topics {
		if t.Partitions < 1 || t.ReplicationFactor > c.Brokers {
			return fmt.Errorf("cluster: topic %q: %d partitions, replication factor %d on %d brokers", t.Name, t.Partitions, t.ReplicationFactor, c.Brokers)
		}
	}
	return nil
}

// Network addresses besides the brokers' (broker.Node, broker.FetcherNode).
const (
	ControllerNode netsim.NodeID = 3000
	ProducerNode   netsim.NodeID = 4000
	ConsumerNode   netsim.NodeID = 4001
)
