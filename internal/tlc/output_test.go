package tlc

import (
	"strings"
	"testing"

	"github.com/hwepoch/hwepoch/model/tlccfg"
)

func TestParseCompleted(t *testing.T) {
	out := `TLC2 Version 2026.11.30.075224 (rev: cc6b616)
Running breadth-first search Model-Checking with fp 120 and seed 1 with 2 workers on 2 cores with 5358MB heap
Model checking completed. No error has been found.
4643805 states generated, 1095034 distinct states found, 0 states left on queue.
The depth of the complete state graph search is 42.
`
	r, err := Parse(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if r.Verdict != "holds" || r.DistinctStates != 1095034 || r.StatesGenerated != 4643805 || r.Depth != 42 || r.Workers != 2 {
		t.Fatalf("got %+v", r)
	}
	if r.Version != "TLC2 Version 2026.11.30.075224 (rev: cc6b616)" {
		t.Fatalf("version %q", r.Version)
	}
}

func TestParseViolation(t *testing.T) {
	out := `TLC2 Version x
Error: Invariant NoAckedLoss is violated.
Error: The behavior up to this point is:
State 1: <Initial predicate>
State 2: <Elect(r1) line 244>
State 3: <Produce(r1) line 300>
38,062 states generated, 14,446 distinct states found, 4556 states left on queue.
The depth of the complete state graph search is 13.
`
	r, _ := Parse(strings.NewReader(out))
	if r.Verdict != "violated" || r.Property != "NoAckedLoss" || r.TraceLength != 3 || r.DistinctStates != 14446 {
		t.Fatalf("got %+v", r)
	}
	r, _ = Parse(strings.NewReader("Error: Action property NeverTruncates is violated.\n"))
	if r.Verdict != "violated" || r.Property != "NeverTruncates" {
		t.Fatalf("got %+v", r)
	}
}

func TestParseError(t *testing.T) {
	r, _ := Parse(strings.NewReader("TLC2 Version x\nError: TLC threw an unexpected exception.\n"))
	if r.Verdict != "error" || !strings.Contains(r.Error, "unexpected exception") {
		t.Fatalf("got %+v", r)
	}
	r, _ = Parse(strings.NewReader(""))
	if r.Verdict != "error" || r.Error == "" {
		t.Fatalf("an empty output must be an error with a reason, got %+v", r)
	}
}

func TestManifestMatches(t *testing.T) {
	c := tlccfg.Entry{Name: "x", Expect: "violated", Property: "NoAckedLoss"}
	if !Matches(c, Result{Verdict: "violated", Property: "NoAckedLoss"}) {
		t.Fatal("same property must match")
	}
	if Matches(c, Result{Verdict: "violated", Property: "NoDivergence"}) {
		t.Fatal("a different violated property must not match")
	}
	if Matches(c, Result{Verdict: "holds"}) {
		t.Fatal("holds must not match an expected violation")
	}
}

// A count too large for an int64 is an error naming its line, not a 0
// recorded as TLC's result.
func TestParseRefusesCountsOutOfRange(t *testing.T) {
	out := "Model checking completed. No error has been found.\n" +
		"99999999999999999999 states generated, 5 distinct states found, 0 states left on queue.\n" +
		"The depth of the complete state graph search is 3.\n"
	if _, err := Parse(strings.NewReader(out)); err == nil || !strings.Contains(err.Error(), "line 2: the number 99999999999999999999 is out of range") {
		t.Errorf("Parse = %v", err)
	}
	out = strings.Replace(out, "99999999999999999999", "7", 1)
	if r, err := Parse(strings.NewReader(out)); err != nil || r.StatesGenerated != 7 {
		t.Errorf("Parse = %+v, %v", r, err)
	}
}
