package client

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/hwepoch/hwepoch/impl/netsim"
	"github.com/hwepoch/hwepoch/impl/protocol"
)

// ErrClosed is returned by a closed producer.
var ErrClosed = errors.New("client: producer closed")

// ProducerConfig configures a Producer.
type ProducerConfig struct {
	// Node is the producer's network address.
	Node netsim.NodeID
	// Acks is acks.
	Acks protocol.Acks
	// RequestTimeout is request.timeout.ms for Produce (free mode).
	RequestTimeout time.Duration
	// Leader finds a partition's leader (the producer's metadata).
	Leader func(tp protocol.TopicPartition) (int32, bool)
	// BrokerNode maps a broker id to its address.
	BrokerNode func(int32) netsim.NodeID
	// Clock is the producer's Lamport clock (nil: a new one).
	Clock *protocol.LamportClock
}

// OffsetID is an acknowledged record: where it was written and its id.
type OffsetID struct {
	Offset int64
	ID     int64
}

// Result is the outcome of one record.
type Result struct {
	ID     int64
	Broker int32
	// Offset is where the broker wrote it (-1 when refused or unknown).
	Offset int64
	// Error is the broker's answer, REQUEST_TIMED_OUT when none came in
	// time, NETWORK_EXCEPTION when the broker crashed.
	Error protocol.Error
	// Done is false while no answer has come (acks=0: never).
	Done bool
}

// Acked reports whether the record was acknowledged.
func (r Result) Acked() bool { return r.Done && r.Error == protocol.None && r.Offset >= 0 }

type pending struct {
	res  Result
	corr uint64
	tp   protocol.TopicPartition
	done chan struct{}
}

