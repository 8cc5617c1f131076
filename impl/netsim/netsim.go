package netsim

import (
	"cmp"
	"container/heap"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"
)

// NodeID addresses a node (a broker id, or the controller's).
type NodeID int32

// MsgID identifies one copy of a message. IDs increase in send order and
// are never reused, so they are stable across InFlight calls and name the
// message in events.
type MsgID uint64

// Message is one message on the network.
type Message struct {
	ID MsgID
	// Original is the ID of the message this one duplicates; ID itself for
	// a message that is not a duplicate.
	Original MsgID
	From, To NodeID
	Payload  any
}

// Mode selects who moves messages.
type Mode uint8

const (
	// ModeFree: a delivery goroutine delivers messages, applying faults.
	ModeFree Mode = iota + 1
	// ModeStepped: only Deliver and Drop move messages.
	ModeStepped
)

func (m Mode) String() string {
	switch m {
	case ModeFree:
		return "FREE"
	case ModeStepped:
		return "STEPPED"
	}
	return fmt.Sprintf("Mode(%d)", uint8(m))
}

// FaultConfig gives the per-message probabilities of ModeFree's faults.
type FaultConfig struct {
	// DropRate: the message is lost.
	DropRate float64
	// DelayRate: the message is delayed by a uniform time in (0, MaxDelay].
	// Delays keep the link's FIFO order: later messages on the same link
	// wait behind a delayed one, as on a TCP connection.
	DelayRate float64
	// ReorderRate: the message is held back by a further uniform time in
	// (0, MaxDelay], outside the link's FIFO order, so that later messages
	// on the link overtake it.
	ReorderRate float64
	// DuplicateRate: a copy (new ID, same Original) is delivered too, up to
	// MaxDelay after the original.
	DuplicateRate float64
	// MaxDelay bounds delays; it must be positive when DelayRate or
	// ReorderRate is.
	MaxDelay time.Duration
}

func (f FaultConfig) any() bool {
	return f.DropRate > 0 || f.DelayRate > 0 || f.ReorderRate > 0 || f.DuplicateRate > 0
}

// Config configures a Network.
type Config struct {
	Mode Mode
	// Seed seeds the one random source every fault is drawn from.
	Seed   uint64
	Faults FaultConfig
	// Clock times ModeFree's delays; nil means RealClock().
	Clock Clock
	// Hook, if set, observes every event (see Event). Calls are serialized
	// and in event order. They normally happen before the call that caused
	// the event returns; if another goroutine is dispatching events at the
	// time, that goroutine makes the call instead, shortly after. Settle,
	// WaitIdle and WaitQuiescent return only once every earlier event has
	// been dispatched, and must not be called from the hook; every other
	// method may be.
	Hook func(Event)
}

// EventKind says what happened to a message.
type EventKind uint8

const (
	// EventSent: Send accepted the message (or a duplicate was made).
	EventSent EventKind = iota + 1
	// EventDelivered: the message reached the receiver's mailbox.
	EventDelivered
	// EventReceived: the receiver took it from its mailbox.
	EventReceived
	// EventDropped: the message was lost, in flight or in the mailbox.
	EventDropped
)

func (k EventKind) String() string {
	switch k {
	case EventSent:
		return "Sent"
	case EventDelivered:
		return "Delivered"
	case EventReceived:
		return "Received"
	case EventDropped:
		return "Dropped"
	}
	return fmt.Sprintf("EventKind(%d)", uint8(k))
}

// DropReason says why a message was dropped.
type DropReason uint8

const (
	DropNone DropReason = iota
	// DropFault: ModeFree's random loss.
	DropFault
	// DropPartition: the link is cut by Partition.
	DropPartition
	// DropIsolated: an end of the link is isolated (Isolate).
	DropIsolated
	// DropCrash: DropAllFor.
	DropCrash
	// DropDriver: Drop(id).
	DropDriver
	numDropReasons
)

func (r DropReason) String() string {
	switch r {
	case DropNone:
		return "none"
	case DropFault:
		return "fault"
	case DropPartition:
		return "partition"
	case DropIsolated:
		return "isolated"
	case DropCrash:
		return "crash"
	case DropDriver:
		return "driver"
	}
	return fmt.Sprintf("DropReason(%d)", uint8(r))
}

