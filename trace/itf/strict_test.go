package itf

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hwepoch/hwepoch/model/tlccfg"
	"github.com/hwepoch/hwepoch/trace/tlcjson"
)

// ITF: trailing garbage, a second document, a JSON key given twice, a
// #map with the same key twice (a function has one value per argument;
// the last used to win) and integers out of range are refused.
func TestReadRefusesGarbageDuplicatesAndOutOfRange(t *testing.T) {
	chk, b := wAcked(t)
	s := string(b)
	hw := "\"hw\": {\n    \"#map\": [\n     [\n      \"r1\",\n      0\n     ],"
	if !strings.Contains(s, hw) {
		t.Fatalf("the ITF writer's layout changed; the test's edits must follow:\n%.2000s", s)
	}
	for _, tc := range []struct{ in, want string }{
		{s, ""},
		{s + "garbage", "data after the JSON value"},
		{s + s, "data after the JSON value"},
		{strings.Replace(s, `"vars": [`, `"vars": [], "vars": [`, 1), `key "vars" given twice`},
		{strings.Replace(s, hw, hw+"\n     [\"r1\", 3],", 1), `#map key "r1" given twice`},
		{strings.Replace(s, hw, strings.Replace(hw, "0", `{"#bigint": "99999999999999999999"}`, 1), 1), "#bigint"},
		{strings.Replace(s, hw, strings.Replace(hw, "0", `{"#bigint": "-4"}`, 1), 1), "hw.r1: -4 is out of range"},
		{strings.Replace(s, hw, strings.Replace(hw, "0", "4294967297", 1), 1), ""}, // a large HW is in range for the reader; replay judges it
	} {
		_, err := Read("x.itf.json", []byte(tc.in), &chk.Config)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%v", err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("error %v, want %q", err, tc.want)
		}
	}
}

// wAcked is TLC's w-acked trace written as ITF, with its configuration.
func wAcked(t *testing.T) (*tlccfg.Check, []byte) {
	t.Helper()
	dir, err := tlccfg.FindSpecDir(".")
	if err != nil {
		t.Fatal(err)
	}
	chk, err := tlccfg.LoadCheck(filepath.Join(dir, "w-acked.cfg"))
	if err != nil {
		t.Fatal(err)
	}
	tr, err := tlcjson.Load(filepath.Join("..", "tlcjson", "testdata", "w-acked.json"), &chk.Config, "w-acked")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Write(&b, &chk.Config, tr); err != nil {
		t.Fatal(err)
	}
	return chk, b.Bytes()
}

// ITF tells sets ({"#set": ...}), sequences (plain arrays) and tuples
// ({"#tup": ...}) apart, and so does the reader: a tuple or a sequence
// where the spec's type is a set, and a set or a tuple where it is a
// sequence, are refused, naming the state and the field (both used to load
// as the same array). The document's "vars" lists every variable of the
// spec, each once (an empty list, or one without hw, used to load).
func TestReadRefusesWrongCollectionsAndVars(t *testing.T) {
	chk, b := wAcked(t)
	state := func(doc map[string]any, i int) map[string]any { return doc["states"].([]any)[i].(map[string]any) }
	// r1's value of the ITF function v, a {"#map": [[key, value], ...]}.
	r1 := func(v any) []any {
		for _, p := range v.(map[string]any)["#map"].([]any) {
			if kv := p.([]any); kv[0] == "r1" {
				return kv
			}
		}
		t.Fatal("no r1 in the function")
		return nil
	}
	inner := func(v any) any { // a #set's or #tup's elements
		for _, x := range v.(map[string]any) {
			return x
		}
		return nil
	}
	vars := func(doc map[string]any) []any { return doc["vars"].([]any) }
	for _, tc := range []struct {
		name string
		edit func(doc map[string]any)
		want string
	}{
		{"as written", func(map[string]any) {}, ""},
		{"a tuple for a set", func(doc map[string]any) {
			st := state(doc, 1)
			st["ctrlIsr"] = map[string]any{"#tup": inner(st["ctrlIsr"])}
		}, "x.itf.json: state 1: ctrlIsr: want a set, got a tuple (#tup) of 2"},
		{"a tuple for a set, in a function", func(doc map[string]any) {
			kv := r1(state(doc, 3)["isr"])
			kv[1] = map[string]any{"#tup": inner(kv[1])}
		}, "x.itf.json: state 3: isr.r1: want a set, got a tuple (#tup) of 2"},
		{"a tuple for a set, in a message", func(doc map[string]any) {
			kv := r1(state(doc, 1)["controllerQueue"])
			msg := kv[1].([]any)[0].(map[string]any)
			msg["isr"] = map[string]any{"#tup": inner(msg["isr"])}
		}, "x.itf.json: state 1: controllerQueue.r1[0].isr: want a set, got a tuple (#tup) of 2"},
		{"a sequence for a set", func(doc map[string]any) {
			state(doc, 4)["acked"] = inner(state(doc, 4)["acked"])
		}, "x.itf.json: state 4: acked: want a set, got a sequence (a plain array) of 1"},
		{"a set for a sequence", func(doc map[string]any) {
			kv := r1(state(doc, 3)["log"])
			kv[1] = map[string]any{"#set": kv[1]}
		}, "x.itf.json: state 3: log.r1: want a sequence, got a set (#set) of 1"},
		{"a tuple for a sequence", func(doc map[string]any) {
			kv := r1(state(doc, 2)["epochCache"])
			kv[1] = map[string]any{"#tup": kv[1]}
		}, "x.itf.json: state 2: epochCache.r1: want a sequence, got a tuple (#tup) of 1"},
		{"vars without hw", func(doc map[string]any) {
			var vs []any
			for _, v := range vars(doc) {
				if v != "hw" {
					vs = append(vs, v)
				}
			}
			doc["vars"] = vs
		}, `x.itf.json: vars: "hw" missing`},
		{"vars empty", func(doc map[string]any) { doc["vars"] = []any{} }, "x.itf.json: vars: lists no variable"},
		{"vars absent", func(doc map[string]any) { delete(doc, "vars") }, "x.itf.json: vars: missing"},
		{"vars with another", func(doc map[string]any) { doc["vars"] = append(vars(doc), "hwm") }, `x.itf.json: vars: "hwm" is not a variable of the spec`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var doc map[string]any
			if err := json.Unmarshal(b, &doc); err != nil {
				t.Fatal(err)
			}
			tc.edit(doc)
			in, err := json.Marshal(doc)
			if err != nil {
				t.Fatal(err)
			}
			_, err = Read("x.itf.json", in, &chk.Config)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("%v", err)
			case tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.want)):
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}
