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
