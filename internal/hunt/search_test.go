package hunt

import (
	"context"
	"testing"
	"time"

	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/model/explore"
	"github.com/hwepoch/hwepoch/trace"
)

// The searches find each bug with its signature, at bounds small enough
// for a test: KIP-101's two scenarios by the breadth-first search at two
// replicas (the bounds of spec/hw-acked-loss and hw-unflushed-divergence),
// KIP-279 by the swarm at the table's three-replica bounds, and the two
// bugs whose shortest counterexamples are too deep for a test at three
// replicas (the zombie follower, KAFKA-7128) by the swarm walking on from
// their stories cut well before the violation and before the mechanism.
// How long the full searches take is BenchmarkHunt's and hwepoch hunt's
// business.
func TestSearchesFindEachBugWithItsSignature(t *testing.T) {
	opt := Options{Workers: 2, Seed: 1, Timeout: time.Minute}
	for _, tc := range []struct {
		bug    string
		method Method
		adjust func(*model.Config)
	}{
		{"kip101-1", BFS, func(c *model.Config) { c.Replicas, c.MinInsyncReplicas, c.MaxRecords = c.Replicas[:2], 1, 1 }},
		{"kip101-2", BFS, func(c *model.Config) { c.Replicas, c.MinInsyncReplicas = c.Replicas[:2], 1 }},
		{"kip279", Swarm, nil},
	} {
		b := mustBug(t, tc.bug)
		if tc.adjust != nil {
			tc.adjust(&b.Config)
		}
		c := Search(context.Background(), b, tc.method, opt)
		if c.Status != Found || c.Err != nil {
			t.Fatalf("%s %s: %s after %.1fs (%v)", tc.bug, tc.method, c.Status, c.Seconds, c.Err)
		}
		if !b.Signature(&b.Config, *c.Trace, c.Property) || c.Property != b.Invariant {
			t.Fatalf("%s %s: the counterexample (%s) lacks the signature", tc.bug, tc.method, c.Property)
		}
		if cert := Certify(b, &c, ""); !cert.OK() {
			t.Fatalf("%s %s: replay %v, render %v", tc.bug, tc.method, cert.ReplayErr, cert.RenderErr)
		}
	}
	for _, s := range stories(t) {
		if s.bug != "kip320" && s.bug != "kafka-7128" {
			continue
		}
		b := mustBug(t, s.bug)
		// The story as a behaviour of the bug's configuration, cut before
		// the step that carries the mechanism.
		tr := applyActions(t, &b.Config, actionsOf(s.tr))
		cut := mechanismStep(t, b, tr) - 3
		prefix := trace.Trace{Steps: tr.Steps[:cut+1]}
		res, err := explore.Swarm(context.Background(), &b.Config, explore.SwarmOptions{
			Options: explore.Options{Workers: 2, Invariants: []string{b.Invariant}},
			Seed:    1, Walks: 20000, MinSteps: 10, MaxSteps: 40, Prefix: &prefix, Accept: accept(b)})
		if err != nil {
			t.Fatal(err)
		}
		if res.Violation == nil {
			t.Fatalf("%s: no counterexample with the signature in %d walks from the story's first %d steps", s.bug, res.Walks, cut)
		}
		if !b.Signature(&b.Config, res.Violation.Trace, res.Violation.Property) {
			t.Fatalf("%s: the swarm returned a counterexample without the signature", s.bug)
		}
		t.Logf("%s: from the story's first %d of %d steps: walk %d, %d steps", s.bug, cut, tr.Len()-1, res.Walk, res.Steps)
	}
}

// actionsOf writes a trace's actions as applyActions reads them.
func actionsOf(tr trace.Trace) string {
	out := ""
	for i, st := range tr.Steps[1:] {
		if i > 0 {
			out += ";"
		}
		out += st.Action.String()
	}
	return out
}

// mechanismStep is the index of the step of the story that carries the
// bug's mechanism: the zombie's fetch served by a leader of a newer epoch,
// or KAFKA-7128's ExpandIsr.
func mechanismStep(t *testing.T, b Bug, tr trace.Trace) int {
	t.Helper()
	want := model.HandleFetch
	if b.Name == "kafka-7128" {
		want = model.ExpandIsr
	}
	for i, st := range tr.Steps {
		if st.Action.Kind != want {
			continue
		}
		if want == model.ExpandIsr {
			return i
		}
		// the zombie's fetch: sent in an older epoch than its leader's
		prev := &tr.Steps[i-1].State
		l, f := b.Config.Index(st.Action.L), b.Config.Index(st.Action.F)
		if prev.Inflight[f].CurrentEpoch < prev.LeaderEpoch[l] {
			return i
		}
	}
	t.Fatalf("%s: the story has no %s carrying the mechanism", b.Name, want)
	return 0
}

// The cell search finds KAFKA-7128 from Init at the table's three-replica
// bounds (about 0.8 M states, 29 states deep), with its signature, and
// its counterexample replays on the implementation.
func TestCellSearchFindsKafka7128(t *testing.T) {
	b := mustBug(t, "kafka-7128")
	c := Search(context.Background(), b, Cells, Options{Workers: 2, Seed: 1, Timeout: 150 * time.Second})
	if c.Status != Found || c.Err != nil {
		t.Fatalf("%s after %.1fs (%v): %+v", c.Status, c.Seconds, c.Err, c.Cells)
	}
	if c.Property != b.Invariant || !b.Signature(&b.Config, *c.Trace, c.Property) {
		t.Fatalf("the counterexample (%s) lacks the signature", c.Property)
	}
	if cert := Certify(b, &c, ""); !cert.OK() {
		t.Fatalf("replay %v, render %v", cert.ReplayErr, cert.RenderErr)
	}
	t.Logf("%.1fs, %d states, round %d, a counterexample of %d states", c.Seconds, c.States, c.Cells.Rounds, c.Length())
}
