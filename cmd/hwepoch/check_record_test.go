package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hwepoch/hwepoch/internal/explorerruns"
)

// smallBounds cuts le-fenced-2 to one record, one leader change and no
// crash: a configuration that holds, explored in a fraction of a second.
func smallBounds(name, cfg string) string {
	if name != "le-fenced-2" {
		return cfg
	}
	return strings.NewReplacer("MaxRecords = 2", "MaxRecords = 1", "MaxEpoch = 2", "MaxEpoch = 1", "MaxCrashes = 1", "MaxCrashes = 0").Replace(cfg)
}

// vsRec is the "vs rec" column of name's row in check's table.
func vsRec(t *testing.T, out, name string) string {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) > 1 && f[0] == name {
			return f[len(f)-1]
		}
	}
	t.Fatalf("no row of %s:\n%s", name, out)
	return ""
}

// editRecord rewrites the record of config in the explorer runs at path.
func editRecord(t *testing.T, path, config string, edit func(*explorerruns.Run)) {
	t.Helper()
	runs, err := explorerruns.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	r, ok := runs.Get(config)
	if !ok {
		t.Fatalf("no record of %s", config)
	}
	edit(&r)
	runs.Put(r)
	if err := runs.Write(path); err != nil {
		t.Fatal(err)
	}
}

// check -record writes the explorer's runs; the next check holds every
// run to them: "=" when the same, MISMATCH and exit 1 for a wrong count
// (holds) or counterexample length (violated), and a run that disagrees
// with its record is not recorded over it.
func TestCheckRecordsAndHoldsRunsToTheRecord(t *testing.T) {
	dir := tempSpec(t, smallBounds, "w-leader-change", "le-fenced-2")
	path := explorerruns.Path(dir)
	code, out, errs := runCLI("check", "-q", "-record", "-spec", dir)
	if code != 0 || !strings.Contains(errs, "recorded w-leader-change in ") || !strings.Contains(out, "recorded 2 runs in ") {
		t.Fatalf("-record: exit %d\n%s\n%s", code, out, errs)
	}
	runs, err := explorerruns.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	w, _ := runs.Get("w-leader-change")
	le, _ := runs.Get("le-fenced-2")
	if w.Verdict != "violated" || w.Property != "NeverLeaderChange" || w.TraceLength != 5 || w.CfgSHA256 == "" || w.SpecSHA256 == "" ||
		le.Verdict != "holds" || le.DistinctStates == 0 || le.StatesGenerated < le.DistinctStates || le.Depth == 0 ||
		!strings.Contains(le.Machine, "GOMAXPROCS") || le.Date == "" || le.Commit == "" || le.Workers < 1 {
		t.Fatalf("records: %+v", runs.Runs)
	}

	code, out, errs = runCLI("check", "-q", "-spec", dir)
	if code != 0 || vsRec(t, out, "w-leader-change") != "=" || vsRec(t, out, "le-fenced-2") != "=" || !strings.Contains(out, "vs rec: ") ||
		strings.Contains(errs, "does not exist: not comparing with the explorer") {
		t.Fatalf("against the record: exit %d\n%s\n%s", code, out, errs)
	}

	for _, tc := range []struct {
		config, why string
		edit        func(*explorerruns.Run)
	}{
		{"le-fenced-2", "distinct states", func(r *explorerruns.Run) { r.DistinctStates++ }},
		{"le-fenced-2", "generated", func(r *explorerruns.Run) { r.StatesGenerated-- }},
		{"le-fenced-2", "depth", func(r *explorerruns.Run) { r.Depth++ }},
		{"w-leader-change", "counterexample of 6 states", func(r *explorerruns.Run) { r.TraceLength = 6 }},
	} {
		good, _ := runs.Get(tc.config)
		editRecord(t, path, tc.config, tc.edit)
		code, out, errs = runCLI("check", "-q", "-spec", dir, tc.config)
		if code != 1 || vsRec(t, out, tc.config) != "MISMATCH" || !strings.Contains(out, "MISMATCH WITH THE RECORDED RUN "+tc.config+": recorded") ||
			!strings.Contains(out, tc.why) {
			t.Errorf("%s with a wrong %s recorded: exit %d\n%s\n%s", tc.config, tc.why, code, out, errs)
		}
		before, _ := os.ReadFile(path)
		code, out, _ = runCLI("check", "-q", "-record", "-spec", dir, tc.config)
		if after, _ := os.ReadFile(path); code != 1 || !strings.Contains(out, "NOT RECORDED "+tc.config+": the run disagrees with the recorded run") ||
			string(after) != string(before) {
			t.Errorf("%s: -record over a record it disagrees with: exit %d, file changed %v\n%s", tc.config, code, string(after) != string(before), out)
		}
		editRecord(t, path, tc.config, func(r *explorerruns.Run) { *r = good })
	}
}

