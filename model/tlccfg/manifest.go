package tlccfg

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hwepoch/hwepoch/internal/strictjson"
	"github.com/hwepoch/hwepoch/model"

	"github.com/hwepoch/hwepoch/internal/inputfile"
)

// Manifest is spec/manifest.json: every configuration and the verdict it must give.
type Manifest struct {
	Spec    string  `json:"spec"`
	About   string  `json:"about"`
	Configs []Entry `json:"configs"`
	Dir     string  `json:"-"` // the directory it was read from
}

// Entry is one configuration of the manifest.
type Entry struct {
	Name     string `json:"name"`
	Policy   string `json:"policy"`
	Release  string `json:"release"`  // the Kafka release the policy follows, or "ablation: ..."
	Kind     string `json:"kind"`     // "proof" | "counterexample" | "witness"
	Expect   string `json:"expect"`   // "holds" | "violated"
	Property string `json:"property"` // the property that must be violated
	CI       bool   `json:"ci"`
	About    string `json:"about"`
	// TLC, when given, says why the configuration has no TLC run (e.g.
	// "does not finish: 1.2e8 states at depth 40 after 60 min, 2
	// workers"): the explorer's recorded run (traces/explorer/runs.json)
	// is then its only record. Tables print it where TLC's numbers would
	// be. Absent (nil) for a configuration TLC has checked; never given
	// with CI.
	TLC *string `json:"tlc,omitempty"`
	// Mutant, when given, seeds one of model.Mutants into the model (the
	// explorer) and into a copy of the spec (TLC): a LiveSpec configuration
	// that must catch it, expecting the property the mutant breaks.
	Mutant model.Mutant `json:"mutant,omitempty"`
	// Reduce, when "inert", has the explorer search the configuration
	// under the inert-message reduction (explore.Options.Reduce,
	// docs/correctness.md): its recorded counts are the quotient's, so it
	// has no TLC run to compare them with, and a "tlc" note says so.
	Reduce string `json:"reduce,omitempty"`
}

// ReduceInert is the one reduction a manifest entry may name.
const ReduceInert = "inert"

// NoTLCRun is why the configuration has no TLC run, or "" when the
// manifest does not say it has none.
func (e Entry) NoTLCRun() string {
	if e.TLC == nil {
		return ""
	}
	return *e.TLC
}

// Policies are the spec's truncation policies (its Truncation constant).
var Policies = model.Policies

// SpecFile is the spec every configuration is of: the module hwepoch tlc
// runs TLC on, beside the manifest.
const SpecFile = "Replication.tla"

// LivenessSpecFile is the module of the LiveSpec configurations: SpecFile
// with its fairness and liveness properties.
const LivenessSpecFile = "ReplicationLiveness.tla"

// ablationPrefix starts the release of a configuration that changes its
// release's behaviour: "ablation: 2.1.0 without KIP-320 fencing".
const ablationPrefix = "ablation: "

// manifestKeys and entryKeys are the keys the manifest may give; required
// ones must be there and no key may be null (encoding/json takes a
// missing key and null alike for the zero value: "ci": null read as false).
var (
	manifestKeys = map[string]bool{"spec": true, "about": false, "configs": true}
	entryKeys    = map[string]bool{"name": true, "policy": true, "release": true, "kind": true, "expect": true,
		"property": false, "ci": true, "about": false, "tlc": false, "mutant": false,
		"reduce": false}
)

// kindExpect is the verdict each kind of configuration must expect: a proof
// holds; a counterexample shows a property broken; a witness shows a
// situation reachable by violating a Never... property.
var kindExpect = map[string]string{"proof": "holds", "counterexample": "violated", "witness": "violated"}

// LoadCheck loads the entry's .cfg and checks that it is the configuration
// the manifest says: the same truncation policy, since tables print the
// manifest's.
func (m *Manifest) LoadCheck(e Entry) (*Check, error) {
	chk, err := LoadCheck(m.CfgPath(e))
	if err != nil {
		return nil, err
	}
	if e.Mutant != "" {
		if !chk.Live {
			return nil, fmt.Errorf("%s: %s: mutant %s is a liveness bug: %s must say SPECIFICATION LiveSpec", filepath.Join(m.Dir, "manifest.json"), e.Name, e.Mutant, m.CfgPath(e))
		}
		chk.Config.Mutant = e.Mutant
	}
	if chk.Config.Truncation != e.Policy {
		return nil, fmt.Errorf("%s: %s: policy = %q, but %s sets Truncation = %q", filepath.Join(m.Dir, "manifest.json"), e.Name, e.Policy, m.CfgPath(e), chk.Config.Truncation)
	}
	if abl := strings.HasPrefix(e.Release, ablationPrefix); abl != chk.Config.IsAblation() {
		what := "changes nothing of its release's behaviour (IsAblation is FALSE)"
		if !abl {
			what = "changes its release's behaviour (IsAblation is TRUE: Fencing or MinIsrGatesHW set unlike the release)"
		}
		return nil, fmt.Errorf("%s: %s: release = %q, but %s %s", filepath.Join(m.Dir, "manifest.json"), e.Name, e.Release, m.CfgPath(e), what)
	}
	return chk, nil
}

