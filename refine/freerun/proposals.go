package freerun

import (
	"slices"

	"github.com/hwepoch/hwepoch/impl/cluster"
	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/refine"
)

// proposal is one AlterPartition a leader sent: the spec's ShrinkIsr or
// ExpandIsr, split by the implementation into a request (the leader records
// the proposal as pending), the controller's commit, and the answer the
// leader applies (its ISR event). The spec's step is atomic. The validator
// lets the commit take its spec step anywhere in the proposal's window:
// from just after the leader's last event before it was seen pending, until
// the leader applies the answer or, if it never does, until the next
// election (which fences any later commit by bumping the leader epoch).
type proposal struct {
	leader int32
	epoch  int32
	isr    []int32 // the proposed ISR
	action model.Action
	from   int // first index of the linearized events where the commit may go
	apply  int // index of the leader's ISR event, -1 if it never applied one
	until  int // last index before which the commit may go
}

// proposals finds every AlterPartition of the linearized events: from the
// leaders' pending ISRs (PendingIsr in their post-states) and from their
// ISR events (a proposal answered before the leader's next event shows it
// only there).
func proposals(cfg *model.Config, evs []cluster.Event) []*proposal {
	var out []*proposal
	find := func(l int32, epoch int32, isr []int32) *proposal {
		for _, p := range out {
			if p.leader == l && p.epoch == epoch && slices.Equal(p.isr, isr) && p.apply < 0 {
				return p
			}
		}
		return nil
	}
	prevOf := func(i int, b int32) int {
		for j := i - 1; j >= 0; j-- {
			if evs[j].Broker == b {
				return j
			}
		}
		return -1
	}
	for i, e := range evs {
		post := e.Post
		var isr []int32
		switch {
		case isISR(e.Action):
			isr = sorted(post.Isr)
		case post.Role == "Leader" && post.PendingIsr != nil:
			isr = sorted(post.PendingIsr)
		default:
			continue
		}
		p := find(e.Broker, post.LeaderEpoch, isr)
		if p == nil {
			a, ok := isrAction(cfg, e, isr)
			if !ok {
				continue
			}
			p = &proposal{leader: e.Broker, epoch: post.LeaderEpoch, isr: isr, action: a, from: prevOf(i, e.Broker) + 1, apply: -1}
			out = append(out, p)
		}
		if isISR(e.Action) {
			p.apply = i
		}
	}
	for _, p := range out {
		p.until = len(evs) - 1
		if p.apply >= 0 {
			p.until = p.apply
			continue
		}
		for j := p.from; j < len(evs); j++ {
			if evs[j].Action == cluster.ActElect {
				p.until = j
				break
			}
		}
	}
	return out
}

// isrAction is the spec action that turns the leader's ISR into isr: an
// ISR event names it; a pending ISR differs from the leader's by one
// replica.
func isrAction(cfg *model.Config, e cluster.Event, isr []int32) (model.Action, bool) {
	if isISR(e.Action) {
		a, err := actionOf(cfg, e)
		return a, err == nil
	}
	cur := sorted(e.Post.Isr)
	var added, removed []int32
	for _, r := range isr {
		if !slices.Contains(cur, r) {
			added = append(added, r)
		}
	}
	for _, r := range cur {
		if !slices.Contains(isr, r) {
			removed = append(removed, r)
		}
	}
	l, err1 := refine.ReplicaOf(cfg, e.Broker)
	switch {
	case err1 != nil:
		return model.Action{}, false
	case len(added) == 1 && len(removed) == 0:
		f, err := refine.ReplicaOf(cfg, added[0])
		return model.Action{Kind: model.ExpandIsr, L: l, F: f}, err == nil
	case len(removed) == 1 && len(added) == 0:
		f, err := refine.ReplicaOf(cfg, removed[0])
		return model.Action{Kind: model.ShrinkIsr, L: l, F: f}, err == nil
	}
	return model.Action{}, false
}

func sorted(xs []int32) []int32 {
	c := slices.Clone(xs)
	slices.Sort(c)
	return c
}