// Producer sends records and tracks which were acknowledged.
type Producer struct {
	cfg   ProducerConfig
	ep    *netsim.Endpoint
	clock *protocol.LamportClock

	mu      sync.Mutex
	nextID  int64
	corr    uint64
	pending map[uint64]*pending
	results map[uint64]Result // finished, by correlation id (kept for Result)
	acked   []OffsetID

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// NewProducer starts a producer on net.
func NewProducer(cfg ProducerConfig, net *netsim.Network) (*Producer, error) {
	if cfg.Acks != protocol.AcksNone && cfg.Acks != protocol.AcksLeader && cfg.Acks != protocol.AcksAll {
		return nil, fmt.Errorf("client: invalid acks %d", cfg.Acks)
	}
	if cfg.BrokerNode == nil {
		return nil, errors.New("client: ProducerConfig.BrokerNode is nil")
	}
	ep, err := endpoint(net, cfg.Node)
	if err != nil {
		return nil, err
	}
	p := &Producer{cfg: cfg, ep: ep, clock: cfg.Clock, nextID: 1,
		pending: map[uint64]*pending{}, results: map[uint64]Result{}}
	if p.clock == nil {
		p.clock = &protocol.LamportClock{}
	}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	p.wg.Add(1)
	go p.receive()
	return p, nil
}

func endpoint(net *netsim.Network, id netsim.NodeID) (*netsim.Endpoint, error) {
	if ep, ok := net.Endpoint(id); ok {
		return ep, nil
	}
	return net.AddNode(id)
}

// Close stops the producer's goroutine.
func (p *Producer) Close() {
	p.cancel()
	p.wg.Wait()
}

// Send sends the next record to broker for tp and returns the request's
// correlation id and the record id; the outcome comes later (Result, Wait).
// A closed producer sends nothing and returns ErrClosed.
func (p *Producer) Send(broker int32, tp protocol.TopicPartition) (uint64, int64, error) {
	p.mu.Lock()
	if p.ctx.Err() != nil {
		p.mu.Unlock()
		return 0, 0, ErrClosed
	}
	p.corr++
	corr, id := p.corr, p.nextID
	p.nextID++
	pd := &pending{corr: corr, tp: tp, done: make(chan struct{}),
		res: Result{ID: id, Broker: broker, Offset: -1}}
	// acks=0 requests are tracked too: a broker answers a refusal (and
	// nothing else), which tells the producer its id was not used.
	p.pending[corr] = pd
	p.mu.Unlock()
	req := protocol.ProduceRequest{
		Header:    protocol.Header{CorrelationID: corr, Lamport: p.clock.Tick()},
		Acks:      p.cfg.Acks,
		Partition: tp,
		Records:   []protocol.ProduceRecord{{ID: id}},
	}
	if _, err := p.ep.Send(p.cfg.BrokerNode(broker), req); err != nil {
		// Never sent, so never appended: like a refusal, the id is handed
		// out again when it is still the latest.
		p.mu.Lock()
		if id == p.nextID-1 {
			p.nextID--
		}
		p.mu.Unlock()
		p.finish(corr, protocol.NetworkException, -1)
		return corr, id, err
	}
	return corr, id, nil
}

// Produce sends the next record to tp's leader and waits for the outcome
// (free mode): it never waits longer than the request timeout. With ctx
// already done it sends nothing.
func (p *Producer) Produce(ctx context.Context, tp protocol.TopicPartition) (Result, error) {
	if err := ctx.Err(); err != nil {
		return Result{Offset: -1}, err
	}
	if p.cfg.Leader == nil {
		return Result{Offset: -1}, errors.New("client: ProducerConfig.Leader is nil")
	}
	leader, ok := p.cfg.Leader(tp)
	if !ok {
		return Result{Offset: -1, Error: protocol.NotLeaderOrFollower, Done: true}, nil
	}
	corr, _, err := p.Send(leader, tp)
	if errors.Is(err, ErrClosed) {
		return Result{Offset: -1}, err
	}
	if err != nil {
		return p.Result(corr), err
	}
	if p.cfg.Acks == protocol.AcksNone {
		return p.Result(corr), nil
	}
	p.mu.Lock()
	pd, waiting := p.pending[corr]
	p.mu.Unlock()
	if waiting {
		timeout := p.cfg.RequestTimeout
		if timeout <= 0 {
			timeout = time.Second
		}
		t := time.NewTimer(timeout)
		defer t.Stop()
		select {
		case <-pd.done:
		case <-t.C:
			p.finish(corr, protocol.RequestTimedOut, -1)
		case <-ctx.Done():
			p.finish(corr, protocol.RequestTimedOut, -1)
			return p.Result(corr), ctx.Err()
		}
	}
	return p.Result(corr), nil
}

// Result returns the outcome of request corr so far.
func (p *Producer) Result(corr uint64) Result {
	p.mu.Lock()
	defer p.mu.Unlock()
	if pd, ok := p.pending[corr]; ok {
		return pd.res
	}
	return p.results[corr]
}

// finish records an outcome (the first one wins).
func (p *Producer) finish(corr uint64, code protocol.Error, offset int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	pd, ok := p.pending[corr]
	if !ok {
		return // already finished (e.g. timed out before the answer came)
	}
	delete(p.pending, corr)
	pd.res.Error, pd.res.Offset, pd.res.Done = code, offset, true
	if code != protocol.None {
		pd.res.Offset = -1
	}
	if pd.res.Acked() {
		p.acked = append(p.acked, OffsetID{Offset: offset, ID: pd.res.ID})
	}
	// A refusal before the append (BaseOffset -1) leaves the record unwritten,
	// so its id is handed out again; a delayed request that failed after its
	// append (leadership moved) carries its BaseOffset, and its id is spent.
	if notAppended(code) && offset < 0 && pd.res.ID == p.nextID-1 {
		p.nextID--
	}
	p.results[corr] = pd.res
	close(pd.done)
}

// notAppended lists the answers that say the record was not written.
func notAppended(code protocol.Error) bool {
	switch code {
	case protocol.NotLeaderOrFollower, protocol.NotEnoughReplicas, protocol.InvalidRequiredAcks,
		protocol.UnknownTopicOrPartition:
		return true
	}
	return false
}

func (p *Producer) receive() {
	defer p.wg.Done()
	defer p.ep.Done()
	for {
		m, err := p.ep.Recv(p.ctx)
		if err != nil {
			return
		}
		if r, ok := m.Payload.(protocol.ProduceResponse); ok {
			p.clock.Witness(r.Lamport)
			p.finish(r.CorrelationID, r.Error, r.BaseOffset)
		}
	}
}

// ConnectionLost fails the requests waiting on broker (it crashed): they
// may or may not have been written, and will never be answered.
func (p *Producer) ConnectionLost(broker int32) {
	p.mu.Lock()
	var lost []uint64
	for corr, pd := range p.pending {
		if pd.res.Broker == broker {
			lost = append(lost, corr)
		}
	}
	p.mu.Unlock()
	for _, corr := range lost {
		p.finish(corr, protocol.NetworkException, -1)
	}
}

// NextID is the id the next record will get (the spec's nextId).
func (p *Producer) NextID() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.nextID
}

// Acked returns the acknowledged records, sorted by offset then id (the
// spec's acked).
func (p *Producer) Acked() []OffsetID {
	p.mu.Lock()
	out := slices.Clone(p.acked)
	p.mu.Unlock()
	slices.SortFunc(out, func(a, b OffsetID) int {
		if a.Offset != b.Offset {
			return int(a.Offset - b.Offset)
		}
		return int(a.ID - b.ID)
	})
	return slices.Compact(out)
}

// Pending counts requests still waiting for an answer (acks=0 requests
// that were written never get one and are not counted).
func (p *Producer) Pending() int {
	if p.cfg.Acks == protocol.AcksNone {
		return 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.pending)
}
