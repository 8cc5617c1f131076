// Package traces holds TLC's recorded runs on our spec (tlc/), the recorded
// lemma results (lemmas.json), named scenarios (scenarios/) and shrunk
// regressions; this test keeps the recorded results honest.
package traces

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/hwepoch/hwepoch/internal/lemmas"
	"github.com/hwepoch/hwepoch/internal/tlc"
	"github.com/hwepoch/hwepoch/model/tlccfg"
	"github.com/hwepoch/hwepoch/trace/tlcjson"
)

// TestRecordedRunsAreCurrent fails when the spec or a configuration changed
// after TLC's results were recorded, so that traces/tlc/ can never silently
// describe a spec that no longer exists. Rerun `hwepoch tlc` to re-record.
func TestRecordedRunsAreCurrent(t *testing.T) {
	man, err := tlccfg.LoadManifest(filepath.Join("..", "spec"))
	if err != nil {
		t.Fatal(err)
	}
	runs, err := tlcjson.LoadRuns("tlc")
	if err != nil {
		t.Fatal(err)
	}
	specHash, err := tlcjson.FileSHA256(filepath.Join("..", "spec", "Replication.tla"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range man.Configs {
		r, ok := runs.Get(c.Name)
		if !ok {
			t.Errorf("%s: no recorded TLC run in traces/tlc/runs.json (run: hwepoch tlc %s)", c.Name, c.Name)
			continue
		}
		if !tlc.Matches(c, tlc.Result{Verdict: r.Verdict, Property: r.Property}) {
			t.Errorf("%s: recorded verdict %q %s, manifest expects %q %s", c.Name, r.Verdict, r.Property, c.Expect, c.Property)
		}
	}
	for _, r := range runs.Runs {
		if r.SpecSHA256 != specHash {
			t.Errorf("%s: recorded for spec sha256 %.12s…, spec/Replication.tla is now %.12s…: the spec changed; rerun `hwepoch tlc %s`",
				r.Name, r.SpecSHA256, specHash, r.Config)
		}
		cfgHash, err := tlcjson.FileSHA256(filepath.Join("..", "spec", r.Config+".cfg"))
		if err != nil {
			t.Errorf("%s: %v", r.Name, err)
		} else if r.CfgSHA256 != cfgHash {
			t.Errorf("%s: recorded for %s.cfg sha256 %.12s…, the file is now %.12s…: rerun `hwepoch tlc %s`",
				r.Name, r.Config, r.CfgSHA256, cfgHash, r.Config)
		}
		for _, f := range []string{r.Log, r.TraceJSON, r.TraceTLA} {
			if f == "" {
				continue
			}
			if _, err := os.Stat(filepath.Join("tlc", f)); err != nil {
				t.Errorf("%s: recorded file missing: %v", r.Name, err)
			}
		}
		switch {
		case r.Mode == tlcjson.ModeDistributed && r.Verdict == "violated" && r.TraceLength == 0:
			// TLC's distributed mode exports no trace files: the trace is
			// in the log.
			t.Errorf("%s: a violated distributed run must have its trace in the log", r.Name)
		case r.Mode != tlcjson.ModeDistributed && (r.Verdict == "violated" || r.Mode == tlcjson.ModeSimulate) && r.TraceJSON == "":
			t.Errorf("%s: a %s run must have an exported JSON trace", r.Name, r.Verdict)
		}
		if r.Verdict == "holds" && (r.DistinctStates == 0 || r.Depth == 0) {
			t.Errorf("%s: a run that holds must record distinct states and depth", r.Name)
		}
	}
}

// TestRecordedLemmasAreCurrent fails when the spec or a configuration
// changed after the lemma results in traces/lemmas.json were recorded, when
// a plan of internal/lemmas has no record (or a record has no plan), and
// when a record does not give its plan's verdicts. TestLemmaPlans compares
// the plans that run in go test with fresh results; this covers the ones
// that take longer too. Rerun `hwepoch lemmas -all -record` to re-record.
func TestRecordedLemmasAreCurrent(t *testing.T) {
	rec, err := lemmas.LoadRecording("lemmas.json")
	if err != nil {
		t.Fatalf("%v (record with %s)", err, lemmas.RecordCommand())
	}
	specHash, err := tlcjson.FileSHA256(filepath.Join("..", "spec", "Replication.tla"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range lemmas.Plans {
		r, ok := rec.Get(p.Config)
		if !ok {
			t.Errorf("%s: no record in traces/lemmas.json (run: %s)", p.Config, lemmas.RecordCommand(p.Config))
			continue
		}
		if r.SpecSHA256 != specHash {
			t.Errorf("%s: recorded for spec sha256 %.12s…, spec/Replication.tla is now %.12s…: the spec changed; rerun `%s`",
				p.Config, r.SpecSHA256, specHash, lemmas.RecordCommand(p.Config))
		}
		cfgHash, err := tlcjson.FileSHA256(filepath.Join("..", "spec", p.Config+".cfg"))
		if err != nil {
			t.Errorf("%s: %v", p.Config, err)
		} else if r.CfgSHA256 != cfgHash {
			t.Errorf("%s: recorded for %s.cfg sha256 %.12s…, the file is now %.12s…: rerun `%s`",
				p.Config, p.Config, r.CfgSHA256, cfgHash, lemmas.RecordCommand(p.Config))
		}
		if r.Distinct == 0 || r.Depth == 0 {
			t.Errorf("%s: a record must have distinct states and depth", p.Config)
		}
		for _, e := range p.Expected(r) {
			t.Errorf("%s: %s", p.Config, e)
		}
	}
	for _, r := range rec.Plans {
		if !slices.ContainsFunc(lemmas.Plans, func(p lemmas.Plan) bool { return p.Config == r.Config }) {
			t.Errorf("traces/lemmas.json records %s, which has no plan in internal/lemmas", r.Config)
		}
	}
}
