package netsim

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"
)

// recorder is a hook that keeps every event.
type recorder struct {
	mu  sync.Mutex
	evs []Event
}

func (r *recorder) hook(e Event) {
	r.mu.Lock()
	r.evs = append(r.evs, e)
	r.mu.Unlock()
}

func (r *recorder) take() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.evs
	r.evs = nil
	return out
}

func (r *recorder) strings(kinds ...EventKind) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, e := range r.evs {
		if len(kinds) == 0 || slices.Contains(kinds, e.Kind) {
			out = append(out, e.String())
		}
	}
	return out
}

func newNet(t *testing.T, cfg Config, nodes ...NodeID) (*Network, map[NodeID]*Endpoint) {
	t.Helper()
	n, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = n.Close() })
	eps := make(map[NodeID]*Endpoint)
	for _, id := range nodes {
		e, err := n.AddNode(id)
		if err != nil {
			t.Fatal(err)
		}
		eps[id] = e
	}
	return n, eps
}

func mustSend(t *testing.T, n *Network, from, to NodeID, payload any) MsgID {
	t.Helper()
	id, err := n.Send(from, to, payload)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func TestConfigValidation(t *testing.T) {
	bad := []Config{
		{},
		{Mode: 9},
		{Mode: ModeFree, Faults: FaultConfig{DropRate: 1.5}},
		{Mode: ModeFree, Faults: FaultConfig{DuplicateRate: -0.1}},
		{Mode: ModeFree, Faults: FaultConfig{ReorderRate: nan()}},
		{Mode: ModeFree, Faults: FaultConfig{MaxDelay: -1}},
		{Mode: ModeFree, Faults: FaultConfig{DelayRate: 0.5}},
		{Mode: ModeFree, Faults: FaultConfig{ReorderRate: 0.5}},
		{Mode: ModeStepped, Faults: FaultConfig{DropRate: 0.1}},
	}
	for i, cfg := range bad {
		if n, err := New(cfg); !errors.Is(err, ErrInvalidConfig) {
			if n != nil {
				_ = n.Close()
			}
			t.Errorf("%d: %+v: err = %v", i, cfg, err)
		}
	}
}

func nan() float64 { z := 0.0; return z / z }

func TestSteppedDeliversExactlyWhatTheDriverSays(t *testing.T) {
	rec := &recorder{}
	n, eps := newNet(t, Config{Mode: ModeStepped, Hook: rec.hook}, 1, 2, 3)
	for i := range 5 {
		mustSend(t, n, NodeID(1+i%2), 3, fmt.Sprint("m", i+1))
	}
	// Nothing moves by itself.
	time.Sleep(20 * time.Millisecond)
	if p := eps[3].Pending(); p != 0 {
		t.Fatalf("%d messages delivered without the driver", p)
	}
	inflight := n.InFlight()
	if len(inflight) != 5 {
		t.Fatalf("in flight %v", inflight)
	}
	for i, m := range inflight {
		want := Message{ID: MsgID(i + 1), Original: MsgID(i + 1), From: NodeID(1 + i%2), To: 3, Payload: fmt.Sprint("m", i+1)}
		if m != want {
			t.Errorf("in flight %d: %+v, want %+v", i, m, want)
		}
	}
	if got := n.InFlightOn(2, 3); len(got) != 2 || got[0].ID != 2 || got[1].ID != 4 {
		t.Fatalf("link 2->3: %v", got)
	}

	// Out of order, on purpose.
	if err := n.Deliver(4); err != nil {
		t.Fatal(err)
	}
	if err := n.Drop(1); err != nil {
		t.Fatal(err)
	}
	if err := n.Deliver(2); err != nil {
		t.Fatal(err)
	}
	for _, want := range []MsgID{4, 2} {
		m, ok := eps[3].TryRecv()
		if !ok || m.ID != want {
			t.Fatalf("received %+v %t, want #%d", m, ok, want)
		}
	}
	if _, ok := eps[3].TryRecv(); ok {
		t.Fatal("more delivered than the driver said")
	}
	for _, id := range []MsgID{1, 2, 4, 99} {
		if err := n.Deliver(id); !errors.Is(err, ErrUnknownMessage) {
			t.Errorf("Deliver(%d): %v", id, err)
		}
	}
	if err := n.Drop(1); !errors.Is(err, ErrUnknownMessage) {
		t.Errorf("Drop twice: %v", err)
	}
	if got := n.InFlight(); len(got) != 2 || got[0].ID != 3 || got[1].ID != 5 {
		t.Fatalf("left in flight %v", got)
	}
	want := []string{
		"Sent #1 1->3", "Sent #2 2->3", "Sent #3 1->3", "Sent #4 2->3", "Sent #5 1->3",
		"Delivered #4 2->3", "Dropped #1 1->3 (driver)", "Delivered #2 2->3",
		"Received #4 2->3", "Received #2 2->3",
	}
	if got := rec.strings(); !slices.Equal(got, want) {
		t.Fatalf("events\n got %q\nwant %q", got, want)
	}
	st := n.Stats()
	if st.Sent != 5 || st.Delivered != 2 || st.Received != 2 || st.Dropped != 1 || st.DroppedBy[DropDriver] != 1 {
		t.Fatalf("stats %+v", st)
	}
}

func TestSteppedErrors(t *testing.T) {
	n, _ := newNet(t, Config{Mode: ModeStepped}, 1)
	if _, err := n.Send(1, 2, nil); !errors.Is(err, ErrUnknownNode) {
		t.Errorf("send to unknown node: %v", err)
	}
	if _, err := n.Send(7, 1, nil); !errors.Is(err, ErrUnknownNode) {
		t.Errorf("send from unknown node: %v", err)
	}
	if _, err := n.AddNode(1); !errors.Is(err, ErrDuplicateNode) {
		t.Errorf("duplicate node: %v", err)
	}
	if err := n.Partition([]NodeID{1}, []NodeID{1}); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("overlapping partition: %v", err)
	}
	if err := n.Partition(nil, []NodeID{1}); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("empty side: %v", err)
	}
	if err := n.Partition([]NodeID{1}, []NodeID{5}); !errors.Is(err, ErrUnknownNode) {
		t.Errorf("unknown node in partition: %v", err)
	}
	if _, err := n.Isolate(5); !errors.Is(err, ErrUnknownNode) {
		t.Errorf("isolate unknown: %v", err)
	}
	free, _ := newNet(t, Config{Mode: ModeFree}, 1)
	if err := free.Deliver(1); !errors.Is(err, ErrWrongMode) {
		t.Errorf("Deliver in FREE mode: %v", err)
	}
}

