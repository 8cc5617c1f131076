package explorerruns

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func holds() Run {
	return Run{Config: "a", Verdict: "holds", DistinctStates: 100, StatesGenerated: 250, Depth: 9,
		Seconds: 1, Workers: 2, CfgSHA256: "cfg1", SpecSHA256: "spec1"}
}

// Compare says "=" only for the same counts (holds) or the same property
// and counterexample length (violated), and compares nothing when the
// record was made on other files.
func TestCompare(t *testing.T) {
	rec := holds()
	pending := holds()
	pending.Pending = "a search of hours"
	same := Result{Verdict: "holds", DistinctStates: 100, StatesGenerated: 250, Depth: 9}
	viol := Run{Config: "w", Verdict: "violated", Property: "P", TraceLength: 5, DistinctStates: 10, StatesGenerated: 20, Depth: 4,
		Workers: 1, CfgSHA256: "cfg1", SpecSHA256: "spec1"}
	for _, tc := range []struct {
		name      string
		rec       Run
		cfg, spec string
		got       Result
		want      string
	}{
		{"same", rec, "cfg1", "spec1", same, Same},
		{"one state more", rec, "cfg1", "spec1", Result{Verdict: "holds", DistinctStates: 101, StatesGenerated: 250, Depth: 9}, Mismatch},
		{"one generated more", rec, "cfg1", "spec1", Result{Verdict: "holds", DistinctStates: 100, StatesGenerated: 251, Depth: 9}, Mismatch},
		{"deeper", rec, "cfg1", "spec1", Result{Verdict: "holds", DistinctStates: 100, StatesGenerated: 250, Depth: 10}, Mismatch},
		{"violated now", rec, "cfg1", "spec1", Result{Verdict: "violated", Property: "P", TraceLength: 3}, Mismatch},
		{"cfg changed", rec, "cfg2", "spec1", Result{Verdict: "holds", DistinctStates: 1}, CfgChanged},
		{"spec changed", rec, "cfg1", "spec2", Result{Verdict: "holds", DistinctStates: 1}, SpecChanged},
		{"pending, spec changed", pending, "cfg1", "spec2", Result{Verdict: "holds", DistinctStates: 1}, SpecChanged},
		{"pending, but made on this spec: compared", pending, "cfg1", "spec1", Result{Verdict: "holds", DistinctStates: 101, StatesGenerated: 250, Depth: 9}, Mismatch},
		{"same violation, other counts", viol, "cfg1", "spec1", Result{Verdict: "violated", Property: "P", TraceLength: 5, DistinctStates: 12}, Same},
		{"other property", viol, "cfg1", "spec1", Result{Verdict: "violated", Property: "Q", TraceLength: 5}, Mismatch},
		{"longer counterexample", viol, "cfg1", "spec1", Result{Verdict: "violated", Property: "P", TraceLength: 6}, Mismatch},
	} {
		got, why := Compare(tc.rec, tc.cfg, tc.spec, tc.got)
		if got != tc.want || (got == Same) != (why == "") {
			t.Errorf("%s: %q (%s), want %q", tc.name, got, why, tc.want)
		}
		if (got == CfgChanged || got == SpecChanged) && !strings.Contains(why, "hwepoch check -record "+tc.rec.Config) {
			t.Errorf("%s: %s does not say how to re-record", tc.name, why)
		}
		if got == SpecChanged && tc.rec.Pending != "" && !strings.Contains(why, tc.rec.Pending) {
			t.Errorf("%s: %s does not say why the record is pending", tc.name, why)
		}
	}
}

// Two `check -record` at once: the one that finishes second keeps what the
// first recorded meanwhile, and a write reads back to the same bytes.
func TestRecordKeepsRunsRecordedMeanwhile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "traces", "explorer", "runs.json")
	a, b := holds(), holds()
	b.Config = "b"
	if err := Record(path, a); err != nil { // creates the directory and the file
		t.Fatal(err)
	}
	stale, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := Record(path, b); err != nil {
		t.Fatal(err)
	}
	c := holds()
	c.Config = "c"
	stale.Put(c) // what a writer without the re-read would write
	if _, ok := stale.Get("b"); ok {
		t.Fatal("the stale copy has b: the test proves nothing")
	}
	if err := Record(path, c); err != nil {
		t.Fatal(err)
	}
	got, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"a", "b", "c"} {
		if _, ok := got.Get(n); !ok {
			t.Errorf("%s lost: %+v", n, got.Runs)
		}
	}
	before, _ := os.ReadFile(path)
	if err := got.Write(path); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Errorf("reading and writing back changed the file:\n%s\n%s", before, after)
	}
}

