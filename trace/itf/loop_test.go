package itf

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hwepoch/hwepoch/model/tlccfg"
	"github.com/hwepoch/hwepoch/trace"
	"github.com/hwepoch/hwepoch/trace/tlcjson"
)

// TestLoop: ITF's optional "loop" (a lasso: after the last state the
// behaviour returns to states[loop]) is written and read back; a loop that
// names no state is refused; a trace without one reads as no lasso.
func TestLoop(t *testing.T) {
	dir, err := tlccfg.FindSpecDir(".")
	if err != nil {
		t.Fatal(err)
	}
	chk, err := tlccfg.LoadCheck(filepath.Join(dir, "w-truncation.cfg"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := &chk.Config
	tr, err := tlcjson.Load(filepath.Join("..", "tlcjson", "testdata", "w-truncation.json"), cfg, "w-truncation")
	if err != nil {
		t.Fatal(err)
	}
	var plain bytes.Buffer
	if err := Write(&plain, cfg, tr); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), `"loop"`) {
		t.Error("a finite trace was written with a loop")
	}
	if back, err := Read("plain", plain.Bytes(), cfg); err != nil || back.Lasso {
		t.Errorf("a finite trace read back: lasso %v, %v", back.Lasso, err)
	}
	// Our lassos repeat the loop's state as their last (trace.Trace.Lasso).
	finite := tr
	tr.Steps = append(append([]trace.Step(nil), tr.Steps...), trace.Step{Action: tr.Steps[3].Action, State: tr.Steps[2].State})
	tr.Lasso, tr.Loop = true, 2
	var b bytes.Buffer
	if err := Write(&b, cfg, tr); err != nil {
		t.Fatal(err)
	}
	back, err := Read("lasso", b.Bytes(), cfg)
	if err != nil || !back.Lasso || back.Loop != 2 || back.Len() != tr.Len() {
		t.Fatalf("the lasso read back: lasso %v loop %d, %d states, %v", back.Lasso, back.Loop, back.Len(), err)
	}
	// Another tool's lasso need not repeat the state: the step back is
	// inferred, and refused when no step of the spec makes it.
	var nb bytes.Buffer
	if err := Write(&nb, cfg, finite); err != nil {
		t.Fatal(err)
	}
	last := finite.Len() - 1
	open := strings.Replace(nb.String(), `"states": [`, fmt.Sprintf(`"loop": %d, "states": [`, last), 1)
	if back, err := Read("stutter", []byte(open), cfg); err != nil || !back.Lasso || back.Loop != last || back.Len() != finite.Len() {
		t.Errorf("a lasso stuttering in its last state: lasso %v loop %d, %v", back.Lasso, back.Loop, err)
	}
	open = strings.Replace(nb.String(), `"states": [`, `"loop": 0, "states": [`, 1)
	if _, err := Read("no-step-back", []byte(open), cfg); err == nil || !strings.Contains(err.Error(), "no step of the spec leads") {
		t.Errorf("a lasso whose last state cannot step back to the first: %v", err)
	}
	for _, bad := range []string{`"loop": -1`, `"loop": 999`, `"loop": "2"`} {
		doc := strings.Replace(b.String(), `"loop": 2`, bad, 1)
		if _, err := Read("bad", []byte(doc), cfg); err == nil || !strings.Contains(err.Error(), "loop") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}
