package refine

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/trace/itf"
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
		{name: "missing action", edit: func(doc map[string]any) {
			delete(doc["states"].([]any)[1].(map[string]any)["#meta"].(map[string]any), "action")
		}, wants: []string{"bad.itf.json", "state 1", "#meta.action", "missing"}},
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