// A record that could compare as equal by zero values, or is not one JSON
// document, is refused with its place.
func TestLoadRefusesMalformedRecords(t *testing.T) {
	path := filepath.Join(t.TempDir(), "runs.json")
	for _, tc := range []struct{ json, want string }{
		{`{"runs": [{"config": "a", "verdict": "holds", "distinctStates": 0, "statesGenerated": 0, "depth": 0, "workers": 1, "cfgSha256": "x", "specSha256": "y"}]}`, "a: distinctStates 0"},
		{`{"runs": [{"config": "a", "verdict": "violated", "distinctStates": 3, "statesGenerated": 3, "depth": 1, "workers": 1, "cfgSha256": "x", "specSha256": "y"}]}`, "a: a violated run needs its property"},
		{`{"runs": [{"config": "a", "verdict": "maybe"}]}`, `a: verdict "maybe"`},
		{`{"runs": [{"verdict": "holds"}]}`, "runs[0]: no config"},
		{`{"runs": [{"config": "a", "verdict": "holds", "distinctStates": 3, "statesGenerated": 3, "depth": 1, "workers": 1}]}`, "a: no cfgSha256"},
		{`{"runs": [{"config": "a", "verdict": "holds", "distinctStates": 3, "statesGenerated": 3, "depth": 1, "workers": 1, "cfgSha256": "x", "specSha256": "y"},
		            {"config": "a", "verdict": "holds", "distinctStates": 3, "statesGenerated": 3, "depth": 1, "workers": 1, "cfgSha256": "x", "specSha256": "y"}]}`, "a recorded twice"},
		{`{"runs": [], "runs": []}`, "line 1"},
		{`{"runs": [{"config": "a", "distinct": 3}]}`, "distinct"},
	} {
		if err := os.WriteFile(path, []byte(tc.json), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(path); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", tc.json, err, tc.want)
		}
	}
	if _, err := Load(filepath.Join(t.TempDir(), "none.json")); !os.IsNotExist(err) {
		t.Errorf("a missing file: %v, want os.ErrNotExist", err)
	}
}

// A new record carries where and when it was made; the commit is a
// revision or says it is unknown, never empty.
func TestNewRunSaysWhereAndWhen(t *testing.T) {
	r := NewRun("a", Result{Verdict: "holds", DistinctStates: 3, StatesGenerated: 4, Depth: 2}, 1234*time.Millisecond, 2, "c", "s", t.TempDir())
	if r.Seconds != 1.2 || r.Workers != 2 || !strings.Contains(r.Machine, "GOMAXPROCS") || r.Commit != "unknown" {
		t.Errorf("%+v", r)
	}
	if _, err := time.Parse(time.RFC3339, r.Date); err != nil {
		t.Error(err)
	}
	if err := r.check(); err != nil {
		t.Error(err)
	}
	if c := Commit("."); c == "" {
		t.Error("empty commit")
	}
}

// Recording a configuration again clears its "pending": the new record is
// of the spec as it is.
func TestRecordClearsPending(t *testing.T) {
	path := filepath.Join(t.TempDir(), "runs.json")
	old := holds()
	old.Pending = "re-record after the spec change"
	if err := Record(path, old); err != nil {
		t.Fatal(err)
	}
	if runs, err := Load(path); err != nil || runs.Runs[0].Pending == "" {
		t.Fatalf("the pending record did not read back: %v %+v", err, runs)
	}
	fresh := NewRun("a", Result{Verdict: "holds", DistinctStates: 100, StatesGenerated: 250, Depth: 9}, time.Second, 2, "cfg1", "spec2", t.TempDir())
	if err := Record(path, fresh); err != nil {
		t.Fatal(err)
	}
	runs, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := runs.Get("a"); r.Pending != "" || r.SpecSHA256 != "spec2" {
		t.Errorf("after recording again: pending %q, spec %q; want no pending, spec2", r.Pending, r.SpecSHA256)
	}
}
