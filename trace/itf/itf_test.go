package itf

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hwepoch/hwepoch/model/tlccfg"
	"github.com/hwepoch/hwepoch/trace"
	"github.com/hwepoch/hwepoch/trace/tlcjson"
)

// A TLC trace written as ITF and read back is the same trace, actions included.
func TestRoundTrip(t *testing.T) {
	dir, err := tlccfg.FindSpecDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"w-truncation", "w-recovered-from-crash", "hw-acked-loss"} {
		chk, err := tlccfg.LoadCheck(filepath.Join(dir, name+".cfg"))
		if err != nil {
			t.Fatal(err)
		}
		cfg := &chk.Config
		tr, err := tlcjson.Load(filepath.Join("..", "tlcjson", "testdata", name+".json"), cfg, name)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := Write(&b, cfg, tr); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), `"#set"`) || !strings.Contains(b.String(), `"#map"`) {
			t.Fatalf("%s: ITF output has no #set or #map", name)
		}
		back, err := Read(name+".itf.json", b.Bytes(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if back.ConfigName != name || len(back.Steps) != len(tr.Steps) {
			t.Fatalf("%s: read back %q with %d steps, want %q with %d", name, back.ConfigName, len(back.Steps), name, len(tr.Steps))
		}
		for i := range tr.Steps {
			if tr.Steps[i].Action != back.Steps[i].Action || !tr.Steps[i].State.Equal(back.Steps[i].State) {
				t.Fatalf("%s: step %d differs after the round trip:\n%s", name, i, cmp.Diff(tr.Steps[i], back.Steps[i]))
			}
		}
		if i, err := trace.Replay(cfg, back); err != nil {
			t.Fatalf("%s: the ITF trace does not replay at step %d: %v", name, i, err)
		}
	}
}

func TestReadTaggedValues(t *testing.T) {
	in := map[string]any{"#tup": []any{map[string]any{"#bigint": "12"}, map[string]any{"#set": []any{"a"}}}}
	got, err := normalize(in)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != "[12 [a]]" {
		t.Fatalf("normalize = %v, want [12 [a]]", got)
	}
	if _, err := normalize(map[string]any{"#map": []any{[]any{1, 2}}}); err == nil {
		t.Error("a #map with a non-string key should be an error")
	}
	if _, err := normalize(map[string]any{"#bigint": "x"}); err == nil {
		t.Error("a malformed #bigint should be an error")
	}
}
