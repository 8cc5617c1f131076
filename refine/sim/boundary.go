package sim

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/hwepoch/hwepoch/impl/cluster"
	"github.com/hwepoch/hwepoch/impl/protocol"
	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/refine"
	"github.com/hwepoch/hwepoch/trace/scenario"
)

// Mutant is a deliberately seeded bug of the validator itself, for the
// checks below that must catch it (docs/mutants.md): a checker that lets a
// bad run through is a bug no run of a correct implementation shows.
type Mutant string

const (
	// MutantSkipsInvariants: the validator does not check, after each
	// decision, the invariants the configuration promises.
	MutantSkipsInvariants Mutant = "validator-skips-invariants"
	// MutantReadAtHW: the consumer-read check lets a record at offset = HW
	// through (the HW is exclusive: a consumer may read below it only).
	MutantReadAtHW Mutant = "read-check-admits-hw"
)

// Mutants lists the validator's seeded bugs.
var Mutants = []Mutant{MutantSkipsInvariants, MutantReadAtHW}

func (v *Validator) mutant(m Mutant) bool { return slices.Contains(v.mutants, m) }

// CheckReadBoundary holds the consumer-read check at the HW: a leader of
// the simulation's kind of cluster (two brokers here) holds m1 and m2 with
// HW 1. A read from offset 0 served m1 (offset HW-1) passes; a read from 1
// served m2 (offset = HW) and a read from 0 served both are refused. It
// returns what went wrong, if anything; mutants seeds bugs of the
// validator.
func CheckReadBoundary(mutants ...Mutant) error {
	cfg, err := ModelConfig(append(cluster.DefaultSimSettings(), "brokers=2", "min.insync.replicas=1"))
	if err != nil {
		return err
	}
	v := newValidator(cfg, mutants)
	r1, r2 := cfg.Replicas[0], cfg.Replicas[1]
	fetch := []model.Action{{Kind: model.SendFetch, F: r2}, {Kind: model.HandleFetch, L: r1, F: r2},
		{Kind: model.UpdateFollowerFetchState, L: r1, F: r2}, {Kind: model.HandleFetchResponse, F: r2}}
	acts := []model.Action{{Kind: model.Elect, R: r1}, {Kind: model.HandleLeaderAndIsr, R: r1},
		{Kind: model.HandleLeaderAndIsr, R: r2}, {Kind: model.Produce, L: r1},
		{Kind: model.SendOffsetsForLeaderEpoch, F: r2}, {Kind: model.HandleOffsetsForLeaderEpoch, L: r1, F: r2},
		{Kind: model.HandleOffsetsForLeaderEpochResponse, F: r2}}
	acts = append(acts, fetch...) // r2 fetches m1
	acts = append(acts, fetch...) // and from 1: the HW moves to 1
	acts = append(acts, model.Action{Kind: model.Produce, L: r1})
	for _, a := range acts {
		if v.s, err = model.Apply(cfg, v.s, a); err != nil {
			return fmt.Errorf("setting up the leader: %v", err)
		}
	}
	log, hw := v.s.Log[0], v.s.Hw[0]
	if v.s.Role[0] != model.Leader || len(log) != 2 || hw != 1 {
		return fmt.Errorf("setup: r1 is %s with %d records and HW %d, want the leader with 2 and HW 1", v.s.Role[0], len(log), hw)
	}
	read := func(from int64, n int) cluster.ConsumerRead {
		resp := protocol.FetchResponsePartition{FetchOffset: from, HighWatermark: int64(hw), LogEndOffset: int64(len(log))}
		for o := from; o < from+int64(n); o++ {
			resp.Records = append(resp.Records, protocol.Record{Offset: o, LeaderEpoch: int32(log[o].Epoch), ID: int64(log[o].ID)})
		}
		return cluster.ConsumerRead{Broker: 1, Offset: from, Resp: resp}
	}
	if err := v.checkRead(read(0, 1)); err != nil {
		return fmt.Errorf("a read served the record at offset %d, below the HW %d, was refused: %v", hw-1, hw, err)
	}
	for _, bad := range []struct {
		what string
		r    cluster.ConsumerRead
	}{
		{fmt.Sprintf("a read from offset %d (= HW) served the record there", hw), read(int64(hw), 1)},
		{fmt.Sprintf("a read from offset 0 served records 0 and %d (= HW)", hw), read(0, 2)},
	} {
		err := v.checkRead(bad.r)
		if err == nil {
			return fmt.Errorf("%s, and the check let it through: the HW is exclusive", bad.what)
		}
		if !strings.Contains(err.Error(), "at or above the leader's HW") {
			return fmt.Errorf("%s: refused, but not for the HW: %v", bad.what, err)
		}
	}
	return nil
}

