package tlccfg

import (
	"fmt"
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
}

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
	if chk.Config.Truncation != e.Policy {
		return nil, fmt.Errorf("%s: %s: policy = %q, but %s sets Truncation = %q", filepath.Join(m.Dir, "manifest.json"), e.Name, e.Policy, m.CfgPath(e), chk.Config.Truncation)
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
		seen[e.Name] = true
		if _, err := os.Stat(m.CfgPath(e)); err != nil {
			return nil, fmt.Errorf("%s: %s: %w", path, e.Name, err)
		}
	}
	return &m, nil
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
