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
	r, _ = Parse(strings.NewReader(`Error: TLC threw an unexpected exception.
This was probably caused by an error in the spec or model.
See the User Output or TLC Console for clues to what happened.
The exception was a java.rmi.server.ExportException
: Port already in use: 11555; nested exception is: 
	java.net.BindException: Address already in use
`))
	if want := "TLC threw an unexpected exception. java.rmi.server.ExportException: Port already in use: 11555; nested exception is:"; r.Verdict != "error" || r.Error != want {
		t.Fatalf("got %+v, want the error %q", r, want)
	}
	r, _ = Parse(strings.NewReader(""))
	if r.Verdict != "error" || r.Error == "" {
		t.Fatalf("an empty output must be an error with a reason, got %+v", r)
	}
}

// The distributed server's log: its banner gives the same version string
// as tlc2.TLC's, and the workers are the worker threads that registered.
func TestParseDistributedServer(t *testing.T) {
	out := `TLC2 TLC Server Version 2026.12.01.105714
TLC server at vm is ready (2026-12-01 13:57:40)
Registration for worker at rmi://localhost:38961/0 completed (2026-12-01 13:57:46)
Registration for worker at rmi://localhost:40643/0 completed (2026-12-01 13:57:48)
Model checking completed. No error has been found.
37186 states generated, 9101 distinct states found, 0 states left on queue.
The depth of the complete state graph search is 32.
# worker1| TLC Worker Version 2026.12.01.105714
# worker1| Error: VM does not allow to get the UnicastRef port.
`
	r, err := Parse(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	want := Result{Version: "TLC2 Version 2026.12.01.105714", Verdict: "holds", DistinctStates: 9101,
		StatesGenerated: 37186, Depth: 32, Workers: 2}
	if r != want {
		t.Fatalf("got %+v, want %+v", r, want)
	}
}

// The distributed server prints a worker's error trace without the error:
// that is no verdict, and the error says so.
func TestParseDistributedTraceWithoutProperty(t *testing.T) {
	out := `TLC2 TLC Server Version x
Error: The behavior up to this point is:
State 1: <Initial predicate>

State 2: <Crash(r2,0) line 796, col 5 to line 823, col 82 of module Replication>

166 states generated, 77 distinct states found, 0 states left on queue.
Finished in 10s at (2026-12-01 13:54:04)
`
	r, _ := Parse(strings.NewReader(out))
	if r.Verdict != "error" || r.Property != "" || r.TraceLength != 2 || !strings.Contains(r.Error, "2-state error trace without saying what failed") {
		t.Fatalf("got %+v", r)
	}
}

// The property of a distributed run's violation comes from the worker's
// exception trace in the worker sections hwepoch appends to the log; an
// evaluation error, or workers disagreeing, stays an error saying what
// they threw.
func TestParseDistributedWorkerError(t *testing.T) {
	server := `TLC2 TLC Server Version x
Error: The behavior up to this point is:
State 1: <Initial predicate>

State 2: <Crash(r2,0) line 796, col 5 to line 823, col 82 of module Replication>

166 states generated, 77 distinct states found, 0 states left on queue.
# worker1| Exception dispatching call to [469c2910:1a231ed7568:-7ffe, -2469342671628628166] in thread "RMI TCP Connection(2)-127.0.0.1" at Tue Dec 01 14:06:43 UTC 2026:
`
	for _, c := range []struct {
		workers         string
		verdict, prop   string
		errorContaining string
	}{
		{"# worker1| tlc2.tool.WorkerException: Error: Invariant NeverCommitted is violated.\n" +
			"# worker2| tlc2.tool.WorkerException: Error: Invariant NeverCommitted is violated.\n", "violated", "NeverCommitted", ""},
		{"# worker1| tlc2.tool.WorkerException: Error: Implied-action NeverTruncates is violated.\n", "violated", "NeverTruncates", ""},
		{"# worker1| tlc2.tool.WorkerException: Attempted to apply function to an argument not in its domain\n",
			"error", "", "the workers threw: Attempted to apply function"},
		{"# worker1| tlc2.tool.WorkerException: Error: Invariant NoDivergence is violated.\n" +
			"# worker2| tlc2.tool.WorkerException: Error: Invariant NoAckedLoss is violated.\n",
			"error", "", "Invariant NoDivergence is violated.; Error: Invariant NoAckedLoss"},
		// Not in a worker section: not a worker's report.
		{"tlc2.tool.WorkerException: Error: Invariant NeverCommitted is violated.\n", "error", "", "without saying what failed"},
	} {
		r, err := Parse(strings.NewReader(server + c.workers))
		if err != nil {
			t.Fatal(err)
		}
		if r.Verdict != c.verdict || r.Property != c.prop || r.TraceLength != 2 || !strings.Contains(r.Error, c.errorContaining) {
			t.Errorf("workers %q: got %+v, want %s %q with an error containing %q", c.workers, r, c.verdict, c.prop, c.errorContaining)
		}
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
