package freerun

import (
	"fmt"

	"github.com/hwepoch/hwepoch/impl/cluster"
	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/refine"
)

// requests reads each fetcher request's content off the event that sent it:
// a follower's SendFetch asks from its LEO in its epoch, its
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
			out[e.Sent[0]] = model.FetchReq(f, l, int(p.LEO), -1, int(p.LeaderEpoch), false)
		case model.SendOffsetsForLeaderEpoch.String():
			latest := -1
			if n := len(p.EpochCache); n > 0 {
				latest = int(p.EpochCache[n-1].Epoch)
			}
			out[e.Sent[0]] = model.OffsetsReq(f, l, latest, int(p.LeaderEpoch))
		}
	}
	return out
}

// staleRequest reports whether event e (action a) handles a request the
// spec no longer has in flight: its content differs from what the model's
// inflight[f] holds (the spec compares messages by value). Such a handling
// takes no spec step; the caller then checks that it changed nothing.
//
// A timeout (LoseMessage) of a request the spec no longer has in flight is
// a stutter too: the spec's crash of the request's destination dropped it,
// while the implementation's follower held the slot until its timeout
// (its fetcher for a leader it no longer follows does not hear of the
// crash).
func (v *validator) staleRequest(n node, e cluster.Event, a model.Action) (bool, error) {
	if a.Kind == model.LoseMessage {
		return n.s.Inflight[v.cfg.Index(a.F)].Type == model.MsgNone, nil
	}
	if a.Kind != model.HandleFetch && a.Kind != model.HandleOffsetsForLeaderEpoch {
		return false, nil
	}
	req, ok := v.reqs[e.Received]
	if !ok {
		return false, fmt.Errorf("unmappable: it handles message %d, which no recorded event sent", e.Received)
	}
	f := v.cfg.Index(a.F)
	return !req.Equal(n.s.Inflight[f]), nil
}