// A stepped driver delivers a request, waits for the node to handle it,
// and then sees the response in flight.
func TestSteppedWaitIdle(t *testing.T) {
	n, eps := newNet(t, Config{Mode: ModeStepped}, 1, 2)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // node 2 answers every request after a while
		defer wg.Done()
		for {
			m, err := eps[2].Recv(ctx)
			if err != nil {
				return
			}
			time.Sleep(10 * time.Millisecond)
			_, _ = eps[2].Send(m.From, fmt.Sprint("re:", m.Payload))
		}
	}()
	for i := range 3 {
		id := mustSend(t, n, 1, 2, i)
		if n.Idle() != true || n.Quiescent() {
			t.Fatalf("round %d: idle %t quiescent %t before delivery", i, n.Idle(), n.Quiescent())
		}
		if err := n.Deliver(id); err != nil {
			t.Fatal(err)
		}
		if err := n.WaitIdle(ctx); err != nil {
			t.Fatal(err)
		}
		inflight := n.InFlight()
		if len(inflight) != 1 || inflight[0].From != 2 || inflight[0].Payload != fmt.Sprint("re:", i) {
			t.Fatalf("round %d: after WaitIdle in flight %v", i, inflight)
		}
		if err := n.Deliver(inflight[0].ID); err != nil {
			t.Fatal(err)
		}
		if n.Idle() {
			t.Fatal("idle with a message in node 1's mailbox")
		}
		if m, ok := eps[1].TryRecv(); !ok || m.ID != inflight[0].ID {
			t.Fatalf("node 1 got %v %t", m, ok)
		}
		eps[1].Done()
		if !n.Quiescent() {
			t.Fatal("not quiescent at the end of the round")
		}
	}
	if err := n.WaitQuiescent(ctx); err != nil {
		t.Fatal(err)
	}
	cancel()
	wg.Wait()
}

