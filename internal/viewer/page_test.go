package viewer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hwepoch/hwepoch/impl/broker"
	"github.com/hwepoch/hwepoch/impl/cluster"
	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/model/explore"
	"github.com/hwepoch/hwepoch/model/tlccfg"
	"github.com/hwepoch/hwepoch/refine"
	"github.com/hwepoch/hwepoch/refine/sim"
	"github.com/hwepoch/hwepoch/trace"
)

const repo = "../.."

var dataRE = regexp.MustCompile(`(?s)<script type="application/json" id="trace-data">\n(.*?)</script>`)

// embedded is what a page carries: its data as the script reads it.
func embedded(t *testing.T, page []byte) data {
	t.Helper()
	m := dataRE.FindSubmatch(page)
	if m == nil {
		t.Fatal("the page has no #trace-data script")
	}
	var d data
	if err := json.Unmarshal(m[1], &d); err != nil {
		t.Fatalf("the page's data: %v", err)
	}
	return d
}

// pageStates rebuilds the states a page shows (step 0's variables, then
// each step's changed ones, as viewer.js does) and decodes them with the
// trace package's decoder, the one TLC's JSON traces are read with.
func pageStates(cfg *model.Config, d data) ([]model.State, error) {
	var out []model.State
	vars := map[string]any{}
	for i, st := range d.Steps {
		for k, v := range st.Set {
			vars[k] = v
		}
		s, err := trace.ValuesToState(cfg, vars)
		if err != nil {
			return nil, fmt.Errorf("step %d: %v", i, err)
		}
		out = append(out, s)
	}
	return out, nil
}

// sameAsReplay compares a page with the model's replay of its trace:
// the same number of states, each equal, and each step's action.
func sameAsReplay(cfg *model.Config, tr trace.Trace, want []model.State, d data) error {
	got, err := pageStates(cfg, d)
	if err != nil {
		return err
	}
	if len(got) != len(want) {
		return fmt.Errorf("the page has %d states, the replay %d", len(got), len(want))
	}
	for i := range want {
		if !got[i].Equal(want[i]) {
			return fmt.Errorf("step %d: the page's state differs from the replay's:\n%s", i, refine.Diff(want[i], got[i]))
		}
		if i > 0 && d.Steps[i].Action != trace.ActionString(tr.Steps[i].Action) {
			return fmt.Errorf("step %d: the page says %s, the trace %s", i, d.Steps[i].Action, trace.ActionString(tr.Steps[i].Action))
		}
		// The violations marked are the ones the checker finds there.
		var marked []string
		for _, v := range d.Steps[i].Violated {
			marked = append(marked, v.Invariant)
		}
		if bad := refine.Violated(cfg, want[i], d.Invariants); !slices.Equal(marked, bad) {
			return fmt.Errorf("step %d: the page marks %v violated, the checker finds %v", i, marked, bad)
		}
	}
	return nil
}

