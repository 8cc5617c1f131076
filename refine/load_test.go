package refine

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hwepoch/hwepoch/internal/testfiles"
	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/model/tlccfg"
	"github.com/hwepoch/hwepoch/trace/itf"
	"github.com/hwepoch/hwepoch/trace/tlcjson"
)

// goodRegression writes a small valid regression and returns its JSON.
func goodRegression(t testing.TB) (map[string]any, string) {
	t.Helper()
	cfg := &model.Config{Replicas: []model.Replica{"r1", "r2"}, Truncation: model.LeaderEpoch, Fencing: true,
		Acks: "all", MinInsyncReplicas: 1, MaxRecords: 2, MaxEpoch: 2, MaxCrashes: 1}
	tr, err := ActionsTrace("t", cfg, []model.Action{{Kind: model.Elect, R: "r1"}, {Kind: model.HandleLeaderAndIsr, R: "r1"},
		{Kind: model.Produce, L: "r1"}})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "good.itf.json")
	if err := WriteRegression(path, cfg, tr, nil, "test"); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	return doc, path
}

// Bad ITF input is an error naming the file, the state (step) and the
// field: wrong JSON, an unknown action, a missing variable, a value of the
// wrong type, an unknown constant.
func TestITFErrorsNameFileStepAndField(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edit  func(doc map[string]any)
		raw   string
		wants []string
	}{
		{name: "not JSON", raw: "{\"states\": [", wants: []string{"bad.itf.json", "not ITF JSON"}},
		{name: "unknown action", edit: func(doc map[string]any) {
			st := doc["states"].([]any)[2].(map[string]any)
			st["#meta"].(map[string]any)["action"] = "Frobnicate"
		}, wants: []string{"bad.itf.json", "state 2", "#meta.action", `unknown action "Frobnicate"`}},
		{name: "missing variable", edit: func(doc map[string]any) {
			delete(doc["states"].([]any)[1].(map[string]any), "hw")
		}, wants: []string{"bad.itf.json", "state 1", "hw", "variable missing"}},
		{name: "wrong type", edit: func(doc map[string]any) {
			st := doc["states"].([]any)[3].(map[string]any)
			pairs := st["log"].(map[string]any)["#map"].([]any)
			for _, p := range pairs {
				kv := p.([]any)
				if kv[0] == "r1" {
					kv[1].([]any)[0].(map[string]any)["epoch"] = "zero"
				}
			}
		}, wants: []string{"bad.itf.json", "state 3", "log.r1[0].epoch", "want an integer"}},
		{name: "missing action, and no step of Next explains the state", edit: func(doc map[string]any) {
			states := doc["states"].([]any)
			st := map[string]any{}
			for k, v := range states[0].(map[string]any) {
				st[k] = v
			}
			st["#meta"] = map[string]any{}
			states[2] = st // back to the initial state
		}, wants: []string{"bad.itf.json", "state 2", "#meta.action", "none recorded", "no action of Next"}},
		{name: "bad constant", edit: func(doc map[string]any) {
			doc["#meta"].(map[string]any)["hwepoch"].(map[string]any)["config"].(map[string]any)["Truncation"] = "Eventually"
		}, wants: []string{"bad.itf.json", "#meta.hwepoch.config", "Truncation"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, _ := goodRegression(t)
			raw := []byte(tc.raw)
			if tc.edit != nil {
				tc.edit(doc)
				var err error
				if raw, err = json.Marshal(doc); err != nil {
					t.Fatal(err)
				}
			}
			path := filepath.Join(t.TempDir(), "bad.itf.json")
			if err := os.WriteFile(path, raw, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Load(path)
			if err == nil {
				t.Fatal("loaded")
			}
			for _, w := range tc.wants {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

// trace/itf's reader and refine's regression loader never panic, and an
// error always names the file (they had no fuzz test).
func FuzzLoadITF(f *testing.F) {
	doc, path := goodRegression(f)
	good, _ := os.ReadFile(path)
	f.Add(good)
	states := doc["states"].([]any)
	doc["states"] = states[:2]
	short, _ := json.Marshal(doc)
	f.Add(short)
	f.Add([]byte(`{"#meta": {"config": "le-fenced-2"}, "states": []}`))
	f.Add([]byte(`{"states": [{"log": {"#set": 3}}]}`))
	cfg := &model.Config{Replicas: []model.Replica{"r1", "r2"}, Truncation: model.LeaderEpoch, Acks: "all",
		MinInsyncReplicas: 1, MaxRecords: 2, MaxEpoch: 2, MaxCrashes: 1}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		if _, err := itf.Read("fuzz.itf.json", b, cfg); err != nil && !strings.HasPrefix(err.Error(), "fuzz.itf.json: ") {
			t.Fatalf("itf.Read error does not name the file: %v", err)
		}
		p := filepath.Join(dir, "fuzz.itf.json")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(p); err != nil && !strings.Contains(err.Error(), "fuzz.itf.json") {
			t.Fatalf("Load error does not name the file: %v", err)
		}
	})
}

// An ITF trace with states only, as Apalache writes them (no #meta.action):
// each step's action is inferred from the spec's Next, and the trace
// replays on model and implementation as the original does. States that no
// step of Next joins are an error naming the state.
func TestITFWithoutActionsIsInferred(t *testing.T) {
	for _, name := range []string{"nextid-after-leader-change-LeaderEpoch.itf.json", "nextid-after-leader-change-HighWatermark.itf.json", "kafka-7128-expand-below-epoch-start.itf.json"} {
		src := filepath.Join("..", "traces", "regressions", name)
		orig, err := Load(src)
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		states := doc["states"].([]any)
		for _, st := range states {
			if meta, ok := st.(map[string]any)["#meta"].(map[string]any); ok {
				delete(meta, "action")
				delete(meta, "params")
			}
		}
		write := func(doc map[string]any) string {
			out, err := json.Marshal(doc)
			if err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(t.TempDir(), name)
			if err := os.WriteFile(p, out, 0o644); err != nil {
				t.Fatal(err)
			}
			return p
		}
		got, err := Load(write(doc))
		if err != nil {
			t.Fatalf("%s without actions: %v", name, err)
		}
		o, g := orig[0].Trace.Steps, got[0].Trace.Steps
		if len(o) != len(g) {
			t.Fatalf("%s: %d steps, want %d", name, len(g), len(o))
		}
		for i := 1; i < len(o); i++ {
			if g[i].Action.Kind == model.NoAction {
				t.Fatalf("%s: step %d: no action inferred", name, i)
			}
			if !g[i].State.Equal(o[i].State) {
				t.Fatalf("%s: step %d: state differs", name, i)
			}
		}
		if err := ReplayCase(got[0], Options{}); err != nil {
			t.Errorf("%s with inferred actions does not replay: %v", name, err)
		}
		// Two states swapped: no step of Next joins them.
		states[1], states[len(states)-1] = states[len(states)-1], states[1]
		if _, err := Load(write(doc)); err == nil || !strings.Contains(err.Error(), "state 1: #meta.action: none recorded") {
			t.Errorf("%s with states swapped: %v", name, err)
		}
	}
}

// A TLC trace is not loaded under a .cfg edited after the run that made
// it (runs.json's cfgSha256): replay would judge it under rules it was not
// made with. Unedited, it loads.
func TestLoadRefusesATraceOfAnotherCfg(t *testing.T) {
	root := t.TempDir()
	testfiles.Copy(t, filepath.Join("..", "spec", "manifest.json"), filepath.Join(root, "spec", "manifest.json"), nil)
	testfiles.Copy(t, filepath.Join("..", "traces", "tlc", "runs.json"), filepath.Join(root, "traces", "tlc", "runs.json"), nil)
	testfiles.Copy(t, filepath.Join("..", "traces", "tlc", "w-acked.json"), filepath.Join(root, "traces", "tlc", "w-acked.json"), nil)
	cfg := filepath.Join(root, "spec", "w-acked.cfg")
	trace := filepath.Join(root, "traces", "tlc", "w-acked.json")
	testfiles.Copy(t, filepath.Join("..", "spec", "w-acked.cfg"), cfg, nil)
	if _, err := Load(trace); err != nil {
		t.Fatalf("the recorded .cfg: %v", err)
	}
	testfiles.Copy(t, filepath.Join("..", "spec", "w-acked.cfg"), cfg, func(s string) string { return s + "\\* edited\n" })
	_, err := Load(trace)
	var stale *StaleRunError
	if !errors.As(err, &stale) || !strings.Contains(err.Error(), "w-acked.cfg changed since TLC's run") {
		t.Errorf("an edited .cfg: %v", err)
	}
}

// An ITF trace's #meta.config names spec/NAME.cfg of the repository the
// trace is in. A name that is a path (absolute, climbing out of spec/ with
// "..", or any other) is refused before anything is read, even where the
// file it reaches exists; so is a name with no file behind it, and one
// whose constants are not those the trace carries or is given. (A trace
// carrying its constants used to load whatever its config said; one
// without read any path's .cfg.)
func TestITFMetaConfigMustNameAConfigurationOfTheRepository(t *testing.T) {
	root := t.TempDir()
	spec := filepath.Join(root, "spec")
	testfiles.Copy(t, filepath.Join("..", "spec", "manifest.json"), filepath.Join(spec, "manifest.json"), nil)
	testfiles.Copy(t, filepath.Join("..", "spec", "w-acked.cfg"), filepath.Join(spec, "w-acked.cfg"), nil)
	testfiles.Copy(t, filepath.Join("..", "spec", "hw-acked-loss.cfg"), filepath.Join(spec, "hw-acked-loss.cfg"), nil)
	// The same .cfg outside spec/, and outside the repository: reachable
	// by a path, never by a name.
	testfiles.Copy(t, filepath.Join("..", "spec", "w-acked.cfg"), filepath.Join(root, "w-acked-copy.cfg"), nil)
	elsewhere := t.TempDir()
	testfiles.Copy(t, filepath.Join("..", "spec", "w-acked.cfg"), filepath.Join(elsewhere, "w-acked.cfg"), nil)

	// A trace of w-acked without constants of its own, and a regression
	// (constants carried, of another configuration).
	wacked := mustCheck(t, "w-acked")
	tr, err := tlcjson.Load(filepath.Join("..", "traces", "tlc", "w-acked.json"), &wacked.Config, "w-acked")
	if err != nil {
		t.Fatal(err)
	}
	var plain bytes.Buffer
	if err := itf.Write(&plain, &wacked.Config, tr); err != nil {
		t.Fatal(err)
	}
	regression, _ := goodRegression(t)

	write := func(t *testing.T, dir string, doc map[string]any, config any) string {
		t.Helper()
		doc["#meta"].(map[string]any)["config"] = config
		b, err := json.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "traces", "x.itf.json")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	plainDoc := func() map[string]any {
		var doc map[string]any
		if err := json.Unmarshal(plain.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		return doc
	}
	regressionDoc := func() map[string]any {
		b, err := json.Marshal(regression)
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		return doc
	}
	wackedCfg := filepath.Join(spec, "w-acked.cfg")
	for _, tc := range []struct {
		name   string
		doc    func() map[string]any
		dir    string // the repository (or not) the trace is in
		config any
		cfg    string // -cfg
		want   string // "" loads
	}{
		{"a configuration of the repository", plainDoc, root, "w-acked", "", ""},
		{"the same, given", plainDoc, root, "w-acked", wackedCfg, ""},
		{"no config, constants carried", regressionDoc, root, "", "", ""},
		{"absolute", plainDoc, root, filepath.Join(elsewhere, "w-acked"), "", "#meta.config: \"" + filepath.Join(elsewhere, "w-acked") + "\" is an absolute path"},
		{"absolute, constants carried", regressionDoc, root, "/etc/passwd", "", `#meta.config: "/etc/passwd" is an absolute path`},
		{"climbing out of spec/", plainDoc, root, "../w-acked-copy", "", `#meta.config: "../w-acked-copy" leaves spec/ with ".."`},
		{"climbing out of the repository", plainDoc, root, "../../" + filepath.Base(elsewhere) + "/w-acked", "", `leaves spec/ with ".."`},
		{"climbing out, given", plainDoc, root, "../w-acked-copy", wackedCfg, `leaves spec/ with ".."`},
		{"a path within spec/", plainDoc, root, "sub/w-acked", "", `#meta.config: "sub/w-acked" is not a configuration's name`},
		{"no such file", plainDoc, root, "w-acked-missing", "", "#meta.config: names w-acked-missing, but " + filepath.Join(spec, "w-acked-missing.cfg") + " does not exist"},
		{"no such file, constants carried", regressionDoc, root, "w-acked-missing", "", "#meta.config: names w-acked-missing, but " + filepath.Join(spec, "w-acked-missing.cfg") + " does not exist"},
		{"no such file, given", plainDoc, root, "w-acked-missing", wackedCfg, "does not exist"},
		{"no repository, constants carried", regressionDoc, elsewhere, "w-acked", "", "#meta.config: names w-acked, but no spec/ directory above the trace holds w-acked.cfg"},
		{"no repository, given", plainDoc, elsewhere, "w-acked", wackedCfg, ""},
		{"its configuration named, constants carried", regressionDoc, root, "w-acked", "", ""},
		{"another configuration's constants carried", regressionDoc, root, "hw-acked-loss", "", "#meta.config names hw-acked-loss, whose constants differ from those the trace carries"},
		{"another configuration's constants given", plainDoc, root, "hw-acked-loss", wackedCfg, "#meta.config names hw-acked-loss, whose constants differ from those the trace is given (w-acked)"},
		{"not a string", plainDoc, root, 7, "", "#meta.config: want a configuration name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := write(t, tc.dir, tc.doc(), tc.config)
			_, err := LoadWithConfig(p, tc.cfg)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("%v", err)
			case tc.want != "" && err == nil:
				t.Errorf("loaded; want %q", tc.want)
			case tc.want != "" && (!strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), p)):
				t.Errorf("error %v\nwant the file and %q", err, tc.want)
			}
		})
	}
}

