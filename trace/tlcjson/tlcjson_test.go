package tlcjson

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/model/tlccfg"
	"github.com/hwepoch/hwepoch/trace"
)

// traceFiles are TLC's exported traces: traces/tlc/*.json (written by
// `hwepoch tlc`) and our own in testdata/.
func traceFiles(t *testing.T, specDir string) []string {
	var files []string
	for _, dir := range []string{filepath.Join(filepath.Dir(specDir), "traces", "tlc"), "testdata"} {
		fs, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		for _, f := range fs {
			if filepath.Base(f) != "runs.json" {
				files = append(files, f)
			}
		}
	}
	if len(files) == 0 {
		t.Fatal("no TLC traces found (testdata/ should have some)")
	}
	return files
}

func specDir(t testing.TB) string {
	d, err := tlccfg.FindSpecDir(".")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// Every TLC-exported trace replays on the model: each step's action (from
// TLC's name and context) is enabled in the previous state and Apply yields
// exactly TLC's next state; and the trace ends in a violation of the
// property its configuration expects violated.
func TestReplayTLCTraces(t *testing.T) {
	dir := specDir(t)
	m, err := tlccfg.LoadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range traceFiles(t, dir) {
		name := tlccfg.Base(path)
		t.Run(path, func(t *testing.T) {
			entry, ok := m.Lookup(name)
			if !ok {
				t.Fatalf("%s: no configuration %s in the manifest", path, name)
			}
			chk, err := m.LoadCheck(entry) // with the mutant the entry seeds
			if err != nil {
				t.Fatal(err)
			}
			cfg := &chk.Config
			tr, err := Load(path, cfg, name)
			if err != nil {
				t.Fatal(err)
			}
			if got := model.Init(cfg); !got.Equal(tr.Steps[0].State) {
				t.Fatalf("initial state differs from Init (-model +tlc):\n%s", cmp.Diff(got, tr.Steps[0].State))
			}
			for i := 1; i < len(tr.Steps); i++ {
				st := tr.Steps[i]
				got, err := model.Apply(cfg, tr.Steps[i-1].State, st.Action)
				if err != nil {
					t.Fatalf("step %d: %s: %v", i, st.Action, err)
				}
				if !got.Equal(st.State) {
					t.Fatalf("step %d: %s: the model's next state differs from TLC's (-model +tlc):\n%s", i, st.Action, cmp.Diff(got, st.State))
				}
			}
			if entry.Expect != "violated" {
				return
			}
			last := tr.Steps[len(tr.Steps)-1].State
			if inv, ok := model.Invariants[entry.Property]; ok {
				if inv(cfg, last) {
					t.Errorf("the trace's last state satisfies %s, which TLC reported violated", entry.Property)
				}
			} else if p, ok := model.Properties[entry.Property]; ok {
				prev := tr.Steps[len(tr.Steps)-2].State
				if p(cfg, prev, last) {
					t.Errorf("the trace's last step satisfies %s, which TLC reported violated", entry.Property)
				}
			}
		})
	}
}

func loadTestdata(t testing.TB, name string) (*model.Config, []byte) {
	dir := specDir(t)
	chk, err := tlccfg.LoadCheck(filepath.Join(dir, name+".cfg"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join("testdata", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return &chk.Config, b
}

func TestErrorsNameFileStepAndField(t *testing.T) {
	cfg, b := loadTestdata(t, "w-acked")
	cases := []struct {
		edit func(string) string
		want string
	}{
		{func(s string) string { return strings.Replace(s, `"nextId":1`, `"nextId":"one"`, 1) }, `x.json: step 0: action.before.nextId: want an integer, got the string "one"`},
		{func(s string) string { return strings.Replace(s, `"role":{"r1":"Starting"`, `"role":{"r1":"Boss"`, 1) }, `x.json: step 0: action.before.role.r1: unknown role "Boss"`},
		{func(s string) string { return strings.Replace(s, `"name":"Elect"`, `"name":"Elekt"`, 1) }, `x.json: step 1: action.name: unknown action "Elekt"`},
		{func(s string) string { return strings.Replace(s, `"context":{"r":"r1"}`, `"context":{"r":"r9"}`, 1) }, `x.json: step 1: action.context.r: "r9" is not a replica`},
		{func(s string) string { return strings.Replace(s, `"ctrlIsr":["r1","r2"]`, `"ctrlIsr":{"r1":1}`, 1) }, `x.json: step 0: action.before.ctrlIsr: want an array, got an object`},
		{func(s string) string { return s[:len(s)/2] }, `x.json: not TLC JSON`},
		{func(s string) string { return `{"vars":` + varsJSON + `}` }, `x.json: counterexample: missing`},
	}
	for _, c := range cases {
		_, err := Parse("x.json", []byte(c.edit(string(b))), cfg, "w-acked")
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("error %v is not an *Error", err)
			continue
		}
		if !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("got  %v\nwant %s...", err, c.want)
		}
	}
}

// The loader agrees with the writer: a loaded trace written back with TLC's
// spelling and loaded again is the same trace.
func TestRoundTripThroughValues(t *testing.T) {
	cfg, b := loadTestdata(t, "w-truncation")
	tr, err := Parse("w-truncation.json", b, cfg, "w-truncation")
	if err != nil {
		t.Fatal(err)
	}
	for i, st := range tr.Steps {
		v := trace.VarsToValues(cfg, st.State, TLCSpelling{})
		back, err := trace.ValuesToState(cfg, jsonRoundTrip(t, v))
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if !back.Equal(st.State) {
			t.Fatalf("step %d: round trip differs:\n%s", i, cmp.Diff(st.State, back))
		}
	}
}

// Write's output loads back as the same trace.
func TestWriteLoadsBack(t *testing.T) {
	cfg, b := loadTestdata(t, "w-recovered-from-crash")
	tr, err := Parse("w.json", b, cfg, "w")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := Write(&out, cfg, tr); err != nil {
		t.Fatal(err)
	}
	back, err := Parse("w2.json", out.Bytes(), cfg, "w")
	if err != nil {
		t.Fatal(err)
	}
	for i := range tr.Steps {
		if tr.Steps[i].Action != back.Steps[i].Action || !tr.Steps[i].State.Equal(back.Steps[i].State) {
			t.Fatalf("step %d differs:\n%s", i, cmp.Diff(tr.Steps[i], back.Steps[i]))
		}
	}
}

func FuzzLoad(f *testing.F) {
	for _, n := range []string{"w-acked", "w-leader-change"} {
		b, err := os.ReadFile(filepath.Join("testdata", n+".json"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(bytes.ReplaceAll(b, []byte(`"r1"`), []byte(`1`)))
	}
	// Short traces keep the fuzzer fast: the first two and three states.
	cfg0, b := loadTestdata(f, "w-acked")
	tr, err := Parse("w-acked.json", b, cfg0, "w-acked")
	if err != nil {
		f.Fatal(err)
	}
	for _, n := range []int{1, 2, 3} {
		var out bytes.Buffer
		short := tr
		short.Steps = tr.Steps[:n]
		if err := Write(&out, cfg0, short); err != nil {
			f.Fatal(err)
		}
		f.Add(out.Bytes())
	}
	f.Add([]byte(`{"counterexample":{"action":[],"state":[[1,{}]]}}`))
	cfg := &model.Config{Replicas: []model.Replica{"r1", "r2"}, Truncation: "LeaderEpoch", Fencing: true,
		Acks: "all", MinInsyncReplicas: 1, MaxRecords: 2, MaxEpoch: 2, MaxCrashes: 1}
	f.Fuzz(func(t *testing.T, b []byte) {
		tr, err := Parse("fuzz.json", b, cfg, "fuzz")
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is not an *Error", err)
			}
			return
		}
		_, _ = trace.Replay(cfg, tr) // must not panic on whatever states it holds
	})
}

// The recorded runs.json, read and written back, is byte for byte the same
// file: `hwepoch tlc` rewrites it after every run, and a reordering or a
// dropped field would show up as churn (or loss) in every recording.
func TestRunsRoundTrip(t *testing.T) {
	dir := filepath.Join("..", "..", "traces", "tlc")
	want, err := os.ReadFile(filepath.Join(dir, "runs.json"))
	if err != nil {
		t.Fatal(err)
	}
	runs, err := LoadRuns(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if err := runs.Write(out); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(out, "runs.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("runs.json does not survive a read and a write:\n%s", cmp.Diff(string(want), string(got)))
	}
}
