// Package cluster runs N brokers (impl/broker), each with its own directory
// on disk, a controller goroutine (impl/controller's decisions behind
// Kafka's controller event loop and ControllerChannelManager), a producer
// and a consumer (impl/client), all over one impl/netsim network.
//
// Two modes:
//
//   - Stepped: nothing happens on its own. Each method of the stepped API
//     (Elect, HandleLeaderAndIsr, Produce, SendFetch, HandleFetch,
//     UpdateFollowerFetchState, ..., HandleAlterPartition,
//     HandleAlterPartitionResponse, Crash, Restart, LoseMessage) performs
//     one action of spec/Replication.tla on the partition in focus and
//     returns once the cluster is quiescent, or returns an error, changing
//     nothing, when the action is not enabled. Messages that the spec does
//     not model (produce requests and responses, LeaderAndIsr responses,
//     and AlterPartition under the ZooKeeper releases, whose ISR change is
//     one step) are delivered as part of the step that sent them.
//   - Free: goroutines run, timers fire, the network delays and drops
//     messages by its seeded faults, and a driver (RunChaos) crashes,
//     restarts, partitions and elects at random.
//
// What the cluster does varies by Kafka release only through
// release.Of(Config.Policy) (Release): the brokers' fetch and ISR rules,
// the controller's KIP-841 and KRaft fencing, KIP-903's broker epochs
// (a restarted broker registers with a new one), KIP-966's eligible leader
// replicas (the controller's ELR and last known leader, kept through
// fencing, restarts, AlterPartition and elections), which AlterPartition
// messages are steps, and whether a crashed broker's fetch survives it.
//
// Simulate (sim.go) is the deterministic simulation: a stepped cluster
// with Config.Simulated (the controller elects on its own, brokers expand
// the ISR and back off as in free mode, no timer runs by itself) driven by
// one seeded scheduler over a simulated clock, so a run is a function of
// its seed and settings.
//
// Snapshot returns the whole cluster as plain values named after the
// spec's variables, for the refinement checker's abstraction function;
// Config.Hook receives every handled event (broker.Event) for trace
// validation.
package cluster
