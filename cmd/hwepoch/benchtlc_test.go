package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hwepoch/hwepoch/model/tlccfg"
)

func TestBenchTLCNeedsJar(t *testing.T) {
	t.Setenv("TLA2TOOLS_JAR", "")
	code, _, errs := runCLI("bench-tlc", "w-leader-change")
	if code != 2 || !strings.Contains(errs, "TLA2TOOLS_JAR is not set") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if code, _, errs := runCLI("bench-tlc", "-h"); code != 0 || !strings.Contains(errs, "usage: hwepoch bench-tlc") {
		t.Fatalf("-h: exit %d: %s", code, errs)
	}
}

// With TLC at hand, bench-tlc runs both checkers on a small configuration
// and they agree.
func TestBenchTLCSmall(t *testing.T) {
	if os.Getenv("TLA2TOOLS_JAR") == "" || testing.Short() {
		t.Skip("TLA2TOOLS_JAR is not set (or -short): not running TLC")
	}
	code, out, errs := runCLI("bench-tlc", "w-leader-change")
	if code != 0 || !strings.Contains(out, "explorer/TLC:") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
}

// The memory report divides by the states explored and extrapolates to the
// machine's memory, flagging the explorer's 32-bit state numbers.
func TestMemoryReport(t *testing.T) {
	r := benchRow{distinct: 1_000_000, tableBytes: 20_000_000, frontierBytes: 30_000_000, peakBytes: 100_000_000}
	got := memoryReport(r, 24<<30)
	for _, want := range []string{"20.0 B/state for fingerprints", "30.0 B/state for the frontier", "100.0 B/state peak",
		"24.0 GiB holds about 2.6e+08 states"} {
		if !strings.Contains(got, want) {
			t.Errorf("memory report lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "32 bits") {
		t.Errorf("2.6e8 states flagged as past 32 bits:\n%s", got)
	}
	r.peakBytes = 2_000_000 // 2 B/state: more than 2^32 states would fit
	if got := memoryReport(r, 24<<30); !strings.Contains(got, "32 bits") {
		t.Errorf("no 32-bit limit in:\n%s", got)
	}
	if memoryReport(benchRow{}, 24<<30) != "" {
		t.Error("a report for no states")
	}
}

// -holds picks the safety configurations that hold and that TLC has a
// recorded breadth-first run of: le-fenced-2 is one, a counterexample, a
// liveness configuration and one TLC has no run of are not.
func TestBenchTLCHoldsList(t *testing.T) {
	names, err := holdsWithTLCRun(filepath.Join("..", "..", "spec"))
	if err != nil {
		t.Fatal(err)
	}
	has := func(n string) bool { return slices.Contains(names, n) }
	if !has("le-fenced-2") || !has("de-fenced-2") {
		t.Errorf("-holds lacks le-fenced-2 or de-fenced-2: %v", names)
	}
	for _, n := range []string{"hw-acked-loss", "live-le", "le-fenced-3-rec2"} {
		if has(n) {
			t.Errorf("-holds lists %s: %v", n, names)
		}
	}
}

func TestBenchTLCUsage(t *testing.T) {
	t.Setenv("TLA2TOOLS_JAR", "/nonexistent/tla2tools.jar")
	if code, _, errs := runCLI("bench-tlc", "-holds", "le-fenced-2"); code != 2 || !strings.Contains(errs, "-holds names the configurations itself") {
		t.Errorf("-holds with a name: exit %d: %s", code, errs)
	}
}

// The summary has one line per configuration with both rates and the
// ratios; a disagreement on counts is a mismatch.
func TestBenchSummary(t *testing.T) {
	tl := benchRow{name: "TLC", distinct: 1000, depth: 5, wall: 10 * time.Second, verdict: "holds", peakBytes: 100 << 20}
	ex := benchRow{name: "explorer", distinct: 1000, depth: 5, wall: time.Second / 5, verdict: "holds", peakBytes: 50 << 20}
	var b strings.Builder
	printBenchSummary(&b, []*tlccfg.Check{{Name: "cfg-a"}}, [][2]benchRow{{tl, ex}})
	for _, want := range []string{"cfg-a", "50.0x", "0.50x", "100", "5000"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, b.String())
		}
	}
	if benchMismatch(tl, ex) != "" {
		t.Error("equal runs reported as a mismatch")
	}
	ex.distinct++
	if benchMismatch(tl, ex) == "" {
		t.Error("different distinct states not reported")
	}
	ex.distinct, ex.verdict = 1000, "violated"
	if benchMismatch(tl, ex) == "" {
		t.Error("different verdicts not reported")
	}
}
