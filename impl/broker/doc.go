// Package broker is one Kafka broker of the concurrent implementation,
// reduced to partition replication: the replica manager and its partitions
// (leader HW, ISR maintenance, the produce purgatory), a replica fetcher
// goroutine per source broker that reconciles its log by its release
// (0.10.2 truncates to the HW, 0.11 and 2.1 go through OffsetsForLeaderEpoch,
// 3.9 truncates on fetch by divergingEpoch) with KIP-320 fencing, the
// AlterPartition channel to the controller, and the request handler loop
// that serves LeaderAndIsr, Fetch, OffsetsForLeaderEpoch and Produce over
// impl/netsim.
//
// Every behaviour that differs by Kafka release reads the broker's
// release.Release (release.Of(Config.Policy)): when a LeaderAndIsr restarts
// the fetcher, the epoch cache's rule and when the leader's epoch enters
// it, where an UNDEFINED answer truncates to, ZooKeeper's atomic ISR write
// or 3.9's asynchronous AlterPartition, KIP-841 and KAFKA-7128 in ISR
// expansion, and whether a fetch its sender sent before crashing is still
// served.
//
// A leader serves a follower's Fetch in two steps, as Kafka does: the read
// (records and the HW before any update), then updateFollowerFetchState and
// the response (fetch_leader.go); a stepped driver can stop between them.
//
// Semantics are spec/Replication.tla's, which follow Kafka's source; each
// function cites the Kafka code it stands for (Partition.makeLeader,
// Partition.maybeIncrementLeaderHW, AbstractFetcherThread.truncateToEpochEndOffsets,
// ReplicaFetcherThread.processPartitionData, ...). Where this package departs
// from Kafka to keep the spec's semantics, the comment says so.
//
// A Broker runs in one of two modes. Free: its goroutines run on their own,
// timers fire (fetch backoff, request timeouts, ISR expiration, HW checkpoint,
// log flush). Stepped (Config.Stepped): nothing happens unless a driver asks —
// fetchers send only through SendFetch / SendOffsetsForLeaderEpoch, a
// leader finishes a fetch it has read only through UpdateFollowerFetchState,
// ISR changes only through ShrinkIsr / ExpandIsr, the checkpoint only through
// CheckpointHighWatermarks, timeouts only through RequestTimedOut — while
// messages are still received and handled by the broker's goroutines, so the
// driver waits for the network to be idle after each step.
//
// Durable state lives in Config.Dir: one directory per partition
// ("<topic>-<partition>", a storage.Log with its leader-epoch-checkpoint)
// and the replication-offset-checkpoint. Everything else is volatile: a crash
// (Crash) stops the goroutines and closes the logs, and a restart is a new
// Broker on the same directory.
//
// Lock order: a fetcher's lock before a partition's lock, the replica
// manager's map lock never held while taking either. Nothing holds a
// partition lock while waiting for another goroutine.
package broker
