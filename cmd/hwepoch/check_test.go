package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
	for _, want := range []string{"config", "hw-acked-loss", "violated NoAckedLoss", "vs TLC", "all 3 verdicts as expected",
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
	man := `{"spec": "Replication.tla", "configs": [{"name": "w-leader-change", "policy": "LeaderEpoch", "kind": "proof", "expect": "holds"}]}`
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