// Event is what the hook observes.
type Event struct {
	Kind EventKind
	Message
	// Reason is set for EventDropped.
	Reason DropReason
}

func (e Event) String() string {
	s := fmt.Sprintf("%s #%d %d->%d", e.Kind, e.ID, e.From, e.To)
	if e.Original != e.ID {
		s += fmt.Sprintf(" (copy of #%d)", e.Original)
	}
	if e.Kind == EventDropped {
		s += " (" + e.Reason.String() + ")"
	}
	return s
}

// Stats counts events since New.
type Stats struct {
	Sent, Duplicated, Delivered, Received, Dropped uint64
	DroppedBy                                      [numDropReasons]uint64
}

// Errors.
var (
	ErrClosed         = errors.New("netsim: network closed")
	ErrUnknownNode    = errors.New("netsim: unknown node")
	ErrDuplicateNode  = errors.New("netsim: node already added")
	ErrUnknownMessage = errors.New("netsim: no such message in flight")
	ErrWrongMode      = errors.New("netsim: not allowed in this mode")
	ErrInvalidConfig  = errors.New("netsim: invalid config")
)

type link struct{ from, to NodeID }

type envelope struct {
	msg     Message
	due     time.Time  // ModeFree: when the delivery goroutine handles it
	drop    DropReason // ModeFree: decided at Send; DropNone = deliver
	heapIdx int
}

// Network is the simulated network. All methods are safe for concurrent use.
type Network struct {
	mode  Mode
	clock Clock
	hook  func(Event)

	mu       sync.Mutex
	faults   FaultConfig // ModeFree: drawn against at each Send; see SetFaults
	rng      *rand.Rand
	nextID   MsgID
	nodes    map[NodeID]*Endpoint
	pending  map[MsgID]*envelope
	links    map[link][]*envelope // in flight per directed link, in send order
	lastDue  map[link]time.Time   // ModeFree: due time of the link's last FIFO message
	sched    schedule             // ModeFree: pending by (due, ID)
	cuts     map[link]bool
	isolated map[NodeID]bool
	events   []Event
	changed  chan struct{} // closed and replaced on every state change
	closed   bool
	stats    Stats

	hookMu sync.Mutex    // held while dispatching events to the hook
	kick   chan struct{} // wakes the delivery goroutine
	done   chan struct{} // closed by Close
	wg     sync.WaitGroup
}

// New returns a network without nodes. In ModeFree it starts the delivery
// goroutine; Close stops it.
func New(cfg Config) (*Network, error) {
	if cfg.Mode != ModeFree && cfg.Mode != ModeStepped {
		return nil, fmt.Errorf("%w: mode %v", ErrInvalidConfig, cfg.Mode)
	}
	f := cfg.Faults
	if err := validateFaults(cfg.Mode, f); err != nil {
		return nil, err
	}
	clock := cfg.Clock
	if clock == nil {
		clock = RealClock()
	}
	n := &Network{
		mode:   cfg.Mode,
		faults: f,
		clock:  clock,
		hook:   cfg.Hook,
		// PCG's second word is fixed so that Seed alone names the run.
		rng:      rand.New(rand.NewPCG(cfg.Seed, 0x9e3779b97f4a7c15)),
		nodes:    make(map[NodeID]*Endpoint),
		pending:  make(map[MsgID]*envelope),
		links:    make(map[link][]*envelope),
		lastDue:  make(map[link]time.Time),
		cuts:     make(map[link]bool),
		isolated: make(map[NodeID]bool),
		changed:  make(chan struct{}),
		kick:     make(chan struct{}, 1),
		done:     make(chan struct{}),
	}
	if n.mode == ModeFree {
		n.wg.Add(1)
		go n.run()
	}
	return n, nil
}

