package freerun

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A saved recording reads back, and a bad file is an error naming it (the
// recording loader's fuzz test).
func FuzzReadRecording(f *testing.F) {
	f.Add([]byte(`{"Config": {"Replicas": ["r1", "r2"], "Truncation": "LeaderEpoch", "Acks": "all", "MinInsyncReplicas": 1}, "Focus": "t-0", "Events": []}`))
	f.Add([]byte(`{"Config": {"Replicas": ["r1"], "Truncation": "Sometimes"}, "Focus": "t-0"}`))
	f.Add([]byte(`{"Focus": 3}`))
	f.Add([]byte(`not json`))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(dir, "rec.json")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		rec, err := ReadRecording(p)
		if err != nil {
			if !strings.HasPrefix(err.Error(), p+": ") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		// A recording that reads validates without panicking, whatever it holds.
		Validate(rec)
	})
}