func TestPartitionAndHeal(t *testing.T) {
	for _, mode := range []Mode{ModeStepped, ModeFree} {
		t.Run(mode.String(), func(t *testing.T) {
			rec := &recorder{}
			clk := NewManualClock(time.Unix(0, 0))
			n, eps := newNet(t, Config{Mode: mode, Clock: clk, Hook: rec.hook}, 1, 2, 3)
			// In flight across the future cut: a FREE message not yet due
			// needs a delay, so the stepped and free runs differ here.
			if mode == ModeStepped {
				mustSend(t, n, 1, 2, "before")
			}
			if err := n.Partition([]NodeID{1}, []NodeID{2, 3}); err != nil {
				t.Fatal(err)
			}
			across := mustSend(t, n, 2, 1, "across")
			within := mustSend(t, n, 2, 3, "within")
			deliverAll(t, n)
			if _, ok := eps[1].TryRecv(); ok {
				t.Fatal("a message crossed the partition")
			}
			if m, ok := eps[3].TryRecv(); !ok || m.ID != within {
				t.Fatalf("within one side: %v %t", m, ok)
			}
			dropped := rec.strings(EventDropped)
			wantDropped := []string{fmt.Sprintf("Dropped #%d 2->1 (partition)", across)}
			if mode == ModeStepped {
				wantDropped = append([]string{"Dropped #1 1->2 (partition)"}, wantDropped...)
			}
			if !slices.Equal(dropped, wantDropped) {
				t.Fatalf("dropped %q, want %q", dropped, wantDropped)
			}
			n.Heal()
			healed := mustSend(t, n, 2, 1, "healed")
			deliverAll(t, n)
			if m, ok := eps[1].TryRecv(); !ok || m.ID != healed {
				t.Fatalf("after Heal: %v %t", m, ok)
			}
		})
	}
}

// deliverAll moves everything: Deliver in stepped mode, Settle in free mode.
func deliverAll(t *testing.T, n *Network) {
	t.Helper()
	if n.Mode() == ModeFree {
		if err := n.Settle(); err != nil {
			t.Fatal(err)
		}
		return
	}
	for _, m := range n.InFlight() {
		if err := n.Deliver(m.ID); err != nil {
			t.Fatal(err)
		}
	}
}

