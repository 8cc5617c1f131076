package refine

import (
	"fmt"

	"github.com/hwepoch/hwepoch/impl/broker"
	"github.com/hwepoch/hwepoch/impl/cluster"
	"github.com/hwepoch/hwepoch/impl/protocol"
	"github.com/hwepoch/hwepoch/impl/storage"
	"github.com/hwepoch/hwepoch/model"
)

// ClusterConfig is the stepped cluster that plays configuration cfg in
// directory dir: one broker per replica, one topic with one partition on
// every broker, and each spec constant mapped to its setting. The model's
// bounds (MaxRecords, MaxEpoch, MaxCrashes) have no counterpart: they only
// make the state space finite, and the checker never asks the
// implementation for a step the model (bounds included) does not enable.
func ClusterConfig(cfg *model.Config, dir string) (cluster.Config, error) {
	if err := cfg.Validate(); err != nil {
		return cluster.Config{}, err
	}
	policy, err := storage.ParsePolicy(cfg.Truncation)
	if err != nil {
		return cluster.Config{}, err
	}
	acks, err := protocol.ParseAcks(cfg.Acks)
	if err != nil {
		return cluster.Config{}, fmt.Errorf("constant Acks = %q: %w", cfg.Acks, err)
	}
	c := cluster.DefaultConfig(dir)
	c.Mode = cluster.Stepped
	c.Brokers = cfg.N()
	c.Topics = []cluster.Topic{{Name: "t", Partitions: 1}}
	c.Policy = policy
	c.Fencing = cfg.Fencing
	c.Acks = acks
	c.MinInsyncReplicas = cfg.MinInsyncReplicas
	c.MinIsrGatesHW = cfg.MinIsrGatesHW
	c.UncleanLeaderElectionEnable = cfg.UncleanLeaderElectionEnable
	c.UnflushedLoss = cfg.UnflushedLoss
	c.LossyNetwork = cfg.LossyNetwork
	c.MissedLeaderAndIsr = cfg.MissedLeaderAndIsr
	if cfg.Mutant != "" {
		// The model's seeded liveness bug is the implementation's of the
		// same name (TestLivenessMutantsShareNames).
		c.Mutants = append(c.Mutants, broker.Mutant(cfg.Mutant))
	}
	return c, nil
}

// NewCluster starts the stepped cluster ClusterConfig describes, with
// mod (if not nil) applied to its configuration first (e.g. to seed a
// mutant). The caller closes it.
func NewCluster(cfg *model.Config, dir string, mod func(*cluster.Config)) (*cluster.Cluster, error) {
	cc, err := ClusterConfig(cfg, dir)
	if err != nil {
		return nil, err
	}
	if mod != nil {
		mod(&cc)
	}
	return cluster.New(cc)
}
