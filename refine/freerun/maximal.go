package freerun

import (
	"slices"

	"github.com/hwepoch/hwepoch/impl/cluster"
	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/refine"
)

// maximalISR redoes the leader's HW of a HandleFetch or Produce step the
// way Kafka computes it while an ISR expansion is pending: over the
// "maximal ISR", the ISR plus the replica being added
// (Partition.maximalIsr; the implementation's hwIsr). The spec's atomic
// ExpandIsr has no pending state, so when the expansion has not taken its
// spec step (it may never: the controller refuses it once an election has
// fenced the leader's epoch), the spec's HW can run ahead of the leader's:
// the implementation is the more careful of the two. The validator then
// takes the spec step with the maximal ISR in the HW's place, and counts it
// (GapMaximalIsr) when that changed the HW.
//
// pre and post are the model's states before and after the step, e the
// event; it returns post with the HW (and what depends on it: the fetch
// response's HW, the ghost sets) recomputed, and whether it changed.
func (v *validator) maximalISR(n node, e cluster.Event, a model.Action, pre, post model.State) (model.State, bool) {
	if (a.Kind != model.HandleFetch && a.Kind != model.Produce) || e.Post.PendingIsr == nil {
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
	if a.Kind == model.HandleFetch {
		f := v.cfg.Index(a.F)
		if m := post.Inflight[f]; m.Type == model.MsgFetchResponse && m.Error == model.ErrNone {
			m.Hw = nw
			t.Inflight = slices.Clone(post.Inflight)
			t.Inflight[f] = m
		}
	}
	return t, true
}