func render1(t *testing.T, p Page) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, p); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// writeSim writes the run of the first seed from 1 that loses records
// under HighWatermark, as hwepoch chaos writes it.
func writeSim(t testing.TB, dir string) string {
	t.Helper()
	for seed := uint64(1); seed < 50; seed++ {
		r := sim.Run(sim.Options{Seed: seed, Settings: []string{"Truncation=" + model.HighWatermark}, Events: 200, Dir: dir})
		if !r.Lost() {
			continue
		}
		path := filepath.Join(dir, fmt.Sprintf("seed-%d-HighWatermark.sim", seed))
		var b bytes.Buffer
		if err := sim.WriteRun(&b, r); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	t.Fatal("no seed of 1..49 loses under HighWatermark")
	return ""
}

// TestPageStatesAreReplayStates: for every kind of trace the viewer reads,
// the page's embedded states are the ones the model's replay computes,
// step for step, and its actions are the trace's.
func TestPageStatesAreReplayStates(t *testing.T) {
	tmp := t.TempDir()
	files := []string{
		filepath.Join(repo, "traces/tlc/hw-acked-loss.json"),
		filepath.Join(repo, "traces/tlc/trace_kip101_divergence.tla"),
		filepath.Join(repo, "traces/regressions/kafka-7128-expand-below-epoch-start.itf.json"),
		filepath.Join(repo, "traces/scenarios/kip101-scenario-2.scenario"),
	}
	for _, f := range files {
		loaded, err := Load(f, "", refine.Options{})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		cases, err := refine.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		if len(loaded) != len(cases) {
			t.Fatalf("%s: %d pages for %d cases", f, len(loaded), len(cases))
		}
		for i, c := range cases {
			want, err := refine.ReplayModel(c.Config, c.Trace, refine.Options{})
			if err != nil {
				t.Fatal(err)
			}
			d := embedded(t, render1(t, loaded[i].Page))
			if err := sameAsReplay(c.Config, c.Trace, want, d); err != nil {
				t.Errorf("%s: %v", c.Name, err)
			}
			if loaded[i].Page.Mismatch != nil {
				t.Errorf("%s: a mismatch where replay finds none: %+v", c.Name, loaded[i].Page.Mismatch)
			}
		}
	}

	// A chaos run: the page shows the model's states of its steps, as
	// hwepoch chaos -replay replays them.
	simPath := writeSim(t, tmp)
	loaded, err := Load(simPath, "", refine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f, _ := os.Open(simPath)
	rf, err := sim.ReadRun(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	rep, err := sim.Replay(rf, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var want []model.State
	for _, st := range rep.Trace.Steps {
		want = append(want, st.State)
	}
	d := embedded(t, render1(t, loaded[0].Page))
	if err := sameAsReplay(rep.Config, rep.Trace, want, d); err != nil {
		t.Errorf("%s: %v", simPath, err)
	}
	if len(want) != len(rf.Steps)+1 {
		t.Errorf("%s: %d states for %d steps", simPath, len(want), len(rf.Steps))
	}
	if !slices.ContainsFunc(d.Steps, func(s step) bool { return len(s.Violated) > 0 }) {
		t.Errorf("%s: a run that loses records, and no step is marked violated", simPath)
	}
}

// TestComparisonBites: the comparison above is not vacuous: one field of
// one embedded state changed (an HW, a record's epoch), one step dropped,
// or one action renamed, and it says where.
func TestComparisonBites(t *testing.T) {
	f := filepath.Join(repo, "traces/tlc/hw-acked-loss.json")
	loaded, err := Load(f, "", refine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := (func() refine.Case { cs, _ := refine.Load(f); return cs[0] })()
	want, _ := refine.ReplayModel(c.Config, c.Trace, refine.Options{})
	page := render1(t, loaded[0].Page)
	if err := sameAsReplay(c.Config, c.Trace, want, embedded(t, page)); err != nil {
		t.Fatalf("the page as written: %v", err)
	}
	corrupt := map[string]func(d *data){
		"an HW": func(d *data) {
			hw := map[string]any{}
			for _, r := range d.Replicas {
				hw[r] = 7 // beyond every LEO of the trace
			}
			d.Steps[5].Set["hw"] = hw
		},
		"a record's epoch": func(d *data) {
			last := len(d.Steps) - 1
			for i := last; i >= 0; i-- {
				if lg, ok := d.Steps[i].Set["log"].(map[string]any); ok {
					for r, recs := range lg {
						if rs := recs.([]any); len(rs) > 0 {
							rs[0].(map[string]any)["epoch"] = 9
							_ = r
							return
						}
					}
				}
			}
		},
		"a step dropped":    func(d *data) { d.Steps = d.Steps[:len(d.Steps)-1] },
		"an action renamed": func(d *data) { d.Steps[3].Action = "Produce(r9)" },
		"a violation unmarked": func(d *data) {
			for i := range d.Steps {
				d.Steps[i].Violated = nil
			}
		},
	}
	for name, f := range corrupt {
		d := embedded(t, page)
		f(&d)
		if err := sameAsReplay(c.Config, c.Trace, want, d); err == nil {
			t.Errorf("%s corrupted, and the comparison did not notice", name)
		}
	}
}

// TestRefusedAsReplayRefuses: a trace the model does not take is refused
// with replay's own report, and no page is made.
func TestRefusedAsReplayRefuses(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(repo, "traces/regressions/kafka-7128-expand-below-epoch-start.itf.json"))
	if err != nil {
		t.Fatal(err)
	}
	// Rename the first step's action: the model does not take it.
	bad := strings.Replace(string(src), `"action": "Elect"`, `"action": "Restart"`, 1)
	if bad == string(src) {
		t.Fatal("the regression has no Elect step to break")
	}
	path := filepath.Join(t.TempDir(), "broken.itf.json")
	os.WriteFile(path, []byte(bad), 0o644)
	_, err = Load(path, "", refine.Options{})
	var refused *RefusedError
	if !errors.As(err, &refused) {
		t.Fatalf("Load: %v, want a *RefusedError", err)
	}
	cs, lerr := refine.Load(path)
	if lerr != nil {
		t.Fatal(lerr)
	}
	rerr := refine.ReplayCase(cs[0], refine.Options{})
	if rerr == nil || !strings.Contains(err.Error(), rerr.Error()) {
		t.Errorf("the viewer says\n%v\nreplay says\n%v", err, rerr)
	}
}

// TestLassoLoop: an ITF trace with a "loop" field (the explorer's lasso
// of live-hw-catchup) is a page whose data mark the cycle; a loop
// outside the trace is refused when the file is read.
func TestLassoLoop(t *testing.T) {
	dir := t.TempDir()
	path, loop := writeLasso(t, dir, false)
	loaded, err := Load(path, "", refine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d := embedded(t, render1(t, loaded[0].Page)); d.Loop != loop {
		t.Errorf("loop %d, want %d", d.Loop, loop)
	}
	bad, _ := writeLasso(t, dir, true)
	if _, err := Load(bad, "", refine.Options{}); err == nil || !strings.Contains(err.Error(), "loop") {
		t.Errorf("a loop beyond the trace: %v", err)
	}
	if err := Write(&bytes.Buffer{}, Page{Config: loaded[0].Page.Config, Trace: loaded[0].Page.Trace, Loop: 50}); err == nil {
		t.Error("a page with a loop beyond its trace was written")
	}
}

// writeLasso writes a liveness counterexample as ITF: the explorer's lasso
// of live-hw-catchup (Kafka 0.10.2 loses a committed record, then the
// fetchers go round for ever), or with a loop past its end when bad. It
// returns the path and the lasso's loop.
func writeLasso(t *testing.T, dir string, bad bool) (string, int) {
	t.Helper()
	chk, err := tlccfg.LoadCheck(filepath.Join(repo, "spec", "live-hw-catchup.cfg"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := explore.CheckLiveness(context.Background(), &chk.Config, explore.LiveOptions{Properties: chk.LiveProperties, ConfigName: chk.Name})
	if err != nil || res.Violation == nil {
		t.Fatalf("live-hw-catchup: no lasso (%v)", err)
	}
	tr := res.Violation.Trace
	tr.ConfigName = "" // the file carries its constants (#meta.hwepoch)
	name := "lasso.itf.json"
	if bad {
		tr.Loop, name = tr.Len()+50, "bad-lasso.itf.json"
	}
	path := filepath.Join(dir, name)
	if err := refine.WriteRegression(path, &chk.Config, tr, nil, "a liveness counterexample for the viewer's test"); err != nil {
		t.Fatal(err)
	}
	return path, res.Violation.Loop
}

// TestMismatchSideBySide: an implementation with a seeded bug departs from
// the model; the page carries both states at that step and names the
// variables that differ, as replay's diff does.
func TestMismatchSideBySide(t *testing.T) {
	f := filepath.Join(repo, "traces/scenarios/kip101-scenario-1.scenario")
	opt := refine.Options{Cluster: func(c *cluster.Config) { c.Mutants = []broker.Mutant{broker.MutantTruncateToHW} }}
	loaded, err := Load(f, "", opt)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, l := range loaded {
		m := l.Page.Mismatch
		if m == nil {
			continue
		}
		found = true
		d := embedded(t, render1(t, l.Page))
		if d.Mismatch == nil || d.Mismatch.Got == nil || len(d.Mismatch.Differ) == 0 {
			t.Fatalf("%s: mismatch data %+v", l.Name, d.Mismatch)
		}
		for _, v := range d.Mismatch.Differ {
			if canon(d.Mismatch.Model[v]) == canon(d.Mismatch.Got[v]) {
				t.Errorf("%s: %s is marked as differing but is equal", l.Name, v)
			}
		}
		for _, v := range model.VarNames {
			if !slices.Contains(d.Mismatch.Differ, v) && canon(d.Mismatch.Model[v]) != canon(d.Mismatch.Got[v]) {
				t.Errorf("%s: %s differs but is not marked", l.Name, v)
			}
		}
	}
	if !found {
		t.Fatal("the truncate-to-hw mutant departs from no case of kip101-scenario-1")
	}
}

// TestWriteFileAtomic: a page that cannot be made leaves nothing behind,
// not even a temporary file, and does not touch an earlier page.
func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "p.html")
	os.WriteFile(path, []byte("earlier"), 0o644)
	if err := WriteFile(path, Page{}); err == nil {
		t.Fatal("a page without a configuration was written")
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("files left: %v", ents)
	}
	if b, _ := os.ReadFile(path); string(b) != "earlier" {
		t.Errorf("the earlier page was changed: %q", b)
	}
}

// TestSelfContained: nothing in a page asks the network for anything.
func TestSelfContained(t *testing.T) {
	loaded, err := Load(filepath.Join(repo, "traces/tlc/hw-acked-loss.json"), "", refine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	page := string(render1(t, loaded[0].Page))
	for _, bad := range []string{"<link", " src=", "@import", "url(", "fetch(", "XMLHttpRequest", "https://"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page contains %q", bad)
		}
	}
}
