package client_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/hwepoch/hwepoch/impl/client"
	"github.com/hwepoch/hwepoch/impl/netsim"
	"github.com/hwepoch/hwepoch/impl/protocol"
)

// fetchAnswer answers req with the records at offsets (epoch 1, id offset+100)
// and hw.
func fetchAnswer(req protocol.FetchRequest, hw int64, offsets ...int64) protocol.FetchResponse {
	fp := req.Partitions[0]
	var recs []protocol.Record
	for _, o := range offsets {
		recs = append(recs, protocol.Record{Offset: o, LeaderEpoch: 1, ID: o + 100})
	}
	leo := hw
	if len(offsets) > 0 {
		leo = max(leo, offsets[len(offsets)-1]+1)
	}
	return protocol.FetchResponse{Header: protocol.Header{CorrelationID: req.CorrelationID},
		Partitions: []protocol.FetchResponsePartition{{TopicPartition: fp.TopicPartition, FetchOffset: fp.FetchOffset,
			CurrentLeaderEpoch: fp.CurrentLeaderEpoch, Records: recs, HighWatermark: hw, LogEndOffset: leo}}}
}

func offsetsOf(recs []protocol.Record) []int64 {
	out := []int64{}
	for _, r := range recs {
		out = append(out, r.Offset)
	}
	return out
}

// Fetch sends a consumer's fetch (replica id -1, no leader epoch) for the
// offset to the partition's leader and returns the records and the HW.
func TestFetchReadsFromTheLeader(t *testing.T) {
	n := newNet(t, netsim.ModeFree)
	addNode(t, n, brokerNode(1)) // not the leader
	reqs := make(chan protocol.FetchRequest, 1)
	serve(t, n, 2, func(m netsim.Message) []any {
		req := m.Payload.(protocol.FetchRequest)
		reqs <- req
		return []any{fetchAnswer(req, 3, 1, 2)}
	})
	c := newConsumer(t, n, func(c *client.ConsumerConfig) { c.Leader = leaderIs(2) })
	recs, hw, err := c.Fetch(testCtx(t), tp, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := []protocol.Record{{Offset: 1, LeaderEpoch: 1, ID: 101}, {Offset: 2, LeaderEpoch: 1, ID: 102}}
	if !slices.Equal(recs, want) || hw != 3 {
		t.Errorf("Fetch = %v, HW %d; want %v, HW 3", recs, hw, want)
	}
	req := <-reqs
	wantReq := []protocol.FetchPartition{{TopicPartition: tp, FetchOffset: 1, CurrentLeaderEpoch: -1, LastFetchedEpoch: -1}}
	if req.ReplicaID != protocol.ConsumerReplicaID || !slices.Equal(req.Partitions, wantReq) {
		t.Errorf("request %+v: want replica id -1 and %+v", req, wantReq)
	}
}

// The consumer reads committed records only: whatever the broker sends, no
// record at or above the HW it reports is returned.
func TestFetchReturnsOnlyRecordsBelowTheHW(t *testing.T) {
	for _, tc := range []struct {
		hw      int64
		offsets []int64
		want    []int64
	}{
		{2, []int64{0, 1, 2, 3, 4}, []int64{0, 1}},
		{0, []int64{0, 1}, []int64{}},
		{5, []int64{3, 4, 5}, []int64{3, 4}},
		{5, []int64{3, 4}, []int64{3, 4}},
	} {
		n := newNet(t, netsim.ModeFree)
		serve(t, n, 1, func(m netsim.Message) []any {
			return []any{fetchAnswer(m.Payload.(protocol.FetchRequest), tc.hw, tc.offsets...)}
		})
		c := newConsumer(t, n, nil)
		recs, hw, err := c.Fetch(testCtx(t), tp, tc.offsets[0])
		if err != nil {
			t.Fatal(err)
		}
		if got := offsetsOf(recs); !slices.Equal(got, tc.want) || hw != tc.hw {
			t.Errorf("broker sent %v with HW %d: Fetch = %v, HW %d; want %v", tc.offsets, tc.hw, got, hw, tc.want)
		}
	}
}

// An error in the answer is Fetch's error, with the HW as sent.
func TestFetchError(t *testing.T) {
	n := newNet(t, netsim.ModeFree)
	serve(t, n, 1, func(m netsim.Message) []any {
		resp := fetchAnswer(m.Payload.(protocol.FetchRequest), -1, 0)
		resp.Partitions[0].Error = protocol.OffsetOutOfRange
		return []any{resp}
	})
	c := newConsumer(t, n, nil)
	recs, hw, err := c.Fetch(testCtx(t), tp, 0)
	if !errors.Is(err, protocol.OffsetOutOfRange) || recs != nil || hw != -1 {
		t.Errorf("Fetch = %v, HW %d, %v; want nothing, -1, %v", recs, hw, err, protocol.OffsetOutOfRange)
	}
}

// An answer to an earlier fetch that timed out, or anything else that is
// not the answer, is skipped.
func TestFetchSkipsStaleAnswers(t *testing.T) {
	n := newNet(t, netsim.ModeFree)
	var first protocol.FetchRequest
	got := make(chan struct{}, 1)
	serve(t, n, 1, func(m netsim.Message) []any {
		req := m.Payload.(protocol.FetchRequest)
		if first.CorrelationID == 0 {
			first = req
			got <- struct{}{}
			return nil // too late: answered with the next one
		}
		two := fetchAnswer(req, 9, 4)
		two.Partitions = append(two.Partitions, two.Partitions[0])
		return []any{fetchAnswer(first, 8, 7), two, produceAnswer(protocol.ProduceRequest{Header: req.Header}, protocol.None, 0),
			fetchAnswer(req, 5, 4)}
	})
	c := newConsumer(t, n, nil)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-got
		cancel()
	}()
	if _, _, err := c.Fetch(ctx, tp, 0); !errors.Is(err, context.Canceled) {
		t.Fatalf("unanswered Fetch: %v, want %v", err, context.Canceled)
	}
	recs, hw, err := c.Fetch(testCtx(t), tp, 4)
	if err != nil || !slices.Equal(offsetsOf(recs), []int64{4}) || hw != 5 {
		t.Errorf("Fetch = %v, HW %d, %v; want [4], HW 5", offsetsOf(recs), hw, err)
	}
}