// CfgPath is the entry's .cfg file.
func (m *Manifest) CfgPath(e Entry) string { return filepath.Join(m.Dir, e.Name+".cfg") }

// Lookup returns the named entry.
func (m *Manifest) Lookup(name string) (Entry, bool) {
	for _, e := range m.Configs {
		if e.Name == name {
			return e, true
		}
	}
	return Entry{}, false
}

// LoadManifest reads dir/manifest.json and checks its entries' shape.
func LoadManifest(dir string) (*Manifest, error) {
	path := filepath.Join(dir, "manifest.json")
	b, err := inputfile.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := strictjson.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	m.Dir = dir
	if len(m.Configs) == 0 {
		// An empty list would pass every check as "all 0 verdicts as expected".
		return nil, fmt.Errorf("%s: configs: no configurations", path)
	}
	if err := checkKeys(path, b); err != nil {
		return nil, err
	}
	if m.Spec != SpecFile {
		return nil, fmt.Errorf("%s: spec = %q: the configurations are of %s (the spec in %s; hwepoch tlc runs TLC on it)", path, m.Spec, SpecFile, dir)
	}
	seen := map[string]bool{}
	for i, e := range m.Configs {
		switch {
		case e.Name == "":
			return nil, fmt.Errorf("%s: configs[%d] has no name", path, i)
		case filepath.Base(e.Name) != e.Name || strings.ContainsAny(e.Name, "/\\") || e.Name == "." || e.Name == "..":
			return nil, fmt.Errorf("%s: configs[%d]: name %q is not a file name in %s (a configuration is NAME.cfg beside the manifest)", path, i, e.Name, dir)
		case seen[e.Name]:
			return nil, fmt.Errorf("%s: configuration %s listed twice", path, e.Name)
		case e.Expect != "holds" && e.Expect != "violated":
			return nil, fmt.Errorf("%s: %s: expect = %q, want \"holds\" or \"violated\"", path, e.Name, e.Expect)
		case e.Expect == "violated" && e.Property == "":
			return nil, fmt.Errorf("%s: %s: expect = violated needs the property", path, e.Name)
		case e.Expect == "holds" && e.Property != "":
			return nil, fmt.Errorf("%s: %s: property %q given, but expect = holds (a property names what must be violated)", path, e.Name, e.Property)
		case !slices.Contains(Policies, e.Policy):
			return nil, fmt.Errorf("%s: %s: policy = %q, want one of %q", path, e.Name, e.Policy, Policies)
		case kindExpect[e.Kind] == "":
			return nil, fmt.Errorf("%s: %s: kind = %q, want \"proof\", \"counterexample\" or \"witness\"", path, e.Name, e.Kind)
		case kindExpect[e.Kind] != e.Expect:
			return nil, fmt.Errorf("%s: %s: a %s must expect %s, not %s", path, e.Name, e.Kind, kindExpect[e.Kind], e.Expect)
		case e.TLC != nil && e.CI:
			// go test explores every ci configuration: one TLC cannot
			// finish would hold it up for as long.
			return nil, fmt.Errorf("%s: %s: \"ci\": true, but its tlc note says TLC has no run of it (%q): a configuration too big for TLC is too big for go test; make it \"ci\": false", path, e.Name, *e.TLC)
		case e.TLC != nil && strings.TrimSpace(*e.TLC) == "":
			return nil, fmt.Errorf("%s: %s: tlc is empty: say why TLC has no run of it (e.g. \"does not finish: N states at depth D after T, W workers\"), or leave tlc out", path, e.Name)
		}
		switch {
		case e.Reduce != "" && e.Reduce != ReduceInert:
			return nil, fmt.Errorf("%s: %s: reduce = %q: the one reduction is %q", path, e.Name, e.Reduce, ReduceInert)
		case e.Reduce != "" && e.TLC == nil:
			return nil, fmt.Errorf("%s: %s: reduce = %q, but no tlc note: a reduced search counts the quotient's states, never TLC's; say in tlc why TLC has no run of it", path, e.Name, e.Reduce)
		case e.Reduce != "" && e.Mutant != "":
			return nil, fmt.Errorf("%s: %s: reduce with a mutant: the reduction's argument is for the spec as written", path, e.Name)
		}
		if e.Mutant != "" {
			if brk, ok := model.MutantBreaks[e.Mutant]; !ok {
				return nil, fmt.Errorf("%s: %s: mutant %q: no such seeded bug (known: %v)", path, e.Name, e.Mutant, model.Mutants)
			} else if e.Expect != "violated" || e.Property != brk {
				return nil, fmt.Errorf("%s: %s: mutant %s breaks %s: the entry must expect violated %s", path, e.Name, e.Mutant, brk, brk)
			}
		}
		if err := checkRelease(e); err != nil {
			return nil, fmt.Errorf("%s: %s: %w", path, e.Name, err)
		}
		seen[e.Name] = true
		if _, err := os.Stat(m.CfgPath(e)); err != nil {
			return nil, fmt.Errorf("%s: %s: %w", path, e.Name, err)
		}
	}
	return &m, nil
}

