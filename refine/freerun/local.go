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
// same abstraction as a snapshot's (cluster.PartitionSnapshotOf, then
// refine.AbstractReplica): every spec variable the broker holds, the
// leader's produceEpoch, partitionEpoch and pendingIsr included. A crashed
// broker's post-state lists no follower views; the spec's are all unknown.
func postLocal(cfg *model.Config, p broker.PartitionState) (refine.Local, error) {
	for r := range p.FollowerLEO {
		if r < 1 || r > int32(cfg.N()) {
			return refine.Local{}, fmt.Errorf("followerLeo names broker %d, not one of 1..%d", r, cfg.N())
		}
	}
	replicas := make([]int32, cfg.N())
	for i := range replicas {
		replicas[i] = int32(i + 1)
	}
	return refine.AbstractReplica(cfg, cluster.PartitionSnapshotOf(p, replicas))
}