func TestIsolateAndDropAllFor(t *testing.T) {
	rec := &recorder{}
	n, eps := newNet(t, Config{Mode: ModeStepped, Hook: rec.hook}, 1, 2, 3)
	toTwo := mustSend(t, n, 1, 2, "to 2")
	fromTwo := mustSend(t, n, 2, 3, "from 2")
	other := mustSend(t, n, 1, 3, "unrelated")
	unread := mustSend(t, n, 3, 2, "delivered, unread")
	if err := n.Deliver(unread); err != nil {
		t.Fatal(err)
	}
	lost, err := n.Isolate(2)
	if err != nil || lost != 3 {
		t.Fatalf("Isolate lost %d, %v", lost, err)
	}
	if got := n.InFlight(); len(got) != 1 || got[0].ID != other {
		t.Fatalf("in flight after Isolate: %v", got)
	}
	if eps[2].Pending() != 0 {
		t.Fatal("crashed node kept its mailbox")
	}
	want := []string{
		fmt.Sprintf("Dropped #%d 1->2 (isolated)", toTwo),
		fmt.Sprintf("Dropped #%d 2->3 (isolated)", fromTwo),
		fmt.Sprintf("Dropped #%d 3->2 (isolated)", unread),
	}
	if got := rec.strings(EventDropped); !slices.Equal(got, want) {
		t.Fatalf("dropped %q, want %q", got, want)
	}
	// Isolated: new messages to and from it are lost.
	mustSend(t, n, 2, 1, "from isolated")
	mustSend(t, n, 3, 2, "to isolated")
	if got := n.InFlight(); len(got) != 1 {
		t.Fatalf("isolated node's messages went in flight: %v", got)
	}
	if err := n.Rejoin(2); err != nil {
		t.Fatal(err)
	}
	back := mustSend(t, n, 3, 2, "after rejoin")
	if err := n.Deliver(back); err != nil {
		t.Fatal(err)
	}
	if m, ok := eps[2].TryRecv(); !ok || m.ID != back {
		t.Fatalf("after Rejoin: %v %t", m, ok)
	}
	// DropAllFor loses what is in flight but does not cut the node off.
	mustSend(t, n, 1, 3, "x")
	if lost, err := n.DropAllFor(3); err != nil || lost != 2 {
		t.Fatalf("DropAllFor lost %d, %v", lost, err)
	}
	after := mustSend(t, n, 1, 3, "after crash")
	if got := n.InFlight(); len(got) != 1 || got[0].ID != after {
		t.Fatalf("after DropAllFor: %v", got)
	}
	st := n.Stats()
	if st.DroppedBy[DropIsolated] != 5 || st.DroppedBy[DropCrash] != 2 {
		t.Fatalf("stats %+v", st)
	}
}

// The hook may call back into the network, even to send.
func TestHookReentrant(t *testing.T) {
	var n *Network
	var mu sync.Mutex
	var log []string
	sent := false
	hook := func(e Event) {
		_ = n.InFlight()
		mu.Lock()
		log = append(log, e.String())
		first := !sent && e.Kind == EventDelivered
		sent = sent || first
		mu.Unlock()
		if first {
			if _, err := n.Send(2, 1, "from the hook"); err != nil {
				t.Error(err)
			}
		}
	}
	n, _ = newNet(t, Config{Mode: ModeStepped, Hook: hook}, 1, 2)
	id := mustSend(t, n, 1, 2, "x")
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = n.Deliver(id)
		_ = n.Settle() // waits for the hook to have seen everything
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("deadlock: hook calling into the network")
	}
	mu.Lock()
	defer mu.Unlock()
	want := []string{"Sent #1 1->2", "Delivered #1 1->2", "Sent #2 2->1"}
	if !slices.Equal(log, want) {
		t.Fatalf("log %q, want %q", log, want)
	}
}

