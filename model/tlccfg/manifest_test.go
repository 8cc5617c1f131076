package tlccfg

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A manifest entry's tlc note says why TLC has no run of it: given, it
// must say something; absent, the entry claims nothing.
func TestManifestTLCNote(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "big.cfg"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	load := func(tlc string) (*Manifest, error) {
		ci := `, "ci": false`
		if strings.Contains(tlc, `"ci"`) {
			ci = ""
		}
		m := `{"spec": "Replication.tla", "configs": [{"name": "big", "policy": "LeaderEpoch", "release": "2.1.0", "kind": "proof", "expect": "holds"` + ci + tlc + `}]}`
		if err := os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(m), 0o644); err != nil {
			t.Fatal(err)
		}
		return LoadManifest(dir)
	}
	for _, bad := range []string{`, "tlc": ""`, `, "tlc": "  \t"`} {
		if _, err := load(bad); err == nil || !strings.Contains(err.Error(), "big: tlc is empty") {
			t.Errorf("%s: %v, want it refused as empty", bad, err)
		}
	}
	if _, err := load(`, "ci": true, "tlc": "does not finish"`); err == nil || !strings.Contains(err.Error(), `big: "ci": true, but its tlc note`) {
		t.Errorf("ci with a tlc note: %v, want it refused", err)
	}
	if _, err := load(`, "tlc": 7`); err == nil {
		t.Error(`"tlc": 7 accepted`)
	}
	m, err := load(`, "tlc": "does not finish: 1.2e8 states at depth 40 after 60 min, 2 workers"`)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Configs[0].NoTLCRun(); got != "does not finish: 1.2e8 states at depth 40 after 60 min, 2 workers" {
		t.Errorf("NoTLCRun() = %q", got)
	}
	if m, err = load(""); err != nil || m.Configs[0].NoTLCRun() != "" {
		t.Errorf("no tlc note: %v, %q", err, m.Configs[0].NoTLCRun())
	}
}
