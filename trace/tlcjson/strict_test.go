package tlcjson

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hwepoch/hwepoch/model"
)

// TLC's JSON traces: trailing garbage, a second document, a key given
// twice (encoding/json keeps the last) and numbers outside the variable's
// range are refused, with the line or the step and field.
func TestTraceRefusesGarbageDuplicatesAndOutOfRange(t *testing.T) {
	cfg, b := loadTestdata(t, "w-acked")
	s := string(b)
	for _, tc := range []struct {
		in, want string
	}{
		{s + "\n", ""},
		{s + " x", "data after the JSON value"},
		{s + "\n" + s, "line 2, column 1: data after the JSON value"},
		{strings.Replace(s, `"nextId":1,`, `"nextId":1,"nextId":2,`, 1), `key "nextId" given twice`},
		{strings.Replace(s, `"hw":{"r1":0,`, `"hw":{"r1":0,"r1":5,`, 1), `key "r1" given twice`},
		{strings.Replace(s, `"nextId":1,`, `"nextId":99999999999999999999,`, 1), "nextId: want an integer"},
		{strings.Replace(s, `"hw":{"r1":0,`, `"hw":{"r1":-1,`, 1), "hw.r1: -1 is out of range: want 0 or more"},
		{strings.Replace(s, `"ctrlEpoch":-1,`, `"ctrlEpoch":-2,`, 1), "ctrlEpoch: -2 is out of range: want -1 or more"},
		{strings.Replace(s, `"crashes":0,`, `"crashes":1e3,`, 1), "crashes: want an integer"},
	} {
		_, err := Parse("x.json", []byte(tc.in), cfg, "w-acked")
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("the recorded trace: %v", err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("error %v, want %q", err, tc.want)
		}
	}
}

// runs.json likewise, and its JSON errors name the line.
func TestRunsRefuseGarbageDuplicatesAndOutOfRange(t *testing.T) {
	run := `{"name": "a", "mode": "bfs", "verdict": "holds", "distinctStates": 5, "depth": 3}`
	for _, tc := range []struct{ in, want string }{
		{`{"runs": [` + run + `]}`, ""},
		{`{"runs": [` + run + `]} {}`, "data after the JSON value"},
		{"{\"runs\": [" + run + "]}\n{\"runs\": []}", "line 2, column 1: data after the JSON value"},
		{`{"runs": [{"name": "a", "name": "b", "verdict": "holds"}]}`, `key "name" given twice`},
		{"{\"runs\": [\n{\"name\": \"a\", \"verdict\": \"holds\", \"depth\": 99999999999999999999}]}", "line 2"},
		{`{"runs": [{"name": "a", "verdict": "holds", "distinctStates": -1}]}`, "distinctStates -1"},
		{`{"runs": [{"name": "a", "verdict": "holds", "depth": -1}]}`, "depth -1"},
		{"{\"runs\": [\n  {\"name\": 1}]}", "line 2, column"},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "runs.json"), []byte(tc.in), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := LoadRuns(dir)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.in, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: error %v, want %q", tc.in, err, tc.want)
		}
	}
}

// varsJSON is the spec's variables as TLC lists them.
var varsJSON = func() string {
	b, err := json.Marshal(model.VarNames)
	if err != nil {
		panic(err)
	}
	return string(b)
}()

// A trace's "vars" lists every variable of the spec, each once: an empty
// list, a missing one, a list without hw, with a variable the spec does not
// have or with one twice is refused, naming the file and the field (an
// empty list used to load: the states carry the variables anyway).
func TestTraceRefusesWrongVars(t *testing.T) {
	cfg, b := loadTestdata(t, "w-acked")
	s := string(b)
	list := `"vars":` + varsJSON
	if !strings.Contains(s, list) {
		t.Fatalf("testdata/w-acked.json does not list the variables as %s", list)
	}
	edit := func(old, new string) string {
		return strings.Replace(s, list, strings.Replace(list, old, new, 1), 1)
	}
	for _, tc := range []struct{ name, in, want string }{
		{"as TLC writes it", s, ""},
		{"empty", strings.Replace(s, list, `"vars":[]`, 1), "x.json: vars: lists no variable"},
		{"null", strings.Replace(s, list, `"vars":null`, 1), "x.json: vars: missing"},
		{"absent", strings.Replace(s, ","+list, "", 1), "x.json: vars: missing"},
		{"without hw", edit(`"hw",`, ""), `x.json: vars: "hw" missing`},
		{"without four", edit(`"leaderEpoch","leader","hw","isr",`, ""), `x.json: vars: "leaderEpoch", "leader", "hw", and 1 more missing`},
		{"unknown", edit(`"hw"`, `"hw","hwm"`), `x.json: vars: "hwm" is not a variable of the spec`},
		{"twice", edit(`"hw"`, `"hw","hw"`), `x.json: vars: "hw" is listed twice`},
	} {
		_, err := Parse("x.json", []byte(tc.in), cfg, "w-acked")
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.want)):
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}
