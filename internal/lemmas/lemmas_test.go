package lemmas

import (
	"context"
	"flag"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/model/tlccfg"
	"github.com/hwepoch/hwepoch/trace"
	"github.com/hwepoch/hwepoch/trace/scenario"
	"github.com/hwepoch/hwepoch/trace/tlcjson"
)

var all = flag.Bool("lemmas.all", false, "run every plan at its configuration's own bounds, those marked Big (a minute or more each) too")

// reduced are the plans go test runs at smaller bounds than their
// configuration's (the same release and switches; each a few seconds where
// the whole took most of a minute of CPU): every lemma judged as the plan
// says — held, its premise met, or violated. At their own bounds, held to
// traces/lemmas.json and to TLC's count of states as TestLemmaPlans holds
// hw-acked-loss, they are hwepoch verify's lemma stage (and `go test
// ./internal/lemmas -lemmas.all`).
var reduced = map[string]func(*model.Config){
	// MaxEpoch 1 instead of 2: 225252 distinct states instead of 3140637.
	"le-fenced-2": func(c *model.Config) { c.MaxEpoch = 1 },
	// MaxRecords 1 instead of 2: 116187 instead of 986938; a lost
	// unflushed tail still breaks L4c.
	"le-unflushed": func(c *model.Config) { c.MaxRecords = 1 },
}

// TestLemmaPlans explores each plan's configuration exhaustively at its
// own bounds and judges every lemma on every reachable state and step: the
// lemmas of Hold hold and had something to judge (their premise was met),
// the lemmas of Violate are violated. Where TLC recorded a run that holds,
// the number of distinct states is TLC's: the lemmas saw exactly the
// states TLC and the explorer check; and the results are the ones
// traces/lemmas.json records (which docs/correctness.md quotes). The plans
// of reduced run at smaller bounds (no count to compare then), the Big ones
// not at all, unless -lemmas.all.
func TestLemmaPlans(t *testing.T) {
	spec, err := tlccfg.FindSpecDir(".")
	if err != nil {
		t.Fatal(err)
	}
	runs, err := tlcjson.LoadRuns(filepath.Join(filepath.Dir(spec), "traces", "tlc"))
	if err != nil {
		t.Fatal(err)
	}
	specHash, err := tlcjson.FileSHA256(filepath.Join(spec, "Replication.tla"))
	if err != nil {
		t.Fatal(err)
	}
	rec, err := LoadRecording(RecordingPath(spec))
	if err != nil {
		t.Fatalf("%v (record the lemma results with %s)", err, RecordCommand())
	}
	for _, p := range Plans {
		t.Run(p.Config, func(t *testing.T) {
			if p.Big && !*all {
				t.Skipf("takes a minute or more: go test ./internal/lemmas -lemmas.all, or hwepoch lemmas %s", p.Config)
			}
			if testing.Short() && p.Config != "hw-acked-loss" {
				t.Skip("-short")
			}
			t.Parallel()
			chk, err := tlccfg.LoadCheck(filepath.Join(spec, p.Config+".cfg"))
			if err != nil {
				t.Fatal(err)
			}
			reduce := reduced[p.Config]
			if *all {
				reduce = nil
			}
			if reduce != nil {
				reduce(&chk.Config)
			}
			rep, err := Check(context.Background(), &chk.Config, All, Options{Symmetry: chk.Symmetry, Name: p.Config})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %d distinct states, %d steps, depth %d, %v (%s)", p.Config, rep.Distinct, rep.Steps, rep.Depth, rep.Duration, chk.Config.String())
			if reduce == nil {
				fresh := RecordOf(p.Config, rep, "", "")
				if recorded, ok := rec.Get(p.Config); !ok {
					t.Errorf("%s: no record in %s; record it with %s", p.Config, RecordingFile, RecordCommand(p.Config))
				} else if diff := recorded.Diff(fresh); len(diff) > 0 {
					t.Errorf("%s: the fresh results differ from %s (which docs/correctness.md quotes):\n\t%s\nre-record with %s, then go test ./docs -update and check the prose numbers",
						p.Config, RecordingFile, strings.Join(diff, "\n\t"), RecordCommand(p.Config))
				}
				if r, ok := runs.Get(p.Config); ok && r.Verdict == "holds" && r.SpecSHA256 == specHash {
					if r.DistinctStates != rep.Distinct || r.Depth != rep.Depth {
						t.Errorf("TLC found %d distinct states, depth %d; the lemma search %d, depth %d", r.DistinctStates, r.Depth, rep.Distinct, rep.Depth)
					}
				}
			}
			for _, o := range rep.Outcomes {
				name := o.Lemma.Name
				switch {
				case slices.Contains(p.Hold, name):
					if o.Violated != nil {
						t.Errorf("%s is violated (trace of %d states):\n%s", o.Lemma, o.Violated.Len(), render(&chk.Config, *o.Violated))
					} else if o.Premise == 0 {
						t.Errorf("%s holds vacuously: its premise is never met", name)
					}
					t.Logf("%s holds; premise met %d times", name, o.Premise)
				case p.Violate[name] != "":
					if o.Violated == nil {
						t.Errorf("%s holds, but must be violated here: %s", name, p.Violate[name])
					} else {
						t.Logf("%s violated as expected (%s), trace of %d states", name, p.Violate[name], o.Violated.Len())
					}
				}
			}
		})
	}
}

