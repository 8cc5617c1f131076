package broker

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hwepoch/hwepoch/impl/netsim"
	"github.com/hwepoch/hwepoch/impl/protocol"
	"github.com/hwepoch/hwepoch/impl/release"
)

// Broker is one running incarnation of a broker: it lives from Start until
// Crash or Shutdown. A restart is a new Broker on the same directory.
type Broker struct {
	cfg      Config
	rel      release.Release // what cfg.Policy's Kafka release does
	net      *netsim.Network
	ep       *netsim.Endpoint
	clock    *protocol.LamportClock
	rm       *ReplicaManager
	fetchers *fetcherManager
	now      func() time.Time

	corr atomic.Uint64 // correlation ids of requests this broker sends

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	stopMu  sync.Mutex
	stopped bool

	failMu sync.Mutex
	failed error // first internal error (an I/O error, a storage refusal)

	fetchWait delayedFetches // free mode's fetch purgatory
	reads     servedReads    // stepped mode's reads waiting for UpdateFollowerFetchState
	// lastLeaderAndIsr is the correlation id of the last LeaderAndIsr
	// applied (the controller's are increasing); only the serve goroutine
	// touches it.
	lastLeaderAndIsr uint64

	// connMu is held (shared) while a message from a peer is checked
	// against peerCrash and handled, and exclusively by ConnectionLost, so
	// once ConnectionLost returns nothing the peer sent before its crash is
	// being handled or will be.
	connMu    sync.RWMutex
	peerMu    sync.Mutex
	peerCrash map[int32]uint64 // per peer: the Lamport stamp of its last crash
	// peerDown holds the peers known to be down (ConnectionLost, until
	// PeerStarted): the broker's view of which brokers are alive, Kafka's
	// MetadataCache.getAliveBrokers.
	peerDown map[int32]bool
	// peerEpoch holds the broker epoch of each peer's current registration
	// as the broker last learned it (MetadataCache.getAliveBrokerEpoch;
	// absent: 0, every broker's first).
	peerEpoch map[int32]int64

	alterMu      sync.Mutex
	alterResults map[uint64]protocol.AlterPartitionResponse // stepped mode
}

// Start loads the broker's partitions from Config.Dir (creating the logs
// of Config.Partitions that do not exist yet) and starts its goroutines.
// Every partition starts in role Starting with HW = min(checkpoint, LEO);
// the broker waits for LeaderAndIsr.
func Start(cfg Config, net *netsim.Network) (*Broker, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	ep, err := endpoint(net, Node(cfg.BrokerID))
	if err != nil {
		return nil, err
	}
	rel, _ := release.Of(cfg.Policy) // Validate checked the policy
	b := &Broker{cfg: cfg, rel: rel, net: net, ep: ep, clock: cfg.Clock, now: cfg.Now}
	if b.clock == nil {
		b.clock = &protocol.LamportClock{}
	}
	if b.now == nil {
		b.now = time.Now
	}
	b.ctx, b.cancel = context.WithCancel(context.Background())
	b.rm = newReplicaManager(b)
	if err := b.rm.loadPartitions(); err != nil {
		b.rm.closeLogs()
		return nil, err
	}
	b.fetchers = newFetcherManager(b)
	if cfg.Started != nil {
		cfg.Started(b)
	}
	b.wg.Add(1)
	go b.serve()
	if !cfg.Stepped {
		b.wg.Add(1)
		go b.runTimers()
	}
	return b, nil
}

// endpoint returns the node's endpoint, registering it if needed (a
// restarted broker reuses its address).
func endpoint(net *netsim.Network, id netsim.NodeID) (*netsim.Endpoint, error) {
	if ep, ok := net.Endpoint(id); ok {
		return ep, nil
	}
	ep, err := net.AddNode(id)
	if errors.Is(err, netsim.ErrDuplicateNode) {
		if ep, ok := net.Endpoint(id); ok {
			return ep, nil
		}
	}
	return ep, err
}

// Release is what this broker's Kafka release does (release.Of(Config.Policy)).
func (b *Broker) Release() release.Release { return b.rel }

// ID is broker.id.
func (b *Broker) ID() int32 { return b.cfg.BrokerID }

// Config returns the broker's configuration.
func (b *Broker) Config() Config { return b.cfg }

// nextCorrelationID returns a fresh, non-zero correlation id.
func (b *Broker) nextCorrelationID() uint64 { return b.corr.Add(1) }

// send sends from the broker's request handler address; it returns the
// message's network id (0 if the network refused it, e.g. closed).
func (b *Broker) send(to netsim.NodeID, payload any) uint64 {
	id, err := b.ep.Send(to, payload)
	if err != nil {
		return 0
	}
	return uint64(id)
}

// fail records an internal error; the first one is kept for Err.
func (b *Broker) fail(err error) {
	if err == nil {
		return
	}
	b.failMu.Lock()
	defer b.failMu.Unlock()
	if b.failed == nil {
		b.failed = err
	}
}

// Err returns the first internal error the broker hit, if any: an I/O
// error or a storage refusal while handling a request. The broker keeps
// running (as Kafka keeps serving other partitions), but a test should fail.
func (b *Broker) Err() error {
	b.failMu.Lock()
	defer b.failMu.Unlock()
	return b.failed
}

// stop cancels the goroutines and waits for them.
func (b *Broker) stop() bool {
	b.stopMu.Lock()
	if b.stopped {
		b.stopMu.Unlock()
		return false
	}
	b.stopped = true
	b.stopMu.Unlock()
	b.cancel()
	b.fetchers.stop()
	b.wg.Wait()
	return true
}

// CrashSpec says what a crash keeps of each log: Keep gives, per partition,
// the number of records that survive (storage.Log.CrashKeeping); other
// partitions lose their unflushed tail when LoseUnflushed
// (CrashLoseUnflushed), or keep every record otherwise.
type CrashSpec struct {
	Keep          map[protocol.TopicPartition]int64
	LoseUnflushed bool
}

// Stop halts the broker's goroutines (the first half of a crash: nothing
// more happens on it) without touching its logs.
func (b *Broker) Stop() { b.stop() }

// Crash stops the broker's goroutines (if Stop has not) and drops its
// volatile state; the logs keep what spec says. The caller cuts the broker
// off the network. The Broker is unusable afterwards.
func (b *Broker) Crash(spec CrashSpec) error {
	b.stop()
	var errs []error
	for _, p := range b.rm.all() {
		if k, ok := spec.Keep[p.tp]; ok {
			errs = append(errs, p.log.CrashKeeping(k))
		} else if spec.LoseUnflushed {
			errs = append(errs, p.log.CrashLoseUnflushed())
		} else {
			errs = append(errs, p.log.CrashKeeping(p.log.LEO()))
		}
	}
	return errors.Join(errs...)
}

// Shutdown stops the broker and closes its logs cleanly (flushed).
func (b *Broker) Shutdown() error {
	if !b.stop() {
		return nil
	}
	return b.rm.closeLogs()
}

// Partition returns the replica of tp on this broker, if any.
func (b *Broker) Partition(tp protocol.TopicPartition) (*Partition, bool) {
	return b.rm.get(tp)
}

// State returns every partition's state.
func (b *Broker) State() BrokerState {
	s := BrokerState{ID: b.cfg.BrokerID}
	for _, p := range b.rm.all() {
		s.Partitions = append(s.Partitions, p.State())
	}
	return s
}
