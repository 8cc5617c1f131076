package verify

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hwepoch/hwepoch/internal/deviation"
	"github.com/hwepoch/hwepoch/model/tlccfg"
)

// The deviation stage passes a record that still comes out the same, and
// fails one whose counts, patched spec or spec are not what a run gives now.
func TestDeviationRowsBite(t *testing.T) {
	dir := t.TempDir()
	specDir := filepath.Join(dir, "spec")
	if err := os.MkdirAll(filepath.Join(dir, "traces"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(specDir, os.DirFS("../../spec")); err != nil {
		t.Fatal(err)
	}
	real, err := deviation.LoadRecords(deviation.RecordPath("../../spec"))
	if err != nil {
		t.Fatal(err)
	}
	var rec deviation.Record
	for _, c := range real.Checks {
		if c.Restore == "hw-above-leo" && c.Config == "le-unclean-loss" {
			rec = c
		}
	}
	if rec.Config == "" {
		t.Fatal("the record has no hw-above-leo @ le-unclean-loss")
	}
	man, err := tlccfg.LoadManifest(specDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		edit   func(*deviation.Records)
		budget int64
		want   Status
		found  string
	}{
		{"as recorded", func(*deviation.Records) {}, 0, Pass, "= (the same verdict and counts)"},
		{"over the budget", func(*deviation.Records) {}, 10, Skipped, "not run"},
		{"a count off by one", func(r *deviation.Records) { r.Checks[0].Distinct++ }, 0, Fail, "MISMATCH"},
		{"another patch", func(r *deviation.Records) { r.Checks[0].PatchedSHA256 = "00" }, 0, Fail, "another patched spec"},
		{"another verdict", func(r *deviation.Records) { r.Checks[0].Verdict = "holds" }, 0, Fail, "where the manifest says"},
		{"another spec", func(r *deviation.Records) { r.SpecSHA256 = "00" }, 0, Fail, "another spec"},
	} {
		recs := &deviation.Records{SpecSHA256: real.SpecSHA256, Checks: []deviation.Record{rec}}
		c.edit(recs)
		if err := recs.Write(deviation.RecordPath(specDir)); err != nil {
			t.Fatal(err)
		}
		rows := DeviationRows(context.Background(), man, c.budget, 1, nil)
		if len(rows) != 1 || rows[0].Status != c.want || !strings.Contains(rows[0].Found, c.found) {
			t.Errorf("%s: rows %+v, want one %v containing %q", c.name, rows, c.want, c.found)
		}
	}
}
