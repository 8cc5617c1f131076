package broker

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/hwepoch/hwepoch/impl/netsim"
	"github.com/hwepoch/hwepoch/impl/protocol"
)

// fetcherThread is a replica fetcher for one source broker
// (ReplicaFetcherThread / AbstractFetcherThread): a goroutine with its own
// network address that fetches the partitions this broker follows from that
// leader. It has at most one request in flight: an OffsetsForLeaderEpoch
// for the partitions in their truncation phase, or else a Fetch for the
// partitions that are fetching (maybeTruncate, then maybeFetch).
type fetcherThread struct {
	b      *Broker
	source int32
	ep     *netsim.Endpoint
	wake   chan struct{}

	// mu is Kafka's partitionMapLock: held while a request is built and
	// while its response is applied.
	mu           sync.Mutex
	partitions   map[protocol.TopicPartition]bool
	inflight     *fetcherRequest
	backoffUntil time.Time
}

// fetcherRequest is the request in flight.
type fetcherRequest struct {
	corr     uint64
	kind     FetchState // Fetching: a Fetch; Truncating: an OffsetsForLeaderEpoch
	tps      []protocol.TopicPartition
	deadline time.Time
}

var errNothingToSend = errors.New("no partition is ready")

func (f *fetcherThread) run() {
	defer f.b.wg.Done()
	defer f.ep.Done()
	for {
		var timer *time.Timer
		var fire <-chan time.Time
		if !f.b.cfg.Stepped {
			f.maybeSend()
			if d, ok := f.nextDeadline(); ok {
				timer = time.NewTimer(time.Until(d))
				fire = timer.C
			}
		}
		select {
		case <-f.b.ctx.Done():
			return
		case <-f.ep.Ready():
			f.drain()
		case <-f.wake:
		case <-fire:
			f.checkTimeout()
		}
		if timer != nil {
			timer.Stop()
		}
	}
}

// nextDeadline is when the goroutine must wake by itself: the request
// timeout, or the end of a backoff.
func (f *fetcherThread) nextDeadline() (time.Time, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.inflight != nil {
		return f.inflight.deadline, true
	}
	if !f.backoffUntil.IsZero() {
		return f.backoffUntil, true
	}
	return time.Time{}, false
}

func (f *fetcherThread) drain() {
	for {
		m, ok := f.ep.TryRecv()
		if !ok {
			return
		}
		if f.b.ctx.Err() != nil {
			continue // crashed: whatever arrives dies with us
		}
		f.handle(m)
	}
}

func (f *fetcherThread) handle(m netsim.Message) {
	f.b.connMu.RLock()
	defer f.b.connMu.RUnlock()
	if h, ok := protocol.HeaderOf(m.Payload); ok && f.b.fromDeadConnection(f.source, h.Lamport) {
		return // sent by an incarnation of the leader that has crashed since
	}
	switch r := m.Payload.(type) {
	case protocol.FetchResponse:
		f.handleFetchResponse(m, r)
	case protocol.OffsetsForLeaderEpochResponse:
		f.handleOffsetsResponse(m, r)
	}
}

// maybeSend sends the next request in free mode: truncation first, then
// fetching, unless one is in flight or the fetcher is backing off.
func (f *fetcherThread) maybeSend() {
	f.mu.Lock()
	busy := f.inflight != nil || (!f.backoffUntil.IsZero() && f.b.now().Before(f.backoffUntil))
	f.mu.Unlock()
	if busy {
		return
	}
	if err := f.send(Truncating, nil); errors.Is(err, errNothingToSend) {
		f.send(Fetching, nil)
	}
}

