package cluster

import (
	"fmt"

	"github.com/hwepoch/hwepoch/impl/broker"
	"github.com/hwepoch/hwepoch/impl/netsim"
	"github.com/hwepoch/hwepoch/impl/protocol"
)

// The stepped API: one method per action of spec/Replication.tla, on the
// focus partition. Each returns once the cluster is quiescent, or returns
// an error — having changed nothing — when the action is not enabled.
// r, l and f are broker ids. They may also be called in free mode, where
// they do the same thing but do not wait for anything.

func (c *Cluster) step(f func() error) error {
	c.opMu.Lock()
	defer c.opMu.Unlock()
	if c.closed {
		return fmt.Errorf("cluster: closed")
	}
	if err := f(); err != nil {
		return err
	}
	if c.cfg.Mode == Stepped {
		return c.settle()
	}
	return nil
}

// Elect makes the controller elect broker r (Controller.ElectReplica):
// clean when r is live and in the ISR, unclean when no ISR member is live
// and unclean.leader.election.enable; LeaderAndIsr is queued to every live
// replica.
func (c *Cluster) Elect(r int32) error {
	return c.step(func() error { return c.ctrl.electReplica(c.focus, r) })
}

// HandleLeaderAndIsr delivers the next LeaderAndIsr queued for r and lets
// r apply it.
func (c *Cluster) HandleLeaderAndIsr(r int32) error {
	return c.step(func() error {
		if _, err := c.broker(r); err != nil {
			return err
		}
		return c.deliverFirst(ControllerNode, broker.Node(r), isMessage[protocol.LeaderAndIsrRequest],
			fmt.Sprintf("no LeaderAndIsr pending for broker %d", r))
	})
}

// deliverFirst delivers the first message in flight from -> to that is
// one of the wanted kind, or says none is (missing).
func (c *Cluster) deliverFirst(from, to netsim.NodeID, wanted func(any) bool, missing string) error {
	for _, m := range c.net.InFlightOn(from, to) {
		if wanted(m.Payload) {
			return c.net.Deliver(m.ID)
		}
	}
	return fmt.Errorf("cluster: %s", missing)
}

// isMessage reports whether a payload is a T.
func isMessage[T any](payload any) bool {
	_, ok := payload.(T)
	return ok
}

// Produce sends the next record to broker l with the configured acks. It
// fails when l refuses it before writing it (not leader;
// NOT_ENOUGH_REPLICAS with acks=all).
func (c *Cluster) Produce(l int32) error {
	var corr uint64
	err := c.step(func() error {
		if _, err := c.broker(l); err != nil {
			return err
		}
		var err error
		corr, _, err = c.producer.Send(l, c.focus)
		return err
	})
	if err != nil {
		return err
	}
	if r := c.producer.Result(corr); r.Done && r.Error != protocol.None && r.Offset < 0 && notWritten(r.Error) {
		return fmt.Errorf("cluster: broker %d refused the record: %s", l, r.Error)
	}
	return nil
}

func notWritten(e protocol.Error) bool {
	return e == protocol.NotLeaderOrFollower || e == protocol.NotEnoughReplicas ||
		e == protocol.UnknownTopicOrPartition || e == protocol.InvalidRequiredAcks
}

// SendOffsetsForLeaderEpoch makes f's fetcher send its OffsetsForLeaderEpoch.
func (c *Cluster) SendOffsetsForLeaderEpoch(f int32) error {
	return c.step(func() error {
		b, err := c.broker(f)
		if err != nil {
			return err
		}
		return b.SendOffsetsForLeaderEpoch(c.focus)
	})
}

// SendFetch makes f's fetcher send its Fetch.
func (c *Cluster) SendFetch(f int32) error {
	return c.step(func() error {
		b, err := c.broker(f)
		if err != nil {
			return err
		}
		return b.SendFetch(c.focus)
	})
}

// HandleOffsetsForLeaderEpoch delivers f's OffsetsForLeaderEpoch to l.
func (c *Cluster) HandleOffsetsForLeaderEpoch(l, f int32) error {
	return c.step(func() error { return c.deliverRequest(l, f, MsgOffsetsForLeaderEpoch) })
}

// HandleFetch delivers f's Fetch to l, which reads it: records and its HW
// before any update. When the read is to update l's view of f, the update
// and the response wait for UpdateFollowerFetchState(l, f); otherwise (an
// error, a divergence) l answers at once.
func (c *Cluster) HandleFetch(l, f int32) error {
	return c.step(func() error { return c.deliverRequest(l, f, MsgFetch) })
}

// UpdateFollowerFetchState makes leader l finish serving the fetch of f it
// has read: its view of f (and maybe its HW) is updated, unless it no
// longer leads, and the response is sent (to nobody, for an orphan).
func (c *Cluster) UpdateFollowerFetchState(l, f int32) error {
	return c.step(func() error {
		b, err := c.broker(l)
		if err != nil {
			return err
		}
		return b.UpdateFollowerFetchState(c.focus, f)
	})
}

