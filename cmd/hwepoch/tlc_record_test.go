package main

import (
	"testing"

	"github.com/hwepoch/hwepoch/trace/tlcjson"
)

// Two hwepoch tlc at once: the one that finishes second must not drop the
// run the first recorded after the second had started (runs.json is read
// again at each write, not once at the start).
func TestRecordRunKeepsRunsRecordedMeanwhile(t *testing.T) {
	dir := t.TempDir()
	// No runs.json yet: the first record creates it.
	if _, err := recordRun(dir, tlcjson.Run{Name: "a", Config: "a", Verdict: "holds"}, "TLC2 Version x", "spec1"); err != nil {
		t.Fatal(err)
	}
	// A second process started here, holding what it read then ...
	stale, err := tlcjson.LoadRuns(dir)
	if err != nil {
		t.Fatal(err)
	}
	// ... while a third recorded "b".
	if _, err := recordRun(dir, tlcjson.Run{Name: "b", Config: "b", Verdict: "holds"}, "", "spec1"); err != nil {
		t.Fatal(err)
	}
	if _, ok := stale.Get("b"); ok {
		t.Fatal("the stale copy already has b: the test proves nothing")
	}
	// The second process now records "c": "b" must survive.
	got, err := recordRun(dir, tlcjson.Run{Name: "c", Config: "c", Verdict: "violated"}, "", "spec1")
	if err != nil {
		t.Fatal(err)
	}
	onDisk, err := tlcjson.LoadRuns(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, rs := range []*tlcjson.Runs{got, onDisk} {
		for _, n := range []string{"a", "b", "c"} {
			if _, ok := rs.Get(n); !ok {
				t.Errorf("run %s lost: %+v", n, rs.Runs)
			}
		}
		if rs.TLCVersion != "TLC2 Version x" || rs.SpecSHA256 != "spec1" {
			t.Errorf("version %q spec %q", rs.TLCVersion, rs.SpecSHA256)
		}
	}
}
