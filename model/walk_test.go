package model

import (
	"math/rand/v2"
	"testing"
)

// walkStates takes random walks over a configuration that turns every
// switch on, returning the states visited.
func walkStates(t *testing.T, n int) (*Config, []State) {
	cfg := &Config{Replicas: []Replica{"r1", "r2", "r3"}, Truncation: LeaderEpoch, Fencing: true, Acks: "1",
		MinInsyncReplicas: 2, MinIsrGatesHW: true, UncleanLeaderElectionEnable: true, UnflushedLoss: true,
		LossyNetwork: true, MaxRecords: 3, MaxEpoch: 4, MaxCrashes: 3}
	rng := rand.New(rand.NewPCG(1, 2))
	var out []State
	for len(out) < n {
		s := Init(cfg)
		for range 40 {
			out = append(out, s)
			as := Enabled(cfg, s)
			if len(as) == 0 {
				break
			}
			next, err := Apply(cfg, s, as[rng.IntN(len(as))])
			if err != nil {
				t.Fatal(err)
			}
			s = next
		}
	}
	return cfg, out
}

// Decode inverts Encode, and fingerprints agree with Equal.
func TestEncodingIsInjective(t *testing.T) {
	_, states := walkStates(t, 3000)
	byFP := map[uint64]State{}
	for i, s := range states {
		back, err := Decode(Encode(s))
		if err != nil {
			t.Fatalf("state %d: %v", i, err)
		}
		if !back.Equal(s) {
			t.Fatalf("state %d: Decode(Encode(s)) differs", i)
		}
		fp := Fingerprint(s)
		if o, ok := byFP[fp]; ok && !o.Equal(s) {
			t.Fatalf("state %d: fingerprint collision between different states", i)
		}
		byFP[fp] = s
	}
	if len(byFP) < 100 {
		t.Fatalf("only %d distinct states in the walks", len(byFP))
	}
}

// DecodeInto with one Scratch reused across states of every shape (the
// explorer's use) decodes each as Decode does: nothing of the previous state
// survives in the reused storage. Walks in a shuffled order, so that a state
// with an empty queue or log follows one with a full one.
func TestDecodeIntoReusesScratchCleanly(t *testing.T) {
	_, states := walkStates(t, 3000)
	rand.New(rand.NewPCG(3, 4)).Shuffle(len(states), func(i, j int) { states[i], states[j] = states[j], states[i] })
	var sc Scratch
	for i, s := range states {
		var got State
		if err := DecodeInto(Encode(s), &got, &sc); err != nil {
			t.Fatalf("state %d: %v", i, err)
		}
		if !got.Equal(s) {
			t.Fatalf("state %d: DecodeInto with a reused Scratch differs from the state encoded", i)
		}
	}
	var got State
	if err := DecodeInto([]byte{3, 1}, &got, &sc); err == nil {
		t.Fatal("DecodeInto accepted a truncated encoding")
	}
}

// Apply never changes the state it is given. (Successors share the slices
// an action leaves unchanged with their parent -- copy-on-write -- which is
// safe because nothing in the package writes into a State's slices.)
func TestApplyDoesNotMutate(t *testing.T) {
	cfg, states := walkStates(t, 1000)
	for _, s := range states {
		before := Encode(s)
		for _, a := range Enabled(cfg, s) {
			if _, err := Apply(cfg, s, a); err != nil {
				t.Fatal(err)
			}
			if string(Encode(s)) != string(before) {
				t.Fatalf("%s changed its input state", a)
			}
		}
	}
}

// Every walked state is typed, and the structural invariants hold (the
// spec's TypeOK and well-formedness hold in every reachable state).
func TestWalkInvariants(t *testing.T) {
	cfg, states := walkStates(t, 2000)
	for i, s := range states {
		for _, name := range []string{"TypeOK", "HWBelowLEO", "LeaderInIsr", "EpochCacheWellFormed", "EpochCacheMatchesLog"} {
			if !Invariants[name](cfg, s) {
				t.Fatalf("state %d violates %s", i, name)
			}
		}
	}
}

// Permuting the replicas and permuting back is the identity; a state and
// its permutations share the symmetric fingerprint and the invariants.
func TestPermute(t *testing.T) {
	cfg, states := walkStates(t, 500)
	perms := Permutations(cfg.N())
	if len(perms) != 6 {
		t.Fatalf("%d permutations of 3 replicas", len(perms))
	}
	for _, s := range states {
		want, _ := SymmetricFingerprint(cfg, &s, perms, nil)
		for _, p := range perms {
			inv := make([]int, len(p))
			for i, j := range p {
				inv[j] = i
			}
			u := Permute(cfg, &s, p)
			if string(AppendPermutedEncoding(nil, cfg, &s, p, inv)) != string(Encode(u)) {
				t.Fatalf("AppendPermutedEncoding differs from Encode(Permute) for %v", p)
			}
			if back := Permute(cfg, &u, inv); !back.Equal(s) {
				t.Fatalf("permuting by %v and back changes the state", p)
			}
			if got, _ := SymmetricFingerprint(cfg, &u, perms, nil); got != want {
				t.Fatalf("permutation %v changes the symmetric fingerprint", p)
			}
			for name, f := range Invariants {
				if f(cfg, s) != f(cfg, u) {
					t.Fatalf("%s differs on a permutation %v of the state", name, p)
				}
			}
		}
	}
}
