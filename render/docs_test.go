package render

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/hwepoch/hwepoch/model/tlccfg"
	"github.com/hwepoch/hwepoch/trace/itf"
	"github.com/hwepoch/hwepoch/trace/scenario"
)

const regenerate = "go run ./cmd/hwepoch scenario -all -q -svgdir docs/img"

// TestDocsPicturesAreCurrent keeps docs/img from going stale: every case
// of every scenario in traces/scenarios has docs/img/NAME-CASE.svg equal to
// a fresh render, docs/scenarios.md shows it, and no other picture lingers.
func TestDocsPicturesAreCurrent(t *testing.T) {
	root := filepath.Join("..")
	scs, err := scenario.LoadDir(filepath.Join(root, "traces", "scenarios"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(root, "docs", "scenarios.md"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, sc := range scs {
		if !strings.Contains(string(doc), "## "+sc.Name+"\n") {
			t.Errorf("docs/scenarios.md has no section \"## %s\"", sc.Name)
		}
		for _, c := range sc.Cases() {
			name := sc.Name + "-" + c.Slug() + ".svg"
			want[name] = true
			cfg := sc.Config(c)
			tr, _, err := sc.Run(c)
			if err != nil {
				t.Fatal(err)
			}
			var fresh bytes.Buffer
			if err := SVG(&fresh, &cfg, tr, ScenarioOptions(sc, c)); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(filepath.Join(root, "docs", "img", name))
			switch {
			case err != nil:
				t.Errorf("%v: run %s", err, regenerate)
			case !bytes.Equal(got, fresh.Bytes()):
				t.Errorf("docs/img/%s differs from a fresh render of %s %s: run %s", name, sc.Name, c, regenerate)
			}
			if !strings.Contains(string(doc), "(img/"+name+")") {
				t.Errorf("docs/scenarios.md does not show img/%s", name)
			}
		}
	}
	all, _ := filepath.Glob(filepath.Join(root, "docs", "img", "*.svg"))
	var extra []string
	for _, p := range all {
		// tlc-NAME.svg are TLC's counterexamples, shown and kept current by
		// docs/correctness.md and its test (docs/docs_test.go).
		base := filepath.Base(p)
		// finding-NAME.svg draws the explorer's counterexample of NAME
		// (docs/findings.md), which must still be there.
		if name, ok := strings.CutPrefix(base, "liveness-"); ok {
			// liveness-NAME.svg draws the explorer's lasso of NAME
			// (docs/correctness.md section 8): a fresh render of it.
			checkLassoPicture(t, root, base, strings.TrimSuffix(name, ".svg"))
			continue
		}
		if name, ok := strings.CutPrefix(base, "finding-"); ok {
			itf := filepath.Join(root, "traces", "explorer", "counterexamples", strings.TrimSuffix(name, ".svg")+".itf.json")
			if _, err := os.Stat(itf); err != nil {
				t.Errorf("docs/img/%s draws %s, which is gone: %v", base, itf, err)
			}
			continue
		}
		if !want[base] && !strings.HasPrefix(base, "tlc-") {
			extra = append(extra, base)
		}
	}
	sort.Strings(extra)
	if len(extra) > 0 {
		t.Errorf("docs/img has pictures of no scenario case: %v (remove them)", extra)
	}
}

// TestDocsVerdictTableIsCurrent: the table between the scenario-verdicts
// markers of docs/scenarios.md is what `hwepoch scenario -all -table`
// prints now.
func TestDocsVerdictTableIsCurrent(t *testing.T) {
	root := filepath.Join("..")
	scs, err := scenario.LoadDir(filepath.Join(root, "traces", "scenarios"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := VerdictTable(scs)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(root, "docs", "scenarios.md"))
	if err != nil {
		t.Fatal(err)
	}
	const begin, end = "<!-- scenario-verdicts:begin", "<!-- scenario-verdicts:end -->"
	s := string(doc)
	i, j := strings.Index(s, begin), strings.Index(s, end)
	if i < 0 || j < i {
		t.Fatalf("docs/scenarios.md lacks the %s ... %s markers", begin, end)
	}
	block := s[i:j]
	block = block[strings.Index(block, "\n")+1:]
	if block != want {
		t.Errorf("docs/scenarios.md's verdict table is stale: replace the lines between the markers with the output of go run ./cmd/hwepoch scenario -all -table\n got:\n%s\nwant:\n%s", block, want)
	}
}

// A picture shows the first sentence of each phase note. Where a scenario
// runs with and without fencing, a note both cases show must not tell one
// case's story in that sentence (kip320-zombie-follower's Fencing=TRUE
// picture said "r2 fetches again, from 2 without fencing: r1's HW moves to
// 2", which happens only without it).
func TestPhaseNotesFitEveryCaseTheyAreShownIn(t *testing.T) {
	scs, err := scenario.LoadDir(filepath.Join("..", "traces", "scenarios"))
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range scs {
		for _, c := range sc.Cases() {
			if c.Variant.Name != "Fencing" {
				continue
			}
			fenced := c.Variant.String() == "Fencing=TRUE"
			for step, note := range sc.Notes(c) {
				first := strings.ToLower(firstSentence(note))
				without := strings.Contains(first, "without fencing")
				with := strings.Contains(strings.ReplaceAll(first, "without fencing", ""), "with fencing")
				if fenced && without || !fenced && with {
					t.Errorf("%s %s, the phase at step %d: the picture says %q, the other case's story", sc.Name, c, step, firstSentence(note))
				}
			}
		}
	}
}

// checkLassoPicture holds docs/img/BASE to a fresh render of the
// explorer's lasso traces/explorer/counterexamples/NAME.itf.json, which
// must be a lasso, and the render to mark its cycle.
func checkLassoPicture(t *testing.T, root, base, name string) {
	t.Helper()
	itfPath := filepath.Join(root, "traces", "explorer", "counterexamples", name+".itf.json")
	chk, err := tlccfg.LoadCheckSeeded(filepath.Join(root, "spec", name+".cfg"))
	if err != nil {
		t.Fatal(err)
	}
	tr, err := itf.ReadFile(itfPath, &chk.Config)
	if err != nil {
		t.Fatalf("docs/img/%s: %v", base, err)
	}
	if !tr.Lasso {
		t.Fatalf("docs/img/%s draws %s, which is no lasso", base, itfPath)
	}
	var fresh bytes.Buffer
	if err := SVG(&fresh, &chk.Config, tr, LassoOptions(name, tr)); err != nil {
		t.Fatal(err)
	}
	for _, mark := range []string{"the cycle starts after state", "repeat for ever"} {
		if !strings.Contains(fresh.String(), mark) {
			t.Errorf("the lasso's picture lacks %q", mark)
		}
	}
	got, err := os.ReadFile(filepath.Join(root, "docs", "img", base))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, fresh.Bytes()) {
		if *update {
			if err := os.WriteFile(filepath.Join(root, "docs", "img", base), fresh.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Errorf("docs/img/%s differs from a fresh render of %s: go test ./render -run TestDocsPicturesAreCurrent -update", base, itfPath)
	}
}
