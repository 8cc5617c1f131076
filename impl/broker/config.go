package broker

import (
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/hwepoch/hwepoch/impl/netsim"
	"github.com/hwepoch/hwepoch/impl/protocol"
	"github.com/hwepoch/hwepoch/impl/storage"
)

// Config is a broker's configuration; fields name the Kafka settings they
// stand for.
type Config struct {
	// BrokerID is broker.id, in [0, MaxBrokerID].
	BrokerID int32
	// Dir is log.dirs (a single directory).
	Dir string
	// ControllerNode is the controller's network address.
	ControllerNode netsim.NodeID
	// Partitions are the partitions this broker hosts a replica of, with
	// their replica sets (its view of the topic metadata). Their logs are
	// created on first start.
	Partitions []PartitionAssignment

	// Policy is the follower truncation policy (the spec's Truncation).
	Policy storage.Policy
	// Fencing is KIP-320 (inter.broker.protocol.version >= 2.1): Fetch and
	// OffsetsForLeaderEpoch carry the current leader epoch and a leader
	// refuses a different one.
	Fencing bool
	// MinInsyncReplicas is min.insync.replicas.
	MinInsyncReplicas int
	// MinIsrGatesHW is Kafka >= 3.7's rule that the HW does not advance
	// while the ISR is below min.insync.replicas.
	MinIsrGatesHW bool
	// BrokerEpoch is the broker epoch of this incarnation's registration
	// with the controller (BrokerRegistrationResponse.brokerEpoch; the
	// spec's brokerEpoch[r]). Its fetches carry it where the release has
	// KIP-903's broker epochs (release.Release.IsrBrokerEpochs).
	BrokerEpoch int64

	// ReplicaLagTimeMax is replica.lag.time.max.ms.
	ReplicaLagTimeMax time.Duration
	// ReplicaFetchBackoff is replica.fetch.backoff.ms: the pause after a
	// failed fetcher request.
	ReplicaFetchBackoff time.Duration
	// ReplicaFetchWaitMax is replica.fetch.wait.max.ms: how long a leader
	// holds a follower's fetch that would return nothing (free mode).
	ReplicaFetchWaitMax time.Duration
	// RequestTimeout is request.timeout.ms for fetcher and AlterPartition
	// requests.
	RequestTimeout time.Duration
	// HighWatermarkCheckpointInterval is
	// replica.high.watermark.checkpoint.interval.ms.
	HighWatermarkCheckpointInterval time.Duration
	// LogFlushInterval is log.flush.interval.ms; 0 never flushes on a timer
	// (Kafka's default leaves flushing to the OS), so a crash that loses the
	// unflushed tail can lose anything not yet flushed.
	LogFlushInterval time.Duration
	// SegmentBytes is log.segment.bytes (0: storage's default).
	SegmentBytes int64

	// Stepped makes the broker do nothing on its own (see the package doc).
	Stepped bool
	// Simulated (with Stepped) is the deterministic simulation's broker:
	// messages still move only when the driver delivers them and no timer
	// runs by itself, but the broker makes its own decisions as in free mode
	// — a fetch that brings a follower in sync proposes it for the ISR, a
	// failed fetch backs off for replica.fetch.backoff.ms on the Now clock —
	// and the driver fires the timers (FireTimer) on the simulated clock.
	Simulated bool

	// Hook, if set, observes every handled event (see Event). It is called
	// with a partition lock held: it must not call back into the broker.
	Hook func(Event)
	// Clock is the broker's Lamport clock; pass the same one to every
	// incarnation so stamps keep increasing across restarts. Nil: a new one.
	Clock *protocol.LamportClock
	// Sequence, if set, numbers events across every node sharing it
	// (Event.Seq).
	Sequence *atomic.Uint64
	// History, if set, records every record that goes below a leader's HW
	// (the spec's ghost variable committed).
	History History
	// Started, if set, is called once the broker has recovered its
	// partitions from its files and before it handles any message: where
	// the caller reports the start, so that the report comes before every
	// event of the new incarnation.
	Started func(*Broker)
	// Now is the time source for lag bookkeeping; nil is time.Now.
	Now func() time.Time

	// Mutants are seeded bugs for the mutation check (see Mutant); never
	// set outside it.
	Mutants []Mutant
}

// PartitionAssignment is a partition and its replicas, in assignment order.
type PartitionAssignment struct {
	protocol.TopicPartition
	Replicas []int32
}

// MaxBrokerID bounds broker ids so that fetcher addresses stay distinct.
const MaxBrokerID = 999

// History receives the records that a leader's HW passes (the spec's
// NewlyCommitted). It must be safe for concurrent use and must not call
// back into the broker.
type History interface {
	Committed(tp protocol.TopicPartition, offset, id int64)
}

// DefaultConfig returns Kafka's defaults where they make sense at this
// scale (times are shortened: the simulated network is fast).
func DefaultConfig() Config {
	return Config{
		Policy:                          storage.LeaderEpoch,
		Fencing:                         true,
		MinInsyncReplicas:               1,
		ReplicaLagTimeMax:               300 * time.Millisecond,
		ReplicaFetchBackoff:             10 * time.Millisecond,
		ReplicaFetchWaitMax:             5 * time.Millisecond,
		RequestTimeout:                  200 * time.Millisecond,
		HighWatermarkCheckpointInterval: 50 * time.Millisecond,
	}
}

// Validate reports a configuration the broker cannot run with.
func (c Config) Validate() error {
	var errs []error
	if c.BrokerID < 0 || c.BrokerID > MaxBrokerID {
		errs = append(errs, fmt.Errorf("broker.id %d not in [0, %d]", c.BrokerID, MaxBrokerID))
	}
	if c.Dir == "" {
		errs = append(errs, errors.New("log.dirs is empty"))
	}
	if !c.Policy.Valid() {
		errs = append(errs, fmt.Errorf("unknown truncation policy %q", string(c.Policy)))
	}
	if c.MinInsyncReplicas < 1 {
		errs = append(errs, fmt.Errorf("min.insync.replicas must be >= 1, got %d", c.MinInsyncReplicas))
	}
	if !c.Stepped {
		for _, d := range []struct {
			name string
			v    time.Duration
		}{
			{"replica.lag.time.max.ms", c.ReplicaLagTimeMax},
			{"replica.fetch.backoff.ms", c.ReplicaFetchBackoff},
			{"request.timeout.ms", c.RequestTimeout},
			{"replica.high.watermark.checkpoint.interval.ms", c.HighWatermarkCheckpointInterval},
		} {
			if d.v <= 0 {
				errs = append(errs, fmt.Errorf("%s must be positive in free mode, got %v", d.name, d.v))
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("broker: invalid config: %w", err)
	}
	return nil
}

// Node is the network address of broker b's request handler.
func Node(b int32) netsim.NodeID { return netsim.NodeID(b) }

// FetcherNode is the network address of follower f's replica fetcher for
// source broker l (its own connection, as Kafka's fetcher threads have
// their own NetworkClient).
func FetcherNode(f, l int32) netsim.NodeID {
	return netsim.NodeID(1_000_000 + int64(f)*1000 + int64(l))
}

// FetcherOf inverts FetcherNode.
func FetcherOf(n netsim.NodeID) (follower, leader int32, ok bool) {
	v := int64(n) - 1_000_000
	if v < 0 || v >= (MaxBrokerID+1)*1000 {
		return 0, 0, false
	}
	return int32(v / 1000), int32(v % 1000), true
}
