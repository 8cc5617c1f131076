package cluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/hwepoch/hwepoch/impl/broker"
	"github.com/hwepoch/hwepoch/impl/client"
	"github.com/hwepoch/hwepoch/impl/controller"
	"github.com/hwepoch/hwepoch/impl/netsim"
	"github.com/hwepoch/hwepoch/impl/protocol"
	"github.com/hwepoch/hwepoch/impl/release"
)

// Cluster is N brokers, a controller, a producer and a consumer on one
// simulated network.
type Cluster struct {
	cfg      Config
	rel      release.Release // what cfg.Policy's Kafka release does
	net      *netsim.Network
	ctrl     *controllerNode
	producer *client.Producer
	consumer *client.Consumer
	history  *history
	focus    protocol.TopicPartition
	assign   map[protocol.TopicPartition][]int32
	seq      atomic.Uint64 // Event.Seq of every node

	// opMu serializes the cluster-level operations (steps, crash, restart,
	// snapshot) so a free-mode driver and a snapshotter do not interleave.
	opMu    sync.Mutex
	mu      sync.Mutex // guards slots' broker pointers
	slots   map[int32]*slot
	crashes int
	closed  bool
	// readCorr numbers ReadAsConsumer's requests.
	readCorr uint64
}

// slot is one broker id: its directory, its Lamport clock (kept across
// restarts) and its running incarnation, or what its files held when it
// went down.
type slot struct {
	id      int32
	dir     string
	clock   *protocol.LamportClock
	b       *broker.Broker
	offline map[protocol.TopicPartition]broker.PartitionState // durable state while down
	// crashStamp is the Lamport stamp of its last crash while it is down.
	crashStamp uint64
	// brokerEpoch is the broker epoch of its current (or last)
	// registration with the controller (controller.RegisterBroker).
	brokerEpoch int64
}

