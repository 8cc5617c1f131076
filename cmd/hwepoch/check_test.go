package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hwepoch/hwepoch/internal/testfiles"
	"github.com/hwepoch/hwepoch/internal/verify"
	"github.com/hwepoch/hwepoch/model/explore"
	"github.com/hwepoch/hwepoch/model/tlccfg"
)

func runCLI(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestCheckCIConfigs(t *testing.T) {
	code, out, errs := runCLI("check", "-q", "w-leader-change", "hw-acked-loss", "w-truncation")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{"config", "hw-acked-loss", "invariant NoAckedLoss is violated", "vs TLC", "all 3 verdicts as expected",
		"HandleLeaderAndIsr(r=r1)", "r1   Leader"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestCheckHelpAndErrors(t *testing.T) {
	if code, _, errs := runCLI("check", "-h"); code != 0 || !strings.Contains(errs, "usage: hwepoch check") {
		t.Errorf("-h: exit %d, %s", code, errs)
	}
	code, _, errs := runCLI("check", "-q", "no-such-config")
	if code != 2 || !strings.Contains(errs, `no configuration "no-such-config"`) || !strings.Contains(errs, "le-fenced-2") {
		t.Errorf("unknown config: exit %d, %s", code, errs)
	}
	if code, _, errs := runCLI("check", "-spec", t.TempDir()); code != 2 || !strings.Contains(errs, "manifest.json") {
		t.Errorf("empty spec dir: exit %d, %s", code, errs)
	}
}

// A manifest expecting the wrong verdict makes check fail with exit 1.
func TestCheckWrongVerdictFails(t *testing.T) {
	src, err := tlccfg.FindSpecDir(".")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "spec")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg, err := os.ReadFile(filepath.Join(src, "w-leader-change.cfg"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "w-leader-change.cfg"), cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	man := `{"spec": "Replication.tla", "configs": [{"name": "w-leader-change", "policy": "LeaderEpoch", "release": "2.1.0", "kind": "proof", "expect": "holds", "ci": false}]}`
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(man), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI("check", "-q", "-spec", dir)
	if code != 1 || !strings.Contains(out, "WRONG VERDICT w-leader-change: expected holds, found violated NeverLeaderChange") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	if !strings.Contains(errs, "runs.json does not exist: not comparing with TLC") {
		t.Errorf("missing runs.json should be reported: %s", errs)
	}
}

func TestCheckSimulate(t *testing.T) {
	code, out, errs := runCLI("check", "-q", "-simulate", "50", "-seed", "3", "w-leader-change", "le-fenced-2")
	if code != 0 || !strings.Contains(out, "violated NeverLeaderChange") || !strings.Contains(out, "no violation") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
}

// tempSpec copies spec/Replication.tla, spec/manifest.json reduced to the
// named configurations, their .cfg files (edited by edit) and
// traces/tlc/runs.json into a temporary repository, and returns its spec/.
func tempSpec(t *testing.T, edit func(name, cfg string) string, names ...string) string {
	t.Helper()
	src, err := tlccfg.FindSpecDir(".")
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	dir := filepath.Join(root, "spec")
	testfiles.Copy(t, filepath.Join(src, "Replication.tla"), filepath.Join(dir, "Replication.tla"), nil)
	testfiles.Copy(t, filepath.Join(filepath.Dir(src), "traces", "tlc", "runs.json"), filepath.Join(root, "traces", "tlc", "runs.json"), nil)
	man, err := tlccfg.LoadManifest(src)
	if err != nil {
		t.Fatal(err)
	}
	var entries []string
	for _, n := range names {
		e, ok := man.Lookup(n)
		if !ok {
			t.Fatalf("no configuration %s", n)
		}
		testfiles.Copy(t, man.CfgPath(e), filepath.Join(dir, n+".cfg"), func(s string) string { return edit(n, s) })
		entries = append(entries, fmt.Sprintf(`{"name": %q, "policy": %q, "release": %q, "kind": %q, "expect": %q, "property": %q, "ci": %t}`,
			e.Name, e.Policy, e.Release, e.Kind, e.Expect, e.Property, e.CI))
	}
	m := `{"spec": "Replication.tla", "configs": [` + strings.Join(entries, ",\n") + `]}`
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(m), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// check -runs FILE reads FILE, whatever its name, not runs.json beside it.
func TestCheckRunsFlagReadsTheFileNamed(t *testing.T) {
	dir := tempSpec(t, func(_, s string) string { return s }, "w-leader-change")
	runs := filepath.Join(filepath.Dir(dir), "traces", "tlc", "runs.json")
	other := filepath.Join(t.TempDir(), "other-runs.json")
	b, err := os.ReadFile(runs)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(other, b, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI("check", "-q", "-spec", dir, "-runs", other)
	if code != 0 || strings.Contains(errs, "does not exist: not comparing with TLC") || !strings.Contains(out, "same violation") {
		t.Fatalf("-runs %s: exit %d\n%s\n%s", other, code, out, errs)
	}
	// A record named on the command line that is not there is an error
	// naming it (it once warned and exited 0).
	code, out, errs = runCLI("check", "-q", "-spec", dir, "-runs", filepath.Join(t.TempDir(), "missing.json"))
	if code != 2 || !strings.Contains(errs, "missing.json: no such file") {
		t.Fatalf("-runs of a missing file must name it: exit %d\n%s\n%s", code, out, errs)
	}
}

// A .cfg edited after TLC's run is not compared with TLC's stale counts:
// check says it changed, and how to record TLC's run again.
func TestCheckSaysTheCfgChangedSinceTLCsRun(t *testing.T) {
	dir := tempSpec(t, func(_, s string) string { return s + "\\* edited after TLC's run\n" }, "w-leader-change")
	code, out, errs := runCLI("check", "-q", "-spec", dir)
	if code != 0 || !strings.Contains(out, "cfg changed") ||
		!strings.Contains(out, "NOT COMPARED WITH TLC w-leader-change: w-leader-change.cfg changed since TLC's run") ||
		!strings.Contains(out, "rerun `hwepoch tlc w-leader-change`") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "w-leader-change ") && strings.Contains(line, "same violation") {
			t.Errorf("a stale run must not be shown as agreeing: %s", line)
		}
	}
}

// A big search's bytes a state are reported, a small one's not.
func TestCheckPrintsMemoryOfBigRuns(t *testing.T) {
	big := verify.ConfigResult{Entry: tlccfg.Entry{Name: "big"}, Res: &explore.Result{Distinct: 2_000_000,
		MemBytes: 40_000_000, FrontierBytes: 10_000_000, SpilledBytes: 3 << 20}}
	small := verify.ConfigResult{Entry: tlccfg.Entry{Name: "small"}, Res: &explore.Result{Distinct: 999_999, MemBytes: 1}}
	var b strings.Builder
	printMemory(&b, []verify.ConfigResult{big, small})
	got := b.String()
	for _, want := range []string{"memory: big: 20.0 B/state for fingerprints and parent pointers", "5.0 B/state for the frontier", "3.0 MiB spilled", "peak resident memory"} {
		if !strings.Contains(got, want) {
			t.Errorf("lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "small") {
		t.Errorf("a search under %d states reported:\n%s", bigRun, got)
	}
}

// -engine chooses the state form; both give the same row, and a wrong
// value or -engine with -simulate is a usage error.
func TestCheckEngine(t *testing.T) {
	row := func(out string) string {
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, "w-committed-survives") {
				f := strings.Fields(l)
				return strings.Join(f[:6], " ") // config .. depth/trace, not the time
			}
		}
		return ""
	}
	var rows []string
	for _, e := range []string{"packed", "readable"} {
		code, out, errs := runCLI("check", "-q", "-engine", e, "w-committed-survives")
		if code != 0 || row(out) == "" {
			t.Fatalf("-engine %s: exit %d\n%s\n%s", e, code, out, errs)
		}
		rows = append(rows, row(out))
	}
	if rows[0] != rows[1] {
		t.Errorf("packed %q, readable %q", rows[0], rows[1])
	}
	if code, _, errs := runCLI("check", "-engine", "fast", "w-committed-survives"); code != 2 || !strings.Contains(errs, `-engine "fast"`) {
		t.Errorf("-engine fast: exit %d: %s", code, errs)
	}
	if code, _, _ := runCLI("check", "-engine", "packed", "-simulate", "3", "w-committed-survives"); code != 2 {
		t.Errorf("-engine with -simulate: exit %d", code)
	}
}
