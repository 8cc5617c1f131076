// Package traces holds TLC's recorded runs on our spec (tlc/), the Go
// explorer's (explorer/), the recorded
// lemma results (lemmas.json), named scenarios (scenarios/) and shrunk
// regressions; this test keeps the recorded results honest.
package traces

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hwepoch/hwepoch/internal/explorerruns"
	"github.com/hwepoch/hwepoch/internal/lemmas"
	"github.com/hwepoch/hwepoch/internal/tlc"
	"github.com/hwepoch/hwepoch/internal/verify"
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
		switch why := c.NoTLCRun(); {
		case !ok && why == "":
			t.Errorf("%s: no recorded TLC run in traces/tlc/runs.json (run: hwepoch tlc %s; or, where TLC cannot finish it, say so in the manifest's \"tlc\")", c.Name, c.Name)
			continue
		case !ok:
			continue // TestRecordedExplorerRunsAreCurrent demands the explorer's record
		case why != "":
			t.Errorf("%s: the manifest says TLC has no run of it (%q), but traces/tlc/runs.json records one: drop the manifest's \"tlc\"", c.Name, why)
		}
		if !tlc.Matches(c, tlc.Result{Verdict: r.Verdict, Property: r.Property}) {
			t.Errorf("%s: recorded verdict %q %s, manifest expects %q %s", c.Name, r.Verdict, r.Property, c.Expect, c.Property)
		}
	}
	for _, r := range runs.Runs {
		want := specHash
		if e, ok := man.Lookup(r.Config); ok {
			// A LiveSpec configuration's run is of the liveness module
			// and its seeded bug too (verify.Sums).
			if _, sum, err := verify.Sums(man, e); err == nil {
				want = sum
			}
		}
		if r.SpecSHA256 != want {
			t.Errorf("%s: recorded for spec sha256 %.12s…, the spec is now %.12s…: the spec changed; rerun `hwepoch tlc %s`",
				r.Name, r.SpecSHA256, want, r.Config)
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

// TestRecordedExplorerRunsAreCurrent holds traces/explorer/runs.json to
// the manifest and the files as they are now, as TestRecordedRunsAreCurrent
// holds TLC's: every configuration TLC has no run of has the explorer's
// record (the only count a later run is held to), every record is of a
// configuration of the manifest, gives its verdict, and was made on the
// spec and .cfg as they are. Re-record with `hwepoch check -record NAME`.
func TestRecordedExplorerRunsAreCurrent(t *testing.T) {
	man, err := tlccfg.LoadManifest(filepath.Join("..", "spec"))
	if err != nil {
		t.Fatal(err)
	}
	recs := loadExplorerRuns(t)
	specHash, err := tlcjson.FileSHA256(filepath.Join("..", "spec", "Replication.tla"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range man.Configs {
		if _, ok := recs.Get(c.Name); !ok && c.NoTLCRun() != "" {
			t.Errorf("%s: TLC has no run of it (%s) and %s has no record: record one with `%s`", c.Name, c.NoTLCRun(), explorerruns.File, explorerruns.RecordCommand(c.Name))
		}
	}
	for _, r := range recs.Runs {
		c, ok := man.Lookup(r.Config)
		if !ok {
			t.Errorf("%s records %s, which is not in spec/manifest.json", explorerruns.File, r.Config)
			continue
		}
		if !tlc.Matches(c, tlc.Result{Verdict: r.Verdict, Property: r.Property}) {
			t.Errorf("%s: recorded verdict %q %s, manifest expects %q %s", c.Name, r.Verdict, r.Property, c.Expect, c.Property)
		}
		want := specHash
		if _, sum, err := verify.Sums(man, c); err == nil {
			want = sum // a LiveSpec configuration's: the liveness module and its bug too
		}
		switch {
		case r.Pending != "" && r.SpecSHA256 == want:
			t.Errorf("%s: marked pending (%q) but recorded on this spec: drop \"pending\"", r.Config, r.Pending)
		case r.Pending != "":
			// A record carried over from an earlier spec, said so: check
			// and verify compare nothing with it and print why.
			t.Logf("%s: the record is of an earlier spec (sha256 %.12s…), pending: %s", r.Config, r.SpecSHA256, r.Pending)
		case r.SpecSHA256 != want:
			t.Errorf("%s: recorded on spec sha256 %.12s…, the spec is now %.12s…: re-record with `%s` (or, for a search that cannot be made now, say why in its \"pending\")",
				r.Config, r.SpecSHA256, want, explorerruns.RecordCommand(r.Config))
		}
		cfgHash, err := tlcjson.FileSHA256(man.CfgPath(c))
		if err != nil {
			t.Errorf("%s: %v", r.Config, err)
		} else if r.CfgSHA256 != cfgHash {
			t.Errorf("%s: recorded on %s.cfg sha256 %.12s…, the file is now %.12s…: re-record with `%s`",
				r.Config, r.Config, r.CfgSHA256, cfgHash, explorerruns.RecordCommand(r.Config))
		}
	}
}

// loadExplorerRuns reads explorer/runs.json; a missing file records nothing.
func loadExplorerRuns(t *testing.T) *explorerruns.Runs {
	t.Helper()
	recs, err := explorerruns.Load(filepath.FromSlash(strings.TrimPrefix(explorerruns.File, "traces/")))
	if errors.Is(err, fs.ErrNotExist) {
		return &explorerruns.Runs{}
	}
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// ciMaxStates bounds the configurations the manifest marks "ci": go test
// (TestManifestCIConfigs) and verify --quick explore every one of them, so
// one of millions of states would make both take minutes.
const ciMaxStates = 1_000_000

// TestCIConfigurationsAreSmall holds the manifest's "ci" mark to what the
// recorded runs say: a configuration marked ci whose recorded run (the
// explorer's, else TLC's) counted more than ciMaxStates distinct states
// must not be marked ci.
func TestCIConfigurationsAreSmall(t *testing.T) {
	man, err := tlccfg.LoadManifest(filepath.Join("..", "spec"))
	if err != nil {
		t.Fatal(err)
	}
	runs, err := tlcjson.LoadRuns("tlc")
	if err != nil {
		t.Fatal(err)
	}
	recs := loadExplorerRuns(t)
	for _, c := range man.Configs {
		if !c.CI {
			continue
		}
		size, by := int64(0), ""
		if r, ok := recs.Get(c.Name); ok {
			size, by = r.DistinctStates, "the explorer's recorded run"
		} else if r, ok := runs.Exhaustive(c.Name); ok {
			size, by = r.DistinctStates, "TLC's run"
		}
		if size > ciMaxStates {
			t.Errorf("%s: marked \"ci\" in spec/manifest.json, but %s counted %d distinct states (more than %d): go test and verify --quick explore every ci configuration; mark it \"ci\": false",
				c.Name, by, size, ciMaxStates)
		}
	}
}

// TestRecordedLemmasAreCurrent fails when the spec or a configuration
// changed after the lemma results in traces/lemmas.json were recorded, when
// a plan of internal/lemmas has no record (or a record has no plan), and
// when a record does not give its plan's verdicts. hwepoch verify's lemma
// stage (TestLemmaPlans for hw-acked-loss) compares fresh results with the
// records; this holds every record, those of the plans that take longer
// too, to the files. Rerun `hwepoch lemmas -all -record` to re-record.
func TestRecordedLemmasAreCurrent(t *testing.T) {
	rec, err := lemmas.LoadRecording("lemmas.json")
	if err != nil {
		t.Fatalf("%v (record with %s)", err, lemmas.RecordCommand())
	}
	tlcRuns, err := tlcjson.LoadRuns("tlc")
	if err != nil {
		t.Fatal(err)
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
		if r.Pending != "" {
			// A record carried over from an earlier spec, said so: verify
			// compares nothing with it and reports it skipped.
			if r.SpecSHA256 == specHash {
				t.Errorf("%s: marked pending (%q) but recorded on this spec: drop \"pending\"", p.Config, r.Pending)
			}
			t.Logf("%s: the record is of an earlier spec, pending: %s", p.Config, r.Pending)
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
		// The lemmas walk the configuration's whole state graph: the same
		// states TLC counts, where TLC has a run of it on the same files.
		if tr, ok := tlcRuns.Get(p.Config); ok && tr.SpecSHA256 == r.SpecSHA256 && tr.CfgSHA256 == r.CfgSHA256 && tr.Verdict == "holds" &&
			(tr.DistinctStates != r.Distinct || tr.Depth != r.Depth) {
			t.Errorf("%s: the lemmas' search saw %d distinct states, depth %d; TLC's run of the same files %d, depth %d",
				p.Config, r.Distinct, r.Depth, tr.DistinctStates, tr.Depth)
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