func validateFaults(mode Mode, f FaultConfig) error {
	for _, r := range []struct {
		name string
		v    float64
	}{{"DropRate", f.DropRate}, {"DelayRate", f.DelayRate}, {"ReorderRate", f.ReorderRate}, {"DuplicateRate", f.DuplicateRate}} {
		if !(r.v >= 0 && r.v <= 1) { // also rejects NaN
			return fmt.Errorf("%w: %s %v not in [0, 1]", ErrInvalidConfig, r.name, r.v)
		}
	}
	if f.MaxDelay < 0 {
		return fmt.Errorf("%w: MaxDelay %v is negative", ErrInvalidConfig, f.MaxDelay)
	}
	if (f.DelayRate > 0 || f.ReorderRate > 0) && f.MaxDelay == 0 {
		return fmt.Errorf("%w: DelayRate and ReorderRate need a positive MaxDelay", ErrInvalidConfig)
	}
	if mode == ModeStepped && f.any() {
		return fmt.Errorf("%w: faults in STEPPED mode are the driver's to inject", ErrInvalidConfig)
	}
	return nil
}

// Mode returns the network's mode.
func (n *Network) Mode() Mode { return n.mode }

// SetFaults replaces the fault probabilities for the messages sent from now
// on, e.g. to turn faults off for a campaign's heal phase. Messages already
// sent keep the fate drawn at their Send (a drop already decided still
// happens when due; a delay already drawn still runs). The config is checked
// as New checks it; in ModeStepped only the zero FaultConfig is accepted.
// A refused config changes nothing.
//
// The random source is not reseeded, so a run stays a function of the seed
// and of the order of the driver's calls, SetFaults included. Safe for
// concurrent use; relative to a concurrent Send it takes effect either
// before or after that Send's draws, never in the middle.
func (n *Network) SetFaults(f FaultConfig) error {
	if err := validateFaults(n.mode, f); err != nil {
		return err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return ErrClosed
	}
	n.faults = f
	return nil
}

// Faults returns the fault probabilities in force.
func (n *Network) Faults() FaultConfig {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.faults
}

// AddNode registers a node and returns its endpoint.
func (n *Network) AddNode(id NodeID) (*Endpoint, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return nil, ErrClosed
	}
	if _, ok := n.nodes[id]; ok {
		return nil, fmt.Errorf("%w: %d", ErrDuplicateNode, id)
	}
	e := &Endpoint{n: n, id: id, ready: make(chan struct{}, 1)}
	n.nodes[id] = e
	return e, nil
}

// Endpoint returns a node's endpoint.
func (n *Network) Endpoint(id NodeID) (*Endpoint, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	e, ok := n.nodes[id]
	return e, ok
}