// checkKeys holds the manifest's objects to the keys they may have: the
// required ones present, none null, none unknown (a misspelt "cii" would
// leave ci false without a word).
func checkKeys(path string, b []byte) error {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := checkObject(top, manifestKeys); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	var entries []map[string]json.RawMessage
	if err := json.Unmarshal(top["configs"], &entries); err != nil {
		return fmt.Errorf("%s: configs: %w", path, err)
	}
	for i, e := range entries {
		if err := checkObject(e, entryKeys); err != nil {
			var name string
			if json.Unmarshal(e["name"], &name) == nil && name != "" {
				return fmt.Errorf("%s: configs[%d] (%s): %w", path, i, name, err)
			}
			return fmt.Errorf("%s: configs[%d]: %w", path, i, err)
		}
	}
	return nil
}

func checkObject(obj map[string]json.RawMessage, keys map[string]bool) error {
	names := slices.Sorted(maps.Keys(keys))
	for _, k := range names {
		raw, ok := obj[k]
		switch {
		case !ok && keys[k]:
			return fmt.Errorf("%q missing (required: %s)", k, required(keys))
		case ok && string(bytes.TrimSpace(raw)) == "null":
			return fmt.Errorf("%q is null: give a value, or leave out a key that is not required (required: %s)", k, required(keys))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		if _, ok := keys[k]; !ok {
			return fmt.Errorf("unknown key %q (the keys are %s)", k, strings.Join(names, ", "))
		}
	}
	return nil
}

func required(keys map[string]bool) string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		if keys[k] {
			out = append(out, k)
		}
	}
	return strings.Join(out, ", ")
}

// checkRelease holds an entry's release to its policy's row of the spec's
// Releases table (model.Releases): the release itself, or an ablation of
// it, "ablation: RELEASE what it changes".
func checkRelease(e Entry) error {
	rel := model.Releases[e.Policy].Release
	if e.Release == rel {
		return nil
	}
	if what, ok := strings.CutPrefix(e.Release, ablationPrefix+rel+" "); ok && strings.TrimSpace(what) != "" {
		return nil
	}
	return fmt.Errorf("release = %q, but policy %s is Kafka %s (the spec's Releases table): want %q, or %q for an ablation",
		e.Release, e.Policy, rel, rel, ablationPrefix+rel+" without ...")
}

// FindSpecDir walks up from dir to the directory holding spec/manifest.json,
// so commands and tests work from anywhere in the repository.
func FindSpecDir(dir string) (string, error) {
	d, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		p := filepath.Join(d, "spec", "manifest.json")
		if _, err := os.Stat(p); err == nil {
			return filepath.Join(d, "spec"), nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("no spec/manifest.json in %s or any parent directory: run from the hwepoch repository", dir)
		}
		d = parent
	}
}

// LoadCheckSeeded loads the .cfg at cfgPath as LoadCheck does and, when the
// manifest beside it has an entry of that name with a mutant, seeds it: a
// trace of that configuration (TLC's, on the patched spec) is a behaviour
// of the model with the bug.
func LoadCheckSeeded(cfgPath string) (*Check, error) {
	chk, err := LoadCheck(cfgPath)
	if err != nil {
		return nil, err
	}
	// Only the entry's mutant is read: the rest of the manifest is
	// LoadManifest's to judge, and a directory holding a .cfg need not
	// hold every configuration the manifest names.
	b, err := os.ReadFile(filepath.Join(filepath.Dir(cfgPath), "manifest.json"))
	if err != nil {
		return chk, nil
	}
	var m struct {
		Configs []struct {
			Name   string       `json:"name"`
			Mutant model.Mutant `json:"mutant"`
		} `json:"configs"`
	}
	if json.Unmarshal(b, &m) != nil {
		return chk, nil
	}
	for _, e := range m.Configs {
		if e.Name == chk.Name && e.Mutant != "" {
			if !slices.Contains(model.Mutants, e.Mutant) {
				return nil, fmt.Errorf("%s: manifest.json seeds %s with %q, no such bug (known: %v)", cfgPath, chk.Name, e.Mutant, model.Mutants)
			}
			chk.Config.Mutant = e.Mutant
		}
	}
	return chk, nil
}
