package freerun

import (
	"fmt"

	"github.com/hwepoch/hwepoch/impl/broker"
	"github.com/hwepoch/hwepoch/impl/cluster"
	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/refine"
)

// postLocal maps an event's post-state (the broker's own partition state
// after the event) onto the model's per-replica variables, through the
// same abstraction as a snapshot's (refine.AbstractReplica). A crashed
// broker's post-state lists no follower views; the spec's are all unknown.
func postLocal(cfg *model.Config, p broker.PartitionState) (refine.Local, error) {
	ps := cluster.PartitionSnapshot{
		Topic: p.Topic, Partition: p.Partition, Role: string(p.Role), HW: p.HW, HWCheckpoint: p.HWCheckpoint,
		LEO: p.LEO, LeaderEpoch: p.LeaderEpoch, Leader: p.Leader, Isr: p.Isr,
		FollowerLEO: map[int32]int64{}, FetchState: string(p.FetchState),
	}
	if ps.Role == "" {
		ps.Role = string(broker.Offline)
	}
	if ps.FetchState == "" {
		ps.FetchState = string(broker.FetchNone)
	}
	for r := int32(1); r <= int32(cfg.N()); r++ {
		ps.FollowerLEO[r] = -1
	}
	for r, v := range p.FollowerLEO {
		if r < 1 || r > int32(cfg.N()) {
			return refine.Local{}, fmt.Errorf("followerLeo names broker %d, not one of 1..%d", r, cfg.N())
		}
		ps.FollowerLEO[r] = v
	}
	for _, r := range p.Log {
		ps.Log = append(ps.Log, cluster.Record{Offset: r.Offset, Epoch: r.LeaderEpoch, ID: r.ID})
	}
	for _, e := range p.EpochCache {
		ps.EpochCache = append(ps.EpochCache, cluster.EpochEntry{Epoch: e.Epoch, Start: e.Start})
	}
	return refine.AbstractReplica(cfg, ps)
}
