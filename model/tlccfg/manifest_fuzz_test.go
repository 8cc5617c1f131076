package tlccfg

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
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
		if m.Spec != SpecFile {
			t.Fatalf("a manifest of spec %q accepted", m.Spec)
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
			if err := checkRelease(e); err != nil {
				t.Fatalf("%q: accepted with %v", e.Name, err)
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
	b := []byte(manifestOf(entryOf("gone", "")))
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
	if err := os.WriteFile(filepath.Join(spec, "manifest.json"), []byte(manifestOf(entryOf("../outside", ""))), 0o644); err != nil {
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
	entry := entryOf("a", "")
	good := manifestOf(entry)
	for _, tc := range []struct{ manifest, want string }{
		{good, ""},
		{good + ` trailing`, fmt.Sprintf("line 1, column %d: data after the JSON value", len(good)+2)},
		{good + "\n" + manifestOf(), "line 2, column 1: data after the JSON value"},
		{strings.Replace(good, `]}`, "],\n\"configs\": []}", 1), `line 2, column 1: key "configs" given twice`},
		{manifestOf(entryOf("a", `, "name": "b"`)), `key "name" given twice`},
		{manifestOf(strings.Replace(entry, `"ci": false`, `"ci": 1e400`, 1)), "line 1"},
		{manifestOf(strings.Replace(entry, `"policy": "LeaderEpoch"`, `"policy": 7`, 1)), "configs.policy: want string"},
		{manifestOf(), "no configurations"},
		{`{}`, "no configurations"},
		{manifestOf(strings.Replace(entry, `"policy": "LeaderEpoch"`, `"policy": "Kip102"`, 1)), `policy = "Kip102", want one of`},
		{manifestOf(strings.Replace(entry, `"kind": "proof"`, `"kind": "proff"`, 1)), `kind = "proff"`},
		{manifestOf(strings.Replace(entry, `"kind": "proof"`, `"kind": "witness"`, 1)), "a witness must expect violated"},
		{manifestOf(entryOf("a", `, "property": "NoAckedLoss"`)), "but expect = holds"}} {
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
	man := manifestOf(`{"name": "hw-acked-loss", "policy": "LeaderEpoch", "release": "2.1.0", "kind": "counterexample", "expect": "violated", "property": "NoAckedLoss", "ci": false}`)
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

// entryOf is a manifest entry named name, a LeaderEpoch proof, with more
// keys appended.
func entryOf(name, more string) string {
	return fmt.Sprintf(`{"name": %q, "policy": "LeaderEpoch", "release": "2.1.0", "kind": "proof", "expect": "holds", "ci": false%s}`, name, more)
}

// manifestOf is a manifest of Replication.tla listing entries.
func manifestOf(entries ...string) string {
	return `{"spec": "Replication.tla", "configs": [` + strings.Join(entries, ", ") + `]}`
}

// Every key of an entry but property, about and tlc is required, and no
// key may be null: "ci": null (or no ci) read as false, without a word.
// A misspelt key is refused too. The release is the policy's row of the
// spec's Releases table, or an ablation of it that says what it changes;
// the spec is Replication.tla.
func TestLoadManifestRefusesNullsMissingKeysWrongReleasesAndSpecs(t *testing.T) {
	entry := entryOf("a", "")
	good := manifestOf(entry)
	without := func(key string) string {
		return manifestOf(regexp.MustCompile(`, "`+key+`": [^,}]+|"`+key+`": [^,}]+, `).ReplaceAllString(entry, ""))
	}
	set := func(key, value string) string {
		return manifestOf(regexp.MustCompile(`"`+key+`": [^,}]+`).ReplaceAllString(entry, `"`+key+`": `+value))
	}
	for _, tc := range []struct{ name, manifest, want string }{
		{"good", good, ""},
		{"ci null", set("ci", "null"), `configs[0] (a): "ci" is null`},
		{"ci missing", without("ci"), `configs[0] (a): "ci" missing (required: ci, expect, kind, name, policy, release)`},
		{"ci misspelt", strings.Replace(good, `"ci"`, `"cii"`, 1), `configs[0] (a): "ci" missing`},
		{"unknown key", manifestOf(entryOf("a", `, "owner": "x"`)), `configs[0] (a): unknown key "owner"`},
		{"release missing", without("release"), `configs[0] (a): "release" missing`},
		{"release null", set("release", "null"), `configs[0] (a): "release" is null`},
		{"policy null", set("policy", "null"), `configs[0] (a): "policy" is null`},
		{"name null", set("name", "null"), `configs[0]: "name" is null`},
		{"tlc null", manifestOf(entryOf("a", `, "tlc": null`)), `configs[0] (a): "tlc" is null`},
		{"about null", manifestOf(entryOf("a", `, "about": null`)), `configs[0] (a): "about" is null`},
		{"another policy's release", set("release", `"3.9.0"`), `a: release = "3.9.0", but policy LeaderEpoch is Kafka 2.1.0`},
		{"3.9.0 on HighWatermark", manifestOf(strings.NewReplacer(`"LeaderEpoch"`, `"HighWatermark"`, `"2.1.0"`, `"3.9.0"`).Replace(entry)),
			`a: release = "3.9.0", but policy HighWatermark is Kafka 0.10.2.2 (the spec's Releases table): want "0.10.2.2", or "ablation: 0.10.2.2 without ..." for an ablation`},
		{"no release", set("release", `""`), `a: release = "", but policy LeaderEpoch is Kafka 2.1.0`},
		{"an ablation of the policy's release", set("release", `"ablation: 2.1.0 without KIP-320 fencing"`), ""},
		{"an ablation of another release", set("release", `"ablation: 3.9.0 without fencing"`), `release = "ablation: 3.9.0 without fencing", but policy LeaderEpoch is Kafka 2.1.0`},
		{"an ablation that says nothing", set("release", `"ablation: 2.1.0 "`), `release = "ablation: 2.1.0 ", but`},
		{"spec Other.tla", strings.Replace(good, `"Replication.tla"`, `"Other.tla"`, 1), `spec = "Other.tla": the configurations are of Replication.tla`},
		{"spec missing", strings.Replace(good, `"spec": "Replication.tla", `, "", 1), `"spec" missing (required: configs, spec)`},
		{"spec null", strings.Replace(good, `"Replication.tla"`, "null", 1), `"spec" is null`},
		{"unknown top-level key", strings.Replace(good, `"spec"`, `"owner": "x", "spec"`, 1), `unknown key "owner"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "a.cfg"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "manifest.json")
			if err := os.WriteFile(path, []byte(tc.manifest), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := LoadManifest(dir)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("%s: %v", tc.manifest, err)
			case tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), path+": ") || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("%s: error %v, want the file and %q", tc.manifest, err, tc.want)
			}
		})
	}
}

// An ablation is a configuration that changes its release's behaviour
// (IsAblation): the manifest's release says so exactly when the .cfg does.
func TestManifestAblationMustBeTheCfgs(t *testing.T) {
	src, err := FindSpecDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ cfg, release, want string }{
		{"le-unfenced-cache", "ablation: 2.1.0 without KIP-320 fencing", ""},
		{"le-unfenced-cache", "2.1.0", "changes its release's behaviour (IsAblation is TRUE"},
		{"w-acked", "2.1.0", ""},
		{"w-acked", "ablation: 2.1.0 with something", "changes nothing of its release's behaviour (IsAblation is FALSE)"},
	} {
		dir := t.TempDir()
		b, err := os.ReadFile(filepath.Join(src, tc.cfg+".cfg"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, tc.cfg+".cfg"), b, 0o644); err != nil {
			t.Fatal(err)
		}
		man := manifestOf(fmt.Sprintf(`{"name": %q, "policy": "LeaderEpoch", "release": %q, "kind": "proof", "expect": "holds", "ci": false}`, tc.cfg, tc.release))
		if err := os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(man), 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := LoadManifest(dir)
		if err != nil {
			t.Fatal(err)
		}
		_, err = m.LoadCheck(m.Configs[0])
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s with release %q: %v", tc.cfg, tc.release, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s with release %q: %v, want %q", tc.cfg, tc.release, err, tc.want)
		}
	}
}
