package strictjson

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestRefusesWhatEncodingJSONLetsPass(t *testing.T) {
	for _, tc := range []struct {
		in, want string
	}{
		{`{"a": 1}`, ""},
		{"{\"a\": [1, {\"b\": 2}],\n \"c\": {\"a\": 3}}", ""}, // the same key in different objects is fine
		{`{"a": 1} x`, "line 1, column 10: data after the JSON value"},
		{"{\"a\": 1}\n{\"a\": 2}", "line 2, column 1: data after the JSON value"},
		{"[1,2]\n]", "line 2, column 1: data after the JSON value"},
		{"{\"a\": 1,\n \"a\": 2}", `line 2, column 2: key "a" given twice`},
		{`{"x": {"k": 1, "k": 1}}`, `key "k" given twice`},
		{"{\n\"a\": tru}", "line 2, column"},
		{`{"a": `, "ends early"},
		{``, "ends early"},
	} {
		err := Check([]byte(tc.in))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%q: %v", tc.in, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%q: error %v, want %q", tc.in, err, tc.want)
		}
	}
}

func TestUnmarshalPlacesTypeErrorsAndOverflow(t *testing.T) {
	var v struct {
		N int32 `json:"n"`
	}
	err := Unmarshal([]byte("{\n  \"n\": 4294967297}"), &v)
	if err == nil || !strings.Contains(err.Error(), "line 2") || !strings.Contains(err.Error(), "int32") {
		t.Errorf("overflow: %v (value %d)", err, v.N)
	}
	var a any
	if err := Unmarshal([]byte(`{"n": 12345678901234567890123}`), &a); err != nil {
		t.Fatal(err)
	}
	if got := a.(map[string]any)["n"]; got == nil || got.(interface{ String() string }).String() != "12345678901234567890123" {
		t.Errorf("a big number must stay exact (json.Number), got %#v", got)
	}
}

func FuzzCheckAgreesWithEncodingJSON(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `[1,{"b":[]}]`, `{"a":1}{}`, `{"a":1,"a":2}`, `"x"`, `1 2`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		err := Check([]byte(s))
		var v any
		if err == nil && Unmarshal([]byte(s), &v) != nil {
			t.Errorf("%q: Check accepts what Unmarshal refuses", s)
		}
		if err == nil && !json.Valid([]byte(s)) {
			t.Errorf("%q: Check accepts invalid JSON", s)
		}
	})
}
