package explore

import (
	"context"
	"testing"

	"github.com/hwepoch/hwepoch/model"
	pstate "github.com/hwepoch/hwepoch/model/packed"
)

// symmetricConfigs are three-replica configurations small enough for a
// unit test, one per release with its own ISR and truncation paths.
var symmetricConfigs = []model.Config{
	{Replicas: []model.Replica{"r1", "r2", "r3"}, Truncation: "HighWatermark", Acks: "1", MinInsyncReplicas: 1,
		LossyNetwork: true, MaxRecords: 1, MaxCrashes: 1},
	{Replicas: []model.Replica{"r1", "r2", "r3"}, Truncation: "LeaderEpoch", Fencing: true, Acks: "all",
		MinInsyncReplicas: 2, MaxRecords: 1, MaxCrashes: 1},
	{Replicas: []model.Replica{"r1", "r2", "r3"}, Truncation: "DivergingEpoch", Fencing: true, Acks: "all",
		MinInsyncReplicas: 2, MaxRecords: 1, MaxPartitionEpoch: 1},
}

func explore(t *testing.T, cfg *model.Config, opts Options) *Result {
	t.Helper()
	opts.Invariants = []string{"TypeOK"}
	res, err := Run(context.Background(), cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// Fingerprinting by the key-sorted renamings only partitions the states
// into the same classes as trying every renaming (TLC's way): the same
// distinct states, states generated and depth.
func TestSortedSymmetryEqualsFullSymmetry(t *testing.T) {
	for _, cfg := range symmetricConfigs {
		sorted := explore(t, &cfg, Options{Symmetry: true})
		full := explore(t, &cfg, Options{Symmetry: true, FullSymmetry: true})
		none := explore(t, &cfg, Options{})
		t.Logf("%s: %d distinct with symmetry (sorted and full), %d without", cfg.Truncation, sorted.Distinct, none.Distinct)
		if sorted.Distinct != full.Distinct || sorted.Generated != full.Generated || sorted.Depth != full.Depth {
			t.Errorf("%s: sorted symmetry %d/%d/%d, full %d/%d/%d (distinct/generated/depth)", cfg.Truncation,
				sorted.Distinct, sorted.Generated, sorted.Depth, full.Distinct, full.Generated, full.Depth)
		}
		if sorted.Distinct*2 > none.Distinct {
			t.Errorf("%s: symmetry kept %d of %d states: it reduces nothing", cfg.Truncation, sorted.Distinct, none.Distinct)
		}
	}
}

// The test above bites: a key that is not carried along by renaming (it
// depends on the replica's index) no longer picks one member per class, and
// the counts move away from full symmetry's.
func TestSortedSymmetryNeedsAnInvariantKey(t *testing.T) {
	defer func(k func(*model.Config, *model.State, int) uint64) { replicaKey = k }(replicaKey)
	defer func(k func(*model.Config, *pstate.State, int) uint64) { packedReplicaKey = k }(packedReplicaKey)
	replicaKey = func(cfg *model.Config, s *model.State, i int) uint64 { return model.ReplicaKey(cfg, s, i) ^ uint64(i) }
	packedReplicaKey = func(cfg *model.Config, s *pstate.State, i int) uint64 {
		return pstate.ReplicaKey(cfg, s, i) ^ uint64(i)
	}
	cfg := symmetricConfigs[0]
	for _, engine := range []string{EngineReadable, EnginePacked} {
		broken := explore(t, &cfg, Options{Symmetry: true, Engine: engine})
		full := explore(t, &cfg, Options{Symmetry: true, FullSymmetry: true, Engine: engine})
		if broken.Distinct == full.Distinct {
			t.Fatalf("%s engine: a key that depends on the replica's index gave full symmetry's count %d", engine, full.Distinct)
		}
		t.Logf("%s engine: index-dependent key: %d distinct, full symmetry %d", engine, broken.Distinct, full.Distinct)
	}
}

// MachineMemory reads this machine's memory (the explorer's soft memory
// limit is a share of it); on Linux it is never zero.
func TestMachineMemory(t *testing.T) {
	if m := MachineMemory(); m < 1<<28 {
		t.Fatalf("MachineMemory() = %d bytes", m)
	}
}
