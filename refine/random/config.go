package random

import (
	"math/rand"

	"github.com/hwepoch/hwepoch/model"
)

// GenConfig draws a configuration for one random trace under policy: two or
// three replicas and a mix of the spec's switches, with bounds that are
// never the binding constraint of a short trace (a trace of 25 steps rarely
// produces more than 3 records or reaches epoch 4). LeaderEpoch mostly runs
// with fencing, the configuration Kafka ships and the one whose full set of
// invariants the random traces then demand; the other switches vary for
// every policy.
func GenConfig(rng *rand.Rand, policy string) *model.Config {
	cfg := &model.Config{
		Replicas:                    []model.Replica{"r1", "r2"},
		Truncation:                  policy,
		Fencing:                     rng.Intn(2) == 0,
		Acks:                        []string{"all", "all", "1", "0"}[rng.Intn(4)],
		MinInsyncReplicas:           1 + rng.Intn(2),
		MinIsrGatesHW:               rng.Intn(2) == 0,
		UncleanLeaderElectionEnable: rng.Intn(4) == 0,
		UnflushedLoss:               rng.Intn(4) == 0,
		LossyNetwork:                rng.Intn(2) == 0,
		MaxRecords:                  3,
		MaxEpoch:                    4,
		MaxCrashes:                  2,
	}
	if r := model.Releases[policy]; r.Fencing {
		cfg.Fencing = rng.Intn(4) != 0 // mostly the release's own; an ablation now and then
	}
	if model.Releases[policy].AsyncIsr {
		// Room for a few AlterPartition commits beyond the elections' and
		// fencings' partition epochs.
		cfg.MaxPartitionEpoch = cfg.MaxEpoch + cfg.MaxCrashes + 2
	}
	if rng.Intn(3) == 0 {
		cfg.Replicas = append(cfg.Replicas, "r3")
	}
	return cfg
}