// Nodes lists the registered nodes in ascending order.
func (n *Network) Nodes() []NodeID {
	n.mu.Lock()
	defer n.mu.Unlock()
	out := make([]NodeID, 0, len(n.nodes))
	for id := range n.nodes {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

func (n *Network) checkNodes(ids ...NodeID) error {
	for _, id := range ids {
		if _, ok := n.nodes[id]; !ok {
			return fmt.Errorf("%w: %d", ErrUnknownNode, id)
		}
	}
	return nil
}

// Send puts a message on the link from -> to and returns its ID. A message
// on a cut link, or from or to an isolated node, is dropped (and reported
// as such); that is not an error, as on a real network.
func (n *Network) Send(from, to NodeID, payload any) (MsgID, error) {
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		return 0, ErrClosed
	}
	if err := n.checkNodes(from, to); err != nil {
		n.mu.Unlock()
		return 0, err
	}
	n.nextID++
	msg := Message{ID: n.nextID, Original: n.nextID, From: from, To: to, Payload: payload}
	n.emit(EventSent, msg, DropNone)
	blocked := n.blocked(from, to)
	if n.mode == ModeStepped {
		if blocked != DropNone {
			n.emit(EventDropped, msg, blocked)
		} else {
			n.push(&envelope{msg: msg})
		}
	} else {
		n.scheduleFree(msg, blocked)
		select {
		case n.kick <- struct{}{}:
		default:
		}
	}
	n.signalChanged()
	n.mu.Unlock()
	n.flushEvents()
	return msg.ID, nil
}

func (n *Network) blocked(from, to NodeID) DropReason {
	switch {
	case n.isolated[from] || n.isolated[to]:
		return DropIsolated
	case n.cuts[link{from, to}]:
		return DropPartition
	}
	return DropNone
}

// scheduleFree draws the message's fate. It always makes the same draws,
// whatever they decide and whatever the link's state, so that one message's
// fate never shifts the random stream of the next.
func (n *Network) scheduleFree(msg Message, blocked DropReason) {
	f := n.faults
	dropU, delayU, reorderU, dupU := n.rng.Float64(), n.rng.Float64(), n.rng.Float64(), n.rng.Float64()
	var delay, hold, dupLag time.Duration
	if f.MaxDelay > 0 {
		delay = time.Duration(1 + n.rng.Int64N(int64(f.MaxDelay)))
		hold = time.Duration(1 + n.rng.Int64N(int64(f.MaxDelay)))
		dupLag = time.Duration(n.rng.Int64N(int64(f.MaxDelay)))
	}
	now := n.clock.Now()
	if blocked != DropNone {
		n.push(&envelope{msg: msg, due: now, drop: blocked})
		return
	}
	if dropU < f.DropRate {
		n.push(&envelope{msg: msg, due: now, drop: DropFault})
		return
	}
	l := link{msg.From, msg.To}
	due := now
	if delayU < f.DelayRate {
		due = due.Add(delay)
	}
	if reorderU < f.ReorderRate {
		// Held back outside the FIFO order, and not holding back the
		// messages behind it: they overtake it.
		due = due.Add(hold)
	} else {
		if last := n.lastDue[l]; due.Before(last) {
			due = last
		}
		n.lastDue[l] = due
	}
	n.push(&envelope{msg: msg, due: due})
	if dupU < f.DuplicateRate {
		n.nextID++
		dup := msg
		dup.ID = n.nextID
		n.stats.Duplicated++
		n.emit(EventSent, dup, DropNone)
		n.push(&envelope{msg: dup, due: due.Add(dupLag)})
	}
}

func (n *Network) push(env *envelope) {
	n.pending[env.msg.ID] = env
	l := link{env.msg.From, env.msg.To}
	n.links[l] = append(n.links[l], env)
	if n.mode == ModeFree {
		heap.Push(&n.sched, env)
	}
}

// remove takes an envelope out of every index.
func (n *Network) remove(env *envelope) {
	delete(n.pending, env.msg.ID)
	l := link{env.msg.From, env.msg.To}
	q := n.links[l]
	if i := slices.Index(q, env); i >= 0 {
		q = slices.Delete(q, i, i+1)
	}
	if len(q) == 0 {
		delete(n.links, l)
	} else {
		n.links[l] = q
	}
	if n.mode == ModeFree && env.heapIdx >= 0 {
		heap.Remove(&n.sched, env.heapIdx)
	}
}

// deliver moves a message into its receiver's mailbox.
func (n *Network) deliver(msg Message) {
	e := n.nodes[msg.To]
	e.mailbox = append(e.mailbox, msg)
	n.emit(EventDelivered, msg, DropNone)
	select {
	case e.ready <- struct{}{}:
	default:
	}
}

// processDue handles, in (due, ID) order, every ModeFree message due by
// now, and reports whether there was any.
func (n *Network) processDue(now time.Time) bool {
	handled := false
	for len(n.sched) > 0 && !n.sched[0].due.After(now) {
		handled = true
		env := n.sched[0]
		n.remove(env)
		if env.drop != DropNone {
			n.emit(EventDropped, env.msg, env.drop)
		} else {
			n.deliver(env.msg)
		}
	}
	return handled
}

// catchUp delivers what is due before a call that cuts links, so that
// whether a due message escaped the cut does not depend on how far the
// delivery goroutine has got.
func (n *Network) catchUp() {
	if n.mode == ModeFree {
		n.processDue(n.clock.Now())
	}
}

func (n *Network) run() {
	defer n.wg.Done()
	for {
		n.mu.Lock()
		if n.closed {
			n.mu.Unlock()
			return
		}
		if n.processDue(n.clock.Now()) {
			n.signalChanged()
		}
		var timer Timer
		var wake <-chan time.Time
		if len(n.sched) > 0 {
			timer = n.clock.NewTimer(n.sched[0].due.Sub(n.clock.Now()))
			wake = timer.C()
		}
		n.mu.Unlock()
		n.flushEvents()
		select {
		case <-n.kick:
		case <-wake:
		case <-n.done:
		}
		if timer != nil {
			timer.Stop()
		}
	}
}

// Settle delivers, now, every ModeFree message whose time has come
// (ModeStepped: nothing is ever due by itself), and waits until the hook
// has seen every event so far.
func (n *Network) Settle() error {
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		return ErrClosed
	}
	n.catchUp()
	n.signalChanged()
	n.mu.Unlock()
	n.syncEvents()
	return nil
}

