package netsim

import "context"

// Endpoint is one node's side of the network: its mailbox, and sending
// from it.
type Endpoint struct {
	n     *Network
	id    NodeID
	ready chan struct{} // signalled when a message lands in the mailbox
	// Guarded by n.mu.
	mailbox []Message
	busy    bool
}

// ID returns the node's id.
func (e *Endpoint) ID() NodeID { return e.id }

// Send sends from this node.
func (e *Endpoint) Send(to NodeID, payload any) (MsgID, error) { return e.n.Send(e.id, to, payload) }

// Recv returns the next message in the mailbox, waiting for one if needed.
// Calling it marks the node as done with the previous message.
func (e *Endpoint) Recv(ctx context.Context) (Message, error) {
	n := e.n
	n.mu.Lock()
	e.markDone()
	for {
		if n.closed {
			n.mu.Unlock()
			return Message{}, ErrClosed
		}
		if m, ok := e.take(); ok {
			n.mu.Unlock()
			n.flushEvents()
			return m, nil
		}
		n.mu.Unlock()
		select {
		case <-ctx.Done():
			return Message{}, ctx.Err()
		case <-e.ready:
		case <-n.done:
		}
		n.mu.Lock()
	}
}

// TryRecv returns the next message if there is one. Calling it marks the
// node as done with the previous message.
func (e *Endpoint) TryRecv() (Message, bool) {
	n := e.n
	n.mu.Lock()
	e.markDone()
	if n.closed {
		n.mu.Unlock()
		return Message{}, false
	}
	m, ok := e.take()
	n.mu.Unlock()
	if ok {
		n.flushEvents()
	}
	return m, ok
}

// Ready is signalled when a message arrives, for select loops: wait on
// Ready, then drain with TryRecv. A signal may be stale; TryRecv tells.
func (e *Endpoint) Ready() <-chan struct{} { return e.ready }

// Done marks the node as finished with the message it last received,
// without asking for another: for a node about to block on something else.
func (e *Endpoint) Done() {
	e.n.mu.Lock()
	e.markDone()
	e.n.mu.Unlock()
}

// Pending returns how many messages wait in the mailbox.
func (e *Endpoint) Pending() int {
	e.n.mu.Lock()
	defer e.n.mu.Unlock()
	return len(e.mailbox)
}

// markDone and take are called with n.mu held.
func (e *Endpoint) markDone() {
	if e.busy {
		e.busy = false
		e.n.signalChanged()
	}
}

func (e *Endpoint) take() (Message, bool) {
	if len(e.mailbox) == 0 {
		return Message{}, false
	}
	m := e.mailbox[0]
	e.mailbox[0] = Message{}
	e.mailbox = e.mailbox[1:]
	e.busy = true
	e.n.emit(EventReceived, m, DropNone)
	e.n.signalChanged()
	return m, true
}
