package packed

import (
	"fmt"
	"strings"
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

// elrCorpora are the corpora of the ci configurations of a release with
// ELR (two replicas: one renaming besides the identity, which swaps the
// ELR, the last known leader and the broker epochs).
func elrCorpora(t *testing.T) []*corpus {
	var out []*corpus
	for _, co := range ciCorpora(t) {
		if co.check.Config.Rel().Elr {
			out = append(out, co)
		}
	}
	if len(out) == 0 {
		t.Fatal("no ci configuration with ELR")
	}
	return out
}

// permutationCorpora are the corpora Permute is held to the model on: the
// three-replica ones and the ELR ones.
func permutationCorpora(t *testing.T) []*corpus {
	return append(threeReplicaCorpora(t), elrCorpora(t)...)
}

// permuteDiff renames every visited state of the corpora by every
// permutation and returns how many it compared and the first renaming whose
// ToModel(Permute(p)) is not the model's permuted state.
func permuteDiff(t *testing.T, cos []*corpus) (total int, bad error) {
	for _, co := range cos {
		cfg := &co.check.Config
		perms := model.Permutations(cfg.N())
		var p, q State
		for k := range co.visited {
			co.state(k, &p)
			s := ToModel(cfg, &p)
			for _, perm := range perms {
				Permute(cfg, &p, perm, model.Inverse(perm), &q)
				if got, want := ToModel(cfg, &q), model.Permute(cfg, &s, perm); !got.Equal(want) {
					return total, fmt.Errorf("%s: state %d renamed by %v (packed / model):\n%s", co.check.Name, k, perm, diff(got, want))
				}
				total++
			}
		}
	}
	return total, nil
}

// Permute is model.Permute on the packed state: on every visited state of
// the three-replica and the ELR ci configurations and every permutation,
// ToModel(Permute(p)) equals the model's permuted state.
func TestPermuteEqualsModel(t *testing.T) {
	total, err := permuteDiff(t, permutationCorpora(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d (state, permutation) pairs", total)
}

// The comparison bites on the fields KIP-903 and ELR added: with Permute
// leaving a leader's views of broker epochs where they were, it finds a
// difference in the ELR configurations (two replicas) and in the
// three-replica ones with broker epochs (Kafka 3.9's).
func TestPermuteCatchesSeededBug(t *testing.T) {
	seededBug = bugPermuteKeepsBrokerViews
	defer func() { seededBug = noBug }()
	var three []*corpus
	for _, co := range threeReplicaCorpora(t) {
		if co.check.Config.Rel().IsrBrokerEpochs {
			three = append(three, co)
		}
	}
	if len(three) == 0 {
		t.Fatal("no three-replica ci configuration with broker epochs")
	}
	for _, cos := range [][]*corpus{elrCorpora(t), three} {
		if _, err := permuteDiff(t, cos); err == nil {
			t.Errorf("%s...: the seeded bug went unnoticed", cos[0].check.Name)
		} else {
			first, _, _ := strings.Cut(err.Error(), "\n")
			t.Logf("%s", first)
		}
	}
}

// symmetryCorpora are the corpora of the ci configurations with symmetry,
// and the ELR ones (which the explorer may search with symmetry too).
func symmetryCorpora(t *testing.T) []*corpus {
	var out []*corpus
	for _, co := range ciCorpora(t) {
		if co.check.Symmetry || co.check.Config.Rel().Elr {
			out = append(out, co)
		}
	}
	return out
}

// ReplicaKey equals model.ReplicaKey, so that it selects the same
// renamings (those that sort the replicas by key), and renaming carries it
// along with its replica: on every visited state of the ci configurations
// with symmetry and the ELR ones.
func TestReplicaKeyEqualsModel(t *testing.T) {
	total, ties := 0, 0
	for _, co := range symmetryCorpora(t) {
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

// canonicalFingerprint is what the explorer computes under symmetry on
// packed states: the least Hash of Pack over the renamings that sort the
// replicas by ReplicaKey.
func canonicalFingerprint(cfg *model.Config, l *Layout, p *State, perms, invs [][]int, words []uint64, q *State) uint64 {
	var keys [MaxReplicas]uint64
	n := cfg.N()
	for i := range n {
		keys[i] = ReplicaKey(cfg, p, i)
	}
	fp := ^uint64(0)
	for x, perm := range perms {
		if !model.SortsByKey(keys[:n], invs[x]) {
			continue
		}
		Permute(cfg, p, perm, invs[x], q)
		l.Pack(q, words)
		fp = min(fp, l.Hash(words))
	}
	return fp
}

// The packed canonical fingerprint partitions the visited states into the
// same classes as TLC's (the model's least fingerprint over every
// renaming): the two fingerprints are in one-to-one correspondence on every
// visited state of the ci configurations with symmetry and the ELR ones.
func TestCanonicalFingerprintClasses(t *testing.T) {
	for _, co := range symmetryCorpora(t) {
		cfg := &co.check.Config
		l, err := NewLayout(cfg)
		if err != nil {
			t.Fatal(err)
		}
		perms := model.Permutations(cfg.N())
		invs := make([][]int, len(perms))
		for k, perm := range perms {
			invs[k] = model.Inverse(perm)
		}
		toPacked, toModel := map[uint64]uint64{}, map[uint64]uint64{}
		words := make([]uint64, l.Words())
		var buf []byte
		var p, q State
		for k := range co.visited {
			co.state(k, &p)
			s := ToModel(cfg, &p)
			var mfp uint64
			mfp, buf = model.SymmetricFingerprint(cfg, &s, perms, buf)
			pfp := canonicalFingerprint(cfg, l, &p, perms, invs, words, &q)
			if x, ok := toPacked[mfp]; ok && x != pfp {
				t.Fatalf("%s: state %d: one model class, two packed fingerprints", co.check.Name, k)
			}
			if x, ok := toModel[pfp]; ok && x != mfp {
				t.Fatalf("%s: state %d: one packed fingerprint, two model classes", co.check.Name, k)
			}
			toPacked[mfp], toModel[pfp] = pfp, mfp
		}
		t.Logf("%s: %d states, %d classes", co.check.Name, co.visited, len(toPacked))
		if co.check.Symmetry && len(toPacked)*2 > co.visited {
			t.Errorf("%s: %d classes of %d states: symmetry reduces nothing", co.check.Name, len(toPacked), co.visited)
		}
	}
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
