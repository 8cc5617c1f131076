package cluster

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/hwepoch/hwepoch/impl/broker"
	"github.com/hwepoch/hwepoch/impl/netsim"
	"github.com/hwepoch/hwepoch/impl/protocol"
	"github.com/hwepoch/hwepoch/impl/storage"
)

// crash takes broker id down: it is cut off the network (stepped: what is
// in flight to and from it is lost, later messages to it wait; free: it is
// isolated until it restarts), its goroutines stop and its volatile state
// is gone, its logs keep what spec says, the controller sees it fail, and
// its peers see their connections to it close.
func (c *Cluster) crash(id int32, spec broker.CrashSpec) error {
	b, err := c.broker(id)
	if err != nil {
		return err
	}
	s := c.slots[id]
	// Halt it first, so it does nothing after the crash's place in the
	// order of events; then cut it off; then tell the others.
	b.Stop()
	// Where the release has no broker epochs in Fetch, a fetch the broker
	// had sent to a live leader survives it: the leader may still read it
	// (the spec's orphan; KIP-903). Everything else to or from it is lost.
	orphan := func(m netsim.Message) bool {
		req, ok := m.Payload.(protocol.FetchRequest)
		if !ok || !b.Release().StaleFetchServed || req.ReplicaID != id {
			return false
		}
		l, isBroker := brokerOfNode(m.To)
		return isBroker && l != id && c.Alive(l)
	}
	for _, n := range c.nodesOf(id) {
		if c.cfg.Mode == Free {
			_, err = c.net.IsolateExcept(n, orphan)
		} else {
			_, err = c.net.DropAllForExcept(n, orphan)
		}
		if err != nil {
			return err
		}
	}
	crashErr := b.Crash(spec)
	c.mu.Lock()
	s.b = nil
	s.crashStamp = 0
	c.crashes++
	c.mu.Unlock()
	s.offline, err = readDurable(s.dir, c.partitionsOf(id))
	stamp := s.clock.Tick()
	c.mu.Lock()
	s.crashStamp = stamp
	c.mu.Unlock()
	// Everyone stops listening to the dead incarnation before the crash
	// takes its place in the order of events.
	for _, other := range c.BrokerIDs() {
		if ob, e := c.broker(other); e == nil {
			ob.ConnectionLost(id, stamp)
		}
	}
	markErr := c.ctrl.markCrashed(id, stamp)
	ev := Event{Broker: id, Action: ActCrash, Params: map[string]int64{"r": int64(id)}, Partition: c.focus,
		Lamport: stamp, Seq: c.seq.Add(1)}
	// keep is what survived, whatever the crash's kind: the replayable
	// Crash(r, keep).
	ev.Params["keep"] = s.offline[c.focus].LEO
	ev.Post = s.offline[c.focus]
	c.emit(ev)
	ctrlErr := c.ctrl.brokerFailed(id, stamp)
	c.producer.ConnectionLost(id)
	return errors.Join(crashErr, err, markErr, ctrlErr)
}

