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

func TestNewProducerRejectsBadConfig(t *testing.T) {
	n := newNet(t, netsim.ModeStepped)
	for _, tc := range []struct {
		name string
		cfg  client.ProducerConfig
	}{
		{"acks=2", client.ProducerConfig{Node: producerNode, Acks: 2, BrokerNode: brokerNode}},
		{"acks=-2", client.ProducerConfig{Node: producerNode, Acks: -2, BrokerNode: brokerNode}},
		{"no BrokerNode", client.ProducerConfig{Node: producerNode, Acks: protocol.AcksAll}},
	} {
		if p, err := client.NewProducer(tc.cfg, n); err == nil {
			p.Close()
			t.Errorf("%s: NewProducer accepted it", tc.name)
		}
	}
	closed := newNet(t, netsim.ModeStepped)
	closed.Close()
	if p, err := client.NewProducer(client.ProducerConfig{Node: producerNode, Acks: protocol.AcksAll, BrokerNode: brokerNode}, closed); err == nil {
		p.Close()
		t.Error("NewProducer on a closed network: no error")
	}
}

// Acked: answered, without error, at an offset. Each condition matters on
// its own (the producer itself never reports an error with an offset, so
// only a Result built here shows the error being checked).
func TestResultAcked(t *testing.T) {
	for _, tc := range []struct {
		r    client.Result
		want bool
	}{
		{client.Result{ID: 1, Offset: 0, Done: true}, true},
		{client.Result{ID: 1, Offset: 7, Done: true}, true},
		{client.Result{ID: 1, Offset: 7}, false},
		{client.Result{ID: 1, Offset: -1, Done: true}, false},
		{client.Result{ID: 1, Offset: 7, Error: protocol.NotEnoughReplicasAfterAppend, Done: true}, false},
		{client.Result{ID: 1, Offset: 7, Error: protocol.NotLeaderOrFollower, Done: true}, false},
	} {
		if got := tc.r.Acked(); got != tc.want {
			t.Errorf("%+v.Acked() = %v, want %v", tc.r, got, tc.want)
		}
	}
}

// oneRecord: req carries exactly one record, with id.
func oneRecord(req protocol.ProduceRequest, id int64) bool {
	return len(req.Records) == 1 && req.Records[0].ID == id
}

// acks=1 and acks=all: Produce sends one record, with the configured acks,
// to the leader, waits for the answer and reports where it was written.
func TestProduceWaitsForTheAnswer(t *testing.T) {
	for _, acks := range []protocol.Acks{protocol.AcksLeader, protocol.AcksAll} {
		t.Run("acks="+acks.String(), func(t *testing.T) {
			n := newNet(t, netsim.ModeFree)
			addNode(t, n, brokerNode(1)) // a broker that is not the leader
			reqs := make(chan protocol.ProduceRequest, 1)
			serve(t, n, 2, func(m netsim.Message) []any {
				req := m.Payload.(protocol.ProduceRequest)
				reqs <- req
				return []any{produceAnswer(req, protocol.None, 41)}
			})
			p := newProducer(t, n, acks, func(c *client.ProducerConfig) { c.Leader = leaderIs(2) })
			r, err := p.Produce(testCtx(t), tp)
			if err != nil {
				t.Fatal(err)
			}
			if want := (client.Result{ID: 1, Broker: 2, Offset: 41, Error: protocol.None, Done: true}); r != want {
				t.Fatalf("result %+v, want %+v", r, want)
			}
			if !r.Acked() {
				t.Error("Acked() false for a record written at 41")
			}
			req := <-reqs
			if req.Acks != acks || req.Partition != tp || !oneRecord(req, 1) {
				t.Errorf("request %+v: want acks=%v, %v, one record with id 1", req, acks, tp)
			}
			if got := p.Acked(); !slices.Equal(got, []client.OffsetID{{Offset: 41, ID: 1}}) {
				t.Errorf("Acked() = %v", got)
			}
			if p.Pending() != 0 || p.NextID() != 2 {
				t.Errorf("Pending %d NextID %d, want 0 and 2", p.Pending(), p.NextID())
			}
		})
	}
}

