package itf

import (
	"bytes"
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
	s := b.String()
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
