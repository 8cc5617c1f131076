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
	spilled                           atomic.Int64 // bytes on disk (Options.MemoryBudget)
}

// start prints a line to w every period (default 2s) until the returned
// function is called; nothing for a search shorter than one period.
func (p *progress) start(w io.Writer, period time.Duration, t0 time.Time) func() {
	return ticker(w, period, t0, func(el float64) {
		d := p.distinct.Load()
		spilled := ""
		if b := p.spilled.Load(); b > 0 {
			spilled = fmt.Sprintf("  spilled %.1f MiB", float64(b)/(1<<20))
		}
		fmt.Fprintf(w, "explore: %6.0fs  %d distinct (%.0f/s)  %d generated  queue %d  depth %d%s\n",
			el, d, float64(d)/el, p.generated.Load(), p.queue.Load(), p.depth.Load(), spilled)
	})
}

// ticker calls line with the seconds since t0 every period (default 2s)
// until the returned function is called, which waits for the last line.
// Nothing when w is nil.
func ticker(w io.Writer, period time.Duration, t0 time.Time, line func(elapsed float64)) func() {
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
				line(now.Sub(t0).Seconds())
			}
		}
	}()
	return func() { close(done); <-finished }
}
