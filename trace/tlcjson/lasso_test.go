package tlcjson

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hwepoch/hwepoch/model/tlccfg"
)

// TestLasso: TLC's liveness counterexamples are lassos. Its JSON has one
// action more than states, the last leading back to the state the cycle
// starts at ("Back to state k"), or to the last state itself when the
// behaviour stutters there ("State N: Stuttering"). Both read as
// trace.Trace lassos; a back edge to no state of the trace is refused.
// (testdata: TLC2 2026.12.02 rev cc6b616 on live-hw-catchup and on
// live-mutant-fetcher-stops with its bug seeded.)
func TestLasso(t *testing.T) {
	spec, err := tlccfg.FindSpecDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name            string
		states, loop    int
		stutter, mutant bool
	}{
		{name: "live-hw-catchup", states: 28, loop: 23},
		{name: "live-mutant-fetcher-stops", states: 10, loop: 9, stutter: true, mutant: true},
	} {
		chk, err := tlccfg.LoadCheckSeeded(filepath.Join(spec, c.name+".cfg"))
		if err != nil {
			t.Fatal(err)
		}
		tr, err := Load(filepath.Join("testdata", c.name+".json"), &chk.Config, c.name)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !tr.Lasso || tr.Len() != c.states || tr.Loop != c.loop {
			t.Errorf("%s: lasso %v, %d states, loop %d; want %d states, loop %d", c.name, tr.Lasso, tr.Len(), tr.Loop, c.states, c.loop)
		}
		if err := tr.CheckLasso(); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	b, err := os.ReadFile(filepath.Join("testdata", "live-hw-catchup.json"))
	if err != nil {
		t.Fatal(err)
	}
	chk, err := tlccfg.LoadCheck(filepath.Join(spec, "live-hw-catchup.cfg"))
	if err != nil {
		t.Fatal(err)
	}
	// The back edge is the last action; its target is its last "[k,{".
	i := strings.Index(string(b), `"state":`)
	j := strings.LastIndex(string(b[:i]), `[24,{`)
	if j < 0 {
		t.Fatal("testdata: no back edge to state 24")
	}
	bad := string(b[:j]) + `[99,{` + string(b[j+len(`[24,{`):])
	if _, err := Parse("bad", []byte(bad), &chk.Config, "live-hw-catchup"); err == nil {
		t.Error("a lasso leading back to no state of the trace was read")
	}
}
