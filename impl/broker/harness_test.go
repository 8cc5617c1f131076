package broker

import (
	"context"
	"testing"
	"time"

	"github.com/hwepoch/hwepoch/impl/netsim"
	"github.com/hwepoch/hwepoch/impl/protocol"
	"github.com/hwepoch/hwepoch/impl/storage"
)

// A harness runs broker 1 alone on a stepped network; the test plays the
// controller, the other brokers and the producer by hand.
const (
	me       = 1
	ctrlNode = netsim.NodeID(3000)
	prodNode = netsim.NodeID(4000)
)

var tp = protocol.TopicPartition{Topic: "t", Partition: 0}

type harness struct {
	t      *testing.T
	net    *netsim.Network
	b      *Broker
	eps    map[netsim.NodeID]*netsim.Endpoint
	corr   uint64
	events []Event
}

func newHarness(t *testing.T, mod func(*Config)) *harness {
	t.Helper()
	net, err := netsim.New(netsim.Config{Mode: netsim.ModeStepped})
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, net: net, eps: map[netsim.NodeID]*netsim.Endpoint{}}
	for _, n := range []netsim.NodeID{ctrlNode, prodNode, Node(me), FetcherNode(2, me), FetcherNode(3, me), Node(2), Node(3)} {
		ep, err := net.AddNode(n)
		if err != nil {
			t.Fatal(err)
		}
		h.eps[n] = ep
	}
	cfg := DefaultConfig()
	cfg.BrokerID = me
	cfg.Dir = t.TempDir()
	cfg.ControllerNode = ctrlNode
	cfg.Partitions = []PartitionAssignment{{TopicPartition: tp, Replicas: []int32{1, 2, 3}}}
	cfg.Stepped = true
	cfg.Hook = func(e Event) { h.events = append(h.events, e) }
	if mod != nil {
		mod(&cfg)
	}
	b, err := Start(cfg, net)
	if err != nil {
		t.Fatal(err)
	}
	h.b = b
	t.Cleanup(func() {
		b.Shutdown()
		net.Close()
	})
	return h
}

// newMutantHarness is a harness of the given policy with mutant m enabled
// when on (the same test then shows the bug changes what it checks).
func newMutantHarness(t *testing.T, policy storage.Policy, m Mutant, on bool) *harness {
	t.Helper()
	return newHarness(t, func(c *Config) {
		c.Policy = policy
		if on {
			c.Mutants = []Mutant{m}
		}
	})
}

// deliver sends payload from node `from` to the broker and waits until it
// has been handled.
func (h *harness) deliver(from, to netsim.NodeID, payload any) {
	h.t.Helper()
	id, err := h.eps[from].Send(to, payload)
	if err != nil {
		h.t.Fatal(err)
	}
	if err := h.net.Deliver(id); err != nil {
		h.t.Fatal(err)
	}
	h.idle()
}

func (h *harness) idle() {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := h.net.WaitIdle(ctx); err != nil {
		h.t.Fatal(err)
	}
	if err := h.b.Err(); err != nil {
		h.t.Fatal(err)
	}
}

// take removes and returns the in-flight messages to node.
func (h *harness) take(to netsim.NodeID) []any {
	var out []any
	for _, m := range h.net.InFlight() {
		if m.To == to {
			out = append(out, m.Payload)
			h.net.Drop(m.ID)
		}
	}
	return out
}

func (h *harness) next() uint64 { h.corr++; return h.corr }

// leaderAndIsr sends a LeaderAndIsr for tp.
func (h *harness) leaderAndIsr(leader int32, epoch int32, isr ...int32) {
	h.t.Helper()
	h.deliver(ctrlNode, Node(me), protocol.LeaderAndIsrRequest{
		Header: protocol.Header{CorrelationID: h.next()},
		Partitions: []protocol.LeaderAndIsrPartition{{TopicPartition: tp, Leader: leader, LeaderEpoch: epoch,
			Isr: isr, PartitionEpoch: epoch, Replicas: []int32{1, 2, 3}}},
	})
	h.take(ctrlNode)
}

// produce sends one record with the given acks and returns the responses
// (none when the request waits).
func (h *harness) produce(acks protocol.Acks, id int64) []protocol.ProduceResponse {
	h.t.Helper()
	h.deliver(prodNode, Node(me), protocol.ProduceRequest{Header: protocol.Header{CorrelationID: uint64(id)}, Acks: acks,
		Partition: tp, Records: []protocol.ProduceRecord{{ID: id}}})
	return h.produceResponses()
}

func (h *harness) produceResponses() []protocol.ProduceResponse {
	var out []protocol.ProduceResponse
	for _, p := range h.take(prodNode) {
		out = append(out, p.(protocol.ProduceResponse))
	}
	return out
}

// fetch sends follower f's Fetch and returns the leader's answer, after
// both steps of serving it (the read, then UpdateFollowerFetchState).
func (h *harness) fetch(f int32, offset int64, currentEpoch int32) protocol.FetchResponsePartition {
	h.t.Helper()
	return h.fetchLast(f, offset, currentEpoch, -1)
}

// fetchLast is fetch with a lastFetchedEpoch.
func (h *harness) fetchLast(f int32, offset int64, currentEpoch, lastFetched int32) protocol.FetchResponsePartition {
	h.t.Helper()
	got := h.read(f, offset, currentEpoch, lastFetched)
	if len(got) == 0 {
		if err := h.b.UpdateFollowerFetchState(tp, f); err != nil {
			h.t.Fatal(err)
		}
		h.idle()
		got = h.take(FetcherNode(f, me))
	}
	if len(got) != 1 {
		h.t.Fatalf("want one fetch response, got %v", got)
	}
	return got[0].(protocol.FetchResponse).Partitions[0]
}

// read delivers follower f's Fetch and returns what the leader answered at
// once (nothing when it parked the read for UpdateFollowerFetchState).
func (h *harness) read(f int32, offset int64, currentEpoch, lastFetched int32) []any {
	h.t.Helper()
	h.deliver(FetcherNode(f, me), Node(me), protocol.FetchRequest{Header: protocol.Header{CorrelationID: h.next()}, ReplicaID: f,
		Partitions: []protocol.FetchPartition{{TopicPartition: tp, FetchOffset: offset, CurrentLeaderEpoch: currentEpoch,
			LastFetchedEpoch: lastFetched}}})
	return h.take(FetcherNode(f, me))
}

func (h *harness) offsetsFor(f int32, epoch, currentEpoch int32) protocol.EpochEndOffset {
	h.t.Helper()
	h.deliver(FetcherNode(f, me), Node(me), protocol.OffsetsForLeaderEpochRequest{Header: protocol.Header{CorrelationID: h.next()}, ReplicaID: f,
		Partitions: []protocol.OffsetsForLeaderEpochPartition{{TopicPartition: tp, LeaderEpoch: epoch, CurrentLeaderEpoch: currentEpoch}}})
	got := h.take(FetcherNode(f, me))
	if len(got) != 1 {
		h.t.Fatalf("want one response, got %v", got)
	}
	return got[0].(protocol.OffsetsForLeaderEpochResponse).Partitions[0]
}

func (h *harness) state() PartitionState {
	p, ok := h.b.Partition(tp)
	if !ok {
		h.t.Fatal("no partition")
	}
	return p.State()
}

func (h *harness) epochsOfLog() []int32 {
	var out []int32
	for _, r := range h.state().Log {
		out = append(out, r.LeaderEpoch)
	}
	return out
}
