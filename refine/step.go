package refine

import (
	"fmt"

	"github.com/hwepoch/hwepoch/impl/cluster"
	"github.com/hwepoch/hwepoch/model"
)

// Step performs action a on the stepped cluster c through the stepped
// method of the same name (docs/mapping.md, table b), with replicas
// mapped to broker ids. It returns the cluster's refusal, if any: the
// cluster changes nothing when it refuses.
func Step(c *cluster.Cluster, cfg *model.Config, a model.Action) error {
	id := func(name string, r model.Replica) (int32, error) {
		b, err := BrokerID(cfg, r)
		if err != nil {
			return 0, fmt.Errorf("%s: parameter %s: %w", a, name, err)
		}
		return b, nil
	}
	one := func(name string, r model.Replica, f func(int32) error) error {
		b, err := id(name, r)
		if err != nil {
			return err
		}
		return f(b)
	}
	two := func(f func(l, f int32) error) error {
		l, err := id("l", a.L)
		if err != nil {
			return err
		}
		fo, err := id("f", a.F)
		if err != nil {
			return err
		}
		return f(l, fo)
	}
	switch a.Kind {
	case model.Elect:
		return one("r", a.R, c.Elect)
	case model.HandleLeaderAndIsr:
		return one("r", a.R, c.HandleLeaderAndIsr)
	case model.Produce:
		return one("l", a.L, c.Produce)
	case model.SendOffsetsForLeaderEpoch:
		return one("f", a.F, c.SendOffsetsForLeaderEpoch)
	case model.HandleOffsetsForLeaderEpoch:
		return two(c.HandleOffsetsForLeaderEpoch)
	case model.HandleOffsetsForLeaderEpochResponse:
		return one("f", a.F, c.HandleOffsetsForLeaderEpochResponse)
	case model.SendFetch:
		return one("f", a.F, c.SendFetch)
	case model.HandleFetch:
		return two(c.HandleFetch)
	case model.UpdateFollowerFetchState:
		return two(c.UpdateFollowerFetchState)
	case model.HandleFetchResponse:
		return one("f", a.F, c.HandleFetchResponse)
	case model.ShrinkIsr:
		return two(c.ShrinkIsr)
	case model.ExpandIsr:
		return two(c.ExpandIsr)
	case model.HandleAlterPartition:
		return one("l", a.L, c.HandleAlterPartition)
	case model.HandleAlterPartitionResponse:
		return one("l", a.L, c.HandleAlterPartitionResponse)
	case model.CheckpointHW:
		return one("r", a.R, c.CheckpointHW)
	case model.Crash:
		return one("r", a.R, func(r int32) error { return c.Crash(r, int64(a.Keep)) })
	case model.Restart:
		return one("r", a.R, c.Restart)
	case model.LoseMessage:
		return one("f", a.F, c.LoseMessage)
	case model.MissLeaderAndIsr:
		return one("r", a.R, c.MissLeaderAndIsr)
	}
	return fmt.Errorf("action %s has no stepped counterpart", a)
}
