package main

import (
	"os"
	"strings"
	"testing"
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
