package freerun

import (
	"slices"

	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/refine"
)

// loseUnobserved tries, when event n.i is a new request of a follower
// whose slot the model still fills (GapLostUnobserved), the spec's
// LoseMessage(f) first: the implementation's fetcher sends only when it
// waits for nothing, so the old message was dropped by the network while
// nobody waited for it (the follower had become leader, or crashed: the
// spec's orphan), or it is still in the network, and its handling, later,
// is stale (see staleRequest). Either way no event reported the loss.
//
// Likewise (GapAlterPartitionLost), under DivergingEpoch, a leader's new
// AlterPartition proposal while the model's alterPartition[l] still holds
// an earlier one (or its answer): the earlier request or answer was lost
// after a LeaderAndIsr had dropped the proposal, so that nobody resent it
// (AlterPartitionManager resends only what is pending). The spec's channel loses nothing; the
// validator takes the controller's decision and the leader's handling of it
// in its place, only where both change nothing but the message itself: a
// refused proposal, an answer the leader ignores.
func (v *validator) loseUnobserved(n node) (node, bool) {
	e := v.evs[n.i]
	r, err := refine.ReplicaOf(v.cfg, e.Broker)
	if err != nil {
		return n, false
	}
	i := v.cfg.Index(r)
	t := n.s
	m := n
	switch e.Action {
	case model.SendFetch.String(), model.SendOffsetsForLeaderEpoch.String():
		if n.s.Inflight[i].Type == model.MsgNone {
			return n, false
		}
		if t, err = model.Apply(v.cfg, n.s, model.Action{Kind: model.LoseMessage, F: r}); err != nil {
			return n, false
		}
		m.lost++
	case model.ShrinkIsr.String(), model.ExpandIsr.String():
		if !v.cfg.Rel().AsyncIsr || n.s.AlterPartition[i].Type == model.MsgNone {
			return n, false
		}
		if t.AlterPartition[i].Type == model.MsgAlterPartition {
			d, err := model.Apply(v.cfg, t, model.Action{Kind: model.HandleAlterPartition, L: r})
			if err != nil || d.AlterPartition[i].Error == model.ErrNone {
				return n, false // a commit: the controller's state would change
			}
			t = d
			m.steps++
		}
		a, err := model.Apply(v.cfg, t, model.Action{Kind: model.HandleAlterPartitionResponse, L: r})
		if err != nil || diffLocal(refine.LocalOf(&t, i), refine.LocalOf(&a, i)) != "" {
			return n, false
		}
		t = a
		m.apLost++
	default:
		return n, false
	}
	m.s = t
	m.steps++
	m.gapsLost = append(slices.Clone(n.gapsLost), n.i)
	m = m.note("event %d: %s's earlier message lost unobserved", n.i, r)
	return v.search(m)
}

// duplicateAnswer tries event n.i, a leader's handling of an AlterPartition
// answer under DivergingEpoch, as a stutter (GapAlterPartitionRetry): the
// leader resent a proposal whose answer was late, and the late answer to
// the first request, arriving after the resend, is ignored (its
// correlation id is not the one in flight); the answer to the resend,
// which the controller gives from its first decision, is the spec's one
// answer. The leader's post-state must be the model's, unchanged.
func (v *validator) duplicateAnswer(n node) (node, bool) {
	if !v.cfg.Rel().AsyncIsr || v.evs[n.i].Action != model.HandleAlterPartitionResponse.String() {
		return n, false
	}
	next, f := v.stepAs(n, true)
	if f != nil {
		v.record(f)
		return n, false
	}
	if next, f = v.takeDeferred(next, n.i); f != nil {
		return n, false
	}
	return v.search(next)
}