func mustCheck(t *testing.T, name string) *tlccfg.Check {
	t.Helper()
	chk, err := tlccfg.LoadCheck(filepath.Join("..", "spec", name+".cfg"))
	if err != nil {
		t.Fatal(err)
	}
	return chk
}

// The configuration runs.json records for a TLC trace is a name too: one
// that climbs out of spec/ is refused, though the file it reaches exists.
func TestLoadRefusesARunsConfigThatIsAPath(t *testing.T) {
	root := t.TempDir()
	testfiles.Copy(t, filepath.Join("..", "spec", "manifest.json"), filepath.Join(root, "spec", "manifest.json"), nil)
	testfiles.Copy(t, filepath.Join("..", "spec", "w-acked.cfg"), filepath.Join(root, "w-acked.cfg"), nil)
	testfiles.Copy(t, filepath.Join("..", "traces", "tlc", "w-acked.json"), filepath.Join(root, "traces", "tlc", "w-acked.json"), nil)
	testfiles.Copy(t, filepath.Join("..", "traces", "tlc", "runs.json"), filepath.Join(root, "traces", "tlc", "runs.json"), func(s string) string {
		return strings.Replace(s, `"config": "w-acked"`, `"config": "../w-acked"`, 1)
	})
	trace := filepath.Join(root, "traces", "tlc", "w-acked.json")
	if _, err := Load(trace); err == nil || !strings.Contains(err.Error(), `config: "../w-acked" leaves spec/ with ".."`) {
		t.Errorf("a runs.json config climbing out of spec/: %v", err)
	}
}