// InFlight lists the messages in flight, in send order.
func (n *Network) InFlight() []Message {
	n.mu.Lock()
	defer n.mu.Unlock()
	out := make([]Message, 0, len(n.pending))
	for _, env := range n.pending {
		out = append(out, env.msg)
	}
	slices.SortFunc(out, func(a, b Message) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

// InFlightOn lists the messages in flight on one directed link, in send
// order.
func (n *Network) InFlightOn(from, to NodeID) []Message {
	n.mu.Lock()
	defer n.mu.Unlock()
	q := n.links[link{from, to}]
	out := make([]Message, len(q))
	for i, env := range q {
		out[i] = env.msg
	}
	return out
}

// Deliver moves one in-flight message to its receiver's mailbox
// (ModeStepped only). Messages may be delivered in any order.
func (n *Network) Deliver(id MsgID) error {
	if n.mode != ModeStepped {
		return fmt.Errorf("%w: Deliver in %v mode", ErrWrongMode, n.mode)
	}
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		return ErrClosed
	}
	env, ok := n.pending[id]
	if !ok {
		n.mu.Unlock()
		return fmt.Errorf("%w: %d", ErrUnknownMessage, id)
	}
	n.remove(env)
	n.deliver(env.msg)
	n.signalChanged()
	n.mu.Unlock()
	n.flushEvents()
	return nil
}

// Drop loses one in-flight message (both modes).
func (n *Network) Drop(id MsgID) error {
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		return ErrClosed
	}
	n.catchUp()
	env, ok := n.pending[id]
	if !ok {
		n.signalChanged()
		n.mu.Unlock()
		n.flushEvents()
		return fmt.Errorf("%w: %d", ErrUnknownMessage, id)
	}
	n.remove(env)
	n.emit(EventDropped, env.msg, DropDriver)
	n.signalChanged()
	n.mu.Unlock()
	n.flushEvents()
	return nil
}

// Partition cuts every link between the two node sets, both ways, and
// drops the messages in flight on them. Messages already delivered stay in
// the mailboxes. Cuts add up until Heal.
func (n *Network) Partition(a, b []NodeID) error {
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		return ErrClosed
	}
	if len(a) == 0 || len(b) == 0 {
		n.mu.Unlock()
		return fmt.Errorf("%w: partition needs two non-empty sides", ErrInvalidConfig)
	}
	if err := n.checkNodes(append(slices.Clone(a), b...)...); err != nil {
		n.mu.Unlock()
		return err
	}
	for _, x := range a {
		if slices.Contains(b, x) {
			n.mu.Unlock()
			return fmt.Errorf("%w: node %d on both sides of a partition", ErrInvalidConfig, x)
		}
	}
	n.catchUp()
	for _, x := range a {
		for _, y := range b {
			n.cuts[link{x, y}] = true
			n.cuts[link{y, x}] = true
		}
	}
	n.dropPendingWhere(func(m Message) bool { return n.cuts[link{m.From, m.To}] }, DropPartition)
	n.signalChanged()
	n.mu.Unlock()
	n.flushEvents()
	return nil
}

// Heal removes every cut made by Partition (not isolation: see Rejoin).
func (n *Network) Heal() {
	n.mu.Lock()
	n.cuts = make(map[link]bool)
	n.mu.Unlock()
}

// DropAllFor loses every message to or from a node that has not been
// received: what a crash loses (spec Crash). That is, in this order, what is
// in flight to and from it, its unread mailbox, and what it sent that waits
// unread in other nodes' mailboxes (its connections are gone). Messages a
// node has already taken stay received. The node is not cut off; see
// Isolate. Returns how many messages were lost.
func (n *Network) DropAllFor(node NodeID) (int, error) {
	return n.crash(node, DropCrash, false, nil)
}