// New creates the brokers' directories, starts every broker, the
// controller and the clients, and creates the topics. No partition has a
// leader yet (the spec's Init): in stepped mode call Elect; in free mode
// the controller elects at once.
func New(cfg Config) (*Cluster, error) {
	if len(cfg.Topics) == 0 {
		cfg.Topics = []Topic{{Name: "t", Partitions: 1}}
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if cfg.Timing == (Timing{}) {
		cfg.Timing = DefaultTiming()
	}
	mode := netsim.ModeStepped
	faults := netsim.FaultConfig{}
	if cfg.Mode == Free {
		mode, faults = netsim.ModeFree, cfg.Faults
	}
	net, err := netsim.New(netsim.Config{Mode: mode, Seed: cfg.Seed, Faults: faults})
	if err != nil {
		return nil, err
	}
	rel, _ := release.Of(cfg.Policy) // validated
	c := &Cluster{cfg: cfg, rel: rel, net: net, history: newHistory(), slots: map[int32]*slot{},
		assign: map[protocol.TopicPartition][]int32{}}
	if err := c.init(); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

func (c *Cluster) init() error {
	cfg := c.cfg
	ctrl, err := newControllerNode(c)
	if err != nil {
		return err
	}
	c.ctrl = ctrl
	// Assignment: partition p of a topic with replication factor rf goes to
	// brokers p, p+1, ... (mod N), ids 1-based: Kafka's round-robin.
	n := cfg.Brokers
	for ti, t := range cfg.Topics {
		rf := t.ReplicationFactor
		if rf <= 0 {
			rf = n
		}
		var assignment [][]controller.BrokerID
		for p := 0; p < t.Partitions; p++ {
			var rs []controller.BrokerID
			for i := 0; i < rf; i++ {
				rs = append(rs, controller.BrokerID((p+i)%n+1))
			}
			assignment = append(assignment, rs)
			tp := protocol.TopicPartition{Topic: t.Name, Partition: int32(p)}
			c.assign[tp] = toInt32(rs)
			if ti == 0 && p == 0 {
				c.focus = tp
			}
		}
		if err := ctrl.ctrl.CreateTopic(t.Name, assignment); err != nil {
			return err
		}
	}
	for id := int32(1); id <= int32(n); id++ {
		ctrl.ctrl.SetBrokerState(controller.BrokerID(id), controller.BrokerOnline)
		// Register every address up front, so messages to a fetcher that
		// has not started yet have somewhere to go.
		if _, err := c.net.AddNode(broker.Node(id)); err != nil {
			return err
		}
		for l := int32(1); l <= int32(n); l++ {
			if l != id {
				if _, err := c.net.AddNode(broker.FetcherNode(id, l)); err != nil {
					return err
				}
			}
		}
	}
	ctrl.start()
	for id := int32(1); id <= int32(n); id++ {
		s := &slot{id: id, dir: filepath.Join(cfg.Dir, fmt.Sprintf("broker-%d", id)), clock: &protocol.LamportClock{}}
		if err := os.MkdirAll(s.dir, 0o755); err != nil {
			return err
		}
		c.slots[id] = s
		b, err := broker.Start(c.brokerConfig(s), c.net)
		if err != nil {
			return err
		}
		s.b = b
	}
	leader := func(tp protocol.TopicPartition) (int32, bool) {
		st, ok := c.ctrl.partition(tp)
		if !ok || st.Leader == controller.NoLeader {
			return 0, false
		}
		return int32(st.Leader), true
	}
	brokerNode := func(b int32) netsim.NodeID { return broker.Node(b) }
	p, err := client.NewProducer(client.ProducerConfig{Node: ProducerNode, Acks: cfg.Acks,
		RequestTimeout: 4 * cfg.Timing.RequestTimeout, Leader: leader, BrokerNode: brokerNode}, c.net)
	if err != nil {
		return err
	}
	c.producer = p
	cons, err := client.NewConsumer(client.ConsumerConfig{Node: ConsumerNode, RequestTimeout: cfg.Timing.RequestTimeout,
		Leader: leader, BrokerNode: brokerNode}, c.net)
	if err != nil {
		return err
	}
	c.consumer = cons
	if cfg.Mode == Free || cfg.Simulated {
		// The first election (NewPartition -> OnlinePartition).
		return ctrl.do(func() {
			rs, _ := ctrl.ctrl.ElectLeaders(ctrl.ctrl.OfflinePartitions(), controller.OfflinePartitionLeaderElectionStrategy)
			ctrl.announce(rs)
		})
	}
	return nil
}

// brokerConfig is broker s's configuration.
func (c *Cluster) brokerConfig(s *slot) broker.Config {
	cfg := broker.DefaultConfig()
	cfg.BrokerID = s.id
	cfg.Dir = s.dir
	cfg.ControllerNode = ControllerNode
	for _, tp := range c.partitions() {
		if slices.Contains(c.assign[tp], s.id) {
			cfg.Partitions = append(cfg.Partitions, broker.PartitionAssignment{TopicPartition: tp, Replicas: c.assign[tp]})
		}
	}
	cfg.Policy = c.cfg.Policy
	cfg.Fencing = c.cfg.Fencing
	cfg.MinInsyncReplicas = c.cfg.MinInsyncReplicas
	cfg.MinIsrGatesHW = c.cfg.MinIsrGatesHW
	c.mu.Lock()
	cfg.BrokerEpoch = s.brokerEpoch
	c.mu.Unlock()
	t := c.cfg.Timing
	cfg.ReplicaLagTimeMax = t.ReplicaLagTimeMax
	cfg.ReplicaFetchBackoff = t.ReplicaFetchBackoff
	cfg.ReplicaFetchWaitMax = t.ReplicaFetchWaitMax
	cfg.RequestTimeout = t.RequestTimeout
	cfg.HighWatermarkCheckpointInterval = t.HighWatermarkCheckpointInterval
	cfg.LogFlushInterval = t.LogFlushInterval
	cfg.Stepped = c.cfg.Mode == Stepped
	cfg.Simulated = c.cfg.Simulated
	cfg.Now = c.cfg.Now
	cfg.Mutants = c.cfg.Mutants // the mutation check's seeded bugs, none otherwise
	cfg.Clock = s.clock
	cfg.Sequence = &c.seq
	cfg.History = c.history
	if c.cfg.Hook != nil {
		cfg.Hook = c.cfg.Hook
	}
	return cfg
}

// partitions lists every partition, sorted.
func (c *Cluster) partitions() []protocol.TopicPartition {
	out := make([]protocol.TopicPartition, 0, len(c.assign))
	for tp := range c.assign {
		out = append(out, tp)
	}
	slices.SortFunc(out, func(a, b protocol.TopicPartition) int {
		if a.Topic != b.Topic {
			if a.Topic < b.Topic {
				return -1
			}
			return 1
		}
		return int(a.Partition - b.Partition)
	})
	return out
}

// Release is what the cluster's Kafka release does.
func (c *Cluster) Release() release.Release { return c.rel }

// Focus is the partition the stepped API and the snapshot's spec fields
// are about.
func (c *Cluster) Focus() protocol.TopicPartition { return c.focus }

// Partitions lists every partition.
func (c *Cluster) Partitions() []protocol.TopicPartition { return c.partitions() }

// BrokerIDs lists the broker ids.
func (c *Cluster) BrokerIDs() []int32 {
	out := make([]int32, 0, len(c.slots))
	for id := range c.slots {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

// Network is the cluster's network (for fault injection in free mode).
func (c *Cluster) Network() *netsim.Network { return c.net }

// Producer is the cluster's producer.
func (c *Cluster) Producer() *client.Producer { return c.producer }

// Consumer is the cluster's consumer.
func (c *Cluster) Consumer() *client.Consumer { return c.consumer }

// broker returns broker id's running incarnation.
func (c *Cluster) broker(id int32) (*broker.Broker, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.slots[id]
	if !ok {
		return nil, fmt.Errorf("cluster: no broker %d", id)
	}
	if s.b == nil {
		return nil, fmt.Errorf("cluster: broker %d is offline", id)
	}
	return s.b, nil
}

// Alive reports whether broker id runs.
func (c *Cluster) Alive(id int32) bool {
	_, err := c.broker(id)
	return err == nil
}

// LiveAndDead splits the brokers, in id order, into those running and
// those crashed.
func (c *Cluster) LiveAndDead() (live, dead []int32) {
	for _, id := range c.BrokerIDs() {
		if c.Alive(id) {
			live = append(live, id)
		} else {
			dead = append(dead, id)
		}
	}
	return live, dead
}

// Err returns the first internal error any running broker hit.
func (c *Cluster) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var errs []error
	for _, id := range sortedKeys(c.slots) {
		if b := c.slots[id].b; b != nil {
			errs = append(errs, b.Err())
		}
	}
	return errors.Join(errs...)
}

// nodesOf lists broker id's network addresses: its request handler and
// its fetchers.
func (c *Cluster) nodesOf(id int32) []netsim.NodeID {
	out := []netsim.NodeID{broker.Node(id)}
	for l := range c.slots {
		if l != id {
			out = append(out, broker.FetcherNode(id, l))
		}
	}
	slices.Sort(out)
	return out
}

// Close stops everything; the directories stay.
func (c *Cluster) Close() error {
	c.opMu.Lock()
	defer c.opMu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	var errs []error
	if c.producer != nil {
		c.producer.Close()
	}
	for _, id := range sortedKeys(c.slots) {
		if b := c.slots[id].b; b != nil {
			errs = append(errs, b.Shutdown())
		}
	}
	if c.ctrl != nil {
		c.ctrl.stop()
	}
	errs = append(errs, c.net.Close())
	return errors.Join(errs...)
}

// ctx is the bound on any one wait for quiescence: far beyond what a step
// takes, so reaching it means something is stuck.
func settleContext() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), settleTimeout)
}