// send sends an OffsetsForLeaderEpoch (kind Truncating) or a Fetch (kind
// Fetching) for the ready partitions, or only for `only` (a stepped
// driver's SendFetch / SendOffsetsForLeaderEpoch, which then reports why it
// cannot be sent).
func (f *fetcherThread) send(kind FetchState, only *protocol.TopicPartition) error {
	b := f.b
	me := b.cfg.BrokerID
	f.mu.Lock()
	if f.inflight != nil {
		corr := f.inflight.corr
		f.mu.Unlock()
		return fmt.Errorf("broker %d: fetcher for broker %d has request %d in flight", me, f.source, corr)
	}
	f.backoffUntil = time.Time{}
	tps := make([]protocol.TopicPartition, 0, len(f.partitions))
	if only != nil {
		if !f.partitions[*only] {
			f.mu.Unlock()
			return fmt.Errorf("broker %d: fetcher for broker %d does not fetch %s", me, f.source, *only)
		}
		tps = append(tps, *only)
	} else {
		for tp := range f.partitions {
			tps = append(tps, tp)
		}
		slices.SortFunc(tps, compareTP)
	}
	corr := b.nextCorrelationID()
	var fetchParts []protocol.FetchPartition
	var offsetParts []protocol.OffsetsForLeaderEpochPartition
	var sent []protocol.TopicPartition
	var evs []*Event
	for _, tp := range tps {
		p, ok := b.rm.get(tp)
		if !ok {
			continue
		}
		p.mu.Lock()
		err := p.canSend(kind)
		if err == nil && p.leader != f.source {
			err = fmt.Errorf("broker %d: %s follows %d, not %d", me, tp, p.leader, f.source)
		}
		if err != nil {
			p.mu.Unlock()
			if only != nil {
				f.mu.Unlock()
				return err
			}
			continue
		}
		action := ActSendFetch
		if kind == Fetching {
			fetchParts = append(fetchParts, p.fetchPartition(corr))
		} else {
			action = ActSendOffsetsForLeaderEpoch
			offsetParts = append(offsetParts, p.offsetsPartition(corr))
		}
		evs = append(evs, b.event(p, action, map[string]int64{"f": int64(me)}, 0))
		p.mu.Unlock()
		sent = append(sent, tp)
	}
	if len(sent) == 0 {
		f.mu.Unlock()
		return errNothingToSend
	}
	hdr := protocol.Header{CorrelationID: corr, Lamport: b.clock.Tick()}
	var payload any = protocol.FetchRequest{Header: hdr, ReplicaID: me, ReplicaEpoch: b.fetchReplicaEpoch(), Partitions: fetchParts}
	if kind == Truncating {
		payload = protocol.OffsetsForLeaderEpochRequest{Header: hdr, ReplicaID: me, Partitions: offsetParts}
	}
	id, err := f.ep.Send(Node(f.source), payload)
	f.inflight = &fetcherRequest{corr: corr, kind: kind, tps: sent, deadline: b.now().Add(b.cfg.RequestTimeout)}
	f.mu.Unlock()
	if err == nil {
		for _, e := range evs {
			if e != nil {
				e.Sent = []uint64{uint64(id)}
			}
		}
	}
	b.deliver(evs...)
	return nil
}

// handleFetchResponse applies a FetchResponse partition by partition.
// Every partition whose slot this request held gets a HandleFetchResponse
// event, applied or not (the spec's step consumes the response either way).
func (f *fetcherThread) handleFetchResponse(m netsim.Message, r protocol.FetchResponse) {
	b := f.b
	b.clock.Witness(r.Lamport)
	f.mu.Lock()
	if f.inflight != nil && f.inflight.corr == r.CorrelationID {
		f.inflight = nil
	}
	var evs []*Event
	failed, empty := false, true
	for _, part := range r.Partitions {
		p, ok := b.rm.get(part.TopicPartition)
		if !ok {
			continue
		}
		p.mu.Lock()
		held := p.fetchSlot == r.CorrelationID
		_, err := p.applyFetchResponse(f.source, r.CorrelationID, part)
		if held {
			evs = append(evs, b.event(p, ActHandleFetchResponse, map[string]int64{"f": int64(b.cfg.BrokerID)}, uint64(m.ID)))
		}
		p.mu.Unlock()
		b.fail(err)
		failed = failed || part.Error != protocol.None
		empty = empty && len(part.Records) == 0
	}
	f.backoffAfter(failed, empty)
	f.mu.Unlock()
	b.deliver(evs...)
	b.fetchers.wakeAll()
}

