package refine

import (
	"fmt"

	"github.com/hwepoch/hwepoch/model"
)

// The replica <-> broker mapping is positional: the i-th replica of
// cfg.Replicas (which the model keeps sorted by name) is broker i+1, so with
// the spec's usual names r1 is broker 1, r2 broker 2, and so on. A cluster
// made by NewCluster has exactly brokers 1..N, and Abstract checks that the
// snapshot it is given does.

// BrokerID is the broker that plays replica r.
func BrokerID(cfg *model.Config, r model.Replica) (int32, error) {
	i := cfg.Index(r)
	if i < 0 {
		return 0, fmt.Errorf("replica %q is not in Replicas %v", r, cfg.Replicas)
	}
	return int32(i + 1), nil
}

// ReplicaOf is the replica broker id plays.
func ReplicaOf(cfg *model.Config, id int32) (model.Replica, error) {
	if id < 1 || int(id) > cfg.N() {
		return "", fmt.Errorf("broker %d plays no replica of %v (brokers are 1..%d)", id, cfg.Replicas, cfg.N())
	}
	return cfg.Replicas[id-1], nil
}
