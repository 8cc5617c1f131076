// Package netsim is the simulated network between the brokers and the
// controller of the concurrent implementation.
//
// Nodes are addressed by an int32 NodeID. Every directed link (from, to)
// is a queue; Send puts a message on it and gives it a stable MsgID
// (increasing in send order); each node has a mailbox, read through its
// Endpoint (Recv, TryRecv, or Ready + TryRecv in a select loop).
//
// Two modes:
//
//   - ModeFree: a delivery goroutine moves each message to its receiver's
//     mailbox when it is due. Faults are drawn per message at Send from
//     one seeded math/rand/v2 source: drop, delay (latency that keeps the
//     link's FIFO order, like TCP), reorder (the message is held back and
//     later messages on the link overtake it) and duplicate (a copy with a
//     new ID and the same Original). SetFaults changes the rates for the
//     messages sent after it (say, off for a heal phase); the source is not
//     reseeded, so runs stay reproducible. Delays run on a Clock: the real
//     one by default, or a ManualClock, with which the order of Delivered and
//     Dropped events is a function of the seed and of the driver's calls
//     alone (messages are processed in (due time, MsgID) order, and every
//     call that cuts links first delivers what is already due). With the
//     real clock the draws are still reproducible; the interleaving with
//     the nodes' goroutines is not.
//   - ModeStepped: nothing moves until the driver calls Deliver(id) or
//     Drop(id); InFlight lists the pending messages in send order. This is
//     the mode the refinement checker uses to pick the next event.
//
// Both modes support partitions between node sets (Partition / Heal) and
// crashes: DropAllFor(node) loses every message to or from a node that no
// node has taken yet (in flight, in its mailbox, and in other nodes'
// mailboxes); Isolate(node) does the same and keeps the node cut off until
// Rejoin.
//
// Every message ends in exactly one of Received (a node took it from its
// mailbox) or Dropped, after Sent and, unless dropped in flight, Delivered
// (it reached the mailbox). Config.Hook observes each of these events with
// the message's ID, From and To, in the order they happened.
//
// Quiescence: a node is busy from the moment Recv or TryRecv hands it a
// message until it calls Recv, TryRecv or Done again. Idle means no mailbox
// holds a message and no node is busy; Quiescent means Idle and nothing in
// flight. WaitIdle is what a stepped driver calls after Deliver to wait for
// the receiver to finish (and for the messages it sent to show in InFlight).
package netsim