// Isolate cuts a node off: like DropAllFor, and every later message to or
// from it is dropped until Rejoin. Use it for a crashed node.
func (n *Network) Isolate(node NodeID) (int, error) {
	return n.crash(node, DropIsolated, true, nil)
}

// DropAllForExcept is DropAllFor that spares the messages from node for
// which keep is true: requests already on their way that the receiver may
// still take (a server reads what reached its socket before the sender's
// connection closed).
func (n *Network) DropAllForExcept(node NodeID, keep func(Message) bool) (int, error) {
	return n.crash(node, DropCrash, false, keep)
}

// IsolateExcept is Isolate that spares the messages from node for which
// keep is true (see DropAllForExcept).
func (n *Network) IsolateExcept(node NodeID, keep func(Message) bool) (int, error) {
	return n.crash(node, DropIsolated, true, keep)
}

// Rejoin ends a node's isolation.
func (n *Network) Rejoin(node NodeID) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if err := n.checkNodes(node); err != nil {
		return err
	}
	delete(n.isolated, node)
	return nil
}

func (n *Network) crash(node NodeID, reason DropReason, isolate bool, keep func(Message) bool) (int, error) {
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		return 0, ErrClosed
	}
	if err := n.checkNodes(node); err != nil {
		n.mu.Unlock()
		return 0, err
	}
	n.catchUp()
	if isolate {
		n.isolated[node] = true
	}
	spared := func(m Message) bool { return keep != nil && m.From == node && keep(m) }
	lost := n.dropPendingWhere(func(m Message) bool { return (m.From == node || m.To == node) && !spared(m) }, reason)
	e := n.nodes[node]
	for _, m := range e.mailbox {
		n.emit(EventDropped, m, reason)
		lost++
	}
	e.mailbox = nil
	e.busy = false // whatever it was handling died with it
	lost += n.dropUnreadFrom(node, reason, spared)
	n.signalChanged()
	n.mu.Unlock()
	n.flushEvents()
	return lost, nil
}

// dropUnreadFrom drops, in send order, the messages from node that wait in
// other nodes' mailboxes: delivered, but gone with the crashed sender's
// connections before anyone took them. A message already taken was
// received; the crash does not undo that.
func (n *Network) dropUnreadFrom(node NodeID, reason DropReason, spared func(Message) bool) int {
	var victims []Message
	for id, e := range n.nodes {
		if id == node {
			continue
		}
		kept := e.mailbox[:0]
		for _, m := range e.mailbox {
			if m.From == node && !spared(m) {
				victims = append(victims, m)
			} else {
				kept = append(kept, m)
			}
		}
		clear(e.mailbox[len(kept):]) // let the payloads go
		e.mailbox = kept
	}
	slices.SortFunc(victims, func(a, b Message) int { return cmp.Compare(a.ID, b.ID) })
	for _, m := range victims {
		n.emit(EventDropped, m, reason)
	}
	return len(victims)
}

// dropPendingWhere drops, in send order, the in-flight messages matching f.
func (n *Network) dropPendingWhere(f func(Message) bool, reason DropReason) int {
	var victims []*envelope
	for _, env := range n.pending {
		if f(env.msg) {
			victims = append(victims, env)
		}
	}
	slices.SortFunc(victims, func(a, b *envelope) int { return cmp.Compare(a.msg.ID, b.msg.ID) })
	for _, env := range victims {
		n.remove(env)
		n.emit(EventDropped, env.msg, reason)
	}
	return len(victims)
}

// Idle reports that no mailbox holds a message and no node is busy.
func (n *Network) Idle() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.idle()
}

func (n *Network) idle() bool {
	for _, e := range n.nodes {
		if e.busy || len(e.mailbox) > 0 {
			return false
		}
	}
	return true
}

// Quiescent reports Idle and nothing in flight.
func (n *Network) Quiescent() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.idle() && len(n.pending) == 0
}

