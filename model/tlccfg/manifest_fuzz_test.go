package tlccfg

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// LoadManifest never panics on whatever manifest.json holds; a manifest it
// accepts has entries of the shape it promises, each with its .cfg file.
// The test creates an empty .cfg for every entry whose name is a plain file
// name, except names containing "nocfg": a manifest naming one of those
// must be refused with fs.ErrNotExist in the chain.
func FuzzLoadManifest(f *testing.F) {
	// Seeds: one entry of each kind from spec/manifest.json, compact and
	// without the prose (the whole file is TestManifestConfigs'). Small
	// seeds keep the fuzzer's minimization of new inputs, during which its
	// exec count stands still, short.
	dir, err := FindSpecDir(".")
	if err != nil {
		f.Fatal(err)
	}
	real, err := LoadManifest(dir)
	if err != nil {
		f.Fatal(err)
	}
	var some []Entry
	kinds := map[string]bool{}
	for _, e := range real.Configs {
		if !kinds[e.Kind] {
			kinds[e.Kind] = true
			e.About = ""
			some = append(some, e)
		}
	}
	b, err := json.Marshal(Manifest{Spec: real.Spec, Configs: some})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte(`{}`))
	f.Add([]byte(`null`))
	f.Add([]byte(`{"configs": [{"name": "a", "expect": "holds"}, {"name": "a", "expect": "holds"}]}`))
	f.Add([]byte(`{"configs": [{"name": "a", "expect": "violated"}]}`))
	f.Add([]byte(`{"configs": [{"name": "a", "policy": "LeaderEpoch", "kind": "proof", "expect": "holds"}]}`))
	f.Add([]byte(`{"configs": [{"name": "a", "policy": "LeaderEpoch", "kind": "proof", "expect": "holds"}]} {"configs": []}`))
	f.Add([]byte(`{"configs": [{"name": "a", "name": "b", "policy": "LeaderEpoch", "kind": "proof", "expect": "holds"}]}`))
	f.Add([]byte(`{"configs": [{"name": "a-nocfg", "expect": "holds"}]}`))
	f.Add([]byte(`{"configs": [{"name": "../a", "expect": "holds"}, {"name": "", "expect": "maybe"}]}`))
	f.Add([]byte(`{"configs": [{"name": "a\u0000", "expect": "violated", "property": "P", "ci": 1}]}`))

	work := memTempDir(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		if err := os.WriteFile(filepath.Join(work, "manifest.json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
		var peek struct{ Configs []struct{ Name string } }
		_ = json.Unmarshal(b, &peek)
		for _, e := range peek.Configs {
			n := e.Name
			if n == "" || filepath.Base(n) != n || strings.ContainsAny(n, "/\\\x00") || strings.Contains(n, "nocfg") || len(n) > 200 {
				continue
			}
			p := filepath.Join(work, n+".cfg")
			if err := os.WriteFile(p, nil, 0o644); err == nil {
				defer os.Remove(p)
			}
		}
		m, err := LoadManifest(work)
		if err != nil {
			return
		}
		if len(m.Configs) == 0 {
			t.Fatal("a manifest without configurations accepted")
		}
		if m.Dir != work {
			t.Fatalf("Dir = %q, want %q", m.Dir, work)
		}
		for _, e := range m.Configs {
			if strings.Contains(e.Name, "nocfg") {
				t.Fatalf("%q: accepted without its .cfg file", e.Name)
			}
			if e.Expect != "holds" && e.Expect != "violated" || e.Expect == "violated" && e.Property == "" {
				t.Fatalf("%q: accepted with expect %q, property %q", e.Name, e.Expect, e.Property)
			}
			if kindExpect[e.Kind] != e.Expect || !slices.Contains(Policies, e.Policy) {
				t.Fatalf("%q: accepted with kind %q, policy %q, expect %q", e.Name, e.Kind, e.Policy, e.Expect)
			}
			if got, ok := m.Lookup(e.Name); !ok || got != e {
				t.Fatalf("Lookup(%q) = %+v, %v; want %+v", e.Name, got, ok, e)
			}
			if _, err := os.Stat(m.CfgPath(e)); err != nil {
				t.Fatalf("%q: accepted, but %v", e.Name, err)
			}
		}
	})
}

