package broker

import (
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/hwepoch/hwepoch/impl/protocol"
	"github.com/hwepoch/hwepoch/impl/release"
	"github.com/hwepoch/hwepoch/impl/storage"
)

// Partition is one replica of one partition on this broker: Kafka's
// Partition (role, leader epoch, ISR, remote replica states, HW) together
// with the follower's PartitionFetchState and its one request slot.
//
// Every field below mu is guarded by it.
type Partition struct {
	tp     protocol.TopicPartition
	b      *Broker
	log    *storage.Log
	mu     sync.Mutex
	role   Role
	epoch  int32 // leaderEpoch: of the last LeaderAndIsr applied
	leader int32 // protocol.NoLeader if none
	// partitionEpoch and replicas come with LeaderAndIsr; the partition
	// epoch is what AlterPartition compares and sets.
	partitionEpoch int32
	replicas       []int32
	// produceEpoch is the first epoch of this broker's uninterrupted
	// leadership (the spec's produceEpoch): its purgatory may hold acks=all
	// requests from that epoch on, since a re-election keeps them. -1
	// unless leader.
	produceEpoch int32
	hw           int64
	hwCheckpoint int64 // as in the replication-offset-checkpoint file

	// Leader state.
	isr        []int32 // committed ISR, sorted
	pendingIsr *pendingIsrChange
	// alterInFlight is the correlation id of the AlterPartition awaiting
	// its answer (0: none), which outlives a proposal a LeaderAndIsr
	// dropped; alterDeadline is when free mode stops waiting for it.
	alterInFlight          uint64
	alterDeadline          time.Time
	remotes                map[int32]*remoteReplica
	leaderEpochStartOffset int64
	purgatory              []*delayedProduce

	// Follower state.
	fetchState FetchState
	// fetchSlot is the correlation id of the fetcher request (Fetch or
	// OffsetsForLeaderEpoch) outstanding for this partition, 0 if none: the
	// spec's inflight[f], one per follower. It survives LeaderAndIsr (as
	// inflight does in the spec) and is released by the response, a
	// timeout or a lost connection — by whichever fetcher sent it, even if
	// the partition has moved to another fetcher since.
	fetchSlot uint64
	// validated: under truncation on fetch (3.9), a fetch of this epoch
	// was answered without divergence, so the log agrees with the
	// leader's; before that it may still be truncated (the spec's
	// fetchState "Truncating", though the fetcher fetches all the same).
	validated bool
}

// remoteReplica is the leader's view of a follower (Kafka's Replica /
// ReplicaState).
type remoteReplica struct {
	// leo is the fetch offset of the follower's last fetch in this epoch,
	// -1 unknown (UnifiedLog.UnknownOffset after resetReplicaState).
	leo int64
	// brokerEpoch is the broker epoch that fetch carried (ReplicaState's
	// brokerEpoch, KIP-903; the spec's followerBrokerEpoch), -1 unknown or
	// where the release has none.
	brokerEpoch int64
	// Kafka's lastCaughtUpTimeMs bookkeeping (Replica.updateFetchState).
	lastCaughtUpTime   time.Time
	lastFetchLeaderLEO int64
	lastFetchTime      time.Time
}

// newPartition wraps an open log; hwCheckpoint is the file's value for it.
// HW = min(checkpoint, LEO) (spec Restart; Partition.createLogIfNotExists).
func newPartition(b *Broker, tp protocol.TopicPartition, log *storage.Log, hwCheckpoint int64, replicas []int32) *Partition {
	return &Partition{
		tp:             tp,
		b:              b,
		log:            log,
		role:           Starting,
		produceEpoch:   -1,
		epoch:          -1,
		leader:         protocol.NoLeader,
		partitionEpoch: -1,
		replicas:       slices.Clone(replicas),
		hw:             min(hwCheckpoint, log.LEO()),
		hwCheckpoint:   hwCheckpoint,
		remotes:        map[int32]*remoteReplica{},
		fetchState:     FetchNone,
	}
}

// TopicPartition names the partition.
func (p *Partition) TopicPartition() protocol.TopicPartition { return p.tp }

// leo reads the log end offset.
func (p *Partition) leo() int64 { return p.log.LEO() }

// resetRemotes forgets every follower view (a new leader's
// Replica.resetReplicaState): all unknown, so a new leader's HW cannot rise
// until every ISR follower has fetched in its epoch.
func (p *Partition) resetRemotes(now time.Time, isr []int32) {
	p.remotes = map[int32]*remoteReplica{}
	for _, r := range p.replicas {
		if r == p.b.cfg.BrokerID {
			continue
		}
		rr := &remoteReplica{leo: -1, brokerEpoch: -1, lastFetchLeaderLEO: -1}
		if slices.Contains(isr, r) {
			// An in-sync follower starts caught up now, so it is not
			// shrunk before it has had a chance to fetch.
			rr.lastCaughtUpTime = now
		}
		p.remotes[r] = rr
	}
}

