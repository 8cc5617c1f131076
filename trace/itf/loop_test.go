package itf

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hwepoch/hwepoch/model/tlccfg"
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
	if back, err := Read("plain", plain.Bytes(), cfg); err != nil || back.Loop != nil {
		t.Errorf("a finite trace read back: loop %v, %v", back.Loop, err)
	}
	loop := 2
	tr.Loop = &loop
	var b bytes.Buffer
	if err := Write(&b, cfg, tr); err != nil {
		t.Fatal(err)
	}
	back, err := Read("lasso", b.Bytes(), cfg)
	if err != nil || back.Loop == nil || *back.Loop != 2 {
		t.Fatalf("the lasso read back: loop %v, %v", back.Loop, err)
	}
	for _, bad := range []string{`"loop": -1`, `"loop": 999`, `"loop": "2"`} {
		doc := strings.Replace(b.String(), `"loop": 2`, bad, 1)
		if _, err := Read("bad", []byte(doc), cfg); err == nil || !strings.Contains(err.Error(), "loop") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}
