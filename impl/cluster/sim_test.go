package cluster

import (
	"testing"

	"github.com/hwepoch/hwepoch/impl/broker"
)

// Two runs of one seed have the same event log, byte for byte (compared
// by SHA-256), and another seed gives another log.
func TestSimulationIsDeterministic(t *testing.T) {
	run := func(seed uint64) SimResult {
		r := Simulate(SimConfig{Seed: seed, Events: 300})
		if r.Err != nil {
			t.Fatalf("seed %d: %v", seed, r.Err)
		}
		return r
	}
	a, b, other := run(7), run(7), run(8)
	t.Logf("%s\n%s", a, other)
	if a.Hash() != b.Hash() {
		for i := range min(len(a.Log), len(b.Log)) {
			if a.Log[i] != b.Log[i] {
				t.Fatalf("seed 7 twice: event logs differ first at line %d:\n%s\n%s", i+1, a.Log[i], b.Log[i])
			}
		}
		t.Fatalf("seed 7 twice: event logs differ in length: %d and %d lines", len(a.Log), len(b.Log))
	}
	if a.Hash() == other.Hash() {
		t.Fatalf("seeds 7 and 8 gave the same event log")
	}
	if len(a.Steps) < 100 || a.Acked == 0 || len(a.Faults) == 0 {
		t.Fatalf("seed 7 did too little to show anything: %s", a)
	}
}

// BenchmarkSimulate: one simulation run per op without the model
// validation (what the implementation side costs alone).
func BenchmarkSimulate(b *testing.B) {
	for i := 0; b.Loop(); i++ {
		if r := Simulate(SimConfig{Seed: uint64(1 + i)}); r.Err != nil {
			b.Fatal(r.Err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "runs/s")
}

// Runs side by side give the same logs as runs one at a time: a run
// depends on nothing outside its seed (no shared state, no goroutine
// timing).
func TestSimulationIsDeterministicInParallel(t *testing.T) {
	const n = 10
	alone := make([]string, n)
	for i := range n {
		alone[i] = Simulate(SimConfig{Seed: uint64(100 + i), Events: 200}).Hash()
	}
	together := make([]string, n)
	done := make(chan struct{})
	for i := range n {
		go func() {
			together[i] = Simulate(SimConfig{Seed: uint64(100 + i), Events: 200}).Hash()
			done <- struct{}{}
		}()
	}
	for range n {
		<-done
	}
	for i := range n {
		if alone[i] != together[i] {
			t.Errorf("seed %d: %s alone, %s side by side", 100+i, alone[i], together[i])
		}
	}
}

// Under asynchronous AlterPartition (DivergingEpoch, 3.9.0) the
// simulation delivers the leader's AlterPartition and the controller's
// answer as steps of their own (HandleAlterPartition,
// HandleAlterPartitionResponse), so ISR changes the leader proposes are
// decided and applied: the ISR grows back after the heal and the cluster
// takes writes under min.insync.replicas=2 again. A simulation that left
// them in flight kept every leader's proposal pending, refused every
// produce with NOT_ENOUGH_REPLICAS after the heal, and did not converge.
func TestSimulationDecidesAsynchronousIsrChanges(t *testing.T) {
	settings := []string{"Truncation=DivergingEpoch", "MinIsrGatesHW=true"}
	decided, applied := 0, 0
	for seed := uint64(1); seed <= 3; seed++ {
		r := Simulate(SimConfig{Seed: seed, Settings: settings})
		if r.Failed() {
			t.Fatalf("DivergingEpoch %s", r)
		}
		for _, st := range r.Steps {
			switch st.Action {
			case ActHandleAlterPartition:
				decided++
			case broker.ActHandleAlterPartitionResponse:
				applied++
			}
		}
	}
	t.Logf("3 seeds: %d AlterPartition decided by the controller, %d answers applied by leaders", decided, applied)
	if decided == 0 || applied == 0 {
		t.Fatalf("3 seeds decided %d AlterPartitions and applied %d answers: the asynchronous path did not run", decided, applied)
	}
}
