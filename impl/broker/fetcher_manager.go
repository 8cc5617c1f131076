package broker

import (
	"fmt"
	"sync"

	"github.com/hwepoch/hwepoch/impl/protocol"
)

// fetcherManager is ReplicaFetcherManager: one fetcher per source broker,
// created when a partition first follows that broker and kept until the
// broker stops (Kafka shuts idle ones down; keeping them keeps a late
// response to an old request from finding nobody to release its slot).
type fetcherManager struct {
	b       *Broker
	mu      sync.Mutex
	threads map[int32]*fetcherThread
	stopped bool
}

func newFetcherManager(b *Broker) *fetcherManager {
	return &fetcherManager{b: b, threads: map[int32]*fetcherThread{}}
}

// thread returns the fetcher for source, starting it if needed.
func (fm *fetcherManager) thread(source int32) (*fetcherThread, error) {
	fm.mu.Lock()
	defer fm.mu.Unlock()
	if t, ok := fm.threads[source]; ok {
		return t, nil
	}
	if fm.stopped {
		return nil, fmt.Errorf("broker %d: stopped", fm.b.cfg.BrokerID)
	}
	ep, err := endpoint(fm.b.net, FetcherNode(fm.b.cfg.BrokerID, source))
	if err != nil {
		return nil, err
	}
	t := &fetcherThread{b: fm.b, source: source, ep: ep, wake: make(chan struct{}, 1),
		partitions: map[protocol.TopicPartition]bool{}}
	fm.threads[source] = t
	fm.b.wg.Add(1)
	go t.run()
	return t, nil
}

// existing returns the fetcher for source if it runs.
func (fm *fetcherManager) existing(source int32) (*fetcherThread, bool) {
	fm.mu.Lock()
	defer fm.mu.Unlock()
	t, ok := fm.threads[source]
	return t, ok
}

func (fm *fetcherManager) list() []*fetcherThread {
	fm.mu.Lock()
	defer fm.mu.Unlock()
	out := make([]*fetcherThread, 0, len(fm.threads))
	for _, t := range fm.threads {
		out = append(out, t)
	}
	return out
}

// addPartition makes tp fetched from leader, and from no other source
// (addFetcherForPartitions after removeFetcherForPartitions).
func (fm *fetcherManager) addPartition(tp protocol.TopicPartition, leader int32) {
	t, err := fm.thread(leader)
	if err != nil {
		fm.b.fail(err)
		return
	}
	for _, o := range fm.list() {
		if o != t {
			o.removePartition(tp)
		}
	}
	t.addPartition(tp)
}

// removePartition stops fetching tp (removeFetcherForPartitions).
func (fm *fetcherManager) removePartition(tp protocol.TopicPartition) {
	for _, t := range fm.list() {
		t.removePartition(tp)
	}
}

// wakeAll nudges every fetcher: a freed slot or a new partition may let
// one send.
func (fm *fetcherManager) wakeAll() {
	if fm.b.cfg.Stepped {
		return
	}
	for _, t := range fm.list() {
		t.signal()
	}
}

// stop refuses new fetchers; running ones exit with the broker's context.
func (fm *fetcherManager) stop() {
	fm.mu.Lock()
	fm.stopped = true
	fm.mu.Unlock()
}
