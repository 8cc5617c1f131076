package packed

import (
	"testing"

	"github.com/hwepoch/hwepoch/model"
)

// threeReplicaCorpora are the corpora of the ci configurations with three
// replicas, on which permutations are worth trying.
func threeReplicaCorpora(t *testing.T) []*corpus {
	var out []*corpus
	for _, co := range ciCorpora(t) {
		if co.check.Config.N() == 3 {
			out = append(out, co)
		}
	}
	if len(out) == 0 {
		t.Fatal("no ci configuration with three replicas")
	}
	return out
}

// Permute is model.Permute on the packed state: on every visited state of
// the three-replica ci configurations and every permutation,
// ToModel(Permute(p)) equals the model's permuted state.
func TestPermuteEqualsModel(t *testing.T) {
	total := 0
	for _, co := range threeReplicaCorpora(t) {
		cfg := &co.check.Config
		perms := model.Permutations(cfg.N())
		var p, q State
		for k := range co.visited {
			co.state(k, &p)
			s := ToModel(cfg, &p)
			for _, perm := range perms {
				Permute(cfg, &p, perm, model.Inverse(perm), &q)
				if got, want := ToModel(cfg, &q), model.Permute(cfg, &s, perm); !got.Equal(want) {
					t.Fatalf("%s: state %d renamed by %v:\n got %+v\nwant %+v", co.check.Name, k, perm, got, want)
				}
				total++
			}
		}
	}
	t.Logf("%d (state, permutation) pairs", total)
}

// ReplicaKey equals model.ReplicaKey, so that it selects the same
// renamings (those that sort the replicas by key), and renaming carries it
// along with its replica: on every visited state of the ci configurations
// with symmetry.
func TestReplicaKeyEqualsModel(t *testing.T) {
	total, ties := 0, 0
	for _, co := range ciCorpora(t) {
		if !co.check.Symmetry {
			continue
		}
		cfg := &co.check.Config
		n := cfg.N()
		perms := model.Permutations(n)
		invs := make([][]int, len(perms))
		for k, perm := range perms {
			invs[k] = model.Inverse(perm)
		}
		var p, q State
		keys, mkeys, pkeys := make([]uint64, n), make([]uint64, n), make([]uint64, n)
		for k := range co.visited {
			co.state(k, &p)
			s := ToModel(cfg, &p)
			for i := range n {
				keys[i], mkeys[i] = ReplicaKey(cfg, &p, i), model.ReplicaKey(cfg, &s, i)
				if keys[i] != mkeys[i] {
					t.Fatalf("%s: state %d: replica %d's key is %#x, the model's %#x", co.check.Name, k, i, keys[i], mkeys[i])
				}
			}
			selected := 0
			for x, perm := range perms {
				if a, b := model.SortsByKey(keys, invs[x]), model.SortsByKey(mkeys, invs[x]); a != b {
					t.Fatalf("%s: state %d: renaming %v sorts by key %t, by the model's %t", co.check.Name, k, perm, a, b)
				} else if a {
					selected++
				}
				Permute(cfg, &p, perm, invs[x], &q)
				for i := range n {
					if pkeys[perm[i]] = ReplicaKey(cfg, &q, perm[i]); pkeys[perm[i]] != keys[i] {
						t.Fatalf("%s: state %d: renaming %v does not carry replica %d's key", co.check.Name, k, perm, i)
					}
				}
			}
			if selected > 1 {
				ties++
			}
			total++
		}
	}
	if total == 0 {
		t.Fatal("no ci configuration with symmetry")
	}
	t.Logf("%d states, %d with more than one key-sorted renaming", total, ties)
}

func TestSymmetryDoesNotAllocate(t *testing.T) {
	co := threeReplicaCorpora(t)[0]
	cfg := &co.check.Config
	var p, q State
	co.state(co.visited-1, &p)
	perm := []int{2, 0, 1}
	inv := model.Inverse(perm)
	if a := testing.AllocsPerRun(100, func() { Permute(cfg, &p, perm, inv, &q) }); a != 0 {
		t.Errorf("Permute: %v allocations", a)
	}
	if a := testing.AllocsPerRun(100, func() { ReplicaKey(cfg, &p, 1) }); a != 0 {
		t.Errorf("ReplicaKey: %v allocations", a)
	}
}
