package lemmas

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hwepoch/hwepoch/model/tlccfg"
)

// The recorded traces/lemmas.json, read and written back, is byte for byte
// the same file: `hwepoch lemmas -record` rewrites it after every plan, and
// a reordering or a dropped field would show up as churn (or loss).
func TestRecordingRoundTrip(t *testing.T) {
	spec, err := tlccfg.FindSpecDir(".")
	if err != nil {
		t.Fatal(err)
	}
	path := RecordingPath(spec)
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (record with %s)", err, RecordCommand())
	}
	rec, err := LoadRecording(path)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "lemmas.json")
	if err := rec.Write(out); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s does not survive a read and a write:\n%s", RecordingFile, cmp.Diff(string(want), string(got)))
	}
	// Putting a record back in place changes nothing either.
	for _, p := range rec.Plans {
		rec.Put(p)
	}
	if err := rec.Write(out); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(out); !bytes.Equal(got, want) {
		t.Errorf("%s changes when its records are put back:\n%s", RecordingFile, cmp.Diff(string(want), string(got)))
	}
}

// Put keeps the records in the order of Plans, whatever order they are
// recorded in, and replaces a record of the same configuration.
func TestRecordingPutOrder(t *testing.T) {
	var r Recording
	for i := len(Plans) - 1; i >= 0; i-- {
		r.Put(PlanRecord{Config: Plans[i].Config})
	}
	r.Put(PlanRecord{Config: "zz-no-plan"})
	r.Put(PlanRecord{Config: Plans[0].Config, Depth: 7})
	if len(r.Plans) != len(Plans)+1 {
		t.Fatalf("%d records, want %d", len(r.Plans), len(Plans)+1)
	}
	for i, p := range Plans {
		if r.Plans[i].Config != p.Config {
			t.Errorf("record %d is %s, want %s", i, r.Plans[i].Config, p.Config)
		}
	}
	if r.Plans[0].Depth != 7 || r.Plans[len(Plans)].Config != "zz-no-plan" {
		t.Errorf("records after Put: %+v", r.Plans)
	}
}

// Diff names every difference but the time and the hashes.
func TestRecordDiff(t *testing.T) {
	a := PlanRecord{Config: "c", Distinct: 10, Steps: 20, Depth: 3, Seconds: 1, CfgSHA256: "x", Lemmas: []LemmaRecord{
		{Lemma: "L1", Unit: "states", Verdict: "holds", Premise: 5},
		{Lemma: "L3", Unit: "steps", Verdict: "violated", TraceLength: 8},
	}}
	b := a
	b.Seconds, b.CfgSHA256 = 2, "y"
	b.Lemmas = append([]LemmaRecord(nil), a.Lemmas...)
	if d := a.Diff(b); len(d) != 0 {
		t.Errorf("time and hashes differ only, got %v", d)
	}
	b.Depth = 4
	b.Lemmas[0].Premise = 6
	b.Lemmas[1].TraceLength = 9
	if d := a.Diff(b); len(d) != 3 {
		t.Errorf("want 3 differences (depth, L1's premise, L3's trace), got %q", d)
	}
}
