// Package storage is the durable state of one partition replica in the
// concurrent implementation: the log (Log, Kafka's UnifiedLog), its leader
// epoch cache (LeaderEpochFileCache) and the checkpoint files
// (leader-epoch-checkpoint, replication-offset-checkpoint) in Kafka's
// CheckpointFile format. It re-exports Policy (package release), the
// truncation policy shared by the leader's and the follower's side of
// OffsetsForLeaderEpoch; the epoch cache follows its release's assign rule
// (Options.CacheAssign): none under 0.10.2, 0.11's greater-only append,
// KAFKA-7415's truncate-and-append from 2.1.
//
// Vocabulary and semantics are those of spec/Replication.tla: offsets are
// 0-based, the LEO is the next offset to write, Assign / TruncateFromEnd /
// EndOffsetFor / Kip101EndOffset are the spec's operators, and
// Log.TruncateTo is the spec's TruncLog + TruncCache.
//
// ReadDir reads a log directory without changing it (Open truncates the
// epoch cache to the LEO and may repair a torn tail): the view of a stopped
// or crashed replica's files.
//
// Bad input and bad files give errors, never panics: a corrupt segment is a
// *CorruptError naming the file, byte offset and record; a bad checkpoint a
// *CheckpointError naming the file and line.
//
// Log and LeaderEpochFileCache are safe for concurrent use (each method
// holds the value's mutex; Log locks before its cache, never the reverse).
// Nothing here starts a goroutine.
package storage