func render(cfg *model.Config, tr trace.Trace) string {
	var b []byte
	w := &sliceWriter{&b}
	trace.Render(w, cfg, tr)
	return string(b)
}

type sliceWriter struct{ b *[]byte }

func (w *sliceWriter) Write(p []byte) (int, error) { *w.b = append(*w.b, p...); return len(p), nil }

// Every plan names a configuration of the manifest and lemmas that exist.
func TestPlansAreWellFormed(t *testing.T) {
	spec, err := tlccfg.FindSpecDir(".")
	if err != nil {
		t.Fatal(err)
	}
	man, err := tlccfg.LoadManifest(spec)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range Plans {
		if _, ok := man.Lookup(p.Config); !ok {
			t.Errorf("plan %s: no such configuration in the manifest", p.Config)
		}
		for _, n := range p.Hold {
			if _, ok := Find(n); !ok {
				t.Errorf("plan %s: no lemma %s", p.Config, n)
			}
		}
		for n := range p.Violate {
			if _, ok := Find(n); !ok || slices.Contains(p.Hold, n) {
				t.Errorf("plan %s: lemma %s unknown or both held and violated", p.Config, n)
			}
		}
	}
}

// twoReplicas is a state of r1 (leader) and r2 with the given logs as
// record epochs (ids are offset+1 within each log, distinct across logs
// where the epochs differ) and caches derived from the logs.
func twoReplicas(policy string, leader, follower []int) (*model.Config, model.State) {
	cfg := &model.Config{Replicas: []model.Replica{"r1", "r2"}, Truncation: policy, Acks: "all",
		MinInsyncReplicas: 1, MaxRecords: 8, MaxEpoch: 8, MaxCrashes: 0}
	s := model.Init(cfg)
	mk := func(epochs []int) ([]model.Record, []model.Entry) {
		var log []model.Record
		var cache []model.Entry
		for o, e := range epochs {
			log = append(log, model.Record{ID: 100*e + o, Epoch: e})
			cache = model.Assign(cfg, cache, e, o)
		}
		return log, cache
	}
	s.Log = make([][]model.Record, 2)
	s.EpochCache = make([][]model.Entry, 2)
	s.Log[0], s.EpochCache[0] = mk(leader)
	s.Log[1], s.EpochCache[1] = mk(follower)
	s.Hw = []int{0, len(follower)}
	return cfg, s
}

// KIP-279's case (design.md §6): A = [e0 e2 e2 e2 e4 e4] leads, B =
// [e0 e1 e3] follows. Kafka 0.11.0's rule leaves B untouched (offsets 1-2
// diverge); the KIP-279 loop ends at offset 1, a prefix both logs share.
func TestTruncationOffsetKIP279(t *testing.T) {
	a, b := []int{0, 2, 2, 2, 4, 4}, []int{0, 1, 3}
	cfg, s := twoReplicas(model.LeaderEpoch, a, b)
	if to, done := TruncationOffset(cfg, &s, 0, 1); to != 1 || !done || !sharePrefix(s.Log[0], s.Log[1], to) {
		t.Errorf("LeaderEpoch: truncation to %d (done %t), want 1, a shared prefix", to, done)
	}
	cfg, s = twoReplicas(model.Kip101, a, b)
	if to, _ := TruncationOffset(cfg, &s, 0, 1); to != 3 || sharePrefix(s.Log[0], s.Log[1], to) {
		t.Errorf("Kip101: truncation to %d, want 3 (nothing truncated, not a shared prefix)", to)
	}
	if _, ok := truncationFindsSharedPrefix(cfg, withLeader(cfg, s)); ok {
		t.Errorf("L2a holds on KIP-279's case under Kip101")
	}
	cfg, s = twoReplicas(model.LeaderEpoch, a, b)
	if premise, ok := truncationFindsSharedPrefix(cfg, withLeader(cfg, s)); !premise || !ok {
		t.Errorf("L2a under LeaderEpoch: premise %t, ok %t", premise, ok)
	}
}

// KIP-101 scenario 2 (design.md §6): B restarted with [m1], was elected
// in epoch 1 and wrote m3 at offset 1: B = [e0 e1] leads; A = [e0 e0] (m1
// m2) follows with HW 2. HighWatermark keeps A's m2 at offset 1, where B
// has m3; LeaderEpoch asks for the end of epoch 0, gets 1 and truncates to 1.
func TestTruncationOffsetKIP101Scenario2(t *testing.T) {
	a, b := []int{0, 1}, []int{0, 0}
	cfg, s := twoReplicas(model.HighWatermark, a, b)
	if to, _ := TruncationOffset(cfg, &s, 0, 1); to != 2 {
		t.Errorf("HighWatermark: %d, want 2 (the HW)", to)
	}
	cfg, s = twoReplicas(model.LeaderEpoch, a, b)
	if to, _ := TruncationOffset(cfg, &s, 0, 1); to != 1 {
		t.Errorf("LeaderEpoch: %d, want 1", to)
	}
}