func (c *Cluster) deliverRequest(l, f int32, kind string) error {
	if _, err := c.broker(l); err != nil {
		return err
	}
	m, wm, ok := c.fetcherMessage(f, kind)
	if !ok || wm.Dst != l {
		return fmt.Errorf("cluster: no %s from %d to %d in flight", kind, f, l)
	}
	return c.net.Deliver(m.ID)
}

// HandleOffsetsForLeaderEpochResponse delivers the response to f's fetcher.
func (c *Cluster) HandleOffsetsForLeaderEpochResponse(f int32) error {
	return c.step(func() error { return c.deliverResponse(f, MsgOffsetsForLeaderEpochResponse) })
}

// HandleFetchResponse delivers the response to f's fetcher.
func (c *Cluster) HandleFetchResponse(f int32) error {
	return c.step(func() error { return c.deliverResponse(f, MsgFetchResponse) })
}

func (c *Cluster) deliverResponse(f int32, kind string) error {
	if _, err := c.broker(f); err != nil {
		return err
	}
	m, _, ok := c.fetcherMessage(f, kind)
	if !ok {
		return fmt.Errorf("cluster: no %s to %d in flight", kind, f)
	}
	return c.net.Deliver(m.ID)
}

// ShrinkIsr makes leader l remove f from the ISR through AlterPartition.
// Under the ZooKeeper releases it is the leader's conditional write, all
// in this step (sent, applied by the controller, answered and applied by
// l); under asynchronous AlterPartition (3.9) it only proposes: the
// controller decides in HandleAlterPartition(l) and l applies the answer in
// HandleAlterPartitionResponse(l). It fails if l may not (not the current
// leader, f not in its ISR, a proposal pending).
func (c *Cluster) ShrinkIsr(l, f int32) error {
	return c.alterIsr(l, f, (*broker.Broker).ShrinkIsr)
}

// ExpandIsr makes leader l add f to the ISR through AlterPartition; f must
// be in sync (its LEO as l saw it at or past l's HW and its epoch start).
func (c *Cluster) ExpandIsr(l, f int32) error {
	return c.alterIsr(l, f, (*broker.Broker).ExpandIsr)
}

func (c *Cluster) alterIsr(l, f int32, op func(*broker.Broker, protocol.TopicPartition, int32) (uint64, error)) error {
	var b *broker.Broker
	var corr uint64
	err := c.step(func() error {
		var err error
		if b, err = c.broker(l); err != nil {
			return err
		}
		corr, err = op(b, c.focus, f)
		return err
	})
	if err != nil || c.cfg.Mode != Stepped || b.Release().AsyncIsr {
		return err
	}
	r, ok := b.AlterPartitionResult(corr)
	if !ok {
		return fmt.Errorf("cluster: AlterPartition of broker %d got no answer", l)
	}
	if r.Error != protocol.None {
		return fmt.Errorf("cluster: controller refused broker %d's AlterPartition: %s: %s", l, r.Error, r.ErrorMessage)
	}
	return nil
}

// HandleAlterPartition delivers leader l's AlterPartition to the controller,
// which decides it (asynchronous AlterPartition only).
func (c *Cluster) HandleAlterPartition(l int32) error {
	return c.step(func() error {
		return c.deliverFirst(broker.Node(l), ControllerNode, isMessage[protocol.AlterPartitionRequest],
			fmt.Sprintf("no AlterPartition from broker %d in flight", l))
	})
}

// HandleAlterPartitionResponse delivers the controller's answer to leader
// l's AlterPartition (asynchronous AlterPartition only).
func (c *Cluster) HandleAlterPartitionResponse(l int32) error {
	return c.step(func() error {
		if _, err := c.broker(l); err != nil {
			return err
		}
		return c.deliverFirst(ControllerNode, broker.Node(l), isMessage[protocol.AlterPartitionResponse],
			fmt.Sprintf("no AlterPartition response to broker %d in flight", l))
	})
}

// CheckpointHW makes r write its replication-offset-checkpoint. Enabled
// when r leads or follows the focus partition and its checkpoint differs
// from its HW.
func (c *Cluster) CheckpointHW(r int32) error {
	return c.step(func() error {
		b, err := c.broker(r)
		if err != nil {
			return err
		}
		p, ok := b.Partition(c.focus)
		if !ok {
			return fmt.Errorf("cluster: broker %d has no replica of %s", r, c.focus)
		}
		st := p.State()
		if st.Role != broker.Leader && st.Role != broker.Follower {
			return fmt.Errorf("cluster: broker %d is %s", r, st.Role)
		}
		if st.HWCheckpoint == st.HW {
			return fmt.Errorf("cluster: broker %d's checkpoint already holds its HW %d", r, st.HW)
		}
		_, err = b.CheckpointHighWatermarks()
		return err
	})
}

