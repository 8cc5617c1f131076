package freerun

import (
	"os"
	"testing"
)

// HWEPOCH_RECORDING=file.json go test -run TestRevalidate validates a saved
// recording again (free runs do not reproduce; their recordings do).
func TestRevalidate(t *testing.T) {
	path := os.Getenv("HWEPOCH_RECORDING")
	if path == "" {
		t.Skip("set HWEPOCH_RECORDING to a recording saved by a failing free run")
	}
	rec, err := ReadRecording(path)
	if err != nil {
		t.Fatal(err)
	}
	rep := Validate(rec)
	t.Logf("%d events, %d steps, gaps %v, backtracks %d", rep.Events, rep.Steps, rep.Gaps, rep.Backtracks)
	if rep.Err != nil {
		t.Fatal(rep.Err)
	}
}