// withLeader makes r1 the controller's current leader of epoch 4.
func withLeader(cfg *model.Config, s model.State) *model.State {
	s.Role = []model.Role{model.Leader, model.Follower}
	s.LeaderEpoch = []int{4, 4}
	s.CtrlLeader, s.CtrlEpoch = cfg.Replicas[0], 4
	return &s
}

// TestLemmasAlongScenarios judges the lemmas on every state and step of
// every scenario case: every LeaderEpoch case keeps them all except the
// stale-leader case without fencing (KIP-320), where a replica serves a
// request of an epoch it does not lead (L3) and the follower done
// truncating ends up with a log that is not a prefix of its leader's
// (L2b); the HighWatermark and Kip101 cases whose logs diverge break some.
func TestLemmasAlongScenarios(t *testing.T) {
	spec, err := tlccfg.FindSpecDir(".")
	if err != nil {
		t.Fatal(err)
	}
	scs, err := scenario.LoadDir(filepath.Join(filepath.Dir(spec), "traces", "scenarios"))
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range scs {
		for _, c := range sc.Cases() {
			tr, v, err := sc.Run(c)
			if err != nil {
				t.Fatal(err)
			}
			cfg := sc.Config(c)
			bs := AlongTrace(&cfg, tr)
			t.Logf("%s %s: %s", sc.Name, c, breaksString(bs))
			diverges := slices.Contains(v.Invariants(), "NoDivergence")
			switch {
			case c.Policy == model.LeaderEpoch && strings.HasPrefix(sc.Name, "kip320-") && !cfg.Fencing:
				// KIP-320's cases without fencing: an unfenced request is
				// served across an epoch (L3) and a reconciled follower
				// stops holding a prefix of its leader's log (L2b).
				for _, want := range []string{"L3", "L2b"} {
					if !slices.ContainsFunc(bs, func(b Break) bool { return b.Lemma == want }) {
						t.Errorf("%s %s: %s should break (an unfenced request is served across epochs and shapes the follower's log): %s", sc.Name, c, want, breaksString(bs))
					}
				}
			case c.Policy == model.LeaderEpoch:
				if len(bs) > 0 {
					t.Errorf("%s %s: lemmas break under LeaderEpoch: %s", sc.Name, c, breaksString(bs))
				}
			case diverges && len(bs) == 0:
				t.Errorf("%s %s: the logs diverge but no lemma breaks", sc.Name, c)
			}
		}
	}
}

// L4e bites where it matters: take the first state (breadth first, at
// de-fenced-2's bounds) in which a leader answers a fetch with
// divergingEpoch, and seed the bug the check prevents — the leader reads for
// that fetch anyway, as if it had not compared lastFetchedEpoch with its
// cache. The read it would then count is not backed, and L4e says so; on
// the real answer (no read) L4e has nothing to object to.
func TestL4eBitesOnADivergingFetchReadAnyway(t *testing.T) {
	spec, err := tlccfg.FindSpecDir(".")
	if err != nil {
		t.Fatal(err)
	}
	chk, err := tlccfg.LoadCheck(filepath.Join(spec, "de-fenced-2.cfg"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := &chk.Config
	seen := map[string]bool{}
	queue := []model.State{model.Init(cfg)}
	for len(queue) > 0 && len(seen) < 200000 {
		s := queue[0]
		queue = queue[1:]
		var found bool
		err := model.Next(cfg, s, func(a model.Action, u model.State) bool {
			f := cfg.Index(a.F)
			if a.Kind == model.HandleFetch && u.Inflight[f].Diverging && s.Inflight[f].Offset <= s.LEO(cfg.Index(a.L)) {
				l, m := cfg.Index(a.L), s.Inflight[f]
				if p, ok := countedReadBacked(cfg, &u); p && !ok {
					t.Errorf("L4e objects to the real divergingEpoch answer of step %v", a)
				}
				mutant := u
				mutant.Inflight = slices.Clone(u.Inflight)
				mutant.Inflight[f] = model.FetchRead(a.L, a.F, m.Offset, s.Log[l][m.Offset:], s.Hw[l], s.LEO(l), m.CurrentEpoch, false)
				premise, ok := countedReadBacked(cfg, &mutant)
				if !premise || ok {
					t.Errorf("L4e (premise %v, holds %v) misses a read of a diverging fetch at %v:\n%s", premise, ok, a,
						render(cfg, trace.Trace{Steps: []trace.Step{{State: s}, {Action: a, State: mutant}}}))
				}
				found = true
				return false
			}
			if k := string(model.Encode(u)); !seen[k] {
				seen[k] = true
				queue = append(queue, u)
			}
			return true
		})
		if err != nil {
			t.Fatal(err)
		}
		if found {
			return
		}
	}
	t.Fatal("no divergingEpoch answer reached at de-fenced-2's bounds within 200000 states")
}
