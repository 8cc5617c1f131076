package netsim

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

var epoch = time.Unix(1_700_000_000, 0)

// freeRun is a single-threaded driver of a faulty FREE network on a manual
// clock: rounds of sends between five nodes, with a partition, a heal, an
// isolation and a rejoin along the way. It returns the Delivered and
// Dropped events in the order the hook saw them.
func freeRun(t *testing.T, seed uint64) []string {
	t.Helper()
	rec := &recorder{}
	clk := NewManualClock(epoch)
	n, _ := newNet(t, Config{
		Mode:  ModeFree,
		Seed:  seed,
		Clock: clk,
		Faults: FaultConfig{DropRate: 0.1, DelayRate: 0.3, ReorderRate: 0.1, DuplicateRate: 0.1,
			MaxDelay: 5 * time.Millisecond},
		Hook: rec.hook,
	}, 0, 1, 2, 3, 4)
	driver := rand.New(rand.NewPCG(1, 2)) // the driver's choices do not depend on the seed
	for round := range 200 {
		for k := range 10 {
			from, to := NodeID(driver.IntN(5)), NodeID(driver.IntN(5))
			mustSend(t, n, from, to, round*10+k)
		}
		switch round {
		case 50:
			if err := n.Partition([]NodeID{0, 1}, []NodeID{2, 3, 4}); err != nil {
				t.Fatal(err)
			}
		case 80:
			n.Heal()
		case 120:
			if _, err := n.Isolate(3); err != nil {
				t.Fatal(err)
			}
		case 150:
			if err := n.Rejoin(3); err != nil {
				t.Fatal(err)
			}
		}
		clk.Advance(time.Millisecond)
	}
	clk.Advance(time.Second)
	if err := n.Settle(); err != nil {
		t.Fatal(err)
	}
	if got := n.InFlight(); len(got) != 0 {
		t.Fatalf("still in flight after the last delay: %v", got)
	}
	return rec.strings(EventDelivered, EventDropped)
}

func TestFreeReproducibleFromSeed(t *testing.T) {
	a := freeRun(t, 12345)
	b := freeRun(t, 12345)
	c := freeRun(t, 54321)
	if len(a) < 2000 {
		t.Fatalf("only %d events", len(a))
	}
	if !slices.Equal(a, b) {
		for i := range min(len(a), len(b)) {
			if a[i] != b[i] {
				t.Fatalf("same seed, different runs: first difference at event %d: %q vs %q", i, a[i], b[i])
			}
		}
		t.Fatalf("same seed, different lengths %d vs %d", len(a), len(b))
	}
	if slices.Equal(a, c) {
		t.Fatal("different seeds, same run: the seed is not used")
	}
	// The faults all happened.
	var dup, partition, isolated, fault bool
	for _, e := range a {
		dup = dup || strings.Contains(e, "copy of")
		partition = partition || strings.Contains(e, "(partition)")
		isolated = isolated || strings.Contains(e, "(isolated)")
		fault = fault || strings.Contains(e, "(fault)")
	}
	if !dup || !partition || !isolated || !fault {
		t.Fatalf("dup %t partition %t isolated %t fault %t", dup, partition, isolated, fault)
	}
}

// faultRun sends total messages round-robin over four links at one
// instant, lets all delays pass, and measures what happened.
type faultStats struct {
	sent, dropped, delivered, copies, overtaken int
}

func faultRun(t *testing.T, seed uint64, faults FaultConfig, total int) faultStats {
	t.Helper()
	rec := &recorder{}
	clk := NewManualClock(epoch)
	n, _ := newNet(t, Config{Mode: ModeFree, Seed: seed, Clock: clk, Faults: faults, Hook: rec.hook}, 0, 1, 2, 3)
	for i := range total {
		from := NodeID(i % 4)
		mustSend(t, n, from, (from+1)%4, i)
	}
	clk.Advance(time.Hour)
	if err := n.Settle(); err != nil {
		t.Fatal(err)
	}
	var s faultStats
	s.sent = total
	maxSeen := make(map[NodeID]MsgID) // by sender: one link each
	for _, e := range rec.take() {
		switch e.Kind {
		case EventDropped:
			s.dropped++
		case EventDelivered:
			s.delivered++
			if e.Original != e.ID {
				s.copies++
				continue
			}
			// Overtaken: a later message on the same link arrived first.
			if e.ID < maxSeen[e.From] {
				s.overtaken++
			}
			maxSeen[e.From] = max(maxSeen[e.From], e.ID)
		}
	}
	return s
}

