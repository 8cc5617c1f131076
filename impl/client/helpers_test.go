package client_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/hwepoch/hwepoch/impl/client"
	"github.com/hwepoch/hwepoch/impl/netsim"
	"github.com/hwepoch/hwepoch/impl/protocol"
)

// The tests drive a Producer or a Consumer against scripted fake brokers on
// a netsim network. Broker b listens on node b; the clients have their own
// nodes.
const (
	producerNode netsim.NodeID = 100
	consumerNode netsim.NodeID = 101
)

var tp = protocol.TopicPartition{Topic: "t", Partition: 0}

func brokerNode(b int32) netsim.NodeID { return netsim.NodeID(b) }

// leaderIs is a metadata function naming b as every partition's leader.
func leaderIs(b int32) func(protocol.TopicPartition) (int32, bool) {
	return func(protocol.TopicPartition) (int32, bool) { return b, true }
}

func noLeader(protocol.TopicPartition) (int32, bool) { return 0, false }

// testCtx bounds a test: far beyond what any step takes, so reaching it
// means something is stuck.
func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func newNet(t *testing.T, mode netsim.Mode) *netsim.Network {
	t.Helper()
	n, err := netsim.New(netsim.Config{Mode: mode})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	return n
}

func addNode(t *testing.T, n *netsim.Network, id netsim.NodeID) *netsim.Endpoint {
	t.Helper()
	ep, err := n.AddNode(id)
	if err != nil {
		t.Fatal(err)
	}
	return ep
}

// newProducer makes a producer on producerNode whose metadata names broker
// 1 the leader; mod adjusts the config. Its request timeout is far longer
// than any test, unless mod shortens it.
func newProducer(t *testing.T, n *netsim.Network, acks protocol.Acks, mod func(*client.ProducerConfig)) *client.Producer {
	t.Helper()
	cfg := client.ProducerConfig{Node: producerNode, Acks: acks, RequestTimeout: time.Hour,
		Leader: leaderIs(1), BrokerNode: brokerNode}
	if mod != nil {
		mod(&cfg)
	}
	p, err := client.NewProducer(cfg, n)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

func newConsumer(t *testing.T, n *netsim.Network, mod func(*client.ConsumerConfig)) *client.Consumer {
	t.Helper()
	cfg := client.ConsumerConfig{Node: consumerNode, RequestTimeout: time.Hour, Leader: leaderIs(1), BrokerNode: brokerNode}
	if mod != nil {
		mod(&cfg)
	}
	c, err := client.NewConsumer(cfg, n)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// serve runs a fake broker on node b of a free network: every message it
// receives is passed to handle, and what handle returns is sent back to
// the sender, in order. It stops when the test ends.
func serve(t *testing.T, n *netsim.Network, b int32, handle func(m netsim.Message) []any) {
	t.Helper()
	ep := addNode(t, n, brokerNode(b))
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			m, err := ep.Recv(ctx)
			if err != nil {
				return
			}
			for _, out := range handle(m) {
				if _, err := ep.Send(m.From, out); err != nil {
					return
				}
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		wg.Wait()
	})
}

// produceAnswer is the broker's answer to req.
func produceAnswer(req protocol.ProduceRequest, code protocol.Error, base int64) protocol.ProduceResponse {
	return protocol.ProduceResponse{Header: protocol.Header{CorrelationID: req.CorrelationID},
		Partition: req.Partition, Error: code, BaseOffset: base}
}

// stepBroker is a fake broker on a stepped network, moved by the test:
// nothing reaches it or leaves it unless the test says so.
type stepBroker struct {
	t  *testing.T
	n  *netsim.Network
	ep *netsim.Endpoint
}

func newStepBroker(t *testing.T, n *netsim.Network, b int32) *stepBroker {
	t.Helper()
	return &stepBroker{t: t, n: n, ep: addNode(t, n, brokerNode(b))}
}

// take delivers the oldest produce request in flight to the broker and
// returns it.
func (s *stepBroker) take() (netsim.Message, protocol.ProduceRequest) {
	s.t.Helper()
	for _, m := range s.n.InFlight() {
		if m.To != s.ep.ID() {
			continue
		}
		req, ok := m.Payload.(protocol.ProduceRequest)
		if !ok {
			continue
		}
		if err := s.n.Deliver(m.ID); err != nil {
			s.t.Fatal(err)
		}
		got, ok := s.ep.TryRecv()
		if !ok || got.ID != m.ID {
			s.t.Fatalf("broker %d: delivered message %d, received %+v", s.ep.ID(), m.ID, got)
		}
		s.ep.Done()
		return m, req
	}
	s.t.Fatalf("broker %d: no produce request in flight", s.ep.ID())
	return netsim.Message{}, protocol.ProduceRequest{}
}

// reply sends payload back to m's sender and delivers it, then waits until
// the receiver has handled it.
func (s *stepBroker) reply(m netsim.Message, payload any) {
	s.t.Helper()
	id, err := s.ep.Send(m.From, payload)
	if err != nil {
		s.t.Fatal(err)
	}
	if err := s.n.Deliver(id); err != nil {
		s.t.Fatal(err)
	}
	if err := s.n.WaitIdle(testCtx(s.t)); err != nil {
		s.t.Fatal(err)
	}
}

// answer replies to a produce request with code and base.
func (s *stepBroker) answer(m netsim.Message, req protocol.ProduceRequest, code protocol.Error, base int64) {
	s.t.Helper()
	s.reply(m, produceAnswer(req, code, base))
}

// waitFor polls cond until it holds or the test's time is up.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	ctx := testCtx(t)
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("timed out waiting for %s", what)
		case <-time.After(time.Millisecond):
		}
	}
}
