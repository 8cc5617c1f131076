package client

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/hwepoch/hwepoch/impl/netsim"
	"github.com/hwepoch/hwepoch/impl/protocol"
)

// ConsumerConfig configures a Consumer.
type ConsumerConfig struct {
	Node           netsim.NodeID
	RequestTimeout time.Duration
	Leader         func(tp protocol.TopicPartition) (int32, bool)
	BrokerNode     func(int32) netsim.NodeID
}

// Consumer reads committed records: those below the leader's HW.
type Consumer struct {
	cfg  ConsumerConfig
	ep   *netsim.Endpoint
	mu   sync.Mutex // one fetch at a time
	corr uint64
}

// NewConsumer returns a consumer on net.
func NewConsumer(cfg ConsumerConfig, net *netsim.Network) (*Consumer, error) {
	if cfg.Leader == nil || cfg.BrokerNode == nil {
		return nil, errors.New("client: ConsumerConfig.Leader or BrokerNode is nil")
	}
	ep, err := endpoint(net, cfg.Node)
	if err != nil {
		return nil, err
	}
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = time.Second
	}
	return &Consumer{cfg: cfg, ep: ep}, nil
}

// Fetch reads tp from offset on its leader: the records below the HW, and
// the HW. Records at or above the HW are dropped, whatever the broker sent.
func (c *Consumer) Fetch(ctx context.Context, tp protocol.TopicPartition, offset int64) ([]protocol.Record, int64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	leader, ok := c.cfg.Leader(tp)
	if !ok {
		return nil, -1, protocol.NotLeaderOrFollower
	}
	c.corr++
	corr := c.corr
	req := protocol.FetchRequest{
		Header:     protocol.Header{CorrelationID: corr},
		ReplicaID:  protocol.ConsumerReplicaID,
		Partitions: []protocol.FetchPartition{{TopicPartition: tp, FetchOffset: offset, CurrentLeaderEpoch: -1, LastFetchedEpoch: -1}},
	}
	if _, err := c.ep.Send(c.cfg.BrokerNode(leader), req); err != nil {
		return nil, -1, err
	}
	ctx, cancel := context.WithTimeout(ctx, c.cfg.RequestTimeout)
	defer cancel()
	defer c.ep.Done()
	for {
		m, err := c.ep.Recv(ctx)
		if err != nil {
			return nil, -1, fmt.Errorf("client: fetch %s from %d: %w", tp, leader, err)
		}
		r, ok := m.Payload.(protocol.FetchResponse)
		if !ok || r.CorrelationID != corr || len(r.Partitions) != 1 {
			continue // a late answer to an earlier fetch
		}
		part := r.Partitions[0]
		if part.Error != protocol.None {
			return nil, part.HighWatermark, part.Error
		}
		var recs []protocol.Record
		for _, rec := range part.Records {
			if rec.Offset < part.HighWatermark {
				recs = append(recs, rec)
			}
		}
		return recs, part.HighWatermark, nil
	}
}