// within checks a count against a binomial expectation, to 5 standard
// deviations (the run is seeded, so this never flakes; it fails when the
// rate is wrong).
func within(t *testing.T, what string, got, trials int, p float64) {
	t.Helper()
	mean := float64(trials) * p
	sd := math.Sqrt(float64(trials) * p * (1 - p))
	if math.Abs(float64(got)-mean) > 5*sd+1 {
		t.Errorf("%s: %d, expected %.0f ± %.0f", what, got, mean, 5*sd)
	} else {
		t.Logf("%s: %d, expected %.0f", what, got, mean)
	}
}

func TestFreeFaultRates(t *testing.T) {
	const total = 20000
	f := FaultConfig{DropRate: 0.1, DuplicateRate: 0.05, ReorderRate: 0.08, MaxDelay: time.Millisecond}
	for _, seed := range []uint64{1, 2, 3} {
		s := faultRun(t, seed, f, total)
		within(t, "dropped", s.dropped, total, f.DropRate)
		survivors := total - s.dropped
		within(t, "duplicated", s.copies, survivors, f.DuplicateRate)
		// Every held-back message is overtaken by the undelayed ones sent
		// after it on its link (all sent at the same instant).
		within(t, "overtaken", s.overtaken, survivors, f.ReorderRate)
		if s.delivered != survivors+s.copies {
			t.Errorf("delivered %d, want %d + %d copies", s.delivered, survivors, s.copies)
		}
	}
	// No faults configured: nothing is lost, copied or reordered.
	if s := faultRun(t, 1, FaultConfig{}, 2000); s.dropped+s.copies+s.overtaken != 0 || s.delivered != 2000 {
		t.Errorf("fault-free run: %+v", s)
	}
}

