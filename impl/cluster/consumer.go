package cluster

import (
	"fmt"

	"github.com/hwepoch/hwepoch/impl/broker"
	"github.com/hwepoch/hwepoch/impl/protocol"
)

// ConsumerRead is one raw consumer Fetch (replica id -1) of the focus
// partition and the broker's answer as it came off the wire: what a
// consumer would be handed before any client-side filtering, so a check of
// it checks the broker's consumer path.
type ConsumerRead struct {
	Broker int32
	Offset int64
	Resp   protocol.FetchResponsePartition
}

// ReadAsConsumer sends a consumer Fetch of the focus partition from offset
// to broker b and returns its answer (stepped mode: the request and the
// answer are delivered within the step).
func (c *Cluster) ReadAsConsumer(b int32, offset int64) (ConsumerRead, error) {
	if c.cfg.Mode != Stepped {
		return ConsumerRead{}, fmt.Errorf("cluster: ReadAsConsumer needs stepped mode")
	}
	ep, ok := c.net.Endpoint(ConsumerNode)
	if !ok {
		return ConsumerRead{}, fmt.Errorf("cluster: no consumer node")
	}
	read := ConsumerRead{Broker: b, Offset: offset}
	got := make(chan error, 1)
	err := c.step(func() error {
		if _, err := c.broker(b); err != nil {
			return err
		}
		c.readCorr++
		corr := c.readCorr
		req := protocol.FetchRequest{
			Header:    protocol.Header{CorrelationID: corr},
			ReplicaID: protocol.ConsumerReplicaID,
			Partitions: []protocol.FetchPartition{{TopicPartition: c.focus, FetchOffset: offset,
				CurrentLeaderEpoch: -1}},
		}
		if _, err := ep.Send(broker.Node(b), req); err != nil {
			return err
		}
		// The answer is taken off the mailbox as it arrives, so the
		// network goes idle and the step settles.
		go func() {
			ctx, cancel := settleContext()
			defer cancel()
			defer ep.Done()
			for {
				m, err := ep.Recv(ctx)
				if err != nil {
					got <- err
					return
				}
				r, ok := m.Payload.(protocol.FetchResponse)
				if !ok || r.CorrelationID != corr || len(r.Partitions) != 1 {
					continue
				}
				read.Resp = r.Partitions[0]
				got <- nil
				return
			}
		}()
		return nil
	})
	if err != nil {
		return read, err
	}
	if err := <-got; err != nil {
		return read, fmt.Errorf("cluster: consumer read from %d: %w", b, err)
	}
	return read, nil
}