// A manifest entry whose .cfg file is missing is refused, naming the entry,
// with fs.ErrNotExist in the chain.
func TestLoadManifestMissingCfg(t *testing.T) {
	dir := t.TempDir()
	b := []byte(`{"configs": [{"name": "gone", "policy": "LeaderEpoch", "kind": "proof", "expect": "holds"}]}`)
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := LoadManifest(dir)
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "gone") {
		t.Fatalf("LoadManifest = %v, want a not-exist error naming gone", err)
	}
}

// memTempDir is a temporary directory in memory (/dev/shm) where there is
// one, else f.TempDir(). A fuzz test that must write each input to a file
// runs some 30 times faster there than on a disk that syncs its writes.
func memTempDir(f *testing.F) string {
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		if dir, err := os.MkdirTemp("/dev/shm", "fuzz"); err == nil {
			f.Cleanup(func() { os.RemoveAll(dir) })
			return dir
		}
	}
	return f.TempDir()
}

// A configuration's name is a file name beside the manifest: one that
// reaches elsewhere ("../x") is refused, even if that file exists.
func TestLoadManifestRefusesPathNames(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec")
	if err := os.MkdirAll(spec, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "outside.cfg"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(spec, "manifest.json"), []byte(`{"configs": [{"name": "../outside", "expect": "holds"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadManifest(spec); err == nil || !strings.Contains(err.Error(), "is not a file name") {
		t.Fatalf("LoadManifest accepted ../outside: %v", err)
	}
}

// The manifest's reader refuses, naming the line: trailing garbage, a
// second document, a key given twice, a value of the wrong type, an empty
// list of configurations, and a policy or kind the spec does not have (or
// that contradicts the verdict or the .cfg).
func TestLoadManifestRefusesBadInput(t *testing.T) {
	entry := `{"name": "a", "policy": "LeaderEpoch", "kind": "proof", "expect": "holds"}`
	for _, tc := range []struct{ manifest, want string }{
		{`{"configs": [` + entry + `]}`, ""},
		{`{"configs": [` + entry + `]} trailing`, "line 1, column 91: data after the JSON value"},
		{"{\"configs\": [" + entry + "]}\n{\"configs\": []}", "line 2, column 1: data after the JSON value"},
		{"{\"configs\": [" + entry + "],\n\"configs\": []}", `line 2, column 1: key "configs" given twice`},
		{`{"configs": [{"name": "a", "name": "b", "policy": "LeaderEpoch", "kind": "proof", "expect": "holds"}]}`, `key "name" given twice`},
		{`{"configs": [{"name": "a", "policy": "LeaderEpoch", "kind": "proof", "expect": "holds", "ci": 1e400}]}`, "line 1"},
		{`{"configs": [{"name": "a", "policy": 7, "kind": "proof", "expect": "holds"}]}`, "configs.policy: want string"},
		{`{"configs": []}`, "no configurations"},
		{`{}`, "no configurations"},
		{`{"configs": [{"name": "a", "policy": "Kip102", "kind": "proof", "expect": "holds"}]}`, `policy = "Kip102", want one of`},
		{`{"configs": [{"name": "a", "policy": "LeaderEpoch", "kind": "proff", "expect": "holds"}]}`, `kind = "proff"`},
		{`{"configs": [{"name": "a", "policy": "LeaderEpoch", "kind": "witness", "expect": "holds"}]}`, "a witness must expect violated"},
		{`{"configs": [{"name": "a", "policy": "LeaderEpoch", "kind": "proof", "expect": "holds", "property": "NoAckedLoss"}]}`, "but expect = holds"},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "a.cfg"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(tc.manifest), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := LoadManifest(dir)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.manifest, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: error %v, want %q", tc.manifest, err, tc.want)
		}
	}
}

// The table prints the manifest's policy, so the .cfg must set the same.
func TestManifestPolicyMustBeTheCfgs(t *testing.T) {
	src, err := FindSpecDir(".")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	b, err := os.ReadFile(filepath.Join(src, "hw-acked-loss.cfg"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "hw-acked-loss.cfg"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	man := `{"configs": [{"name": "hw-acked-loss", "policy": "LeaderEpoch", "kind": "counterexample", "expect": "violated", "property": "NoAckedLoss"}]}`
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(man), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := LoadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.LoadCheck(m.Configs[0]); err == nil || !strings.Contains(err.Error(), `policy = "LeaderEpoch", but`) || !strings.Contains(err.Error(), `Truncation = "HighWatermark"`) {
		t.Errorf("a manifest policy contradicting the .cfg: %v", err)
	}
}