// CheckPromisedInvariants hands the validator a run whose model state
// breaks invariant inv: the stepped replay of case policy of the scenario
// at path (its events and a snapshot after each step, as the simulation
// gives them), in a directory under dir. Told what the configuration
// promises, the validator must accept the run (it is a genuine one, and
// its configuration does not promise inv); told that it also promises
// inv, it must reject the run at the step where the scenario says inv
// first breaks, naming inv. It returns what went wrong, if anything;
// mutants seeds bugs of the validator.
func CheckPromisedInvariants(path, policy, inv, dir string, mutants ...Mutant) error {
	sc, err := scenario.Load(path)
	if err != nil {
		return err
	}
	c, err := sc.FindCase(policy)
	if err != nil {
		return err
	}
	cfg := sc.Config(c)
	_, verdict, err := sc.Run(c)
	if err != nil {
		return err
	}
	at := -1
	for _, b := range verdict.Broken {
		if b.Invariant == inv {
			at = b.Step
		}
	}
	promised := refine.ExpectedInvariants(&cfg)
	switch {
	case at < 0:
		return fmt.Errorf("%s %s does not break %s: it cannot test the validator", sc.Name, c, inv)
	case slices.Contains(promised, inv):
		return fmt.Errorf("%s promises %s: a run that breaks it would be a bug of the model", &cfg, inv)
	}
	if n, err := validateStepped(&cfg, sc.Actions(c), promised, dir, mutants); err != nil {
		return fmt.Errorf("the validator refused the genuine run of %s %s at step %d: %v", sc.Name, c, n, err)
	}
	n, err := validateStepped(&cfg, sc.Actions(c), append(promised, inv), dir, mutants)
	switch {
	case err == nil:
		return fmt.Errorf("told that %s promises %s, the validator accepted the run of %s %s, whose model state breaks it from step %d",
			policy, inv, sc.Name, c, at)
	case n != at || !strings.Contains(err.Error(), "violates "+inv):
		return fmt.Errorf("told that %s promises %s, the validator refused the run of %s %s at step %d (%v); want step %d, naming %s",
			policy, inv, sc.Name, c, n, err, at, inv)
	}
	return nil
}

// validateStepped replays acts on a stepped cluster (in a new directory
// under dir) and hands each step's events and snapshot to a validator
// promising the given invariants: the step it refused (1 = the first) and
// why, or 0 and nil.
func validateStepped(cfg *model.Config, acts []model.Action, promised []string, dir string, mutants []Mutant) (int, error) {
	d, err := os.MkdirTemp(dir, "validate-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(d)
	var mu sync.Mutex
	var events []cluster.Event
	cl, err := refine.NewCluster(cfg, d, func(cc *cluster.Config) {
		cc.Hook = func(e cluster.Event) {
			mu.Lock()
			events = append(events, e)
			mu.Unlock()
		}
	})
	if err != nil {
		return 0, err
	}
	defer cl.Close()
	v := newValidator(cfg, mutants)
	v.expected = promised
	for i, a := range acts {
		mu.Lock()
		events = nil
		mu.Unlock()
		if err := refine.Step(cl, cfg, a); err != nil {
			return i + 1, fmt.Errorf("the stepped cluster refused %s: %v", a, err)
		}
		mu.Lock()
		st := cluster.SimStep{N: i + 1, Decision: a.String(), Events: slices.Clone(events), Snapshot: cl.Snapshot()}
		mu.Unlock()
		if err := v.Observe(st); err != nil {
			return i + 1, err
		}
	}
	return 0, nil
}
