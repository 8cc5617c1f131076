package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestView: hwepoch view writes one page per trace (per case of a
// scenario), prints its path, and refuses bad input clearly, writing
// nothing.
func TestView(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join("..", "..")
	code, out, errs := runCLI("view", "-o", dir, filepath.Join(root, "traces/tlc/hw-acked-loss.json"))
	page := filepath.Join(dir, "hw-acked-loss.html")
	if code != 0 || strings.TrimSpace(out) != page {
		t.Fatalf("exit %d, printed %q (want %q)\n%s", code, out, page, errs)
	}
	if b, err := os.ReadFile(page); err != nil || !strings.Contains(string(b), `id="trace-data"`) {
		t.Errorf("%s: %v", page, err)
	}
	code, out, _ = runCLI("view", "-o", dir, "-policy", "LeaderEpoch", filepath.Join(root, "traces/scenarios/kip101-scenario-1.scenario"))
	if code != 0 || strings.TrimSpace(out) != filepath.Join(dir, "kip101-scenario-1-LeaderEpoch.html") {
		t.Errorf("a scenario's case: exit %d, %q", code, out)
	}
	one := filepath.Join(dir, "one.html")
	if code, _, _ := runCLI("view", "-o", one, filepath.Join(root, "traces/tlc/trace_hw_acked_loss.tla")); code != 0 {
		t.Errorf("-o FILE.html: exit %d", code)
	}

	// A trace the model cannot take: refused with replay's report, exit 1,
	// no page and no temporary file left.
	src, err := os.ReadFile(filepath.Join(root, "traces/regressions/kafka-7128-expand-below-epoch-start.itf.json"))
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(t.TempDir(), "bad.itf.json")
	os.WriteFile(bad, []byte(strings.Replace(string(src), `"action": "Elect"`, `"action": "Restart"`, 1)), 0o644)
	empty := t.TempDir()
	code, _, errs = runCLI("view", "-o", empty, bad)
	if code != 1 || !strings.Contains(errs, "not a behaviour of the model") || !strings.Contains(errs, "the model cannot take this step") {
		t.Errorf("a trace the model refuses: exit %d\n%s", code, errs)
	}
	if ents, _ := os.ReadDir(empty); len(ents) != 0 {
		t.Errorf("a refused trace left %v", ents)
	}

	garbage := filepath.Join(t.TempDir(), "garbage.json")
	os.WriteFile(garbage, []byte("{not json"), 0o644)
	for name, tc := range map[string]struct {
		args []string
		want string
	}{
		"no file":       {nil, "give exactly one trace FILE"},
		"two files":     {[]string{page, page}, "give exactly one trace FILE"},
		"missing":       {[]string{filepath.Join(dir, "nope.json")}, "no such file"},
		"a directory":   {[]string{dir}, "is a directory"},
		"unknown kind":  {[]string{filepath.Join(root, "README.md")}, "not a trace file hwepoch knows"},
		"garbage":       {[]string{garbage}, "garbage.json"},
		"policy, trace": {[]string{"-policy", "LeaderEpoch", filepath.Join(root, "traces/tlc/hw-acked-loss.json")}, "not a scenario"},
		"no such case":  {[]string{"-o", empty, "-policy", "Kip101", filepath.Join(root, "traces/scenarios/seeds-divergence.scenario")}, "no case matches"},
		"many to one":   {[]string{"-o", filepath.Join(empty, "x.html"), filepath.Join(root, "traces/scenarios/seeds-divergence.scenario")}, "names one page"},
		"bad flag":      {[]string{"-nope", page}, "flag provided but not defined"},
	} {
		code, _, errs := runCLI(append([]string{"view"}, tc.args...)...)
		if code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("%s: exit %d (want 2), stderr does not say %q:\n%s", name, code, tc.want, errs)
		}
	}
	if ents, _ := os.ReadDir(empty); len(ents) != 0 {
		t.Errorf("bad use left %v", ents)
	}
	code, _, errs = runCLI("view", "-h")
	if code != 0 || !strings.Contains(errs, "usage: hwepoch view") || !strings.Contains(errs, "-cfg") {
		t.Errorf("view -h: exit %d\n%s", code, errs)
	}
}
