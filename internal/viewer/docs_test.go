package viewer

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/hwepoch/hwepoch/refine"
)

const regenerateView = "go test ./internal/viewer -run TestDocsViewerPagesAreCurrent -update"

// TestDocsViewerPagesAreCurrent keeps docs/view from going stale, as
// render's test keeps docs/img: every case of every scenario in
// traces/scenarios has docs/view/NAME-CASE.html equal to the page hwepoch
// view writes for it now (run from the repository's root, so the pages
// name their files as a reader's command line would), docs/scenarios.md
// links it, and no other page lingers. The test writes nothing unless
// -update is given.
func TestDocsViewerPagesAreCurrent(t *testing.T) {
	t.Chdir(repo)
	files, err := filepath.Glob(filepath.Join("traces", "scenarios", "*.scenario"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenarios: %v", err)
	}
	doc, err := os.ReadFile(filepath.Join("docs", "scenarios.md"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join("docs", "view")
	if *update {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string]bool{}
	total := 0
	for _, f := range files {
		pages, err := Load(f, "", refine.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range pages {
			want[l.Name] = true
			var fresh bytes.Buffer
			if err := Write(&fresh, l.Page); err != nil {
				t.Fatal(err)
			}
			total += fresh.Len()
			path := filepath.Join(dir, l.Name)
			if *update {
				if err := WriteFile(path, l.Page); err != nil {
					t.Fatal(err)
				}
			} else if got, err := os.ReadFile(path); err != nil {
				t.Errorf("%v: run %s", err, regenerateView)
			} else if !bytes.Equal(got, fresh.Bytes()) {
				t.Errorf("docs/view/%s differs from the page of %s now: run %s", l.Name, f, regenerateView)
			}
			if !strings.Contains(string(doc), "(view/"+l.Name+")") {
				t.Errorf("docs/scenarios.md does not link view/%s", l.Name)
			}
		}
	}
	// Committed pages stay small: the whole directory under 3 MB.
	if total > 3<<20 {
		t.Errorf("docs/view would hold %d bytes of pages: keep them under 3 MB", total)
	}
	all, _ := filepath.Glob(filepath.Join(dir, "*"))
	var extra []string
	for _, p := range all {
		if !want[filepath.Base(p)] {
			extra = append(extra, filepath.Base(p))
		}
	}
	sort.Strings(extra)
	if len(extra) > 0 {
		t.Errorf("docs/view has pages of no scenario case: %v (remove them)", extra)
	}
}