// restart starts a new incarnation of broker id on its directory and tells
// the controller.
func (c *Cluster) restart(id int32) error {
	s, ok := c.slots[id]
	if !ok {
		return fmt.Errorf("cluster: no broker %d", id)
	}
	if c.Alive(id) {
		return fmt.Errorf("cluster: broker %d is running", id)
	}
	if c.cfg.Mode == Free {
		for _, n := range c.nodesOf(id) {
			if err := c.net.Rejoin(n); err != nil {
				return err
			}
		}
	}
	// The new incarnation registers with the controller first and gets its
	// broker epoch (ClusterControlManager.registerBroker; KIP-903 bumps it).
	epoch, err := c.ctrl.registerBroker(id)
	if err != nil {
		return err
	}
	c.mu.Lock()
	s.brokerEpoch = epoch
	c.mu.Unlock()
	// The Restart event is emitted before the new incarnation handles any
	// message (a free run's peers are already sending to it): its events
	// must all come after it.
	cfg := c.brokerConfig(s)
	var stamp uint64
	cfg.Started = func(b *broker.Broker) {
		// The new incarnation learns which peers are down (the
		// UpdateMetadata a registering broker gets), before it handles
		// anything.
		for _, other := range c.BrokerIDs() {
			c.mu.Lock()
			o := c.slots[other]
			down, crashStamp, epoch := o.b == nil && other != id, o.crashStamp, o.brokerEpoch
			c.mu.Unlock()
			if down {
				b.ConnectionLost(other, crashStamp)
			}
			if other != id {
				b.PeerBrokerEpoch(other, epoch)
			}
		}
		stamp = s.clock.Tick()
		ev := Event{Broker: id, Action: ActRestart, Params: map[string]int64{"r": int64(id)}, Partition: c.focus,
			Lamport: stamp, Seq: c.seq.Add(1)}
		if p, ok := b.Partition(c.focus); ok {
			ev.Post = p.State()
		}
		c.emit(ev)
	}
	b, err := broker.Start(cfg, c.net)
	if err != nil {
		return err
	}
	c.mu.Lock()
	s.b = b
	s.offline = nil
	c.mu.Unlock()
	for _, other := range c.BrokerIDs() {
		if ob, e := c.broker(other); e == nil && other != id {
			ob.PeerStarted(id, epoch)
		}
	}
	return c.ctrl.brokerStarted(id, stamp)
}

// partitionsOf lists the partitions broker id hosts.
func (c *Cluster) partitionsOf(id int32) []protocol.TopicPartition {
	var out []protocol.TopicPartition
	for _, tp := range c.partitions() {
		for _, r := range c.assign[tp] {
			if r == id {
				out = append(out, tp)
			}
		}
	}
	return out
}

// readDurable reads what a crashed broker's files hold, without changing
// them (opening the log in place would truncate its epoch cache, which the
// spec only does at restart): each partition's records and epoch cache as
// storage.ReadDir finds them, and the HW checkpoint.
func readDurable(dir string, tps []protocol.TopicPartition) (map[protocol.TopicPartition]broker.PartitionState, error) {
	out := map[protocol.TopicPartition]broker.PartitionState{}
	ckpt := map[protocol.TopicPartition]int64{}
	entries, err := storage.ReadReplicationOffsetCheckpoint(filepath.Join(dir, storage.ReplicationOffsetCheckpointFilename))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return out, err
	}
	for _, e := range entries {
		ckpt[protocol.TopicPartition{Topic: e.Topic, Partition: e.Partition}] = e.Offset
	}
	var errs []error
	for _, tp := range tps {
		st := broker.PartitionState{
			Topic: tp.Topic, Partition: tp.Partition, Role: broker.Offline,
			HWCheckpoint: ckpt[tp], LeaderEpoch: -1, Leader: protocol.NoLeader, PartitionEpoch: -1,
			Isr: []int32{}, FollowerLEO: map[int32]int64{}, FetchState: broker.FetchNone,
		}
		snap, err := storage.ReadDir(filepath.Join(dir, fmt.Sprintf("%s-%d", tp.Topic, tp.Partition)))
		if errors.Is(err, fs.ErrNotExist) {
			snap, err = storage.Snapshot{}, nil // never created: an empty log
		}
		errs = append(errs, err)
		st.Log = make([]protocol.Record, len(snap.Records))
		for i, r := range snap.Records {
			st.Log[i] = protocol.Record{Offset: r.Offset, LeaderEpoch: r.LeaderEpoch, ID: r.ID}
		}
		st.LEO, st.RecoveryPoint = snap.LEO, snap.RecoveryPoint
		st.EpochCache = []broker.EpochEntry{}
		for _, e := range snap.Epochs {
			st.EpochCache = append(st.EpochCache, broker.EpochEntry{Epoch: e.Epoch, Start: e.StartOffset})
		}
		out[tp] = st
	}
	return out, errors.Join(errs...)
}
