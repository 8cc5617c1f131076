package freerun

import (
	"fmt"
	"slices"

	"github.com/hwepoch/hwepoch/impl/cluster"
	"github.com/hwepoch/hwepoch/model"
)

// Linearize orders the recording's events of the focus partition into one
// sequence consistent with causality, the order the validator replays them
// in:
//
//   - by Seq, the run-wide sequence every node draws from when its state
//     changes (a total order consistent with real time, hence with
//     causality);
//   - except, under the synchronous releases (all but DivergingEpoch), an
//     ISR change (ShrinkIsr / ExpandIsr), which the leader reports when it
//     applies the controller's AlterPartition answer but stamps with the
//     Seq the controller drew when it committed the change (so replays see
//     the controller's order). Its post-state is the leader's at the apply,
//     so it moves to its place among the leader's own events, by the
//     leader's Lamport clock. Where the commit itself belongs in the spec's
//     order is the validator's business (see Validate). Under
//     DivergingEpoch the proposal, the controller's decision and the
//     leader's apply are each a spec step and an event of its own, in
//     Seq order.
//
// It then checks the order: each broker's events keep increasing Lamport
// stamps, and every event that handled a message comes after the event that
// sent it. A violation is an error: the events cannot be a behaviour.
//
// Some events of one broker and another's are concurrent, and the order
// the Seq gives them is not the only one consistent with causality; where
// the spec needs another, the validator searches for it (see Validate).
func Linearize(rec Recording) ([]cluster.Event, error) {
	var evs []cluster.Event
	for _, e := range rec.Events {
		if e.Partition.String() != rec.Focus {
			continue
		}
		ctrl := e.Broker == int32(cluster.ControllerNode) && (e.Action == cluster.ActElect || e.Action == cluster.ActHandleAlterPartition)
		if !ctrl && (e.Broker < 1 || int(e.Broker) > rec.Config.N()) {
			return nil, fmt.Errorf("event %s: unmappable: broker %d plays no replica of %v", describe(e), e.Broker, rec.Config.Replicas)
		}
		evs = append(evs, e)
	}
	slices.SortStableFunc(evs, func(a, b cluster.Event) int {
		switch {
		case a.Seq < b.Seq:
			return -1
		case a.Seq > b.Seq:
			return 1
		}
		return 0
	})
	for i := 1; i < len(evs); i++ {
		if evs[i].Seq == evs[i-1].Seq {
			return nil, fmt.Errorf("events %s and %s share seq %d", describe(evs[i-1]), describe(evs[i]), evs[i].Seq)
		}
	}
	var isr []cluster.Event
	rest := evs[:0:0]
	for _, e := range evs {
		if isISR(e.Action) && !rec.Config.Rel().AsyncIsr {
			isr = append(isr, e)
		} else {
			rest = append(rest, e)
		}
	}
	for _, e := range isr {
		rest = insertByLamport(rest, e)
	}
	return rest, check(rest)
}

func isISR(action string) bool {
	return action == model.ShrinkIsr.String() || action == model.ExpandIsr.String()
}

// insertByLamport puts e right after the last event of its broker with a
// smaller Lamport stamp (at the front when there is none).
func insertByLamport(evs []cluster.Event, e cluster.Event) []cluster.Event {
	at := 0
	for i, x := range evs {
		if x.Broker == e.Broker && x.Lamport < e.Lamport {
			at = i + 1
		}
	}
	return slices.Insert(evs, at, e)
}

// check verifies per-broker Lamport order and send-before-receive.
func check(evs []cluster.Event) error {
	last := map[int32]uint64{}
	sentAt := map[uint64]int{}
	for i, e := range evs {
		if l, ok := last[e.Broker]; ok && e.Lamport <= l && e.Broker != int32(cluster.ControllerNode) {
			return fmt.Errorf("event %d %s: Lamport stamp %d does not exceed its broker's previous %d", i, describe(e), e.Lamport, l)
		}
		last[e.Broker] = e.Lamport
		for _, id := range e.Sent {
			sentAt[id] = i
		}
	}
	for i, e := range evs {
		if e.Received == 0 {
			continue
		}
		if j, ok := sentAt[e.Received]; ok && j >= i {
			return fmt.Errorf("event %d %s handles message %d, which event %d %s sends later", i, describe(e), e.Received, j, describe(evs[j]))
		}
	}
	return nil
}

// describe names an event in reports.
func describe(e cluster.Event) string {
	return fmt.Sprintf("%s%v (broker %d, seq %d, lamport %d)", e.Action, e.Params, e.Broker, e.Seq, e.Lamport)
}
