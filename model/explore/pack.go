package explore

import "github.com/hwepoch/hwepoch/model"

// packed is an Action in 32 bits (kind, two replica indices, keep), the
// parent-pointer payload that lets a trace be rebuilt by re-execution.
type packed uint32

func pack(cfg *model.Config, a model.Action) packed {
	idx := func(r model.Replica) uint32 {
		if i := cfg.Index(r); i >= 0 {
			return uint32(i)
		}
		return 0xff
	}
	var i, j uint32
	switch a.Kind {
	case model.Elect, model.HandleLeaderAndIsr, model.CheckpointHW, model.Restart, model.Crash, model.MissLeaderAndIsr:
		i = idx(a.R)
	case model.Produce:
		i = idx(a.L)
	case model.SendOffsetsForLeaderEpoch, model.HandleOffsetsForLeaderEpochResponse, model.SendFetch,
		model.HandleFetchResponse, model.LoseMessage:
		i = idx(a.F)
	default:
		i, j = idx(a.L), idx(a.F)
	}
	return packed(uint32(a.Kind) | i<<8 | j<<16 | uint32(a.Keep)<<24)
}

func (p packed) unpack(cfg *model.Config) model.Action {
	k := model.ActionKind(p & 0xff)
	i, j, keep := int(p>>8&0xff), int(p>>16&0xff), int(p>>24)
	a := model.Action{Kind: k}
	name := func(x int) model.Replica {
		if x < cfg.N() {
			return cfg.Replicas[x]
		}
		return "?"
	}
	switch k {
	case model.Elect, model.HandleLeaderAndIsr, model.CheckpointHW, model.Restart, model.MissLeaderAndIsr:
		a.R = name(i)
	case model.Crash:
		a.R, a.Keep = name(i), keep
	case model.Produce:
		a.L = name(i)
	case model.SendOffsetsForLeaderEpoch, model.HandleOffsetsForLeaderEpochResponse, model.SendFetch,
		model.HandleFetchResponse, model.LoseMessage:
		a.F, a.Keep = name(i), keep // keep: a restored behaviour's choice (model/restore.go)
	default:
		a.L, a.F = name(i), name(j)
	}
	return a
}
