package explore

import (
	"context"
	"reflect"
	"testing"

	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/model/tlccfg"
)

// The packed engine is held to the readable one: on every ci configuration
// of the manifest (liveness ones by their safety search), with and without
// symmetry, and with one and two workers, the same distinct states, states
// generated, depth and queue, and the same first violation with the same
// trace.
func TestPackedEngineEqualsReadable(t *testing.T) {
	m, err := tlccfg.LoadManifest(specDir(t))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range m.Configs {
		if !e.CI {
			continue
		}
		chk, err := m.LoadCheck(e)
		if err != nil {
			t.Fatal(err)
		}
		for _, sym := range []bool{chk.Symmetry, !chk.Symmetry} {
			if sym && chk.Config.N() < 2 {
				continue
			}
			workers := 1 + n%2
			n++
			pk := runEngine(t, chk, sym, workers, EnginePacked)
			rd := runEngine(t, chk, sym, workers, EngineReadable)
			comparePacked(t, chk.Name, sym, pk, rd)
		}
	}
}

func runEngine(t *testing.T, chk *tlccfg.Check, sym bool, workers int, engine string) *Result {
	t.Helper()
	res, err := Run(context.Background(), &chk.Config, Options{Workers: workers, Invariants: chk.Invariants,
		Properties: chk.Properties, Symmetry: sym, ConfigName: chk.Name, Engine: engine})
	if err != nil {
		t.Fatalf("%s (%s): %v", chk.Name, engine, err)
	}
	return res
}

func comparePacked(t *testing.T, name string, sym bool, pk, rd *Result) {
	t.Helper()
	if pk.Distinct != rd.Distinct || pk.Generated != rd.Generated || pk.Depth != rd.Depth || pk.Queue != rd.Queue ||
		pk.Complete != rd.Complete {
		t.Errorf("%s (symmetry %t): packed %d distinct, %d generated, depth %d, queue %d; readable %d, %d, %d, %d",
			name, sym, pk.Distinct, pk.Generated, pk.Depth, pk.Queue, rd.Distinct, rd.Generated, rd.Depth, rd.Queue)
	}
	if (pk.Violation == nil) != (rd.Violation == nil) {
		t.Errorf("%s (symmetry %t): packed violation %v, readable %v", name, sym, pk.Violation, rd.Violation)
		return
	}
	if pk.Violation != nil {
		if pk.Violation.Property != rd.Violation.Property || !reflect.DeepEqual(actionsOf(pk.Violation), actionsOf(rd.Violation)) {
			t.Errorf("%s (symmetry %t): packed found %s by %v, readable %s by %v", name, sym,
				pk.Violation.Property, actionsOf(pk.Violation), rd.Violation.Property, actionsOf(rd.Violation))
		}
	}
}

// Asking for the packed engine on a configuration beyond its maxima is an
// error; the default falls back to the readable engine.
func TestPackedEngineRefusesWhatDoesNotFit(t *testing.T) {
	cfg := model.Config{Replicas: []model.Replica{"r1", "r2", "r3", "r4", "r5"}, Truncation: model.LeaderEpoch,
		Acks: "all", MinInsyncReplicas: 1, MaxRecords: 1}
	opts := Options{Invariants: []string{"TypeOK"}, MaxDepth: 3, Engine: EnginePacked}
	if _, err := Run(context.Background(), &cfg, opts); err == nil {
		t.Fatal("the packed engine searched 5 replicas")
	}
	opts.Engine = EngineAuto
	if _, err := Run(context.Background(), &cfg, opts); err != nil {
		t.Fatalf("the default engine did not fall back: %v", err)
	}
	opts.Engine = "fast"
	if _, err := Run(context.Background(), &cfg, opts); err == nil {
		t.Fatal("an unknown engine was accepted")
	}
}

func actionsOf(v *Violation) []model.Action {
	var out []model.Action
	for _, st := range v.Trace.Steps {
		out = append(out, st.Action)
	}
	return out
}
