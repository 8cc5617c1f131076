package deviation

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/model/tlccfg"
	"github.com/hwepoch/hwepoch/trace/tlcjson"
)

const specDir = "../../spec"

func manifest(t *testing.T) *tlccfg.Manifest {
	t.Helper()
	man, err := tlccfg.LoadManifest(specDir)
	if err != nil {
		t.Fatal(err)
	}
	return man
}

// The comparison bites: hw-above-leo with HWBelowLEO still asserted makes
// le-unflushed's restored search violate it, a verdict that is not the
// manifest's (and shows the HW above the LEO is reachable there).
func TestCheckBites(t *testing.T) {
	if testing.Short() {
		t.Skip("explores about a million states twice")
	}
	man := manifest(t)
	e, _ := man.Lookup("le-unflushed")
	saved := unasserted
	unasserted = func(model.Restore) []string { return nil }
	defer func() { unasserted = saved }()
	res, err := Check(context.Background(), man, e, model.RestoreHWAboveLEO, 0)
	if err != nil {
		t.Fatal(err)
	}
	if res.Equal() || res.Restored.String() != "violated HWBelowLEO" {
		t.Fatalf("restored verdict %s, equal = %t: want violated HWBelowLEO, not equal", res.Restored, res.Equal())
	}
	if !strings.Contains(Line(res), "DIFFERS") {
		t.Errorf("the line does not say it differs: %s", Line(res))
	}
}

// Vacuous and Equal at their edges.
func TestVerdictEdges(t *testing.T) {
	holds := Verdict{Holds: true, Distinct: 10}
	for _, c := range []struct {
		name           string
		r              Result
		equal, vacuous bool
	}{
		{"holds, states added", Result{Expect: "holds", Base: holds, Restored: Verdict{Holds: true, Distinct: 11}}, true, false},
		{"holds, nothing added", Result{Expect: "holds", Base: holds, Restored: holds}, true, true},
		{"violation where the spec holds", Result{Expect: "holds", Base: holds, Restored: Verdict{Property: "NoAckedLoss", Distinct: 10}}, false, false},
		{"same violation, same count: not vacuous", Result{Expect: "violated P", Base: Verdict{Property: "P", Distinct: 10}, Restored: Verdict{Property: "P", Distinct: 10}}, true, false},
		{"another violation", Result{Expect: "violated P", Base: Verdict{Property: "P"}, Restored: Verdict{Property: "Q"}}, false, false},
	} {
		if got := c.r.Equal(); got != c.equal {
			t.Errorf("%s: Equal = %t", c.name, got)
		}
		if got := c.r.Vacuous(); got != c.vacuous {
			t.Errorf("%s: Vacuous = %t", c.name, got)
		}
		rec := ToRecord(c.r)
		if rec.Equal() != c.equal || rec.Vacuous() != c.vacuous {
			t.Errorf("%s: the record says equal %t vacuous %t", c.name, rec.Equal(), rec.Vacuous())
		}
	}
}

// The record is of this spec and these patches, covers every check the
// command runs by default, says every verdict is equal (TLC's too), and its
// small checks still come out the same.
func TestRecordsAreCurrent(t *testing.T) {
	man := manifest(t)
	recs, err := LoadRecords(RecordPath(specDir))
	if err != nil {
		t.Fatal(err)
	}
	sum, err := SpecSHA256(specDir)
	if err != nil {
		t.Fatal(err)
	}
	if recs.SpecSHA256 != sum {
		t.Fatalf("traces/deviations.json is of another spec (%s, now %s): rerun hwepoch deviations -record", recs.SpecSHA256, sum)
	}
	runs, err := tlcjson.LoadRuns(filepath.Join(specDir, "..", "traces", "tlc"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[[2]string]Record{}
	for _, c := range recs.Checks {
		got[[2]string{string(c.Restore), c.Config}] = c
	}
	for _, r := range model.Restores {
		patched, err := PatchedSHA256(specDir, r)
		if err != nil {
			t.Fatal(err)
		}
		es, err := Entries(man, r, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range es {
			run, ok := runs.Exhaustive(e.Name)
			if !ok || run.DistinctStates > DefaultMaxStates {
				continue
			}
			c, ok := got[[2]string{string(r), e.Name}]
			if !ok {
				t.Errorf("%s on %s: no record; run hwepoch deviations -record -restore %s %s", r, e.Name, r, e.Name)
				continue
			}
			if c.PatchedSHA256 != patched {
				t.Errorf("%s on %s: recorded on another patched spec: rerun hwepoch deviations -record -restore %s", r, e.Name, r)
			}
			if !c.Equal() {
				t.Errorf("%s on %s: recorded verdict %s (TLC %v), the manifest's is %s", r, e.Name, c.Verdict, c.TLC, c.Expect)
			}
			if c.TLC != nil && c.Verdict == "holds" && (c.TLC.Distinct != c.Distinct || c.TLC.Depth != c.Depth) {
				t.Errorf("%s on %s: TLC found %d states depth %d, the explorer %d depth %d", r, e.Name, c.TLC.Distinct, c.TLC.Depth, c.Distinct, c.Depth)
			}
			if c.Distinct > 150_000 || testing.Short() {
				continue
			}
			res, err := Check(context.Background(), man, e, r, 0)
			if err != nil {
				t.Fatal(err)
			}
			now := ToRecord(res)
			if now.Verdict != c.Verdict || now.Distinct != c.Distinct || now.Depth != c.Depth || now.SpecDistinct != c.SpecDistinct {
				t.Errorf("%s on %s: now %s %d states depth %d (spec %d), recorded %s %d depth %d (spec %d)", r, e.Name,
					now.Verdict, now.Distinct, now.Depth, now.SpecDistinct, c.Verdict, c.Distinct, c.Depth, c.SpecDistinct)
			}
		}
	}
}
