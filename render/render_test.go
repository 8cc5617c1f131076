package render

import (
	"bytes"
	"encoding/xml"
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/trace"
	"github.com/hwepoch/hwepoch/trace/scenario"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func golden(t *testing.T, c string) (model.Config, trace.Trace, Options) {
	t.Helper()
	sc, err := scenario.Load(filepath.Join("testdata", "golden.scenario"))
	if err != nil {
		t.Fatal(err)
	}
	cs, err := sc.FindCase(c)
	if err != nil {
		t.Fatal(err)
	}
	tr, _, err := sc.Run(cs)
	if err != nil {
		t.Fatal(err)
	}
	return sc.Config(cs), tr, ScenarioOptions(sc, cs)
}

// TestGolden compares the SVG and Markdown of the golden scenario with the
// files in testdata (go test ./render -update rewrites them; look at the
// SVGs before committing).
func TestGolden(t *testing.T) {
	for _, c := range []string{model.HighWatermark, model.LeaderEpoch} {
		cfg, tr, opt := golden(t, c)
		for _, f := range []struct {
			ext    string
			render func(io.Writer, *model.Config, trace.Trace, Options) error
		}{{".svg", SVG}, {".md", Markdown}} {
			var b bytes.Buffer
			if err := f.render(&b, &cfg, tr, opt); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", "golden-"+c+f.ext)
			if *update {
				if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./render -update)", err)
			}
			if !bytes.Equal(b.Bytes(), want) {
				t.Errorf("%s differs from a fresh render (if the change is meant: go test ./render -update, and look at it)", path)
			}
		}
	}
}

func TestDeterministicAndWellFormed(t *testing.T) {
	cfg, tr, opt := golden(t, model.LeaderEpoch)
	var a, b bytes.Buffer
	if err := SVG(&a, &cfg, tr, opt); err != nil {
		t.Fatal(err)
	}
	if err := SVG(&b, &cfg, tr, opt); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("two renders of one trace differ")
	}
	d := xml.NewDecoder(bytes.NewReader(a.Bytes()))
	for {
		_, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("the SVG is not well-formed XML: %v", err)
		}
	}
}

// TestPanels checks the folding and the marking of violations on the
// golden scenario under HighWatermark.
func TestPanels(t *testing.T) {
	cfg, tr, opt := golden(t, model.HighWatermark)
	ps := panels(&cfg, tr, opt)
	var spans []string
	for _, p := range ps {
		spans = append(spans, strings.Join(p.captions, "+"))
	}
	// SendFetch, HandleFetch and UpdateFollowerFetchState change nothing
	// drawn (the leader's HW is already 1): they fold into the panel of
	// HandleFetchResponse.
	last := ps[len(ps)-1]
	if last.first != len(tr.Steps)-4 || last.last != len(tr.Steps)-1 ||
		!strings.HasPrefix(last.captions[0], "SendFetch(r1) at 1") ||
		!strings.HasPrefix(last.captions[1], "HandleFetch(r2,r1) → 0 rec, hw 1") {
		t.Errorf("last panel %d..%d %q; panels %q", last.first, last.last, last.captions, spans)
	}
	// Elect(r2) is unclean, and is where NoAckedLoss and NoVisibleLoss
	// begin; in the next panel they persist.
	for i, p := range ps {
		if p.captions[0] != "Elect(r2) unclean" {
			continue
		}
		if len(p.violations) != 2 || !p.violations[0].fresh || p.violations[0].invariant != "NoAckedLoss" ||
			p.violations[0].why != "leader r2 lacks acked m1@0" {
			t.Errorf("at the unclean election: %+v", p.violations)
		}
		if n := ps[i+1].violations; len(n) != 2 || n[0].fresh {
			t.Errorf("after it: %+v", n)
		}
		if prev := ps[i-1]; prev.captions[0] != "Crash(r1,1)" || strings.Join(prev.note, " ") != "r1 crashes; r2 is elected uncleanly and writes m2." {
			t.Errorf("the note of the phase Crash(r1,1) begins is not on its panel: %q %q", prev.captions, prev.note)
		}
	}
	var why string
	for _, v := range last.violations {
		if v.invariant == "NoDivergence" {
			why = v.why
		}
	}
	if why != "offset 0: m1 on r1, m2 on r2, below both HWs" {
		t.Errorf("NoDivergence at the end: %q (violations %+v)", why, last.violations)
	}
}

func TestCaptionsSayWhatMessagesCarry(t *testing.T) {
	_, tr, _ := golden(t, model.LeaderEpoch)
	cfg, _, _ := golden(t, model.LeaderEpoch)
	var got []string
	for i := 1; i < len(tr.Steps); i++ {
		got = append(got, caption(&cfg, &tr.Steps[i-1].State, &tr.Steps[i].State, tr.Steps[i].Action))
	}
	for _, want := range []string{"Elect(r2) unclean", "SendOffsetsForLeaderEpoch(r1) asks about e0",
		"HandleOffsetsForLeaderEpoch(r2,r1) → e0 ends at 0", "SendFetch(r1) at 0", "HandleFetch(r2,r1) → 1 rec, hw 1"} {
		found := false
		for _, g := range got {
			found = found || g == want
		}
		if !found {
			t.Errorf("no caption %q in %q", want, got)
		}
	}
}

// The captions of 3.9's steps say what they carried too: the
// lastFetchedEpoch of a fetch, a divergingEpoch answer, an AlterPartition
// proposal and the controller's decision on it.
func TestCaptionsOfDivergingEpoch(t *testing.T) {
	dir := filepath.Join("..", "traces", "scenarios")
	var got []string
	for _, name := range []string{"kip101-scenario-2", "alter-partition-pending"} {
		sc, err := scenario.Find(dir, name)
		if err != nil {
			t.Fatal(err)
		}
		c, err := sc.FindCase(model.DivergingEpoch)
		if err != nil {
			t.Fatal(err)
		}
		tr, _, err := sc.Run(c)
		if err != nil {
			t.Fatal(err)
		}
		cfg := sc.Config(c)
		for i := 1; i < len(tr.Steps); i++ {
			got = append(got, caption(&cfg, &tr.Steps[i-1].State, &tr.Steps[i].State, tr.Steps[i].Action))
		}
	}
	for _, want := range []string{"SendFetch(r1) at 2, last e0", "HandleFetch(r2,r1) → diverging: e0 ends at 1",
		"ExpandIsr(r1,r3) proposes {r1,r2,r3}", "HandleAlterPartition(r1) → INVALID_UPDATE_VERSION",
		"HandleAlterPartition(r1) → {r1,r3}, pe 3"} {
		if !slices.Contains(got, want) {
			t.Errorf("no caption %q in %q", want, got)
		}
	}
}

func TestWrap(t *testing.T) {
	got := wrap("HandleOffsetsForLeaderEpoch(r1,r3) → UNKNOWN_LEADER_EPOCH", 40, 3)
	if len(got) != 2 || got[0] != "HandleOffsetsForLeaderEpoch(r1,r3) →" || got[1] != "   UNKNOWN_LEADER_EPOCH" {
		t.Errorf("%q", got)
	}
	if firstSentence([]string{"One. Two", "three."}) != "One." {
		t.Error("firstSentence")
	}
}