// restartLagClocks is a re-elected leader's Replica.resetLastCaughtUpTime:
// each follower keeps its LEO as the leader last saw it; its lag clock
// restarts now if it is in the ISR, and counts as long behind otherwise.
func (p *Partition) restartLagClocks(now time.Time, leo int64, isr []int32) {
	for _, r := range p.replicas {
		if r == p.b.cfg.BrokerID {
			continue
		}
		rr := p.remote(r)
		rr.lastFetchLeaderLEO = leo
		rr.lastFetchTime = now
		rr.lastCaughtUpTime = time.Time{}
		if slices.Contains(isr, r) {
			rr.lastCaughtUpTime = now
		}
	}
}

func (p *Partition) remote(r int32) *remoteReplica {
	rr, ok := p.remotes[r]
	if !ok {
		rr = &remoteReplica{leo: -1, brokerEpoch: -1, lastFetchLeaderLEO: -1}
		p.remotes[r] = rr
	}
	return rr
}

// truncateTo cuts the log (and epoch cache) to offset and lowers the HW to
// it: the spec's TruncLog, TruncCache and TruncHW.
func (p *Partition) truncateTo(offset int64) error {
	var kept []storage.EpochEntry
	if p.b.mutant(MutantCacheNotTruncated) { // mutant hook: the cache keeps what truncation drops
		kept = p.log.EpochCache().Entries()
	}
	if _, err := p.log.TruncateTo(offset); err != nil {
		return fmt.Errorf("broker %d: truncate %s to %d: %w", p.b.cfg.BrokerID, p.tp, offset, err)
	}
	for _, e := range kept {
		if err := p.log.EpochCache().Assign(e.Epoch, e.StartOffset); err != nil {
			return err
		}
	}
	if p.b.mutant(MutantFollowerHWNotClamped) { // mutant hook: the HW stays above the new end
		return nil
	}
	p.hw = min(p.hw, offset, p.leo())
	return nil
}

// State returns the partition's state as plain values.
func (p *Partition) State() PartitionState {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stateLocked()
}

func (p *Partition) stateLocked() PartitionState {
	s := PartitionState{
		Topic:               p.tp.Topic,
		Partition:           p.tp.Partition,
		Role:                p.role,
		HW:                  p.hw,
		HWCheckpoint:        p.hwCheckpoint,
		LeaderEpoch:         p.epoch,
		Leader:              p.leader,
		PartitionEpoch:      p.partitionEpoch,
		ProduceEpoch:        p.produceEpoch,
		FollowerLEO:         map[int32]int64{},
		FollowerBrokerEpoch: map[int32]int64{},
		FetchState:          p.reportedFetchState(),
		FetchInFlight:       p.fetchSlot,
		Isr:                 []int32{},
	}
	if snap, err := p.log.Snapshot(); err == nil {
		s.LEO, s.RecoveryPoint = snap.LEO, snap.RecoveryPoint
		s.Log = make([]protocol.Record, len(snap.Records))
		for i, r := range snap.Records {
			s.Log[i] = protocol.Record{Offset: r.Offset, LeaderEpoch: r.LeaderEpoch, ID: r.ID}
		}
		s.EpochCache = make([]EpochEntry, len(snap.Epochs))
		for i, e := range snap.Epochs {
			s.EpochCache[i] = EpochEntry{Epoch: e.Epoch, Start: e.StartOffset}
		}
	}
	for _, r := range p.replicas {
		s.FollowerLEO[r] = -1
		s.FollowerBrokerEpoch[r] = -1
	}
	if p.role == Leader {
		s.Isr = slices.Clone(p.isr)
		for r, rr := range p.remotes {
			s.FollowerLEO[r] = rr.leo
			s.FollowerBrokerEpoch[r] = rr.brokerEpoch
		}
		if p.pendingIsr != nil {
			s.PendingIsr = slices.Clone(p.pendingIsr.req.NewIsr)
		}
	}
	return s
}

// reportedFetchState is the spec's fetchState: under truncation on fetch
// (3.9) a follower fetching before its first answer without divergence is
// still "Truncating" (its log may yet be truncated).
func (p *Partition) reportedFetchState() FetchState {
	if p.role == Follower && p.fetchState == Fetching && !p.validated &&
		p.b.rel.Reconcile == release.ReconcileDivergingEpoch {
		return Truncating
	}
	return p.fetchState
}
