package verify

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hwepoch/hwepoch/internal/explorerruns"
	"github.com/hwepoch/hwepoch/internal/testfiles"
	"github.com/hwepoch/hwepoch/model/tlccfg"
	"github.com/hwepoch/hwepoch/trace/tlcjson"
)

func repoSpec(t *testing.T) string {
	t.Helper()
	d, err := tlccfg.FindSpecDir(".")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// tempManifest writes a manifest of the given entries (JSON objects) next
// to copies of the spec and their .cfg files.
func tempManifest(t *testing.T, entries string, cfgs ...string) *tlccfg.Manifest {
	t.Helper()
	src := repoSpec(t)
	dir := filepath.Join(t.TempDir(), "spec")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	files := []string{"Replication.tla"}
	for _, c := range cfgs {
		files = append(files, c+".cfg")
	}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	man := `{"spec": "Replication.tla", "configs": [` + entries + `]}`
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(man), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := tlccfg.LoadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// The explore stage skips what its mode excludes, saying why and how to run
// it; it explores the rest and marks a verdict the manifest does not
// expect as failed.
func TestExploreRowsSkipAndJudge(t *testing.T) {
	man := tempManifest(t, `
		{"name": "w-leader-change", "policy": "LeaderEpoch", "release": "2.1.0", "kind": "proof", "expect": "holds", "ci": true},
		{"name": "le-fenced-2", "policy": "LeaderEpoch", "release": "2.1.0", "kind": "proof", "expect": "holds", "ci": false}`,
		"w-leader-change", "le-fenced-2")
	cfgSum, _, err := Sums(man, man.Configs[1])
	if err != nil {
		t.Fatal(err)
	}
	runs := &tlcjson.Runs{Runs: []tlcjson.Run{{Name: "le-fenced-2", Mode: "bfs", Verdict: "holds", DistinctStates: 1095142, Depth: 42, CfgSHA256: cfgSum}}}

	rows := ExploreRows(context.Background(), man, Records{TLC: runs}, ExplorePlan{Mode: Quick}, nil)
	if len(rows) != 2 || rows[1].Status != Skipped || rows[1].Size != `skipped (not in --quick's set: manifest "ci": false; run without --quick)` {
		t.Fatalf("quick: %+v", rows)
	}
	if r := rows[0]; r.Status != Fail || !strings.Contains(r.Found, "violated NeverLeaderChange") || !strings.Contains(r.Found, "WRONG") ||
		r.Counterexample == nil {
		t.Errorf("a wrong verdict must fail with its counterexample: %+v", r)
	}

	rows = ExploreRows(context.Background(), man, Records{TLC: runs}, ExplorePlan{Mode: Default, Budget: 1000}, nil)
	if r := rows[1]; r.Status != Skipped || r.Size != "skipped (1095142 states, TLC's run; run hwepoch check le-fenced-2)" {
		t.Errorf("default over budget: %+v", r)
	}
}

// The default mode sizes a configuration by TLC's run, else by the
// explorer's recorded run, and never explores a configuration the manifest
// does not mark "ci" whose size no run of its files records: a big
// configuration added without a record cannot make verify run for hours.
// Only a record of the .cfg and spec as they are now counts.
func TestDefaultModeSkipsWhatNoRecordSizes(t *testing.T) {
	man := tempManifest(t, `{"name": "le-fenced-2", "policy": "LeaderEpoch", "release": "2.1.0", "kind": "proof", "expect": "holds", "ci": false}`, "le-fenced-2")
	e := man.Configs[0]
	cfgSum, specSum, err := Sums(man, e)
	if err != nil {
		t.Fatal(err)
	}
	exRun := func(distinct int64, cfg, spec string) *explorerruns.Runs {
		return &explorerruns.Runs{Runs: []explorerruns.Run{{Config: e.Name, Verdict: "holds", DistinctStates: distinct,
			StatesGenerated: distinct, Depth: 42, Workers: 2, CfgSHA256: cfg, SpecSHA256: spec}}}
	}
	tlcRun := func(distinct int64, cfg string) *tlcjson.Runs {
		return &tlcjson.Runs{Runs: []tlcjson.Run{{Name: e.Name, Mode: "bfs", Verdict: "holds", DistinctStates: distinct, Depth: 42, CfgSHA256: cfg}}}
	}
	plan := ExplorePlan{Mode: Default, Budget: 1000}
	for _, tc := range []struct {
		name string
		rec  Records
		want string // the skip reason; "" to be explored
	}{
		{"no record", Records{}, "skipped (size unknown: no TLC or explorer run recorded; run hwepoch check le-fenced-2)"},
		{"explorer's record over budget", Records{Explorer: exRun(5000, cfgSum, specSum)},
			"skipped (5000 states, the explorer's recorded run; run hwepoch check le-fenced-2)"},
		{"TLC's run first", Records{TLC: tlcRun(7000, cfgSum), Explorer: exRun(5, cfgSum, specSum)},
			"skipped (7000 states, TLC's run; run hwepoch check le-fenced-2)"},
		{"explorer's record of another cfg", Records{Explorer: exRun(5, "other", specSum)},
			"skipped (size unknown: its runs were recorded on another le-fenced-2.cfg or spec; run hwepoch check le-fenced-2)"},
		{"explorer's record of another spec", Records{Explorer: exRun(5, cfgSum, "other")},
			"skipped (size unknown: its runs were recorded on another le-fenced-2.cfg or spec; run hwepoch check le-fenced-2)"},
		{"TLC's run of another cfg", Records{TLC: tlcRun(5, "other")},
			"skipped (size unknown: its runs were recorded on another le-fenced-2.cfg or spec; run hwepoch check le-fenced-2)"},
		{"explorer's record within budget", Records{Explorer: exRun(999, cfgSum, specSum)}, ""},
	} {
		if got := skipConfig(man, e, tc.rec, plan); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
		if got := skipConfig(man, e, tc.rec, ExplorePlan{Mode: All}); got != "" {
			t.Errorf("%s: --all skips it: %q", tc.name, got)
		}
	}
	// A "ci" configuration is small by the manifest's word: explored.
	e.CI = true
	if got := skipConfig(man, e, Records{}, plan); got != "" {
		t.Errorf("a ci configuration without a record: %q", got)
	}
}

// The explorer's recorded run is held to: a count other than the record's
// fails the row, a record of other files is not compared and says so.
func TestJudgeComparesTheExplorersRecord(t *testing.T) {
	man := tempManifest(t, `{"name": "w-leader-change", "policy": "LeaderEpoch", "release": "2.1.0", "kind": "witness", "expect": "violated", "property": "NeverLeaderChange", "ci": true}`,
		"w-leader-change")
	e := man.Configs[0]
	cfgSum, specSum, err := Sums(man, e)
	if err != nil {
		t.Fatal(err)
	}
	first, err := ExploreConfig(context.Background(), man, e, Records{}, ExploreOptions{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if first.Recorded != nil || first.VsRec != "" {
		t.Fatalf("no record, yet compared: %+v", first)
	}
	good := explorerruns.NewRun(e.Name, first.Result(), first.Res.Duration, 1, cfgSum, specSum, man.Dir)
	longer := good
	longer.TraceLength++
	for _, tc := range []struct {
		name   string
		rec    explorerruns.Run
		vs     string
		status Status
		says   string
	}{
		{"same", good, explorerruns.Same, Pass, "(recorded counterexample: "},
		{"a longer counterexample recorded", longer, explorerruns.Mismatch, Fail, "MISMATCH WITH THE RECORDED RUN: recorded violated NeverLeaderChange"},
		{"cfg changed", func() explorerruns.Run { r := good; r.CfgSHA256 = "0123"; return r }(), explorerruns.CfgChanged, Pass,
			"NOT COMPARED WITH THE RECORDED RUN: w-leader-change was recorded on w-leader-change.cfg sha256 0123"},
	} {
		r, err := ExploreConfig(context.Background(), man, e, Records{Explorer: &explorerruns.Runs{Runs: []explorerruns.Run{tc.rec}}}, ExploreOptions{Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		row := exploreRow(r)
		if r.VsRec != tc.vs || row.Status != tc.status || r.Good() != (tc.status == Pass) {
			t.Errorf("%s: vs rec %q (%s), row %v, want %q %v", tc.name, r.VsRec, r.WhyRec, row.Status, tc.vs, tc.status)
		}
		if !strings.Contains(row.Found+row.Expected, tc.says) {
			t.Errorf("%s: the row does not say %q: %+v", tc.name, tc.says, row)
		}
	}
}

// copyTrace copies traces/tlc/NAME.json into dir/REL, applying edit.
func copyTrace(t *testing.T, dir, name, rel string, edit func(string) string) {
	t.Helper()
	src := filepath.Join(RunsDir(repoSpec(t)), name+".json")
	if _, err := os.Stat(src); err != nil {
		t.Skipf("no TLC trace %s recorded: %v", name, err)
	}
	testfiles.Copy(t, src, filepath.Join(dir, rel), edit)
}

// TLC's traces must replay and show exactly their run's violation at
// their last state; a simulated behaviour must show none.
func TestTLCTraceRows(t *testing.T) {
	man, err := tlccfg.LoadManifest(repoSpec(t))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	same := func(s string) string { return s }
	copyTrace(t, dir, "hw-acked-loss", "hw-acked-loss.json", same)
	// The last state's acked set emptied: the model's state differs.
	copyTrace(t, dir, "w-acked", "w-acked.json", func(s string) string {
		var f map[string]any
		if err := json.Unmarshal([]byte(s), &f); err != nil {
			t.Fatal(err)
		}
		states := f["counterexample"].(map[string]any)["state"].([]any)
		vars := states[len(states)-1].([]any)[1].(map[string]any)
		vars["acked"] = []any{}
		b, err := json.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	})
	// A witness passed off as a simulated behaviour: it violates NeverAcked.
	copyTrace(t, dir, "w-acked", "sim/w-acked-seed7.json", same)
	rows := TLCTraceRows(man, dir)
	if len(rows) != 3 {
		t.Fatalf("%d rows: %+v", len(rows), rows)
	}
	byItem := map[string]Row{}
	for _, r := range rows {
		byItem[r.Item] = r
	}
	if r := byItem["hw-acked-loss.json"]; r.Status != Pass || r.Found != "replays, NoAckedLoss at step 15 (the last)" {
		t.Errorf("hw-acked-loss: %+v", r)
	}
	if r := byItem["w-acked.json"]; r.Status != Fail || !strings.HasPrefix(r.Found, "does not") || !strings.Contains(r.Found, "step 4") {
		t.Errorf("tampered w-acked: %+v", r)
	}
	if r := byItem["sim/w-acked-seed7.json"]; r.Status != Fail || r.Expected != "replays, nothing violated" || !strings.Contains(r.Found, "NeverAcked") {
		t.Errorf("sim: %+v", r)
	}
}

// A scenario whose expectation is wrong fails its row.
func TestScenarioRowsUnexpected(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(filepath.Dir(repoSpec(t)), "traces", "scenarios", "kip101-scenario-1.scenario"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bad := strings.Replace(string(src), "expect Kip101 LeaderEpoch DivergingEpoch holds",
		"expect Kip101 DivergingEpoch holds\nexpect LeaderEpoch violates NoAckedLoss", 1)
	if bad == string(src) {
		t.Fatal("kip101-scenario-1 no longer has the expect line this test edits")
	}
	if err := os.WriteFile(filepath.Join(dir, "kip101-scenario-1.scenario"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	rows, scs := ScenarioRows(dir)
	if len(rows) != 4 || len(scs) != 1 {
		t.Fatalf("%+v", rows)
	}
	if r := rows[0]; r.Policy != "HighWatermark" || r.Status != Pass || r.Found != "violates NoAckedLoss@26 NoVisibleLoss@26" || r.Counterexample == nil {
		t.Errorf("HighWatermark: %+v", r)
	}
	if r := rows[2]; r.Policy != "LeaderEpoch" || r.Status != Fail || !strings.Contains(r.Found, "UNEXPECTED") {
		t.Errorf("LeaderEpoch: %+v", r)
	}
	for _, i := range []int{1, 3} {
		if r := rows[i]; r.Status != Pass {
			t.Errorf("%s: %+v", r.Policy, r)
		}
	}
}

func TestWriteTable(t *testing.T) {
	var b bytes.Buffer
	WriteTable(&b, []Row{
		{Stage: "explore", Item: "a", Expected: "holds", Found: "holds", Status: Pass},
		{Stage: "scenario", Item: "b", Expected: "holds", Found: "violates X@3", Status: Fail},
		{Stage: "explore", Item: "c", Size: "skipped (why)", Expected: "holds", Found: "not run", Status: Skipped},
	})
	out := b.String()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "stage") || !strings.HasSuffix(lines[1], "✓") ||
		!strings.HasSuffix(lines[2], "✗") || !strings.HasSuffix(lines[3], "-") || !strings.Contains(lines[3], "skipped (why)") {
		t.Errorf("table:\n%s", out)
	}
	if p, f, s := Count([]Row{{Status: Pass}, {Status: Fail}, {Status: Skipped}, {Status: Pass}}); p != 2 || f != 1 || s != 1 {
		t.Errorf("Count: %d %d %d", p, f, s)
	}
}

func TestDiffFields(t *testing.T) {
	d := "  refine.stateFields{\n  \t... // 13 identical fields\n- \tNextId:          2,\n+ \tNextId:          1,\n- \tHw: {0, 1},\n+ \tHw: {0, 0},\n  }\n"
	if got := diffFields(d); got != "NextId, Hw" {
		t.Errorf("diffFields = %q", got)
	}
}

// verify compares each configuration with TLC's run only when the run was
// made on the same .cfg (its cfgSha256); "=" is reserved for configurations
// that hold with TLC's exact counts.
func TestJudgeComparesTheCfgHash(t *testing.T) {
	man := tempManifest(t, `{"name": "w-leader-change", "policy": "LeaderEpoch", "release": "2.1.0", "kind": "witness", "expect": "violated", "property": "NeverLeaderChange", "ci": true}`,
		"w-leader-change")
	sum, err := tlcjson.FileSHA256(man.CfgPath(man.Configs[0]))
	if err != nil {
		t.Fatal(err)
	}
	run := tlcjson.Run{Name: "w-leader-change", Mode: "bfs", Verdict: "violated", Property: "NeverLeaderChange", DistinctStates: 91, Depth: 6, TraceLength: 5}
	specSum, err := tlcjson.FileSHA256(filepath.Join(man.Dir, man.Spec))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		cfgSum, specSum, vs string
		status              Status
	}{
		{sum, specSum, VsSameViolation, Pass},
		{sum, "", VsSameViolation, Pass},
		{"0123456789abcdef", specSum, VsCfgChanged, Pass},
		{"", specSum, VsCfgChanged, Pass},
		// a run of another spec, in a runs.json a re-record is rewriting
		{sum, "fedcba9876543210", VsSpecChanged, Pass},
	} {
		run.CfgSHA256, run.SpecSHA256 = tc.cfgSum, tc.specSum
		r, err := ExploreConfig(context.Background(), man, man.Configs[0], Records{TLC: &tlcjson.Runs{Runs: []tlcjson.Run{run}}}, ExploreOptions{Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		row := exploreRow(r)
		if r.VsTLC != tc.vs || row.Status != tc.status {
			t.Errorf("run recorded for cfg %q: vs TLC %q (%s), row %v; want %q", tc.cfgSum, r.VsTLC, r.Why, row.Status, tc.vs)
		}
		if (tc.vs == VsCfgChanged || tc.vs == VsSpecChanged) && (!strings.Contains(row.Found, "NOT COMPARED WITH TLC") || !strings.Contains(r.Why, "rerun `hwepoch tlc w-leader-change`")) {
			t.Errorf("a changed cfg or spec must be said: %+v", row)
		}
	}
}

// The note about a missing runs.json names it as the user would type it
// from where they stand, not relative to some other directory.
func TestRunsNoteNamesTheFileFromTheCurrentDirectory(t *testing.T) {
	man := tempManifest(t, `{"name": "w-leader-change", "policy": "LeaderEpoch", "release": "2.1.0", "kind": "witness", "expect": "violated", "property": "NeverLeaderChange", "ci": false}`,
		"w-leader-change")
	root := filepath.Dir(man.Dir)
	t.Chdir(filepath.Join(root, "spec"))
	_, note, err := LoadRuns(man, RunsFile(man.Dir))
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(root, "traces", "tlc", "runs.json") + " does not exist"
	if !strings.HasPrefix(note, want) {
		t.Errorf("from spec/: note %q, want it to start %q", note, want)
	}
	t.Chdir(root)
	if _, note, _ = LoadRuns(man, RunsFile(man.Dir)); !strings.HasPrefix(note, filepath.Join("traces", "tlc", "runs.json")+" does not exist") {
		t.Errorf("from the root: note %q, want it relative to the root", note)
	}
}

// Wrap keeps every line within the width, words whole where they fit.
func TestWrapKeepsTheWidth(t *testing.T) {
	long := strings.Repeat("x", 300)
	for _, s := range []string{"", "short", strings.Repeat("word ", 80), "a " + long + " b"} {
		lines := Wrap(s, 40, "  ")
		if strings.Join(strings.Fields(strings.Join(lines, "")), "") != strings.Join(strings.Fields(s), "") {
			t.Errorf("%q: wrapping lost or added text: %q", s, lines)
		}
		for _, l := range lines {
			if n := len([]rune(l)); n > 36 {
				t.Errorf("%q: line %q has %d runes, want at most 36", s, l, n)
			}
		}
	}
}

// A TLC trace whose run was made on another version of its .cfg is not
// replayed under this one: the row says the .cfg changed and how to record
// the run again.
func TestTLCTraceRowsSkipARunOfAnotherCfg(t *testing.T) {
	man, err := tlccfg.LoadManifest(repoSpec(t))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	copyTrace(t, dir, "hw-acked-loss", "hw-acked-loss.json", func(s string) string { return s })
	sum, err := tlcjson.FileSHA256(filepath.Join(man.Dir, "hw-acked-loss.cfg"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		cfgSum string
		status Status
	}{{sum, Pass}, {"0123", Skipped}} {
		runs := &tlcjson.Runs{Runs: []tlcjson.Run{{Name: "hw-acked-loss", Mode: "bfs", Config: "hw-acked-loss", CfgSHA256: tc.cfgSum,
			Verdict: "violated", Property: "NoAckedLoss", TraceJSON: "hw-acked-loss.json", TraceLength: 13}}}
		if err := runs.Write(dir); err != nil {
			t.Fatal(err)
		}
		rows := TLCTraceRows(man, dir)
		if len(rows) != 1 || rows[0].Status != tc.status {
			t.Fatalf("run recorded for cfg %q: %+v", tc.cfgSum, rows)
		}
		if tc.status == Skipped && !strings.Contains(rows[0].Size, "hw-acked-loss.cfg changed since TLC's run") {
			t.Errorf("the row must say why: %+v", rows[0])
		}
	}
}

// A run under -reduce of an entry the manifest does not mark "reduce" is
// compared with TLC's run by verdict alone ("same verdict": its counts are
// the quotient's) and not with the explorer's record of the full search.
func TestJudgeOfAReducedRun(t *testing.T) {
	man := tempManifest(t, `{"name": "le-unflushed", "policy": "LeaderEpoch", "release": "2.1.0", "kind": "proof", "expect": "holds", "ci": false}`,
		"le-unflushed")
	e := man.Configs[0]
	cfgSum, specSum, err := Sums(man, e)
	if err != nil {
		t.Fatal(err)
	}
	full, err := ExploreConfig(context.Background(), man, e, Records{}, ExploreOptions{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	rec := explorerruns.NewRun(e.Name, full.Result(), full.Res.Duration, 2, cfgSum, specSum, man.Dir)
	tlc := tlcjson.Run{Name: e.Name, Mode: "bfs", Verdict: "holds", DistinctStates: full.Res.Distinct, Depth: full.Res.Depth, CfgSHA256: cfgSum}
	records := Records{TLC: &tlcjson.Runs{Runs: []tlcjson.Run{tlc}}, Explorer: &explorerruns.Runs{Runs: []explorerruns.Run{rec}}}
	same, err := ExploreConfig(context.Background(), man, e, records, ExploreOptions{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if same.VsTLC != VsSameStates || same.VsRec != explorerruns.Same {
		t.Fatalf("the full run: vs TLC %q, vs rec %q", same.VsTLC, same.VsRec)
	}
	red, err := ExploreConfig(context.Background(), man, e, records, ExploreOptions{Workers: 2, Reduce: true})
	if err != nil {
		t.Fatal(err)
	}
	if !red.Res.Reduced || red.Res.Distinct >= full.Res.Distinct {
		t.Fatalf("reduced: %v, %d states (full: %d)", red.Res.Reduced, red.Res.Distinct, full.Res.Distinct)
	}
	if red.VsTLC != VsSameVerdict || red.VsRec != explorerruns.NotRecorded || red.Recorded != nil || !red.Good() {
		t.Fatalf("the reduced run: vs TLC %q, vs rec %q, good %t", red.VsTLC, red.VsRec, red.Good())
	}
}
