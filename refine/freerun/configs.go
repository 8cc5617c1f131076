package freerun

import "github.com/hwepoch/hwepoch/model"

// Configs are the configurations free runs are validated under, in turn:
// each policy as its release has it (fencing from 2.1, the min.insync HW
// gate and asynchronous AlterPartition in 3.9, the Eligible Leader Replicas
// in 4.1), with and without unclean elections and unflushed loss, two and
// three brokers. EligibleLeader runs without unclean elections, so that a
// partition whose ISR its fencing emptied waits for an ELR member or its
// last known leader. The bounds are irrelevant (Record lifts them).
var Configs = []*model.Config{
	{Replicas: []model.Replica{"r1", "r2", "r3"}, Truncation: model.LeaderEpoch, Fencing: true, Acks: "all", MinInsyncReplicas: 2, MaxRecords: 1, MaxEpoch: 1, MaxCrashes: 1},
	{Replicas: []model.Replica{"r1", "r2", "r3"}, Truncation: model.HighWatermark, Acks: "1", MinInsyncReplicas: 1, UnflushedLoss: true, MaxRecords: 1, MaxEpoch: 1, MaxCrashes: 1},
	{Replicas: []model.Replica{"r1", "r2"}, Truncation: model.Kip101, Acks: "all", MinInsyncReplicas: 1, UncleanLeaderElectionEnable: true, MaxRecords: 1, MaxEpoch: 1, MaxCrashes: 1},
	{Replicas: []model.Replica{"r1", "r2", "r3"}, Truncation: model.DivergingEpoch, Fencing: true, Acks: "all", MinInsyncReplicas: 2, MinIsrGatesHW: true, UnflushedLoss: true, UncleanLeaderElectionEnable: true, MaxRecords: 1, MaxEpoch: 1, MaxCrashes: 1},
	{Replicas: []model.Replica{"r1", "r2", "r3"}, Truncation: model.EligibleLeader, Fencing: true, Acks: "all", MinInsyncReplicas: 2, MinIsrGatesHW: true, UnflushedLoss: true, MaxRecords: 1, MaxEpoch: 1, MaxCrashes: 1},
}