// acks=0: Produce returns as soon as the request is sent; nothing is
// acknowledged, and a written record is never pending.
func TestProduceAcksZeroDoesNotWait(t *testing.T) {
	n := newNet(t, netsim.ModeStepped) // nothing is ever delivered
	b := newStepBroker(t, n, 1)
	p := newProducer(t, n, protocol.AcksNone, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	r, err := p.Produce(ctx, tp)
	if err != nil {
		t.Fatalf("Produce waited: %v", err)
	}
	if want := (client.Result{ID: 1, Broker: 1, Offset: -1}); r != want {
		t.Fatalf("result %+v, want %+v", r, want)
	}
	if r.Acked() || len(p.Acked()) != 0 || p.Pending() != 0 || p.NextID() != 2 {
		t.Errorf("Acked %v %v, Pending %d, NextID %d", r.Acked(), p.Acked(), p.Pending(), p.NextID())
	}
	_, req := b.take()
	if req.Acks != protocol.AcksNone || !oneRecord(req, 1) {
		t.Errorf("request %+v", req)
	}
}

// A broker answers an acks=0 request only to refuse it; the refusal
// completes the request and hands its id out again.
func TestAcksZeroRefusal(t *testing.T) {
	n := newNet(t, netsim.ModeStepped)
	b := newStepBroker(t, n, 1)
	p := newProducer(t, n, protocol.AcksNone, nil)
	corr, id, err := p.Send(1, tp)
	if err != nil || id != 1 {
		t.Fatalf("Send: id %d, %v", id, err)
	}
	m, req := b.take()
	b.answer(m, req, protocol.NotLeaderOrFollower, -1)
	if r := p.Result(corr); !r.Done || r.Error != protocol.NotLeaderOrFollower || r.Acked() {
		t.Errorf("result %+v", r)
	}
	if p.NextID() != 1 {
		t.Errorf("NextID %d: the refused id 1 is not handed out again", p.NextID())
	}
}

// Every error answer is reported as is and acknowledges nothing. The ids of
// records refused before their append are handed out again; the id of a
// record that may have been written (NOT_ENOUGH_REPLICAS_AFTER_APPEND, a
// failure after the append, a timeout) never is, so no two records share
// an id.
func TestProduceErrors(t *testing.T) {
	for _, tc := range []struct {
		code   protocol.Error
		base   int64
		nextID int64 // after the failure
	}{
		{protocol.NotLeaderOrFollower, -1, 1},
		{protocol.NotEnoughReplicas, -1, 1},
		{protocol.UnknownTopicOrPartition, -1, 1},
		{protocol.InvalidRequiredAcks, -1, 1},
		{protocol.NotEnoughReplicasAfterAppend, 0, 2},
		{protocol.NotEnoughReplicasAfterAppend, -1, 2}, // Kafka's spelling: no offset, still appended
		{protocol.NotLeaderOrFollower, 0, 2},           // a delayed request failed after its append
		{protocol.RequestTimedOut, -1, 2},
		{protocol.UnknownServerError, -1, 2},
	} {
		t.Run(tc.code.String(), func(t *testing.T) {
			n := newNet(t, netsim.ModeFree)
			var seen []int64
			serve(t, n, 1, func(m netsim.Message) []any {
				req := m.Payload.(protocol.ProduceRequest)
				seen = append(seen, req.Records[0].ID)
				if len(seen) == 1 {
					return []any{produceAnswer(req, tc.code, tc.base)}
				}
				return []any{produceAnswer(req, protocol.None, 1)}
			})
			p := newProducer(t, n, protocol.AcksAll, nil)
			r, err := p.Produce(testCtx(t), tp)
			if err != nil {
				t.Fatal(err)
			}
			if want := (client.Result{ID: 1, Broker: 1, Offset: -1, Error: tc.code, Done: true}); r != want {
				t.Fatalf("result %+v, want %+v", r, want)
			}
			if r.Acked() || len(p.Acked()) != 0 {
				t.Errorf("acknowledged: %v %v", r.Acked(), p.Acked())
			}
			if p.NextID() != tc.nextID {
				t.Errorf("NextID %d, want %d", p.NextID(), tc.nextID)
			}
			r2, err := p.Produce(testCtx(t), tp)
			if err != nil || !r2.Acked() || r2.ID != tc.nextID {
				t.Fatalf("next record: %+v, %v; want id %d acknowledged", r2, err, tc.nextID)
			}
			if got := p.Acked(); !slices.Equal(got, []client.OffsetID{{Offset: 1, ID: tc.nextID}}) {
				t.Errorf("Acked() = %v", got)
			}
		})
	}
}

// No answer within the request timeout: REQUEST_TIMED_OUT, the id is spent
// (the record may have been written), and an answer that comes later
// changes nothing.
func TestProduceTimesOut(t *testing.T) {
	n := newNet(t, netsim.ModeFree)
	reqs := make(chan netsim.Message, 1)
	serve(t, n, 1, func(m netsim.Message) []any {
		reqs <- m
		return nil
	})
	p := newProducer(t, n, protocol.AcksLeader, func(c *client.ProducerConfig) { c.RequestTimeout = 20 * time.Millisecond })
	r, err := p.Produce(testCtx(t), tp)
	if err != nil {
		t.Fatal(err)
	}
	if want := (client.Result{ID: 1, Broker: 1, Offset: -1, Error: protocol.RequestTimedOut, Done: true}); r != want {
		t.Fatalf("result %+v, want %+v", r, want)
	}
	if p.NextID() != 2 || p.Pending() != 0 {
		t.Errorf("NextID %d Pending %d, want 2 and 0", p.NextID(), p.Pending())
	}
	m := <-reqs
	req := m.Payload.(protocol.ProduceRequest)
	late := addNode(t, n, 50) // the broker's answer, late; any node will do
	late.Send(producerNode, produceAnswer(req, protocol.None, 0))
	if err := n.WaitQuiescent(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	if got := p.Result(req.CorrelationID); got != r {
		t.Errorf("a late answer changed the result: %+v", got)
	}
	if len(p.Acked()) != 0 {
		t.Errorf("a late answer was acknowledged: %v", p.Acked())
	}
}

// Ids: a refused id is handed out again only when it is the latest; a
// duplicated or unknown answer changes nothing; acknowledged records are
// listed by offset, then id, once each.
func TestIDsAndAcked(t *testing.T) {
	n := newNet(t, netsim.ModeStepped)
	b := newStepBroker(t, n, 1)
	p := newProducer(t, n, protocol.AcksLeader, nil)
	send := func(want int64) uint64 {
		t.Helper()
		corr, id, err := p.Send(1, tp)
		if err != nil || id != want {
			t.Fatalf("Send: id %d, %v; want id %d", id, err, want)
		}
		return corr
	}
	c1, c2, c3 := send(1), send(2), send(3)
	m1, r1 := b.take()
	m2, r2 := b.take()
	m3, r3 := b.take()
	if r1.CorrelationID != c1 || r2.CorrelationID != c2 || r3.CorrelationID != c3 {
		t.Fatalf("correlation ids %d %d %d, want %d %d %d", r1.CorrelationID, r2.CorrelationID, r3.CorrelationID, c1, c2, c3)
	}
	if p.Pending() != 3 {
		t.Errorf("Pending %d, want 3", p.Pending())
	}
	b.answer(m2, r2, protocol.NotLeaderOrFollower, -1) // not the latest id: spent
	if p.NextID() != 4 {
		t.Fatalf("NextID %d, want 4", p.NextID())
	}
	b.answer(m3, r3, protocol.NotEnoughReplicas, -1) // the latest: handed out again
	if p.NextID() != 3 {
		t.Fatalf("NextID %d, want 3", p.NextID())
	}
	b.answer(m1, r1, protocol.None, 5)
	b.answer(m1, r1, protocol.None, 5) // a duplicate
	b.answer(m1, r1, protocol.None, 9) // a different answer to a finished request
	b.reply(m1, produceAnswer(protocol.ProduceRequest{Header: protocol.Header{CorrelationID: 999}}, protocol.None, 7))
	b.reply(m1, "not a produce response")
	if r := p.Result(c1); r.Offset != 5 || !r.Acked() {
		t.Fatalf("result %+v, want acknowledged at 5", r)
	}
	c4, c5 := send(3), send(4)
	m4, r4 := b.take()
	m5, r5 := b.take()
	b.answer(m5, r5, protocol.None, 4)
	b.answer(m4, r4, protocol.None, 3)
	c6 := send(5)
	m6, r6 := b.take()
	b.answer(m6, r6, protocol.None, 3) // same offset as id 3 (a log truncated and rewritten)
	want := []client.OffsetID{{Offset: 3, ID: 3}, {Offset: 3, ID: 5}, {Offset: 4, ID: 4}, {Offset: 5, ID: 1}}
	if got := p.Acked(); !slices.Equal(got, want) {
		t.Errorf("Acked() = %v, want %v", got, want)
	}
	for _, c := range []uint64{c4, c5, c6} {
		if !p.Result(c).Acked() {
			t.Errorf("request %d: %+v", c, p.Result(c))
		}
	}
	if p.Pending() != 0 {
		t.Errorf("Pending %d, want 0", p.Pending())
	}
	if r := p.Result(12345); r.Done || r.Acked() {
		t.Errorf("Result of an unknown request: %+v", r)
	}
}

// ConnectionLost completes every request waiting on that broker, and only
// those, with NETWORK_EXCEPTION; their ids are spent (the records may have
// been written), and answers that still come are ignored.
func TestConnectionLost(t *testing.T) {
	n := newNet(t, netsim.ModeStepped)
	b1, b2 := newStepBroker(t, n, 1), newStepBroker(t, n, 2)
	p := newProducer(t, n, protocol.AcksAll, nil)
	other, _, _ := p.Send(2, tp)
	lost1, _, _ := p.Send(1, tp)
	lost2, _, _ := p.Send(1, tp)
	m, req := b1.take()
	p.ConnectionLost(1)
	for _, c := range []uint64{lost1, lost2} {
		if r := p.Result(c); !r.Done || r.Error != protocol.NetworkException || r.Offset != -1 || r.Acked() {
			t.Errorf("request %d after ConnectionLost: %+v", c, r)
		}
	}
	if p.Pending() != 1 || p.Result(other).Done {
		t.Errorf("Pending %d, broker 2's request %+v: want it still waiting", p.Pending(), p.Result(other))
	}
	if p.NextID() != 4 {
		t.Errorf("NextID %d, want 4: a lost record may have been written", p.NextID())
	}
	b1.answer(m, req, protocol.None, 0)
	if len(p.Acked()) != 0 || p.Result(lost1).Error != protocol.NetworkException {
		t.Errorf("an answer after ConnectionLost counted: %v %+v", p.Acked(), p.Result(lost1))
	}
	p.ConnectionLost(7) // no such broker: nothing happens
	m, req = b2.take()
	b2.answer(m, req, protocol.None, 0)
	if got := p.Acked(); !slices.Equal(got, []client.OffsetID{{Offset: 0, ID: 1}}) {
		t.Errorf("Acked() = %v", got)
	}
}

// A Produce waiting on a broker that crashes returns at once.
func TestConnectionLostWakesProduce(t *testing.T) {
	n := newNet(t, netsim.ModeFree)
	got := make(chan struct{}, 1)
	serve(t, n, 1, func(netsim.Message) []any {
		got <- struct{}{}
		return nil // never answers
	})
	p := newProducer(t, n, protocol.AcksAll, nil)
	type out struct {
		r   client.Result
		err error
	}
	done := make(chan out, 1)
	go func() {
		r, err := p.Produce(context.Background(), tp)
		done <- out{r, err}
	}()
	<-got
	p.ConnectionLost(1)
	select {
	case o := <-done:
		if o.err != nil || o.r.Error != protocol.NetworkException || !o.r.Done || o.r.Acked() {
			t.Errorf("Produce: %+v, %v", o.r, o.err)
		}
	case <-testCtx(t).Done():
		t.Fatal("Produce still waiting after ConnectionLost")
	}
}

// The producer's Lamport clock stamps its requests and witnesses the
// stamps of the answers.
func TestLamportClock(t *testing.T) {
	n := newNet(t, netsim.ModeStepped)
	b := newStepBroker(t, n, 1)
	clock := &protocol.LamportClock{}
	p := newProducer(t, n, protocol.AcksLeader, func(c *client.ProducerConfig) { c.Clock = clock })
	p.Send(1, tp)
	m, req := b.take()
	if req.Lamport != 1 {
		t.Errorf("first request stamped %d, want 1", req.Lamport)
	}
	resp := produceAnswer(req, protocol.None, 0)
	resp.Lamport = 50
	b.reply(m, resp)
	if clock.Now() != 51 {
		t.Errorf("clock %d after witnessing 50, want 51", clock.Now())
	}
	p.Send(1, tp)
	if _, req := b.take(); req.Lamport != 52 {
		t.Errorf("second request stamped %d, want 52", req.Lamport)
	}
}

// No leader known: Produce reports NOT_LEADER_OR_FOLLOWER and sends
// nothing; no id is used.
func TestProduceWithoutLeader(t *testing.T) {
	n := newNet(t, netsim.ModeStepped)
	newStepBroker(t, n, 1)
	p := newProducer(t, n, protocol.AcksAll, func(c *client.ProducerConfig) { c.Leader = noLeader })
	r, err := p.Produce(testCtx(t), tp)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Done || r.Error != protocol.NotLeaderOrFollower || r.Acked() || r.Offset != -1 {
		t.Errorf("result %+v", r)
	}
	if p.NextID() != 1 || len(n.InFlight()) != 0 {
		t.Errorf("NextID %d, in flight %v: want 1 and nothing", p.NextID(), n.InFlight())
	}
}

// A broker not on the network: Send and Produce fail with netsim's error,
// the request is completed (nothing waits for it), and its id, never sent,
// is handed out again.
func TestSendToUnknownBroker(t *testing.T) {
	n := newNet(t, netsim.ModeStepped)
	b := newStepBroker(t, n, 1)
	p := newProducer(t, n, protocol.AcksAll, func(c *client.ProducerConfig) { c.Leader = leaderIs(9) })
	corr, id, err := p.Send(9, tp)
	if !errors.Is(err, netsim.ErrUnknownNode) {
		t.Fatalf("Send to broker 9: %v, want %v", err, netsim.ErrUnknownNode)
	}
	if r := p.Result(corr); r.ID != id || !r.Done || r.Error != protocol.NetworkException || r.Acked() {
		t.Errorf("result %+v", r)
	}
	r, err := p.Produce(testCtx(t), tp)
	if !errors.Is(err, netsim.ErrUnknownNode) || !r.Done || r.Acked() {
		t.Errorf("Produce to broker 9: %+v, %v", r, err)
	}
	if p.Pending() != 0 {
		t.Errorf("Pending %d, want 0", p.Pending())
	}
	if p.NextID() != 1 {
		t.Errorf("NextID %d, want 1: no record was sent", p.NextID())
	}
	if _, id, err := p.Send(1, tp); err != nil || id != 1 {
		t.Errorf("Send to broker 1: id %d, %v; want id 1", id, err)
	}
	b.take()
}

// A cancelled context: Produce returns its error. Cancelled before the
// call, nothing is sent; cancelled while waiting, the record may have been
// written, so it is REQUEST_TIMED_OUT and its id spent.
func TestProduceContext(t *testing.T) {
	n := newNet(t, netsim.ModeFree)
	got := make(chan struct{}, 4)
	sent := 0
	serve(t, n, 1, func(netsim.Message) []any {
		sent++
		got <- struct{}{}
		return nil // never answers
	})
	p := newProducer(t, n, protocol.AcksAll, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := p.Produce(ctx, tp); !errors.Is(err, context.Canceled) {
		t.Fatalf("Produce with a cancelled context: %v", err)
	}
	if p.NextID() != 1 || p.Pending() != 0 {
		t.Errorf("NextID %d Pending %d: want nothing sent", p.NextID(), p.Pending())
	}
	ctx, cancel = context.WithCancel(context.Background())
	go func() {
		<-got
		cancel()
	}()
	r, err := p.Produce(ctx, tp)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Produce cancelled while waiting: %v", err)
	}
	if want := (client.Result{ID: 1, Broker: 1, Offset: -1, Error: protocol.RequestTimedOut, Done: true}); r != want {
		t.Errorf("result %+v, want %+v", r, want)
	}
	if p.NextID() != 2 || p.Pending() != 0 {
		t.Errorf("NextID %d Pending %d, want 2 and 0", p.NextID(), p.Pending())
	}
	if err := n.WaitIdle(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	if sent != 1 {
		t.Errorf("the broker got %d requests, want 1", sent)
	}
}

// A closed producer sends nothing: Send and Produce fail with ErrClosed and
// use no id. Close is idempotent.
func TestClosedProducer(t *testing.T) {
	n := newNet(t, netsim.ModeStepped)
	newStepBroker(t, n, 1)
	p := newProducer(t, n, protocol.AcksAll, nil)
	p.Close()
	if _, _, err := p.Send(1, tp); !errors.Is(err, client.ErrClosed) {
		t.Errorf("Send after Close: %v, want %v", err, client.ErrClosed)
	}
	if _, err := p.Produce(testCtx(t), tp); !errors.Is(err, client.ErrClosed) {
		t.Errorf("Produce after Close: %v, want %v", err, client.ErrClosed)
	}
	if p.NextID() != 1 || p.Pending() != 0 || len(n.InFlight()) != 0 {
		t.Errorf("NextID %d Pending %d in flight %v: want nothing sent", p.NextID(), p.Pending(), n.InFlight())
	}
	p.Close()
}

// Produce without a Leader function (a producer made for Send only) fails
// instead of panicking.
func TestProduceWithoutMetadata(t *testing.T) {
	n := newNet(t, netsim.ModeStepped)
	newStepBroker(t, n, 1)
	p := newProducer(t, n, protocol.AcksAll, func(c *client.ProducerConfig) { c.Leader = nil })
	if _, err := p.Produce(testCtx(t), tp); err == nil {
		t.Error("Produce without Leader: no error")
	}
	if p.NextID() != 1 || len(n.InFlight()) != 0 {
		t.Errorf("NextID %d in flight %v: want nothing sent", p.NextID(), n.InFlight())
	}
}
