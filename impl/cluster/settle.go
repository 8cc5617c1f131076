package cluster

import (
	"fmt"
	"time"

	"github.com/hwepoch/hwepoch/impl/broker"
	"github.com/hwepoch/hwepoch/impl/netsim"
	"github.com/hwepoch/hwepoch/impl/protocol"
)

// settleTimeout bounds one wait for the network to go idle.
const settleTimeout = 30 * time.Second

// internal reports whether a message is one the spec does not model, which
// the stepped cluster delivers as part of the step that sent it: produce
// requests and responses, the LeaderAndIsr response, a consumer's fetches,
// and, under the ZooKeeper releases, AlterPartition (the spec's atomic
// conditional write; asynchronous AlterPartition has steps of its own).
func (c *Cluster) internal(m netsim.Message) bool {
	switch p := m.Payload.(type) {
	case protocol.AlterPartitionRequest, protocol.AlterPartitionResponse:
		return !c.rel.AsyncIsr
	case protocol.ProduceRequest, protocol.ProduceResponse,
		protocol.LeaderAndIsrResponse:
		return true
	case protocol.FetchRequest:
		return p.ReplicaID == protocol.ConsumerReplicaID
	case protocol.FetchResponse:
		return m.To == ConsumerNode
	}
	return false
}

// settle waits until the stepped cluster is quiescent: no node is handling
// a message and no internal message is in flight (they are delivered, in
// send order, one at a time). Only the spec's messages remain in flight.
func (c *Cluster) settle() error {
	for range 10_000 {
		ctx, cancel := settleContext()
		err := c.net.WaitIdle(ctx)
		cancel()
		if err != nil {
			return fmt.Errorf("cluster: did not settle: %w", err)
		}
		var next *netsim.Message
		for _, m := range c.net.InFlight() {
			if c.internal(m) {
				next = &m
				break
			}
		}
		if next == nil {
			return c.Err()
		}
		if id, ok := brokerOfNode(next.To); ok && !c.Alive(id) {
			// Addressed to a crashed broker: lost with it.
			if err := c.net.Drop(next.ID); err != nil {
				return err
			}
			continue
		}
		if err := c.net.Deliver(next.ID); err != nil {
			return err
		}
	}
	return fmt.Errorf("cluster: internal messages keep coming; not settling")
}

// fetcherMessage finds the in-flight fetcher message of follower f about
// the focus partition: a request from one of f's fetchers (kind "Fetch" or
// "OffsetsForLeaderEpoch") or a response to one (kind + "Response"). An
// empty kind matches any.
func (c *Cluster) fetcherMessage(f int32, kind string) (netsim.Message, Message, bool) {
	for _, m := range c.net.InFlight() {
		wm, ok := c.wireMessage(m)
		if !ok {
			continue
		}
		mine := (wm.Src == f && isRequest(wm.Type)) || (wm.Dst == f && !isRequest(wm.Type))
		if mine && (kind == "" || wm.Type == kind) {
			return m, wm, true
		}
	}
	return netsim.Message{}, Message{}, false
}

func isRequest(t string) bool { return t == MsgFetch || t == MsgOffsetsForLeaderEpoch }

// sentBeforeCrash reports whether broker id sent, at Lamport time stamp, a
// message before its last crash: an earlier incarnation's (an orphan, once
// the broker has restarted as well as while it is down).
func (c *Cluster) sentBeforeCrash(id int32, stamp uint64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.slots[id]
	return ok && stamp < s.crashStamp
}

// wireMessage turns a fetcher message about the focus partition into the
// spec's message record.
func (c *Cluster) wireMessage(m netsim.Message) (Message, bool) {
	tp := c.focus
	switch p := m.Payload.(type) {
	case protocol.FetchRequest:
		f, l, ok := broker.FetcherOf(m.From)
		if !ok {
			return Message{}, false
		}
		for _, x := range p.Partitions {
			if x.TopicPartition == tp {
				return Message{Type: MsgFetch, Src: f, Dst: l, Offset: x.FetchOffset, CurrentEpoch: x.CurrentLeaderEpoch,
					Corr: p.CorrelationID, LastFetchedEpoch: x.LastFetchedEpoch, Orphan: c.sentBeforeCrash(f, p.Lamport)}, true
			}
		}
	case protocol.OffsetsForLeaderEpochRequest:
		f, l, ok := broker.FetcherOf(m.From)
		if !ok {
			return Message{}, false
		}
		for _, x := range p.Partitions {
			if x.TopicPartition == tp {
				return Message{Type: MsgOffsetsForLeaderEpoch, Src: f, Dst: l, Epoch: x.LeaderEpoch,
					CurrentEpoch: x.CurrentLeaderEpoch, Corr: p.CorrelationID}, true
			}
		}
	case protocol.FetchResponse:
		f, l, ok := broker.FetcherOf(m.To)
		if !ok {
			return Message{}, false
		}
		for _, x := range p.Partitions {
			if x.TopicPartition == tp {
				return Message{Type: MsgFetchResponse, Src: l, Dst: f, Error: x.Error.String(), Offset: x.FetchOffset,
					Records: recordsOf(x.Records), HW: x.HighWatermark, LEO: x.LogEndOffset,
					CurrentEpoch: x.CurrentLeaderEpoch, Corr: p.CorrelationID, Diverging: x.Diverging,
					DivergingEpoch: x.DivergingEpoch, DivergingOffset: x.DivergingEndOffset}, true
			}
		}
	case protocol.OffsetsForLeaderEpochResponse:
		f, l, ok := broker.FetcherOf(m.To)
		if !ok {
			return Message{}, false
		}
		for _, x := range p.Partitions {
			if x.TopicPartition == tp {
				return Message{Type: MsgOffsetsForLeaderEpochResponse, Src: l, Dst: f, Error: x.Error.String(),
					Epoch: x.LeaderEpoch, Offset: x.EndOffset, CurrentEpoch: x.CurrentLeaderEpoch, Corr: p.CorrelationID}, true
			}
		}
	}
	return Message{}, false
}

func recordsOf(rs []protocol.Record) []Record {
	out := make([]Record, len(rs))
	for i, r := range rs {
		out[i] = Record{Offset: r.Offset, Epoch: r.LeaderEpoch, ID: r.ID}
	}
	return out
}
