package freerun

import (
	"fmt"
	"slices"

	"github.com/hwepoch/hwepoch/impl/broker"
	"github.com/hwepoch/hwepoch/impl/cluster"
	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/refine"
)

// requests reads each fetcher request's content off the event that sent it:
// a follower's SendFetch asks from its LEO in its epoch (with its latest
// epoch as lastFetchedEpoch under DivergingEpoch), its
// SendOffsetsForLeaderEpoch about its latest epoch in its epoch (the spec's
// FetchReq and OffsetsReq), all in the post-state the event carries.
func requests(cfg *model.Config, evs []cluster.Event) map[uint64]model.Msg {
	out := map[uint64]model.Msg{}
	for _, e := range evs {
		if len(e.Sent) != 1 {
			continue
		}
		f, err1 := refine.ReplicaOf(cfg, e.Broker)
		l, err2 := refine.ReplicaOf(cfg, e.Post.Leader)
		if err1 != nil || err2 != nil {
			continue
		}
		p := e.Post
		switch e.Action {
		case model.SendFetch.String():
			lfe := -1
			if cfg.Rel().Reconcile == "DivergingEpoch" {
				lfe = latestEpoch(p)
			}
			out[e.Sent[0]] = model.FetchReq(f, l, int(p.LEO), lfe, int(p.LeaderEpoch), false)
		case model.SendOffsetsForLeaderEpoch.String():
			out[e.Sent[0]] = model.OffsetsReq(f, l, latestEpoch(p), int(p.LeaderEpoch))
		}
	}
	return out
}

// latestEpoch is the latest epoch of a post-state's cache, -1 if empty.
func latestEpoch(p broker.PartitionState) int {
	if n := len(p.EpochCache); n > 0 {
		return int(p.EpochCache[n-1].Epoch)
	}
	return -1
}

// staleRequest reports whether event e (action a) handles a request the
// spec no longer has in flight: its content differs from what the model's
// inflight[f] holds (the spec compares messages by value; whether the spec
// marks it an orphan does not matter). Such a handling takes no spec step;
// the caller then checks that it changed nothing (or, for the leader's
// update, takes its effect on the leader: see staleEffect).
//
// An UpdateFollowerFetchState completes the request its HandleFetch read
// (it names it as the message handled): stale when that read was, or when
// the model's inflight[f] no longer holds l's read of that request (the
// spec's crash of the follower dropped it, under 3.9).
//
// Under DivergingEpoch, a controller's decision or a leader's handling of
// an answer when the model's alterPartition[l] holds no request, or no
// answer, handles a retried AlterPartition's duplicate
// (GapAlterPartitionRetry).
//
// A timeout (LoseMessage) of a request the spec no longer has in flight is
// a stutter too: the spec's crash of the request's destination dropped it,
// while the implementation's follower held the slot until its timeout
// (its fetcher for a leader it no longer follows does not hear of the
// crash).
func (v *validator) staleRequest(n node, e cluster.Event, a model.Action) (bool, error) {
	switch a.Kind {
	case model.LoseMessage:
		return n.s.Inflight[v.cfg.Index(a.F)].Type == model.MsgNone, nil
	case model.HandleAlterPartition:
		return n.s.AlterPartition[v.cfg.Index(a.L)].Type != model.MsgAlterPartition, nil
	case model.HandleAlterPartitionResponse:
		return n.s.AlterPartition[v.cfg.Index(a.L)].Type != model.MsgAlterPartitionResponse, nil
	}
	if a.Kind != model.HandleFetch && a.Kind != model.HandleOffsetsForLeaderEpoch && a.Kind != model.UpdateFollowerFetchState {
		return false, nil
	}
	req, ok := v.reqs[e.Received]
	if !ok {
		return false, fmt.Errorf("unmappable: it handles message %d, which no recorded event sent", e.Received)
	}
	m := n.s.Inflight[v.cfg.Index(a.F)]
	if a.Kind == model.UpdateFollowerFetchState {
		return slices.Contains(n.staleReads, e.Received) || m.Type != model.MsgFetchRead || m.Src != a.L ||
			m.Offset != req.Offset || m.CurrentEpoch != req.CurrentEpoch, nil
	}
	m.Orphan = false
	return !req.Equal(m), nil
}

// staleEffect is the leader's half of the spec's UpdateFollowerFetchState
// for a stale request (GapStaleEffect): the step applied to l's read of the
// request as the follower sent it, then the follower's inflight put back.
// It reports whether the leader's variables changed (if not, the handling
// is a plain stutter). A stale HandleFetch only reads: a stutter. Under 3.9
// a request whose sender has crashed since is refused the update (KIP-903's
// broker epoch): a stutter too.
func (v *validator) staleEffect(s model.State, i int, e cluster.Event, a model.Action) (model.State, bool) {
	if a.Kind != model.UpdateFollowerFetchState {
		return s, false
	}
	req, ok := v.reqs[e.Received]
	if !ok {
		return s, false
	}
	if !v.cfg.Rel().StaleFetchServed && v.crashedSince(e.Received, i) {
		return s, false
	}
	f, l := v.cfg.Index(a.F), v.cfg.Index(a.L)
	tmp := s
	tmp.Inflight = slices.Clone(s.Inflight)
	tmp.Inflight[f] = model.FetchRead(a.L, a.F, req.Offset, nil, 0, 0, req.CurrentEpoch, false)
	t, err := model.Apply(v.cfg, tmp, a)
	if err != nil {
		return s, false
	}
	t.Inflight = s.Inflight
	if diffLocal(refine.LocalOf(&s, l), refine.LocalOf(&t, l)) == "" {
		return s, false
	}
	return t, true
}

// crashedSince reports whether the broker that sent message id crashed
// between sending it and event i.
func (v *validator) crashedSince(id uint64, i int) bool {
	from, ok := v.sentAt[id]
	if !ok {
		return false
	}
	for j := from + 1; j < i; j++ {
		if x := v.evs[j]; x.Action == cluster.ActCrash && x.Broker == v.sender[id] {
			return true
		}
	}
	return false
}
