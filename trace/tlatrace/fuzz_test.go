package tlatrace

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/hwepoch/hwepoch/trace"
)

// shortModule keeps the first n states (and the actions between them) of
// a -dumpTrace tla module: small seeds keep the fuzzer fast.
func shortModule(t testing.TB, b []byte, n int) []byte {
	m, serr := parseModule(b)
	if serr != nil {
		t.Fatal(serr)
	}
	d, _ := m.lookup("CounterExample")
	ce := d.value
	var out Value
	out.Kind = Record
	for _, f := range ce.Fields {
		kept := Value{Kind: Set, Elems: []Value{}}
		for _, e := range f.Value.Elems {
			k := e
			if f.Name == "action" {
				k = e.Elems[2]
			}
			if num, _, ok := numbered(k); ok && num <= n {
				kept.Elems = append(kept.Elems, e)
			}
		}
		out.Fields = append(out.Fields, Field{Name: f.Name, Value: kept})
	}
	return []byte("---- MODULE " + m.name + " ----\nLOCAL INSTANCE TLC\n\nCounterExample == \n\t" + out.String() + "\n\n====\n")
}

// Parse never panics, whatever the bytes: it returns a trace or an *Error.
//
// The seeds are every real trace (up to 92 KB) and short ones. The fuzzer
// spends up to -fuzzminimizetime (default 60s) minimizing each new
// interesting input, which on inputs that large is most of a short run, so
// run it as
//
//	go test -run '^$' -fuzz '^FuzzParse$' -fuzztime 30s -fuzzminimizetime 2s ./trace/tlatrace
func FuzzParse(f *testing.F) {
	for _, tw := range twins(f) {
		b, err := os.ReadFile(tw.tla)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	b, err := os.ReadFile(filepath.Join(tlcDir, "trace_w_acked.tla"))
	if err != nil {
		f.Fatal(err)
	}
	for _, n := range []int{1, 2, 3} {
		short := shortModule(f, b, n)
		f.Add(short)
		f.Add(plainModule(f, short))
	}
	f.Add(bytes.ReplaceAll(shortModule(f, b, 2), []byte("r1"), []byte("1")))
	f.Add([]byte("---- MODULE m ----\nTrace == <<[a |-> 1..3, b |-> (\"x\" :> TRUE)]>>\n===="))
	cfg := loadConfig(f, "w-acked")
	module := regexp.MustCompile(`MODULE\s+(\w+)`)
	f.Fuzz(func(t *testing.T, b []byte) {
		// The file named after the module, as TLC names it, so that inputs
		// get past that check to the values.
		name := "fuzz.tla"
		if m := module.FindSubmatch(b); m != nil {
			name = string(m[1]) + ".tla"
		}
		tr, err := Parse(name, b, cfg, "fuzz")
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is not an *Error", err)
			}
			return
		}
		if len(tr.Steps) == 0 {
			t.Fatal("a trace without states loaded")
		}
		_, _ = trace.Replay(cfg, tr) // must not panic on whatever states it holds
	})
}

// A value parsed, printed and parsed again is the same value.
func FuzzParseValue(f *testing.F) {
	for _, s := range []string{"-1", `"a\"b"`, "TRUE", "<<1, {r1}>>", "[a |-> (r1 :> 1 @@ r2 :> 2)]", "1..3", "(* c *) (x)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseValue(s)
		if err != nil {
			return
		}
		w, err := ParseValue(v.String())
		if err != nil {
			t.Fatalf("%q printed as %s, which does not parse: %v", s, v, err)
		}
		if !equal(v, w) {
			t.Fatalf("%q printed as %s, which parses as %s", s, v, w)
		}
	})
}
