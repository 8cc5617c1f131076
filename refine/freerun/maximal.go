package freerun

import (
	"slices"

	"github.com/hwepoch/hwepoch/impl/cluster"
	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/refine"
)

// maximalISR redoes the leader's HW of an UpdateFollowerFetchState or
// Produce step the way Kafka computes it while an ISR expansion is
// pending: over the "maximal ISR", the ISR plus the replica being added
// (Partition.maximalIsr; the implementation's hwIsr). Under the
// synchronous releases the spec's ExpandIsr is atomic and has no pending
// state, while the implementation's free mode proposes the change and
// waits for the controller's answer as 3.9 does; so when the expansion has
// not taken its spec step (it may never: the controller refuses it once an
// election has fenced the leader's epoch), the spec's HW can run ahead of
// the leader's: the implementation is the more careful of the two. The
// validator then takes the spec step with the maximal ISR in the HW's
// place, and counts it (GapMaximalIsr) when that changed the HW. Under
// DivergingEpoch the spec has the pending ISR and the maximal ISR itself:
// no bridge.
//
// pre and post are the model's states before and after the step, e the
// event; it returns post with the HW (and what depends on it: the ghost
// sets) recomputed, and whether it changed. The fetch response keeps the
// HW read before the update (HandleFetch's), as in the spec.
func (v *validator) maximalISR(n node, e cluster.Event, a model.Action, pre, post model.State) (model.State, bool) {
	if v.cfg.Rel().AsyncIsr || (a.Kind != model.UpdateFollowerFetchState && a.Kind != model.Produce) || e.Post.PendingIsr == nil {
		return post, false
	}
	// The implementation's HW ISR is its ISR plus the replicas its pending
	// proposal adds (hwIsr), as its post-state shows them.
	l := int(e.Broker) - 1
	var ids []int32
	ids = append(ids, e.Post.Isr...)
	ids = append(ids, e.Post.PendingIsr...)
	var maximal []model.Replica
	for _, id := range ids {
		r, err := refine.ReplicaOf(v.cfg, id)
		if err != nil {
			return post, false
		}
		maximal = append(maximal, r)
	}
	maximal = model.SetOf(maximal...)
	if slices.Equal(maximal, post.Isr[l]) {
		return post, false
	}
	lg := post.Log[l]
	nw := model.NewHW(v.cfg, l, lg, maximal, post.Isr[l], post.FollowerLeo[l], pre.Hw[l])
	if nw == post.Hw[l] {
		return post, false
	}
	t := post
	t.Hw = slices.Clone(post.Hw)
	t.Hw[l] = nw
	t.Committed = model.Union(pre.Committed, model.NewlyCommitted(lg, pre.Hw[l], nw))
	acked := model.NewlyAcked(v.cfg, lg, pre.Hw[l], nw, pre.ProduceEpoch[l], pre.LeaderEpoch[l], post.Isr[l])
	if a.Kind == model.Produce && v.cfg.Acks == "1" {
		acked = append(acked, model.OffsetID{Offset: len(lg) - 1, ID: pre.NextId})
	}
	t.Acked = model.Union(pre.Acked, acked)
	return t, true
}
