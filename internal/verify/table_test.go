package verify

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// A row whose stage and item alone fill the width still prints within it
// (a simulate row's item names its whole configuration).
func TestOneLineClipsALongHead(t *testing.T) {
	r := Row{Stage: "simulate", Item: strings.Repeat("3 brokers acks=all minISR=2 fencing, validated ", 3),
		Policy: "HighWatermark", Found: "4 of 20 seeds lost or diverged [1]",
		Counterexample: &Counterexample{}}
	line := r.OneLine(1, 120, "hwepoch verify --quick -traces")
	if n := utf8.RuneCountInString(line); n > 120 {
		t.Fatalf("%d columns, want at most 120: %s", n, line)
	}
	if !strings.HasSuffix(line, "# in full: hwepoch verify --quick -traces") {
		t.Fatalf("the command must stay whole: %s", line)
	}
}
