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