// Delays are latency, not reordering: each link stays FIFO, and a delayed
// message waits for the clock.
func TestFreeDelayKeepsLinkOrder(t *testing.T) {
	const total = 4000
	f := FaultConfig{DelayRate: 0.5, MaxDelay: 10 * time.Millisecond}
	if s := faultRun(t, 9, f, total); s.overtaken != 0 || s.delivered != total {
		t.Fatalf("delays reordered a link: %+v", s)
	}
	clk := NewManualClock(epoch)
	n, eps := newNet(t, Config{Mode: ModeFree, Seed: 9, Clock: clk, Faults: FaultConfig{DelayRate: 1, MaxDelay: 10 * time.Millisecond}}, 0, 1)
	for i := range 100 {
		mustSend(t, n, 0, 1, i)
	}
	if err := n.Settle(); err != nil {
		t.Fatal(err)
	}
	if p := eps[1].Pending(); p != 0 {
		t.Fatalf("%d delayed messages delivered before their time", p)
	}
	clk.Advance(10 * time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// The delivery goroutine, woken by the clock, delivers them all.
	for eps[1].Pending() < 100 {
		if err := ctx.Err(); err != nil {
			t.Fatalf("only %d delivered after the delay", eps[1].Pending())
		}
		time.Sleep(time.Millisecond)
	}
	for i := range 100 {
		m, _ := eps[1].TryRecv()
		if m.Payload != i {
			t.Fatalf("position %d holds %v", i, m.Payload)
		}
	}
}

// Real clock, real goroutines, every fault: nodes forward messages to each
// other while four senders inject more. Run under -race. At quiescence
// every message was received or dropped.
func TestFreeConcurrent(t *testing.T) {
	n, eps := newNet(t, Config{Mode: ModeFree, Seed: 77, Faults: FaultConfig{
		DropRate: 0.05, DelayRate: 0.3, ReorderRate: 0.1, DuplicateRate: 0.1, MaxDelay: 2 * time.Millisecond}},
		0, 1, 2, 3, 4)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var nodes sync.WaitGroup
	var received atomic.Int64
	for id, e := range eps {
		nodes.Add(1)
		go func() {
			defer nodes.Done()
			r := rand.New(rand.NewPCG(uint64(id), 0))
			for {
				m, err := e.Recv(ctx)
				if err != nil {
					return
				}
				received.Add(1)
				if hops := m.Payload.(int); hops > 0 {
					_, _ = e.Send(NodeID(r.IntN(5)), hops-1)
				}
			}
		}()
	}
	var senders sync.WaitGroup
	for s := range 4 {
		senders.Add(1)
		go func() {
			defer senders.Done()
			for i := range 200 {
				_, _ = n.Send(NodeID(s), NodeID((s+i)%5), 3)
			}
		}()
	}
	senders.Wait()
	if err := n.WaitQuiescent(ctx); err != nil {
		t.Fatal(err)
	}
	st := n.Stats()
	if st.Sent != st.Received+st.Dropped || int64(st.Received) != received.Load() {
		t.Fatalf("not conserved: %+v, nodes received %d", st, received.Load())
	}
	if st.Duplicated == 0 || st.DroppedBy[DropFault] == 0 || st.Sent < 800 {
		t.Fatalf("faults did not happen: %+v", st)
	}
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	nodes.Wait()
}

// After Close, no goroutine of the network, nor any blocked in Recv or a
// Wait, is left.
func TestNoGoroutineLeak(t *testing.T) {
	before := runtime.NumGoroutine()
	for round := range 10 {
		n, err := New(Config{Mode: ModeFree, Seed: uint64(round), Faults: FaultConfig{DelayRate: 0.5, MaxDelay: time.Hour}})
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for id := range NodeID(3) {
			e, err := n.AddNode(id)
			if err != nil {
				t.Fatal(err)
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					if _, err := e.Recv(context.Background()); err != nil {
						if !errors.Is(err, ErrClosed) {
							t.Error(err)
						}
						return
					}
				}
			}()
		}
		for i := range 100 {
			_, _ = n.Send(NodeID(i%3), NodeID((i+1)%3), i) // half wait an hour
		}
		// The waiter starts only now, on a network that cannot become
		// quiescent before Close: a message is due minutes from now. Started
		// before the sends, it could see the network quiescent (before the
		// first Send, or once the first undelayed messages were received) and
		// rightly return nil.
		n.mu.Lock()
		farOff := false
		for _, env := range n.pending {
			farOff = farOff || time.Until(env.due) > time.Minute
		}
		n.mu.Unlock()
		if !farOff {
			t.Fatalf("round %d: no message delayed past a minute; the waiter could see quiescence", round)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := n.WaitQuiescent(context.Background()); !errors.Is(err, ErrClosed) {
				t.Errorf("WaitQuiescent across Close: %v, want ErrClosed", err)
			}
		}()
		time.Sleep(5 * time.Millisecond)
		if err := n.Close(); err != nil {
			t.Fatal(err)
		}
		wg.Wait()
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		after := runtime.NumGoroutine()
		if after <= before {
			return
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines before, %d after Close:\n%s", before, after, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestManualClock(t *testing.T) {
	c := NewManualClock(epoch)
	t1 := c.NewTimer(10 * time.Millisecond)
	t2 := c.NewTimer(20 * time.Millisecond)
	t0 := c.NewTimer(0)
	select {
	case <-t0.C():
	default:
		t.Fatal("a zero timer must fire at once")
	}
	c.Advance(15 * time.Millisecond)
	select {
	case at := <-t1.C():
		if !at.Equal(epoch.Add(15 * time.Millisecond)) {
			t.Fatalf("fired at %v", at)
		}
	default:
		t.Fatal("t1 did not fire")
	}
	if !t2.Stop() {
		t.Fatal("t2 should have been pending")
	}
	c.Advance(time.Hour)
	select {
	case <-t2.C():
		t.Fatal("a stopped timer fired")
	default:
	}
	c.Advance(-time.Hour)
	if got := c.Now(); !got.Equal(epoch.Add(time.Hour + 15*time.Millisecond)) {
		t.Fatalf("now %v", got)
	}
	if t1.Stop() {
		t.Fatal("Stop of a fired timer reported pending")
	}
}

func ExampleNetwork_stepped() {
	n, _ := New(Config{Mode: ModeStepped})
	defer n.Close()
	a, _ := n.AddNode(1)
	b, _ := n.AddNode(2)
	_, _ = a.Send(2, "Fetch")
	_, _ = a.Send(2, "OffsetsForLeaderEpoch")
	in := n.InFlight()
	_ = n.Deliver(in[1].ID) // the driver picks the second one first
	m, _ := b.TryRecv()
	fmt.Println(m.ID, m.From, m.To, m.Payload, len(n.InFlight()))
	// Output: 2 1 2 OffsetsForLeaderEpoch 1
}

// sendAll sends k messages 0 -> 1 and lets every delay pass.
func sendAll(t *testing.T, n *Network, clk *ManualClock, k int) {
	t.Helper()
	for i := range k {
		mustSend(t, n, 0, 1, i)
	}
	clk.Advance(time.Hour)
	if err := n.Settle(); err != nil {
		t.Fatal(err)
	}
}

// A campaign turns the faults off for its heal phase, and on again.
func TestSetFaults(t *testing.T) {
	clk := NewManualClock(epoch)
	n, _ := newNet(t, Config{Mode: ModeFree, Seed: 3, Clock: clk, Faults: FaultConfig{DropRate: 1}}, 0, 1)
	sendAll(t, n, clk, 100)
	if st := n.Stats(); st.DroppedBy[DropFault] != 100 {
		t.Fatalf("DropRate 1: %+v", st)
	}
	if err := n.SetFaults(FaultConfig{}); err != nil {
		t.Fatal(err)
	}
	if got := n.Faults(); got != (FaultConfig{}) {
		t.Fatalf("Faults() = %+v after SetFaults", got)
	}
	sendAll(t, n, clk, 100)
	if st := n.Stats(); st.DroppedBy[DropFault] != 100 || st.Delivered != 100 {
		t.Fatalf("faults off: %+v", st)
	}
	// An invalid config is refused and changes nothing.
	for _, bad := range []FaultConfig{{DropRate: 2}, {DelayRate: 0.5}, {MaxDelay: -1}, {DuplicateRate: nan()}} {
		if err := n.SetFaults(bad); !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("SetFaults(%+v) = %v, want ErrInvalidConfig", bad, err)
		}
	}
	if got := n.Faults(); got != (FaultConfig{}) {
		t.Fatalf("a refused SetFaults changed the faults to %+v", got)
	}
	if err := n.SetFaults(FaultConfig{DropRate: 1}); err != nil {
		t.Fatal(err)
	}
	sendAll(t, n, clk, 10)
	if st := n.Stats(); st.DroppedBy[DropFault] != 110 {
		t.Fatalf("faults on again: %+v", st)
	}
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	if err := n.SetFaults(FaultConfig{}); !errors.Is(err, ErrClosed) {
		t.Errorf("SetFaults after Close: %v", err)
	}

	// STEPPED: faults are the driver's; only the zero config is accepted.
	s, _ := newNet(t, Config{Mode: ModeStepped}, 0)
	if err := s.SetFaults(FaultConfig{DropRate: 0.1}); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("STEPPED SetFaults: %v", err)
	}
	if err := s.SetFaults(FaultConfig{}); err != nil {
		t.Errorf("STEPPED SetFaults(zero): %v", err)
	}
}

