package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
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
		{[]string{"hunt", "-seeds", "0"}, "-seeds 0: must be between 1 and 1000"},
		{[]string{"hunt", "-seeds", "-3"}, "-seeds -3: must be between 1 and 1000"},
		{[]string{"hunt", "-tlc-seeds", "0"}, "-tlc-seeds 0: must be between 1 and 1000"},
		{[]string{"hunt", "-seeds", "two"}, `invalid value "two" for flag -seeds`},
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

// -seeds 3: the swarm runs with seeds 1, 2 and 3 and its cell is their
// median, spread and 3/3, as the times of the runs listed under the table
// say; the breadth-first search runs once, and the notes say how far it
// got.
func TestHuntSeeds(t *testing.T) {
	code, out, errs := runCLI("hunt", "-bugs", "kip279", "-methods", "bfs,swarm", "-seeds", "3", "-workers", "2", "-timeout", "10s")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{"kip279 swarm seed 1 ...", "swarm seed 2 ...", "swarm seed 3 ..."} {
		if !strings.Contains(strings.ReplaceAll(errs, "(Kafka 0.11.0.3, 3 replicas acks=1 minISR=1 records=3 epochs=4 crashes=0): ", ""), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	if n := strings.Count(errs, "): bfs"); n != 1 {
		t.Errorf("bfs ran %d times, want once:\n%s", n, errs)
	}
	runs := regexp.MustCompile(`(?m)^  swarm   runs \(seed time\): 1 ([\d.]+)s, 2 ([\d.]+)s, 3 ([\d.]+)s;`).FindStringSubmatch(out)
	if runs == nil {
		t.Fatalf("no swarm runs (all three found) under the table:\n%s", out)
	}
	var ts []float64
	for _, x := range runs[1:] {
		v, err := strconv.ParseFloat(x, 64)
		if err != nil {
			t.Fatal(err)
		}
		ts = append(ts, v)
	}
	slices.Sort(ts)
	want := strconv.FormatFloat(ts[1], 'f', 1, 64) + "s (" + strconv.FormatFloat(ts[0], 'f', 1, 64) + "–" + strconv.FormatFloat(ts[2], 'f', 1, 64) + ") 3/3"
	row := regexp.MustCompile(`(?m)^kip279 .*$`).FindString(out)
	if !strings.Contains(row, want) {
		t.Errorf("the swarm's cell is not %q (runs %v):\n%s", want, runs[1:], row)
	}
	if !strings.Contains(row, "ok 3/3") {
		t.Errorf("want the three counterexamples replayed: %s", row)
	}
	if !regexp.MustCompile(`(?m)^  bfs     level \d+ \([\d.kM]+ states\) still growing`).MatchString(out) {
		t.Errorf("the notes do not say how far the breadth-first search got:\n%s", out)
	}
}
