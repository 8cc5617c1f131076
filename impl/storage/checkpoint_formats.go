package storage

import (
	"fmt"
	"strconv"
)

// The two checkpoint files of the spec's durable state, in Kafka's formats.

const (
	// LeaderEpochCheckpointFilename is the epoch cache's file in a partition
	// directory (LeaderEpochCheckpointFile.LEADER_EPOCH_CHECKPOINT_FILENAME).
	LeaderEpochCheckpointFilename = "leader-epoch-checkpoint"
	// ReplicationOffsetCheckpointFilename is the HW checkpoint in a log
	// directory (ReplicaManager.HighWatermarkFilename).
	ReplicationOffsetCheckpointFilename = "replication-offset-checkpoint"
)

// EpochEntry is one entry of the leader epoch cache: the first offset
// written in a leader epoch (Kafka's EpochEntry; the spec's Entry).
type EpochEntry struct {
	Epoch       int32
	StartOffset int64
}

// TopicPartitionOffset is one line of replication-offset-checkpoint
// (OffsetCheckpointFile): a partition and its high watermark.
type TopicPartitionOffset struct {
	Topic     string
	Partition int32
	Offset    int64
}

// leaderEpochFormat is LeaderEpochCheckpointFile.Formatter, version 0,
// "epoch startOffset", plus the cache's well-formedness (spec
// EpochCacheWellFormed): epochs and start offsets strictly increase.
var leaderEpochFormat = entryFormat[EpochEntry]{
	version: 0,
	fields:  2,
	format: func(e EpochEntry) string {
		return strconv.FormatInt(int64(e.Epoch), 10) + " " + strconv.FormatInt(e.StartOffset, 10)
	},
	parse: func(f []string) (EpochEntry, string) {
		epoch, msg := parseNonNegative(f[0], 31)
		if msg != "" {
			return EpochEntry{}, "epoch: " + msg
		}
		start, msg := parseNonNegative(f[1], 63)
		if msg != "" {
			return EpochEntry{}, "start offset: " + msg
		}
		return EpochEntry{Epoch: int32(epoch), StartOffset: start}, ""
	},
	follows: func(seen []EpochEntry, cur EpochEntry) string {
		if len(seen) == 0 {
			return ""
		}
		prev := seen[len(seen)-1]
		if cur.Epoch <= prev.Epoch {
			return fmt.Sprintf("non-monotonic epoch: %d after %d", cur.Epoch, prev.Epoch)
		}
		if cur.StartOffset <= prev.StartOffset {
			return fmt.Sprintf("non-monotonic start offset: %d after %d", cur.StartOffset, prev.StartOffset)
		}
		return ""
	},
}

// offsetFormat is OffsetCheckpointFile.Formatter, version 0,
// "topic partition offset". A partition may appear once.
var offsetFormat = entryFormat[TopicPartitionOffset]{
	version: 0,
	fields:  3,
	format: func(e TopicPartitionOffset) string {
		return e.Topic + " " + strconv.FormatInt(int64(e.Partition), 10) + " " + strconv.FormatInt(e.Offset, 10)
	},
	parse: func(f []string) (TopicPartitionOffset, string) {
		if msg := validTopic(f[0]); msg != "" {
			return TopicPartitionOffset{}, msg
		}
		p, msg := parseNonNegative(f[1], 31)
		if msg != "" {
			return TopicPartitionOffset{}, "partition: " + msg
		}
		o, msg := parseNonNegative(f[2], 63)
		if msg != "" {
			return TopicPartitionOffset{}, "offset: " + msg
		}
		return TopicPartitionOffset{Topic: f[0], Partition: int32(p), Offset: o}, ""
	},
	follows: func(seen []TopicPartitionOffset, cur TopicPartitionOffset) string {
		for _, s := range seen {
			if s.Topic == cur.Topic && s.Partition == cur.Partition {
				return fmt.Sprintf("duplicate partition %s-%d", cur.Topic, cur.Partition)
			}
		}
		return ""
	},
}

// validTopic is Kafka's Topic.validate: 1..249 characters of [a-zA-Z0-9._-],
// not "." or "..".
func validTopic(t string) string {
	if t == "" {
		return "empty topic name"
	}
	if t == "." || t == ".." {
		return fmt.Sprintf("illegal topic name %q", t)
	}
	if len(t) > 249 {
		return "topic name longer than 249 characters"
	}
	for i := 0; i < len(t); i++ {
		c := t[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-') {
			return fmt.Sprintf("illegal character %q in topic name", c)
		}
	}
	return ""
}

// ReadLeaderEpochCheckpoint reads a leader-epoch-checkpoint file. A missing
// file is an error wrapping fs.ErrNotExist.
func ReadLeaderEpochCheckpoint(path string) ([]EpochEntry, error) {
	return readCheckpoint(leaderEpochFormat, path)
}

// WriteLeaderEpochCheckpoint atomically replaces the file at path.
func WriteLeaderEpochCheckpoint(path string, entries []EpochEntry) error {
	return writeLeaderEpochCheckpoint(path, entries, nil)
}

// writeLeaderEpochCheckpoint is WriteLeaderEpochCheckpoint with seeded
// bugs (Mutant).
func writeLeaderEpochCheckpoint(path string, entries []EpochEntry, mutants []Mutant) error {
	f := leaderEpochFormat
	if hasMutant(mutants, MutantCheckpointEqualStarts) { // mutant hook: an equal start offset is written
		f.follows = func(seen []EpochEntry, cur EpochEntry) string {
			if n := len(seen); n > 0 && cur.Epoch > seen[n-1].Epoch && cur.StartOffset == seen[n-1].StartOffset {
				return ""
			}
			return leaderEpochFormat.follows(seen, cur)
		}
	}
	return writeCheckpoint(f, path, entries)
}

// ReadReplicationOffsetCheckpoint reads a replication-offset-checkpoint
// file. A missing file is an error wrapping fs.ErrNotExist.
func ReadReplicationOffsetCheckpoint(path string) ([]TopicPartitionOffset, error) {
	return readCheckpoint(offsetFormat, path)
}

// WriteReplicationOffsetCheckpoint atomically replaces the file at path,
// keeping the entries' order.
func WriteReplicationOffsetCheckpoint(path string, entries []TopicPartitionOffset) error {
	return writeCheckpoint(offsetFormat, path, entries)
}
