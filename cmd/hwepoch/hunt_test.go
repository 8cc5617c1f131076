package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Bad use of hunt is a usage error (exit 2) naming the fault, before any
// search starts.
func TestHuntUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"hunt", "-workers", "0"}, "-workers 0: must be between 1 and 256"},
		{[]string{"hunt", "-timeout", "0s"}, "-timeout 0s: must be greater than zero"},
		{[]string{"hunt", "-tlc-timeout", "-1s"}, "-tlc-timeout -1s: must be greater than zero"},
		{[]string{"hunt", "-bugs", "kip101-1,nope"}, `-bugs: unknown bug "nope"`},
		{[]string{"hunt", "-bugs", " "}, "-bugs must not be empty"},
		{[]string{"hunt", "-methods", "bfs,dfs"}, `-methods: unknown method "dfs"`},
		{[]string{"hunt", "stray"}, `unexpected arguments ["stray"]: hunt takes flags only`},
	} {
		code, out, errs := runCLI(tc.args...)
		if code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("hwepoch %s: exit %d, stderr %q, stdout %q; want exit 2 and %q", strings.Join(tc.args, " "), code, errs, out, tc.want)
		}
	}
}

// One bug, the swarm and TLC -simulate without TLC: the table has the
// swarm's counterexample, replayed on the implementation, the TLC cell
// says "no TLC", and -out holds the trace, its picture and the .cfg that
// reads it back with hwepoch replay.
func TestHuntOneBug(t *testing.T) {
	t.Setenv("TLA2TOOLS_JAR", "")
	dir := t.TempDir()
	code, out, errs := runCLI("hunt", "-q", "-bugs", "kip279", "-methods", "swarm,tlc-sim", "-workers", "1", "-timeout", "60s", "-out", dir)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{"kip279", "Kafka 0.11.0.3", "no TLC", "ok 1/1", "swarm seed 1 walk"} {
		if !strings.Contains(out, want) {
			t.Errorf("the table lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errs, "TLA2TOOLS_JAR is not set") {
		t.Errorf("stderr does not say why there is no TLC: %q", errs)
	}
	for _, f := range []string{"kip279-swarm.itf.json", "kip279-swarm.svg", "kip279-swarm.html", "hunt-kip279.cfg"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("-out: %v", err)
		}
	}
	code, out, errs = runCLI("replay", "-cfg", filepath.Join(dir, "hunt-kip279.cfg"), filepath.Join(dir, "kip279-swarm.itf.json"))
	if code != 0 {
		t.Fatalf("the written counterexample does not replay: exit %d\n%s\n%s", code, out, errs)
	}
}
