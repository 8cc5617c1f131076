package tlc

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hwepoch/hwepoch/trace/tlcjson"
)

var tlcDir = filepath.Join("..", "..", "traces", "tlc")

// Each recorded TLC log, read again, gives the numbers runs.json recorded
// from it: the parser has not drifted from the logs it was written for.
func TestParseRecordedLogs(t *testing.T) {
	runs, err := tlcjson.LoadRuns(tlcDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs.Runs) == 0 {
		t.Fatal("runs.json records no runs")
	}
	for _, run := range runs.Runs {
		b, err := os.ReadFile(filepath.Join(tlcDir, run.Log))
		if err != nil {
			t.Fatal(err)
		}
		res, err := Parse(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", run.Log, err)
		}
		if !run.Exhaustive() && res.Verdict == "violated" && res.Property == "BelowSimDepth" {
			res.Verdict = "simulated" // as Run.Execute does
		}
		got := tlcjson.Run{TLCVersion: res.Version, Verdict: res.Verdict, Property: res.Property,
			DistinctStates: res.DistinctStates, StatesGenerated: res.StatesGenerated, Depth: res.Depth,
			Workers: res.Workers, TraceLength: res.TraceLength}
		want := tlcjson.Run{TLCVersion: run.TLCVersion, Verdict: run.Verdict, Property: run.Property,
			DistinctStates: run.DistinctStates, StatesGenerated: run.StatesGenerated, Depth: run.Depth,
			Workers: run.Workers, TraceLength: run.TraceLength}
		if got != want {
			t.Errorf("%s: the log parses to other numbers than runs.json's (-recorded +parsed):\n%s", run.Log, cmp.Diff(want, got))
		}
	}
}

// Parse never panics on whatever TLC prints, fails only on a number too
// large to count (short of a line over 64 MiB), and its Result is
// consistent: a verdict of the three, a violation with its property and no
// error, an error with its reason, no negative count.
func FuzzParse(f *testing.F) {
	logs, _ := filepath.Glob(filepath.Join(tlcDir, "*.log"))
	if len(logs) == 0 {
		f.Fatal("no TLC logs in traces/tlc")
	}
	// The seeds are the logs cut to the lines the parser reads (the whole
	// logs are TestParseRecordedLogs'): a 20 kB seed is parsed 20 times
	// slower, and the fuzzer's minimization of each new input, during which
	// its exec count stands still, grows with the square of its size.
	for _, p := range logs {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		var cut []byte
		for _, line := range bytes.SplitAfter(b, []byte("\n")) {
			if len(line) > 0 && ('0' <= line[0] && line[0] <= '9' || line[0] == 'E' || line[0] == 'M' || line[0] == 'T' ||
				bytes.HasPrefix(line, []byte("State ")) || bytes.Contains(line, []byte(" workers on "))) {
				cut = append(cut, line...)
			}
		}
		f.Add(cut)
	}
	f.Add([]byte("Error: Invariant  is violated.\n"))
	f.Add([]byte("1,,,2 states generated, 99999999999999999999 distinct states found\nState 9999999999999999999:\r\n"))
	f.Add([]byte("Model checking completed. No error has been found.\nError: Action property P is violated."))
	f.Fuzz(func(t *testing.T, b []byte) {
		res, err := Parse(bytes.NewReader(b))
		if err != nil {
			if !strings.Contains(err.Error(), "is out of range") {
				t.Fatalf("Parse: %v", err)
			}
			return
		}
		switch res.Verdict {
		case "violated":
			if res.Property == "" || res.Error != "" {
				t.Fatalf("violated without a property or with an error: %+v", res)
			}
		case "holds":
			if res.Property != "" || res.Error != "" {
				t.Fatalf("holds with a property or an error: %+v", res)
			}
		case "error":
			if res.Error == "" || res.Property != "" {
				t.Fatalf("error without a reason or with a property: %+v", res)
			}
		default:
			t.Fatalf("verdict %q", res.Verdict)
		}
		if res.DistinctStates < 0 || res.StatesGenerated < 0 || res.Depth < 0 || res.TraceLength < 0 || res.Workers < 0 {
			t.Fatalf("a negative count: %+v", res)
		}
		if res.Version != strings.TrimSpace(res.Version) {
			t.Fatalf("version %q is not trimmed", res.Version)
		}
	})
}