// Changing the faults mid-run keeps the run a function of the seed and the
// driver's calls: freeRun with a heal phase that turns faults off, then on.
func TestSetFaultsReproducible(t *testing.T) {
	run := func(seed uint64) []string {
		rec := &recorder{}
		clk := NewManualClock(epoch)
		n, _ := newNet(t, Config{Mode: ModeFree, Seed: seed, Clock: clk, Hook: rec.hook,
			Faults: FaultConfig{DropRate: 0.2, DelayRate: 0.3, ReorderRate: 0.1, DuplicateRate: 0.1, MaxDelay: 5 * time.Millisecond}}, 0, 1, 2)
		for round := range 60 {
			switch round {
			case 20:
				if err := n.SetFaults(FaultConfig{}); err != nil {
					t.Fatal(err)
				}
			case 40:
				if err := n.SetFaults(FaultConfig{DropRate: 0.5, DelayRate: 1, MaxDelay: time.Millisecond}); err != nil {
					t.Fatal(err)
				}
			}
			for k := range 10 {
				mustSend(t, n, NodeID(k%3), NodeID((k+round)%3), round)
			}
			clk.Advance(time.Millisecond)
		}
		clk.Advance(time.Second)
		if err := n.Settle(); err != nil {
			t.Fatal(err)
		}
		return rec.strings(EventDelivered, EventDropped)
	}
	a, b, c := run(8), run(8), run(9)
	if !slices.Equal(a, b) {
		t.Fatal("same seed and calls, different runs")
	}
	if slices.Equal(a, c) {
		t.Fatal("different seeds, same run")
	}
}

// SetFaults races with Send and the delivery goroutine (run under -race).
func TestSetFaultsConcurrent(t *testing.T) {
	n, eps := newNet(t, Config{Mode: ModeFree, Seed: 5}, 0, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	go func() {
		for {
			if _, err := eps[1].Recv(ctx); err != nil {
				return
			}
		}
	}()
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for i := range 2000 {
			_, _ = n.Send(0, 1, i)
		}
	}()
	go func() {
		defer wg.Done()
		for i := range 200 {
			f := FaultConfig{DropRate: 0.5, DelayRate: 0.5, MaxDelay: time.Millisecond}
			if i%2 == 0 {
				f = FaultConfig{}
			}
			if err := n.SetFaults(f); err != nil {
				t.Error(err)
			}
		}
	}()
	wg.Wait()
	if err := n.SetFaults(FaultConfig{}); err != nil {
		t.Fatal(err)
	}
	if err := n.WaitQuiescent(ctx); err != nil {
		t.Fatal(err)
	}
	if st := n.Stats(); st.Sent != st.Received+st.Dropped {
		t.Fatalf("not conserved: %+v", st)
	}
}
