package tlc

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// Manifest is spec/manifest.json: every configuration and its expected verdict.
type Manifest struct {
	Spec    string           `json:"spec"`
	About   string           `json:"about"`
	Configs []ManifestConfig `json:"configs"`
}

// ManifestConfig is one configuration's expectation.
type ManifestConfig struct {
	Name     string `json:"name"`
	Policy   string `json:"policy"`
	Kind     string `json:"kind"`     // "proof", "counterexample" or "witness"
	Expect   string `json:"expect"`   // "holds" or "violated"
	Property string `json:"property"` // what must be violated, when Expect is "violated"
	CI       bool   `json:"ci"`
	About    string `json:"about"`
}

// ReadManifest reads and checks spec/manifest.json.
func ReadManifest(path string) (Manifest, error) {
	var m Manifest
	b, err := os.ReadFile(path)
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("%s: %w", path, err)
	}
	seen := map[string]bool{}
	for i, c := range m.Configs {
		switch {
		case c.Name == "":
			return m, fmt.Errorf("%s: configs[%d] has no name", path, i)
		case seen[c.Name]:
			return m, fmt.Errorf("%s: configuration %q listed twice", path, c.Name)
		case c.Expect != "holds" && c.Expect != "violated":
			return m, fmt.Errorf("%s: %s: expect must be \"holds\" or \"violated\", not %q", path, c.Name, c.Expect)
		case c.Expect == "violated" && c.Property == "":
			return m, fmt.Errorf("%s: %s: expect \"violated\" needs the property that must be violated", path, c.Name)
		}
		seen[c.Name] = true
		if _, err := os.Stat(filepath.Join(filepath.Dir(path), c.Name+".cfg")); err != nil {
			return m, fmt.Errorf("%s: %s: %w", path, c.Name, err)
		}
	}
	return m, nil
}

// Config returns the named configuration.
func (m Manifest) Config(name string) (ManifestConfig, bool) {
	for _, c := range m.Configs {
		if c.Name == name {
			return c, true
		}
	}
	return ManifestConfig{}, false
}

// Matches says whether a TLC result is the verdict the manifest expects.
func (c ManifestConfig) Matches(r Result) bool {
	if r.Verdict != c.Expect {
		return false
	}
	return c.Expect == "holds" || r.Property == c.Property
}

// Runs is traces/tlc/runs.json: the recorded TLC runs, so that tests without
// TLC can compare against TLC's numbers and notice when a run went stale.
type Runs struct {
	TLCVersion string      `json:"tlcVersion"`
	SpecSHA256 string      `json:"specSha256"`
	Runs       []RunRecord `json:"runs"`
}

// RunRecord is one recorded TLC run.
type RunRecord struct {
	Name            string  `json:"name"`
	Mode            string  `json:"mode"` // "bfs" or "simulate"
	Config          string  `json:"config"`
	CfgSHA256       string  `json:"cfgSha256"`
	SpecSHA256      string  `json:"specSha256"`
	TLCVersion      string  `json:"tlcVersion"`
	Verdict         string  `json:"verdict"`
	Property        string  `json:"property,omitempty"`
	DistinctStates  int64   `json:"distinctStates"`
	StatesGenerated int64   `json:"statesGenerated"`
	Depth           int     `json:"depth"`
	Seconds         float64 `json:"seconds"`
	Workers         int     `json:"workers"`
	Seed            int64   `json:"seed,omitempty"`
	Log             string  `json:"log"`
	TraceJSON       string  `json:"traceJson,omitempty"`
	TraceTLA        string  `json:"traceTla,omitempty"`
	TraceLength     int     `json:"traceLength,omitempty"`
}

// ReadRuns reads runs.json; a missing file is an empty record.
func ReadRuns(path string) (Runs, error) {
	var rs Runs
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return rs, nil
	}
	if err != nil {
		return rs, err
	}
	if err := json.Unmarshal(b, &rs); err != nil {
		return rs, fmt.Errorf("%s: %w", path, err)
	}
	return rs, nil
}

// Put replaces the record with the same name, or adds it.
func (rs *Runs) Put(r RunRecord) {
	for i := range rs.Runs {
		if rs.Runs[i].Name == r.Name {
			rs.Runs[i] = r
			return
		}
	}
	rs.Runs = append(rs.Runs, r)
	sort.Slice(rs.Runs, func(i, j int) bool { return rs.Runs[i].Name < rs.Runs[j].Name })
}

// Get returns the record with the given name.
func (rs Runs) Get(name string) (RunRecord, bool) {
	for _, r := range rs.Runs {
		if r.Name == name {
			return r, true
		}
	}
	return RunRecord{}, false
}

// Write stores runs.json with stable formatting.
func (rs Runs) Write(path string) error {
	b, err := json.MarshalIndent(rs, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
