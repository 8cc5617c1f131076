package packed

import (
	"testing"

	"github.com/hwepoch/hwepoch/model"
)

// Fingerprint is a function of the state, and tells the visited states
// apart as their packed words do: on every visited state of every ci
// configuration, equal fingerprints come with equal words and equal words
// with equal fingerprints.
func TestFingerprintIsAFunctionOfTheState(t *testing.T) {
	buf := make([]byte, FingerprintBuf)
	total := 0
	for _, co := range ciCorpora(t) {
		cfg := &co.check.Config
		lay, err := NewLayout(cfg)
		if err != nil {
			t.Fatal(err)
		}
		byFP := map[uint64]string{}
		byWords := map[string]uint64{}
		words := make([]uint64, lay.Words())
		var p State
		for k := range co.visited {
			co.state(k, &p)
			fp := Fingerprint(cfg.N(), &p, buf)
			lay.Pack(&p, words)
			w := wordsKey(words)
			if old, ok := byFP[fp]; ok && old != w {
				t.Fatalf("%s: two different states share fingerprint %x", co.check.Name, fp)
			}
			if old, ok := byWords[w]; ok && old != fp {
				t.Fatalf("%s: one state has fingerprints %x and %x", co.check.Name, old, fp)
			}
			byFP[fp], byWords[w] = w, fp
			// the unused tail of a controller queue is not hashed
			q := p
			q.R[0].Queue[MaxQueue-1].Epoch = 99
			if q.R[0].QueueLen < MaxQueue && Fingerprint(cfg.N(), &q, buf) != fp {
				t.Fatalf("%s: an unused queue slot changed the fingerprint", co.check.Name)
			}
			total++
		}
	}
	t.Logf("%d states", total)
}

// Permute leaves the struct canonical: the renamed state is exactly
// FromModel of the model's renaming (unused entries zero), so that
// Fingerprint, which hashes the struct, gives a renamed state the
// fingerprint of the same state reached directly.
func TestPermuteIsCanonical(t *testing.T) {
	total := 0
	for _, co := range permutationCorpora(t) {
		cfg := &co.check.Config
		var p, q, want State
		for k := range co.visited {
			co.state(k, &p)
			s := ToModel(cfg, &p)
			for _, perm := range model.Permutations(cfg.N()) {
				Permute(cfg, &p, perm, model.Inverse(perm), &q)
				m := model.Permute(cfg, &s, perm)
				if err := FromModel(cfg, &m, &want); err != nil {
					t.Fatal(err)
				}
				if q != want {
					t.Fatalf("%s: state %d renamed by %v is not canonical:\n got %+v\nwant %+v", co.check.Name, k, perm, q, want)
				}
				total++
			}
		}
	}
	t.Logf("%d (state, permutation) pairs", total)
}
