package broker

import (
	"fmt"

	"github.com/hwepoch/hwepoch/impl/protocol"
)

// The driver's handles on a broker: each does one of the spec's actions
// that a free-running broker would do on its own, or reports why it cannot.
// They work in both modes; a stepped driver is their intended user.

// SendFetch makes the fetcher of tp's leader send a Fetch for tp alone
// (spec SendFetch).
func (b *Broker) SendFetch(tp protocol.TopicPartition) error {
	return b.sendFetcherRequest(tp, Fetching)
}

// SendOffsetsForLeaderEpoch makes the fetcher of tp's leader send an
// OffsetsForLeaderEpoch for tp alone (spec SendOffsetsForLeaderEpoch).
func (b *Broker) SendOffsetsForLeaderEpoch(tp protocol.TopicPartition) error {
	return b.sendFetcherRequest(tp, Truncating)
}

func (b *Broker) sendFetcherRequest(tp protocol.TopicPartition, kind FetchState) error {
	p, ok := b.rm.get(tp)
	if !ok {
		return fmt.Errorf("broker %d: no replica of %s", b.cfg.BrokerID, tp)
	}
	p.mu.Lock()
	err := p.canSend(kind)
	leader := p.leader
	p.mu.Unlock()
	if err != nil {
		return err
	}
	t, ok := b.fetchers.existing(leader)
	if !ok {
		return fmt.Errorf("broker %d: no fetcher for leader %d", b.cfg.BrokerID, leader)
	}
	return t.send(kind, &tp)
}

// ShrinkIsr makes this broker, as tp's leader, propose removing f from the
// ISR (spec ShrinkIsr; Partition.maybeShrinkIsr without the lag test, which
// the spec leaves nondeterministic). It returns the AlterPartition's
// correlation id; the outcome is known once the controller has answered
// (AlterPartitionResult).
func (b *Broker) ShrinkIsr(tp protocol.TopicPartition, f int32) (uint64, error) {
	return b.alter(tp, isrShrink, f)
}

// ExpandIsr makes this broker, as tp's leader, propose adding f to the ISR
// if f is in sync (spec ExpandIsr).
func (b *Broker) ExpandIsr(tp protocol.TopicPartition, f int32) (uint64, error) {
	return b.alter(tp, isrExpand, f)
}

func (b *Broker) alter(tp protocol.TopicPartition, kind isrChangeKind, f int32) (uint64, error) {
	p, ok := b.rm.get(tp)
	if !ok {
		return 0, fmt.Errorf("broker %d: no replica of %s", b.cfg.BrokerID, tp)
	}
	return b.proposeIsrChange(p, kind, f)
}

// RequestTimedOut makes the fetcher holding request corr give up on it, as
// when its request.timeout.ms expires (with the spec's LoseMessage event).
// It reports whether a fetcher had it in flight.
func (b *Broker) RequestTimedOut(corr uint64) bool {
	for _, t := range b.fetchers.list() {
		if t.abandon(corr, true) {
			return true
		}
	}
	return false
}

// ConnectionLost tells the broker that peer crashed, at Lamport time
// stamp of the peer's clock: its fetcher for peer abandons the request in
// flight there (NetworkClient notices the closed connection), freeing the
// partitions' slots, and messages the peer sent before it crashed that
// still wait in a mailbox are discarded when taken (their connection is
// gone) — the spec's Crash loses every message to or from the broker.
func (b *Broker) ConnectionLost(peer int32, stamp uint64) {
	b.connMu.Lock()
	defer b.connMu.Unlock()
	b.peerMu.Lock()
	if b.peerCrash == nil {
		b.peerCrash = map[int32]uint64{}
	}
	b.peerCrash[peer] = max(b.peerCrash[peer], stamp)
	if b.peerDown == nil {
		b.peerDown = map[int32]bool{}
	}
	b.peerDown[peer] = true
	b.peerMu.Unlock()
	b.peerCrashed(peer)
	if t, ok := b.fetchers.existing(peer); ok {
		t.abandon(0, false)
	}
}

// PeerStarted tells the broker that peer is alive again, registered with
// broker epoch brokerEpoch (the metadata a controller publishes when a
// broker registers): a LeaderAndIsr naming it leader is applied again,
// and under KIP-903 only a fetch of that incarnation makes it eligible for
// the ISR.
func (b *Broker) PeerStarted(peer int32, brokerEpoch int64) {
	b.peerMu.Lock()
	defer b.peerMu.Unlock()
	delete(b.peerDown, peer)
	b.setPeerEpochLocked(peer, brokerEpoch)
}

// PeerBrokerEpoch tells the broker the broker epoch of peer's current
// registration (what a starting broker learns of the others from the
// metadata, as PeerStarted tells the others of it).
func (b *Broker) PeerBrokerEpoch(peer int32, brokerEpoch int64) {
	b.peerMu.Lock()
	defer b.peerMu.Unlock()
	b.setPeerEpochLocked(peer, brokerEpoch)
}

func (b *Broker) setPeerEpochLocked(peer int32, brokerEpoch int64) {
	if b.peerEpoch == nil {
		b.peerEpoch = map[int32]int64{}
	}
	b.peerEpoch[peer] = brokerEpoch
}

// brokerEpochOf is the broker epoch of id's current registration as the
// broker knows it (MetadataCache.getAliveBrokerEpoch; its own for itself).
func (b *Broker) brokerEpochOf(id int32) int64 {
	if id == b.cfg.BrokerID {
		return b.cfg.BrokerEpoch
	}
	b.peerMu.Lock()
	defer b.peerMu.Unlock()
	return b.peerEpoch[id]
}

// brokerAlive reports whether the broker believes id is alive (Kafka's
// metadataCache.hasAliveBroker): itself, or a peer it has not seen crash
// since it last started.
func (b *Broker) brokerAlive(id int32) bool {
	if id == b.cfg.BrokerID {
		return true
	}
	if id < 0 {
		return false
	}
	b.peerMu.Lock()
	defer b.peerMu.Unlock()
	return !b.peerDown[id]
}

// fromDeadConnection reports whether a message stamped lamport by peer was
// sent before the peer's last crash.
func (b *Broker) fromDeadConnection(peer int32, lamport uint64) bool {
	b.peerMu.Lock()
	defer b.peerMu.Unlock()
	return lamport < b.peerCrash[peer]
}

// FetcherInFlight returns the correlation id of the request the fetcher
// for source has in flight (0 if none or no such fetcher).
func (b *Broker) FetcherInFlight(source int32) uint64 {
	t, ok := b.fetchers.existing(source)
	if !ok {
		return 0
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.inflight == nil {
		return 0
	}
	return t.inflight.corr
}

// fetchReplicaEpoch is the broker epoch a Fetch carries: this incarnation's
// under KIP-903, -1 otherwise.
func (b *Broker) fetchReplicaEpoch() int64 {
	if b.rel.IsrBrokerEpochs {
		return b.cfg.BrokerEpoch
	}
	return -1
}