// A record made on another .cfg or spec is not compared, and says so; a
// fresh -record replaces it.
func TestCheckSaysTheFilesChangedSinceTheRecord(t *testing.T) {
	dir := tempSpec(t, smallBounds, "le-fenced-2")
	path := explorerruns.Path(dir)
	if code, out, errs := runCLI("check", "-q", "-record", "-spec", dir); code != 0 {
		t.Fatalf("-record: exit %d\n%s\n%s", code, out, errs)
	}
	editRecord(t, path, "le-fenced-2", func(r *explorerruns.Run) { r.DistinctStates, r.StatesGenerated = 7, 7 }) // stale, and wrong for these files
	for _, tc := range []struct{ file, vs string }{{"le-fenced-2.cfg", "cfg changed"}, {"Replication.tla", "spec changed"}} {
		f := filepath.Join(dir, tc.file)
		orig, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, append(orig, "\n\\* edited after the record\n"...), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, errs := runCLI("check", "-q", "-spec", dir)
		if code != 0 || !strings.Contains(out, "  "+tc.vs+"\n") || strings.Contains(out, "MISMATCH") ||
			!strings.Contains(out, "NOT COMPARED WITH THE RECORDED RUN le-fenced-2: ") || !strings.Contains(out, "re-record with `hwepoch check -record le-fenced-2`") {
			t.Errorf("%s edited: exit %d\n%s\n%s", tc.file, code, out, errs)
		}
		if err := os.WriteFile(f, orig, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The files as recorded again: the wrong count is caught.
	if code, out, _ := runCLI("check", "-q", "-spec", dir); code != 1 || !strings.Contains(out, "MISMATCH") {
		t.Errorf("files restored: exit %d\n%s", code, out)
	}
}

// A run whose verdict is not the manifest's is never recorded: check says
// why and exits 1, and the record is not created.
func TestCheckRefusesToRecordAWrongVerdict(t *testing.T) {
	dir := tempSpec(t, smallBounds, "w-leader-change")
	m := `{"spec": "Replication.tla", "configs": [{"name": "w-leader-change", "policy": "LeaderEpoch", "release": "2.1.0", "kind": "proof", "expect": "holds", "ci": false}]}`
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(m), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI("check", "-q", "-record", "-spec", dir)
	if code != 1 || !strings.Contains(out, "NOT RECORDED w-leader-change: the manifest expects holds, the explorer found violated NeverLeaderChange") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	if _, err := os.Stat(explorerruns.Path(dir)); !os.IsNotExist(err) {
		t.Errorf("a wrong verdict was recorded: %v", err)
	}
	if code, _, errs := runCLI("check", "-record", "-simulate", "3"); code != 2 || !strings.Contains(errs, "record") {
		t.Errorf("-record -simulate: exit %d, %s", code, errs)
	}
}

// A manifest entry that says why TLC has no run shows it where TLC's
// numbers would be.
func TestCheckPrintsWhyTLCHasNoRun(t *testing.T) {
	dir := tempSpec(t, smallBounds, "le-fenced-2")
	if err := os.Remove(filepath.Join(filepath.Dir(dir), "traces", "tlc", "runs.json")); err != nil {
		t.Fatal(err)
	}
	m := `{"spec": "Replication.tla", "configs": [{"name": "le-fenced-2", "policy": "LeaderEpoch", "release": "2.1.0", "kind": "proof", "expect": "holds", "ci": false,
		"tlc": "does not finish: 1.2e8 states at depth 40 after 60 min, 2 workers"}]}`
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(m), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI("check", "-q", "-spec", dir)
	if code != 0 || !strings.Contains(out, "no run (below)") ||
		!strings.Contains(out, "no TLC run of le-fenced-2: does not finish: 1.2e8 states at depth 40 after 60 min, 2 workers") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
}

// -explorer-runs FILE records into and compares with FILE, whatever its
// name, and leaves the default record alone.
func TestCheckExplorerRunsFlagNamesTheFile(t *testing.T) {
	dir := tempSpec(t, smallBounds, "w-leader-change")
	other := filepath.Join(t.TempDir(), "mine.json")
	if code, out, errs := runCLI("check", "-q", "-record", "-explorer-runs", other, "-spec", dir); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	if _, err := os.Stat(explorerruns.Path(dir)); !os.IsNotExist(err) {
		t.Errorf("the default record was written: %v", err)
	}
	editRecord(t, other, "w-leader-change", func(r *explorerruns.Run) { r.Property = "NeverAcked" })
	if code, out, _ := runCLI("check", "-q", "-explorer-runs", other, "-spec", dir); code != 1 || vsRec(t, out, "w-leader-change") != "MISMATCH" {
		t.Errorf("a wrong property in %s: exit %d\n%s", other, code, out)
	}
}
