package explore

import (
	"fmt"
	"io"
	"sync/atomic"
	"time"
)

// progress holds counters the search updates and a ticker prints.
type progress struct {
	distinct, generated, queue, depth atomic.Int64
}

// start prints a line to w every period (default 2s) until the returned
// function is called; nothing for a search shorter than one period.
func (p *progress) start(w io.Writer, period time.Duration, t0 time.Time) func() {
	if w == nil {
		return func() {}
	}
	if period <= 0 {
		period = 2 * time.Second
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(period)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case now := <-tick.C:
				el := now.Sub(t0).Seconds()
				d := p.distinct.Load()
				fmt.Fprintf(w, "explore: %6.0fs  %d distinct (%.0f/s)  %d generated  queue %d  depth %d\n",
					el, d, float64(d)/el, p.generated.Load(), p.queue.Load(), p.depth.Load())
			}
		}
	}()
	return func() { close(done); <-finished }
}
