package verify

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
// to copies of their .cfg files.
func tempManifest(t *testing.T, entries string, cfgs ...string) *tlccfg.Manifest {
	t.Helper()
	src := repoSpec(t)
	dir := filepath.Join(t.TempDir(), "spec")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range cfgs {
		b, err := os.ReadFile(filepath.Join(src, c+".cfg"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, c+".cfg"), b, 0o644); err != nil {
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
		{"name": "w-leader-change", "policy": "LeaderEpoch", "kind": "proof", "expect": "holds", "ci": true},
		{"name": "le-fenced-2", "policy": "LeaderEpoch", "kind": "proof", "expect": "holds"}`,
		"w-leader-change", "le-fenced-2")
	runs := &tlcjson.Runs{Runs: []tlcjson.Run{{Name: "le-fenced-2", Mode: "bfs", Verdict: "holds", DistinctStates: 1095142, Depth: 42}}}

	rows := ExploreRows(context.Background(), man, runs, ExplorePlan{Mode: Quick}, nil)
	if len(rows) != 2 || rows[1].Status != Skipped || rows[1].Size != `skipped (not in --quick's set: manifest "ci": false; run without --quick)` {
		t.Fatalf("quick: %+v", rows)
	}
	if r := rows[0]; r.Status != Fail || !strings.Contains(r.Found, "violated NeverLeaderChange") || !strings.Contains(r.Found, "WRONG") ||
		r.Counterexample == nil {
		t.Errorf("a wrong verdict must fail with its counterexample: %+v", r)
	}

	rows = ExploreRows(context.Background(), man, runs, ExplorePlan{Mode: Default, Budget: 1000}, nil)
	if r := rows[1]; r.Status != Skipped || r.Size != "skipped (1095142 states; run hwepoch check le-fenced-2)" {
		t.Errorf("default over budget: %+v", r)
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
	man := tempManifest(t, `{"name": "w-leader-change", "policy": "LeaderEpoch", "kind": "witness", "expect": "violated", "property": "NeverLeaderChange", "ci": true}`,
		"w-leader-change")
	sum, err := tlcjson.FileSHA256(man.CfgPath(man.Configs[0]))
	if err != nil {
		t.Fatal(err)
	}
	run := tlcjson.Run{Name: "w-leader-change", Mode: "bfs", Verdict: "violated", Property: "NeverLeaderChange", DistinctStates: 91, Depth: 6, TraceLength: 5}
	for _, tc := range []struct {
		cfgSum, vs string
		status     Status
	}{
		{sum, VsSameViolation, Pass},
		{"0123456789abcdef", VsCfgChanged, Pass},
		{"", VsCfgChanged, Pass},
	} {
		run.CfgSHA256 = tc.cfgSum
		r, err := ExploreConfig(context.Background(), man, man.Configs[0], &tlcjson.Runs{Runs: []tlcjson.Run{run}}, ExploreOptions{Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		row := exploreRow(r)
		if r.VsTLC != tc.vs || row.Status != tc.status {
			t.Errorf("run recorded for cfg %q: vs TLC %q (%s), row %v; want %q", tc.cfgSum, r.VsTLC, r.Why, row.Status, tc.vs)
		}
		if tc.vs == VsCfgChanged && (!strings.Contains(row.Found, "NOT COMPARED WITH TLC") || !strings.Contains(r.Why, "rerun `hwepoch tlc w-leader-change`")) {
			t.Errorf("a changed cfg must be said: %+v", row)
		}
	}
}

// The note about a missing runs.json names it as the user would type it
// from where they stand, not relative to some other directory.
func TestRunsNoteNamesTheFileFromTheCurrentDirectory(t *testing.T) {
	man := tempManifest(t, `{"name": "w-leader-change", "policy": "LeaderEpoch", "kind": "witness", "expect": "violated", "property": "NeverLeaderChange"}`,
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