// The request timeout bounds a fetch nobody answers.
func TestFetchTimesOut(t *testing.T) {
	n := newNet(t, netsim.ModeStepped) // nothing is delivered
	newStepBroker(t, n, 1)
	c := newConsumer(t, n, func(c *client.ConsumerConfig) { c.RequestTimeout = 10 * time.Millisecond })
	if _, _, err := c.Fetch(testCtx(t), tp, 0); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("unanswered Fetch: %v, want %v", err, context.DeadlineExceeded)
	}
}

// No leader, a leader not on the network, a cancelled context: an error,
// not a panic.
func TestFetchBadInput(t *testing.T) {
	n := newNet(t, netsim.ModeStepped)
	newStepBroker(t, n, 1)
	c := newConsumer(t, n, func(c *client.ConsumerConfig) { c.Leader = noLeader })
	if _, _, err := c.Fetch(testCtx(t), tp, 0); !errors.Is(err, protocol.NotLeaderOrFollower) {
		t.Errorf("no leader: %v, want %v", err, protocol.NotLeaderOrFollower)
	}
	if len(n.InFlight()) != 0 {
		t.Errorf("no leader, yet sent %v", n.InFlight())
	}
	c = newConsumer(t, n, func(c *client.ConsumerConfig) { c.Leader = leaderIs(9) })
	if _, _, err := c.Fetch(testCtx(t), tp, 0); !errors.Is(err, netsim.ErrUnknownNode) {
		t.Errorf("leader 9: %v, want %v", err, netsim.ErrUnknownNode)
	}
	c = newConsumer(t, n, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := c.Fetch(ctx, tp, 0); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v, want %v", err, context.Canceled)
	}
}

func TestNewConsumerRejectsBadConfig(t *testing.T) {
	n := newNet(t, netsim.ModeStepped)
	if _, err := client.NewConsumer(client.ConsumerConfig{Node: consumerNode, BrokerNode: brokerNode}, n); err == nil {
		t.Error("no Leader: accepted")
	}
	if _, err := client.NewConsumer(client.ConsumerConfig{Node: consumerNode, Leader: leaderIs(1)}, n); err == nil {
		t.Error("no BrokerNode: accepted")
	}
	closed := newNet(t, netsim.ModeStepped)
	closed.Close()
	if _, err := client.NewConsumer(client.ConsumerConfig{Node: consumerNode, Leader: leaderIs(1), BrokerNode: brokerNode}, closed); err == nil {
		t.Error("closed network: accepted")
	}
}
