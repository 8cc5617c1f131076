package itf

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hwepoch/hwepoch/model/tlccfg"
	"github.com/hwepoch/hwepoch/trace"
	"github.com/hwepoch/hwepoch/trace/tlcjson"
)

// Read never panics, its errors name the input, and a trace it reads
// survives a Write and a second Read unchanged; replaying it must not panic
// either. It works on bytes, so it runs thousands of times faster than
// refine's FuzzLoadITF, which writes each input to a file and loads it as a
// regression (a handful of execs in 15 s).
func FuzzRead(f *testing.F) {
	dir, err := tlccfg.FindSpecDir(".")
	if err != nil {
		f.Fatal(err)
	}
	chk, err := tlccfg.LoadCheck(filepath.Join(dir, "w-truncation.cfg"))
	if err != nil {
		f.Fatal(err)
	}
	cfg := &chk.Config
	tr, err := tlcjson.Load(filepath.Join("..", "tlcjson", "testdata", "w-truncation.json"), cfg, "w-truncation")
	if err != nil {
		f.Fatal(err)
	}
	// Short, compact seeds (the first one and two states, and a late one
	// whose logs, caches and messages are filled, without the document's
	// prose but with its vars, which Read requires): the fuzzer's minimization of a new input, during which its
	// exec count stands still, grows with the square of the input's size.
	for _, steps := range [][]trace.Step{tr.Steps[:1], tr.Steps[:2], tr.Steps[len(tr.Steps)-1:]} {
		var b bytes.Buffer
		short := tr
		short.Steps = steps
		if err := Write(&b, cfg, short); err != nil {
			f.Fatal(err)
		}
		var doc map[string]any
		if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
			f.Fatal(err)
		}
		doc["#meta"] = map[string]any{"config": tr.ConfigName}
		seed, err := json.Marshal(doc)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(seed)
	}
	f.Add([]byte(`{"#meta": {"config": "x"}, "states": []}`))
	f.Add([]byte(`{"states": [{"log": {"#set": 3}}]}`))
	f.Add([]byte(`{"states": [{"#meta": {"action": "Elect", "params": {"r": "r9"}}, "nextId": {"#bigint": "99999999999999999999"}}]}`))
	f.Add([]byte(`{"states": [{"acked": {"#map": [["r1", {"#tup": [{"#unserializable": 1}]}]]}}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := Read("fuzz.itf.json", b, cfg)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.itf.json: ") {
				t.Fatalf("the error does not name the input: %v", err)
			}
			return
		}
		_, _ = trace.Replay(cfg, got)
		var out bytes.Buffer
		if err := Write(&out, cfg, got); err != nil {
			t.Fatalf("Write of a trace Read accepted: %v", err)
		}
		back, err := Read("fuzz.itf.json", out.Bytes(), cfg)
		if err != nil {
			t.Fatalf("Read of what Write wrote: %v\n%s", err, out.Bytes())
		}
		if back.ConfigName != got.ConfigName || len(back.Steps) != len(got.Steps) {
			t.Fatalf("read back %q with %d steps, want %q with %d", back.ConfigName, len(back.Steps), got.ConfigName, len(got.Steps))
		}
		for i := range got.Steps {
			if got.Steps[i].Action != back.Steps[i].Action || !got.Steps[i].State.Equal(back.Steps[i].State) {
				t.Fatalf("step %d differs after a Write and a Read:\n%s", i, cmp.Diff(got.Steps[i], back.Steps[i]))
			}
		}
	})
}
