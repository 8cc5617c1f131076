package broker

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/hwepoch/hwepoch/impl/protocol"
	"github.com/hwepoch/hwepoch/impl/release"
	"github.com/hwepoch/hwepoch/impl/storage"
)

// ReplicaManager holds the broker's partitions (Kafka's ReplicaManager
// allPartitions, with LogManager's loading folded in).
type ReplicaManager struct {
	b          *Broker
	mu         sync.Mutex
	partitions map[protocol.TopicPartition]*Partition
	// ckptMu serializes replication-offset-checkpoint writes.
	ckptMu sync.Mutex
}

func newReplicaManager(b *Broker) *ReplicaManager {
	return &ReplicaManager{b: b, partitions: map[protocol.TopicPartition]*Partition{}}
}

// partitionDir is Kafka's log directory name for a partition.
func partitionDir(root string, tp protocol.TopicPartition) string {
	return filepath.Join(root, fmt.Sprintf("%s-%d", tp.Topic, tp.Partition))
}

// parsePartitionDir inverts partitionDir's base name.
func parsePartitionDir(name string) (protocol.TopicPartition, bool) {
	i := strings.LastIndexByte(name, '-')
	if i <= 0 {
		return protocol.TopicPartition{}, false
	}
	n, err := strconv.ParseInt(name[i+1:], 10, 32)
	if err != nil || n < 0 {
		return protocol.TopicPartition{}, false
	}
	return protocol.TopicPartition{Topic: name[:i], Partition: int32(n)}, true
}

func (rm *ReplicaManager) checkpointPath() string {
	return filepath.Join(rm.b.cfg.Dir, storage.ReplicationOffsetCheckpointFilename)
}

// loadPartitions opens every partition log under the directory and those
// of Config.Partitions (LogManager.loadLogs; storage.Open also truncates
// each epoch cache to its LEO), and sets HW = min(checkpoint, LEO).
func (rm *ReplicaManager) loadPartitions() error {
	root := rm.b.cfg.Dir
	if err := os.MkdirAll(root, 0o755); err != nil {
		return err
	}
	ckpt := map[protocol.TopicPartition]int64{}
	entries, err := storage.ReadReplicationOffsetCheckpoint(rm.checkpointPath())
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return err
	default:
		for _, e := range entries {
			ckpt[protocol.TopicPartition{Topic: e.Topic, Partition: e.Partition}] = e.Offset
		}
	}
	want := slices.Clone(rm.b.cfg.Partitions)
	known := func(tp protocol.TopicPartition) bool {
		return slices.ContainsFunc(want, func(a PartitionAssignment) bool { return a.TopicPartition == tp })
	}
	dirs, err := os.ReadDir(root)
	if err != nil {
		return err
	}
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		if tp, ok := parsePartitionDir(d.Name()); ok && !known(tp) {
			want = append(want, PartitionAssignment{TopicPartition: tp})
		}
	}
	for _, a := range want {
		if _, err := rm.create(a.TopicPartition, ckpt[a.TopicPartition], a.Replicas); err != nil {
			return err
		}
	}
	return nil
}

// create opens (creating if needed) a partition's log and registers it.
func (rm *ReplicaManager) create(tp protocol.TopicPartition, hwCheckpoint int64, replicas []int32) (*Partition, error) {
	log, err := storage.Open(partitionDir(rm.b.cfg.Dir, tp), storage.Options{SegmentBytes: rm.b.cfg.SegmentBytes, Recover: true,
		CacheAssign: rm.b.rel.CacheAssign,
		// Releases whose cache can legitimately stop matching the log
		// (0.11's greater-only assign; 2.1 without fencing, an ablation;
		// 0.10.2 keeps no cache) skip the recovery check.
		TolerateEpochMismatch: rm.b.rel.CacheAssign != release.TruncateAndAppend || !rm.b.cfg.Fencing,
		Mutants:               rm.b.storageMutants()})
	if err != nil {
		return nil, fmt.Errorf("broker %d: open log of %s: %w", rm.b.cfg.BrokerID, tp, err)
	}
	p := newPartition(rm.b, tp, log, hwCheckpoint, replicas)
	rm.mu.Lock()
	defer rm.mu.Unlock()
	if old, ok := rm.partitions[tp]; ok {
		log.Close()
		return old, nil
	}
	rm.partitions[tp] = p
	return p, nil
}

// get returns a partition.
func (rm *ReplicaManager) get(tp protocol.TopicPartition) (*Partition, bool) {
	rm.mu.Lock()
	defer rm.mu.Unlock()
	p, ok := rm.partitions[tp]
	return p, ok
}

// getOrCreate is Partition.createLogIfNotExists for a LeaderAndIsr naming
// a partition the broker has no log of yet.
func (rm *ReplicaManager) getOrCreate(tp protocol.TopicPartition, replicas []int32) (*Partition, error) {
	if p, ok := rm.get(tp); ok {
		return p, nil
	}
	return rm.create(tp, 0, replicas)
}

// all lists the partitions sorted by topic and partition.
func (rm *ReplicaManager) all() []*Partition {
	rm.mu.Lock()
	out := make([]*Partition, 0, len(rm.partitions))
	for _, p := range rm.partitions {
		out = append(out, p)
	}
	rm.mu.Unlock()
	slices.SortFunc(out, func(a, b *Partition) int {
		if c := cmp.Compare(a.tp.Topic, b.tp.Topic); c != 0 {
			return c
		}
		return cmp.Compare(a.tp.Partition, b.tp.Partition)
	})
	return out
}

func (rm *ReplicaManager) closeLogs() error {
	var errs []error
	for _, p := range rm.all() {
		errs = append(errs, p.log.Close())
	}
	return errors.Join(errs...)
}
