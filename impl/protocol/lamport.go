package protocol

import "sync"

// LamportClock is a Lamport clock shared by the goroutines of one node.
// Tick stamps a local event or a send; Witness merges a received stamp.
type LamportClock struct {
	mu sync.Mutex
	t  uint64
}

// Tick advances the clock and returns the new time.
func (c *LamportClock) Tick() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t++
	return c.t
}

// Witness moves the clock past a received stamp and returns the new time
// (the receive event's stamp).
func (c *LamportClock) Witness(stamp uint64) uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = max(c.t, stamp) + 1
	return c.t
}

// Now reads the clock.
func (c *LamportClock) Now() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}
