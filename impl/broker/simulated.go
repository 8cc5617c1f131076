package broker

import (
	"fmt"
	"slices"
)

// The deterministic simulation's handles (Config.Simulated): the driver
// fires the broker's timers on its simulated clock, one at a time, instead
// of goroutines with tickers. Each runs the same code free mode's timer
// goroutine and fetcher loops run.

// Timer names a broker timer the simulation fires.
type Timer string

const (
	// TimerIsrExpiration is ReplicaManager's isr-expiration task
	// (every replica.lag.time.max.ms / 2): a follower that has not caught
	// up within replica.lag.time.max.ms is proposed for removal.
	TimerIsrExpiration Timer = "isr-expiration"
	// TimerHWCheckpoint is the highwatermark-checkpoint task
	// (replica.high.watermark.checkpoint.interval.ms).
	TimerHWCheckpoint Timer = "hw-checkpoint"
	// TimerLogFlush is the periodic flush (log.flush.interval.ms).
	TimerLogFlush Timer = "log-flush"
	// TimerFetcher is one turn of every fetcher's loop
	// (AbstractFetcherThread.doWork): send the next request unless one is
	// in flight or the fetcher is backing off after an error.
	TimerFetcher Timer = "fetcher"
)

// FireTimer runs one timer's task now.
func (b *Broker) FireTimer(t Timer) error {
	switch t {
	case TimerIsrExpiration:
		b.maybeShrinkIsr()
	case TimerHWCheckpoint:
		_, err := b.CheckpointHighWatermarks()
		return err
	case TimerLogFlush:
		var errs []error
		for _, p := range b.rm.all() {
			if err := p.log.Flush(); err != nil {
				errs = append(errs, err)
			}
		}
		if len(errs) > 0 {
			return fmt.Errorf("broker %d: flush: %v", b.cfg.BrokerID, errs)
		}
	case TimerFetcher:
		for _, f := range b.sortedFetchers() {
			f.maybeSend()
		}
	default:
		return fmt.Errorf("broker %d: no timer %q", b.cfg.BrokerID, t)
	}
	return nil
}

// FetcherReady reports whether a turn of the fetchers' loop would send a
// request: some fetcher has nothing in flight, is not backing off, and
// holds a partition that follows its source and may send.
func (b *Broker) FetcherReady() bool {
	for _, f := range b.sortedFetchers() {
		if f.ready() {
			return true
		}
	}
	return false
}

// FetcherBackoff reports the end of the earliest backoff of a fetcher that
// has nothing in flight, if any is backing off: when a fetcher turn becomes
// possible again.
func (b *Broker) FetcherBackoff() (until int64, ok bool) {
	for _, f := range b.sortedFetchers() {
		f.mu.Lock()
		if f.inflight == nil && !f.backoffUntil.IsZero() && b.now().Before(f.backoffUntil) {
			if u := f.backoffUntil.UnixNano(); !ok || u < until {
				until, ok = u, true
			}
		}
		f.mu.Unlock()
	}
	return until, ok
}

func (f *fetcherThread) ready() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.inflight != nil || (!f.backoffUntil.IsZero() && f.b.now().Before(f.backoffUntil)) {
		return false
	}
	for tp := range f.partitions {
		p, ok := f.b.rm.get(tp)
		if !ok {
			continue
		}
		p.mu.Lock()
		can := p.leader == f.source && (p.canSend(Truncating) == nil || p.canSend(Fetching) == nil)
		p.mu.Unlock()
		if can {
			return true
		}
	}
	return false
}

// sortedFetchers lists the fetchers by source broker, so a simulated turn
// is the same every run.
func (b *Broker) sortedFetchers() []*fetcherThread {
	fs := b.fetchers.list()
	slices.SortFunc(fs, func(x, y *fetcherThread) int { return int(x.source - y.source) })
	return fs
}
