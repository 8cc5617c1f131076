package verify

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hwepoch/hwepoch/model/explore"
	"github.com/hwepoch/hwepoch/model/tlccfg"
)

// The tlc-small stage passes a configuration whose counts are TLC's and
// fails one whose recorded counts differ, and one made on another spec.
func TestSmallRowsBite(t *testing.T) {
	spec, err := tlccfg.FindSpecDir(".")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(spec, "Replication.tla"))
	if err != nil {
		t.Fatal(err)
	}
	specSum := fmt.Sprintf("%x", sha256.Sum256(b))
	runs, err := explore.LoadSmallRuns(explore.SmallRunsPath(filepath.Dir(spec)))
	if err != nil {
		t.Fatal(err)
	}
	cheapest := slices.MinFunc(runs.Runs, func(a, b explore.SmallRun) int { return int(a.TLC.Generated - b.TLC.Generated) })
	wrong, stale := cheapest, cheapest
	wrong.Name, wrong.TLC.Distinct = "wrong-count", cheapest.TLC.Distinct+1
	stale.Name, stale.SpecSHA256 = "other-spec", strings.Repeat("0", 64)
	path := filepath.Join(t.TempDir(), "tlc-small.json")
	data, err := json.Marshal(explore.SmallRuns{Runs: []explore.SmallRun{cheapest, wrong, stale}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	rows := SmallRows(context.Background(), path, specSum, 2, nil)
	if len(rows) != 3 {
		t.Fatalf("%d rows", len(rows))
	}
	if rows[0].Status != Pass || rows[0].Found != "= (the same counts)" {
		t.Errorf("%s: %+v", cheapest.Name, rows[0])
	}
	if rows[1].Status != Fail || !strings.Contains(rows[1].Found, "MISMATCH") {
		t.Errorf("a count that is not TLC's passed: %+v", rows[1])
	}
	if rows[2].Status != Fail || !strings.Contains(rows[2].Found, "regenerate") {
		t.Errorf("a run of another spec passed: %+v", rows[2])
	}
	if rows := SmallRows(context.Background(), filepath.Join(t.TempDir(), "none.json"), specSum, 1, nil); len(rows) != 1 || rows[0].Status != Fail {
		t.Errorf("a missing file: %+v", rows)
	}
}