// Crash crashes r; the focus partition's log keeps exactly keep records
// (anything below its LEO needs UnflushedLoss). Other partitions lose
// their unflushed tail under UnflushedLoss, nothing otherwise. Use
// CrashLoseUnflushed for the free-mode variant.
func (c *Cluster) Crash(r int32, keep int64) error {
	return c.step(func() error {
		b, err := c.broker(r)
		if err != nil {
			return err
		}
		leo := int64(-1)
		if p, ok := b.Partition(c.focus); ok {
			leo = p.State().LEO
		}
		switch {
		case keep < 0 || keep > leo:
			return fmt.Errorf("cluster: broker %d cannot keep %d of %d records", r, keep, leo)
		case keep < leo && !c.cfg.UnflushedLoss:
			return fmt.Errorf("cluster: losing records in a crash needs UnflushedLoss")
		}
		return c.crash(r, broker.CrashSpec{Keep: map[protocol.TopicPartition]int64{c.focus: keep}, LoseUnflushed: c.cfg.UnflushedLoss})
	})
}

// CrashLoseUnflushed crashes r; with UnflushedLoss every log loses what was
// not flushed, otherwise nothing is lost.
func (c *Cluster) CrashLoseUnflushed(r int32) error {
	return c.step(func() error { return c.crash(r, broker.CrashSpec{LoseUnflushed: c.cfg.UnflushedLoss}) })
}

// Restart restarts r from its files.
func (c *Cluster) Restart(r int32) error {
	return c.step(func() error { return c.restart(r) })
}

// MissLeaderAndIsr makes broker r never see the head of its LeaderAndIsr
// queue, which a later request follows (spec MissLeaderAndIsr): the
// controller drops it, from the network too if it is in flight, and sends
// the next. Needs MissedLeaderAndIsr.
func (c *Cluster) MissLeaderAndIsr(r int32) error {
	return c.step(func() error {
		if !c.cfg.MissedLeaderAndIsr {
			return fmt.Errorf("cluster: MissLeaderAndIsr needs MissedLeaderAndIsr")
		}
		if _, err := c.broker(r); err != nil {
			return err
		}
		return c.ctrl.missHead(r)
	})
}

// LoseMessage drops f's in-flight fetcher request or response; f's fetcher
// then times out and may ask again. Needs LossyNetwork.
func (c *Cluster) LoseMessage(f int32) error {
	return c.step(func() error {
		if !c.cfg.LossyNetwork {
			return fmt.Errorf("cluster: LoseMessage needs LossyNetwork")
		}
		m, wm, ok := c.fetcherMessage(f, "")
		if !ok {
			return fmt.Errorf("cluster: nothing of broker %d's in flight", f)
		}
		if err := c.net.Drop(m.ID); err != nil {
			return err
		}
		if wm.Orphan {
			// An earlier incarnation's request: nobody waits for it, so no
			// fetcher records the loss. The cluster does, as the spec's
			// LoseMessage(f) that empties f's slot: a simulation's model
			// takes its steps from the events.
			ev := Event{Broker: f, Action: broker.ActLoseMessage, Params: map[string]int64{"f": int64(f)},
				Partition: c.focus, Lamport: c.slots[f].clock.Tick(), Seq: c.seq.Add(1)}
			if b, err := c.broker(f); err == nil {
				if p, ok := b.Partition(c.focus); ok {
					ev.Post = p.State()
				}
			} else if st, ok := c.slots[f].offline[c.focus]; ok {
				ev.Post = st
			}
			c.emit(ev)
			return nil
		}
		b, err := c.broker(f)
		if err != nil {
			return err
		}
		if !b.RequestTimedOut(wm.Corr) {
			return fmt.Errorf("cluster: broker %d was not waiting for request %d", f, wm.Corr)
		}
		return nil
	})
}

// InFlight is the network's pending messages (for drivers that want to
// look before they step).
func (c *Cluster) InFlight() []netsim.Message { return c.net.InFlight() }

// FireTimer runs one of broker b's timers now (broker.FireTimer): its ISR
// expiration, HW checkpoint, log flush, or a turn of its fetchers' loop.
// The simulation fires them on its clock; a test may too.
func (c *Cluster) FireTimer(b int32, t broker.Timer) error {
	return c.step(func() error {
		br, err := c.broker(b)
		if err != nil {
			return err
		}
		return br.FireTimer(t)
	})
}

// RebalanceLeaders runs the controller's auto leader rebalance check once
// (checkAndTriggerAutoLeaderRebalance: preferred elections where the
// imbalance exceeds leader.imbalance.per.broker.percentage).
func (c *Cluster) RebalanceLeaders() error {
	return c.step(func() error { return c.ctrl.rebalance() })
}
