package tlc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hwepoch/hwepoch/model/tlccfg"
	"github.com/hwepoch/hwepoch/trace/tlcjson"
)

func TestCommas(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 1095034: "1,095,034"} {
		if got := Commas(n); got != want {
			t.Errorf("Commas(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestSpecDocTableIsCurrent keeps docs/spec.md's verdict table equal to what
// the recorded runs say: rerun `hwepoch tlc -table` after recording.
func TestSpecDocTableIsCurrent(t *testing.T) {
	root := filepath.Join("..", "..")
	man, err := tlccfg.LoadManifest(filepath.Join(root, "spec"))
	if err != nil {
		t.Fatal(err)
	}
	runs, err := tlcjson.LoadRuns(filepath.Join(root, "traces", "tlc"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(root, "docs", "spec.md"))
	if err != nil {
		t.Fatal(err)
	}
	got, ok := between(string(doc), TableBegin, TableEnd)
	if !ok {
		t.Fatalf("docs/spec.md has no verdict table between %q and %q", TableBegin, TableEnd)
	}
	if want := VerdictTable(man, runs); strings.TrimSpace(got) != strings.TrimSpace(want) {
		t.Errorf("docs/spec.md's verdict table is stale; regenerate it with `hwepoch tlc -table`.\nwant:\n%s", want)
	}
}

// A configuration TLC has no run of shows why, where the manifest says
// it; else "not recorded".
func TestVerdictTableSaysWhyTLCHasNoRun(t *testing.T) {
	why := "does not finish: 1.2e8 states at depth 40 after 60 min, 2 workers"
	man := &tlccfg.Manifest{Configs: []tlccfg.Entry{
		{Name: "big", Policy: "LeaderEpoch", Kind: "proof", Expect: "holds", TLC: &why},
		{Name: "new", Policy: "LeaderEpoch", Kind: "proof", Expect: "holds"},
	}}
	table := VerdictTable(man, &tlcjson.Runs{})
	for _, want := range []string{"| `big` | LeaderEpoch | proof | holds | no TLC run: " + why + " |", "| `new` | LeaderEpoch | proof | holds | not recorded |"} {
		if !strings.Contains(table, want) {
			t.Errorf("the table lacks %q:\n%s", want, table)
		}
	}
}

func between(s, begin, end string) (string, bool) {
	i := strings.Index(s, begin)
	j := strings.Index(s, end)
	if i < 0 || j < i {
		return "", false
	}
	return s[i+len(begin) : j], true
}