// handleOffsetsResponse applies an OffsetsForLeaderEpochResponse (the
// truncation phase).
func (f *fetcherThread) handleOffsetsResponse(m netsim.Message, r protocol.OffsetsForLeaderEpochResponse) {
	b := f.b
	b.clock.Witness(r.Lamport)
	f.mu.Lock()
	if f.inflight != nil && f.inflight.corr == r.CorrelationID {
		f.inflight = nil
	}
	var evs []*Event
	failed := false
	for _, part := range r.Partitions {
		p, ok := b.rm.get(part.TopicPartition)
		if !ok {
			continue
		}
		p.mu.Lock()
		held := p.fetchSlot == r.CorrelationID
		_, err := p.applyOffsetsResponse(f.source, r.CorrelationID, part)
		if held {
			evs = append(evs, b.event(p, ActHandleOffsetsForLeaderEpochResponse, map[string]int64{"f": int64(b.cfg.BrokerID)}, uint64(m.ID)))
		}
		p.mu.Unlock()
		b.fail(err)
		failed = failed || part.Error != protocol.None
	}
	f.backoffAfter(failed, false)
	f.mu.Unlock()
	b.deliver(evs...)
	b.fetchers.wakeAll()
}

// backoffAfter sets the pause before the next request (free mode):
// replica.fetch.backoff.ms after an error. An empty fetch needs no pause:
// the leader held it (the fetch purgatory) until it had something or the
// wait expired. The caller holds f.mu.
func (f *fetcherThread) backoffAfter(failed, empty bool) {
	if (f.b.cfg.Stepped && !f.b.cfg.Simulated) || !failed {
		return
	}
	f.backoffUntil = f.b.now().Add(f.b.cfg.ReplicaFetchBackoff)
}

func (f *fetcherThread) checkTimeout() {
	f.mu.Lock()
	r := f.inflight
	f.mu.Unlock()
	if r != nil && !f.b.now().Before(r.deadline) {
		f.abandon(r.corr, true)
	}
}

// abandon gives up on request corr: it timed out (the spec's LoseMessage,
// an event) or its connection was lost with a crashed peer (part of the
// spec's Crash, no event of its own). The partitions' slots are freed so
// they can ask again. It reports whether corr was in flight.
func (f *fetcherThread) abandon(corr uint64, timedOut bool) bool {
	b := f.b
	f.mu.Lock()
	r := f.inflight
	if r == nil || (corr != 0 && r.corr != corr) {
		f.mu.Unlock()
		return false
	}
	f.inflight = nil
	stop := timedOut && b.mutant(MutantFetcherStopsAfterLoss) // mutant hook: a lost request stops the fetcher
	var evs []*Event
	for _, tp := range r.tps {
		p, ok := b.rm.get(tp)
		if !ok {
			continue
		}
		p.mu.Lock()
		if p.releaseSlot(r.corr) && timedOut {
			if stop && p.role == Follower {
				// The model's fetchState "None": this partition's fetcher is
				// gone until a LeaderAndIsr restarts it.
				p.fetchState = FetchNone
			}
			evs = append(evs, b.event(p, ActLoseMessage, map[string]int64{"f": int64(b.cfg.BrokerID)}, 0))
		}
		p.mu.Unlock()
	}
	f.backoffAfter(true, false)
	f.mu.Unlock()
	b.deliver(evs...)
	b.fetchers.wakeAll()
	return true
}

func (f *fetcherThread) addPartition(tp protocol.TopicPartition) {
	f.mu.Lock()
	f.partitions[tp] = true
	f.mu.Unlock()
	f.signal()
}

func (f *fetcherThread) removePartition(tp protocol.TopicPartition) {
	f.mu.Lock()
	delete(f.partitions, tp)
	f.mu.Unlock()
}

func (f *fetcherThread) signal() {
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

func compareTP(a, b protocol.TopicPartition) int {
	switch {
	case a.Topic < b.Topic:
		return -1
	case a.Topic > b.Topic:
		return 1
	case a.Partition < b.Partition:
		return -1
	case a.Partition > b.Partition:
		return 1
	}
	return 0
}