func TestCloseUnblocks(t *testing.T) {
	n, eps := newNet(t, Config{Mode: ModeStepped}, 1)
	mustSend(t, n, 1, 1, "never delivered") // so that neither call can return
	errc := make(chan error, 2)
	go func() { _, err := eps[1].Recv(context.Background()); errc <- err }()
	go func() { errc <- n.WaitQuiescent(context.Background()) }()
	time.Sleep(10 * time.Millisecond)
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		select {
		case err := <-errc:
			if !errors.Is(err, ErrClosed) {
				t.Errorf("err = %v, want ErrClosed", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("Close did not unblock")
		}
	}
	if _, err := n.Send(1, 1, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("Send after Close: %v", err)
	}
	if err := n.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// A crashed node that was handling a message is no longer busy: otherwise
// a driver waiting for idleness would wait for a dead node forever.
func TestCrashClearsBusy(t *testing.T) {
	n, eps := newNet(t, Config{Mode: ModeStepped}, 1, 2)
	id := mustSend(t, n, 1, 2, "x")
	if err := n.Deliver(id); err != nil {
		t.Fatal(err)
	}
	if _, ok := eps[2].TryRecv(); !ok {
		t.Fatal("no message")
	}
	if n.Idle() {
		t.Fatal("idle while node 2 handles a message")
	}
	if _, err := n.Isolate(2); err != nil {
		t.Fatal(err)
	}
	if !n.Idle() || !n.Quiescent() {
		t.Fatal("a crashed node still counts as busy")
	}
}

// A crash loses every message to or from the node (spec Crash), including
// what it sent that reached another node's mailbox but was not taken yet.
// What another node already took is received: the crash cannot undo that.
func TestCrashDropsUnreadMessagesFromTheNode(t *testing.T) {
	for _, tc := range []struct {
		name   string
		crash  func(*Network, NodeID) (int, error)
		reason DropReason
	}{
		{"Isolate", (*Network).Isolate, DropIsolated},
		{"DropAllFor", (*Network).DropAllFor, DropCrash},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := &recorder{}
			n, eps := newNet(t, Config{Mode: ModeStepped, Hook: rec.hook}, 1, 2, 3)
			taken := mustSend(t, n, 2, 3, "taken before the crash")
			unreadAt3 := mustSend(t, n, 2, 3, "unread at 3")
			other := mustSend(t, n, 1, 3, "from a live node")
			unreadAt1 := mustSend(t, n, 2, 1, "unread at 1")
			self := mustSend(t, n, 2, 2, "to itself")
			for _, id := range []MsgID{taken, unreadAt3, other, unreadAt1, self} {
				if err := n.Deliver(id); err != nil {
					t.Fatal(err)
				}
			}
			if m, ok := eps[3].TryRecv(); !ok || m.ID != taken {
				t.Fatalf("3 took %v %t", m, ok)
			}
			rec.take()
			lost, err := tc.crash(n, 2)
			if err != nil || lost != 3 {
				t.Fatalf("crash lost %d, %v; want 3", lost, err)
			}
			if p := eps[1].Pending(); p != 0 {
				t.Errorf("node 1 still holds %d messages from the crashed node", p)
			}
			if m, ok := eps[3].TryRecv(); !ok || m.ID != other {
				t.Errorf("node 3's next message: %v %t, want #%d from the live node", m, ok, other)
			}
			if _, ok := eps[3].TryRecv(); ok {
				t.Error("node 3 received a message the crashed node sent")
			}
			var dropped []MsgID
			for _, e := range rec.take() {
				if e.Kind == EventDropped {
					if e.Reason != tc.reason {
						t.Errorf("%v: reason %v, want %v", e, e.Reason, tc.reason)
					}
					dropped = append(dropped, e.ID)
				}
			}
			if want := []MsgID{self, unreadAt3, unreadAt1}; !slices.Equal(dropped, want) {
				t.Errorf("dropped %v, want %v (own mailbox, then others' in send order)", dropped, want)
			}
			if st := n.Stats(); st.Sent != st.Received+st.Dropped {
				t.Errorf("not conserved: %+v", st)
			}
			if !n.Quiescent() {
				t.Error("not quiescent once every message was received or dropped")
			}
		})
	}
}

// DropAllForExcept spares what keep selects among the crashed node's own
// messages, in flight or unread; everything else to or from it is lost.
func TestCrashSparesSelectedMessages(t *testing.T) {
	n, eps := newNet(t, Config{Mode: ModeStepped}, 1, 2, 3)
	keepIt := mustSend(t, n, 2, 3, "spared")
	dropIt := mustSend(t, n, 2, 3, "lost")
	unread := mustSend(t, n, 2, 1, "spared unread")
	toIt := mustSend(t, n, 3, 2, "to the crashed node")
	if err := n.Deliver(unread); err != nil {
		t.Fatal(err)
	}
	lost, err := n.DropAllForExcept(2, func(m Message) bool { return m.Payload != "lost" })
	if err != nil {
		t.Fatal(err)
	}
	if lost != 2 {
		t.Fatalf("lost %d, want 2 (the unspared one and the one to the node)", lost)
	}
	var ids []MsgID
	for _, m := range n.InFlight() {
		ids = append(ids, m.ID)
	}
	if len(ids) != 1 || ids[0] != keepIt {
		t.Fatalf("in flight %v, want only %d (not %d, %d)", ids, keepIt, dropIt, toIt)
	}
	if m, ok := eps[1].TryRecv(); !ok || m.Payload != "spared unread" {
		t.Fatalf("unread spared message gone: %v %v", m, ok)
	}
}