// WaitIdle blocks until Idle (then until the hook has seen every event so
// far), ctx is done, or the network is closed.
func (n *Network) WaitIdle(ctx context.Context) error {
	return n.waitFor(ctx, n.idle)
}

// WaitQuiescent blocks until Quiescent. In ModeStepped that needs the
// driver to deliver or drop everything; in ModeFree with a ManualClock,
// someone must advance the clock past the last delay.
func (n *Network) WaitQuiescent(ctx context.Context) error {
	return n.waitFor(ctx, func() bool { return n.idle() && len(n.pending) == 0 })
}

func (n *Network) waitFor(ctx context.Context, cond func() bool) error {
	for {
		n.mu.Lock()
		if n.closed {
			n.mu.Unlock()
			return ErrClosed
		}
		if cond() {
			n.mu.Unlock()
			n.syncEvents()
			return nil
		}
		ch := n.changed
		n.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		case <-n.done:
			return ErrClosed
		}
	}
}

// Stats returns the event counts so far.
func (n *Network) Stats() Stats {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.stats
}

// Close stops the delivery goroutine, discards everything in flight and in
// the mailboxes (without events), and makes blocked Recv and Wait calls
// return ErrClosed. Idempotent.
func (n *Network) Close() error {
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		return nil
	}
	n.closed = true
	close(n.done)
	n.pending = make(map[MsgID]*envelope)
	n.links = make(map[link][]*envelope)
	n.sched = nil
	for _, e := range n.nodes {
		e.mailbox = nil
		e.busy = false
	}
	n.signalChanged()
	n.mu.Unlock()
	n.wg.Wait()
	return nil
}

func (n *Network) signalChanged() {
	close(n.changed)
	n.changed = make(chan struct{})
}

// emit counts an event and queues it for the hook. Called with n.mu held,
// so queue order is the order things happened.
func (n *Network) emit(kind EventKind, msg Message, reason DropReason) {
	switch kind {
	case EventSent:
		n.stats.Sent++
	case EventDelivered:
		n.stats.Delivered++
	case EventReceived:
		n.stats.Received++
	case EventDropped:
		n.stats.Dropped++
		n.stats.DroppedBy[reason]++
	}
	if n.hook != nil {
		n.events = append(n.events, Event{Kind: kind, Message: msg, Reason: reason})
	}
}

// flushEvents dispatches queued events unless another goroutine already is
// (then that one will: the dispatcher re-checks the queue after letting go
// of hookMu). Not blocking on hookMu lets the hook call back into the
// network without deadlocking.
func (n *Network) flushEvents() {
	if n.hook == nil {
		return
	}
	for {
		if !n.hookMu.TryLock() {
			return
		}
		n.dispatch()
		n.hookMu.Unlock()
		n.mu.Lock()
		more := len(n.events) > 0
		n.mu.Unlock()
		if !more {
			return
		}
	}
}

// syncEvents waits until every event queued so far has been dispatched.
func (n *Network) syncEvents() {
	if n.hook == nil {
		return
	}
	n.hookMu.Lock()
	n.dispatch()
	n.hookMu.Unlock()
}

func (n *Network) dispatch() {
	for {
		n.mu.Lock()
		evs := n.events
		n.events = nil
		n.mu.Unlock()
		if len(evs) == 0 {
			return
		}
		for _, ev := range evs {
			n.hook(ev)
		}
	}
}

// schedule is a min-heap of envelopes by (due, ID).
type schedule []*envelope

func (s schedule) Len() int { return len(s) }
func (s schedule) Less(i, j int) bool {
	if c := s[i].due.Compare(s[j].due); c != 0 {
		return c < 0
	}
	return s[i].msg.ID < s[j].msg.ID
}
func (s schedule) Swap(i, j int) {
	s[i], s[j] = s[j], s[i]
	s[i].heapIdx = i
	s[j].heapIdx = j
}
func (s *schedule) Push(x any) {
	env := x.(*envelope)
	env.heapIdx = len(*s)
	*s = append(*s, env)
}
func (s *schedule) Pop() any {
	old := *s
	env := old[len(old)-1]
	old[len(old)-1] = nil
	env.heapIdx = -1
	*s = old[:len(old)-1]
	return env
}
