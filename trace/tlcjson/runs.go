package tlcjson

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// Runs is traces/tlc/runs.json, the record `hwepoch tlc` keeps of TLC's runs
// on the spec's configurations.
type Runs struct {
	TLCVersion string `json:"tlcVersion"`
	SpecSha256 string `json:"specSha256"`
	Runs       []Run  `json:"runs"`
	Dir        string `json:"-"` // the directory it was read from
}

// Run is one TLC run.
type Run struct {
	Name            string  `json:"name"`
	Mode            string  `json:"mode"`   // "bfs" (model checking) or a simulation mode; absent means bfs
	Config          string  `json:"config"` // the configuration; absent means Name
	CfgSha256       string  `json:"cfgSha256"`
	Verdict         string  `json:"verdict"` // "holds" | "violated"; "simulated" for a simulation export
	Property        string  `json:"property"`
	DistinctStates  int64   `json:"distinctStates"`
	StatesGenerated int64   `json:"statesGenerated"`
	Depth           int     `json:"depth"`
	Seconds         float64 `json:"seconds"`
	Workers         int     `json:"workers"`
	Log             string  `json:"log"`
	TraceJSON       string  `json:"traceJson"`
	TraceTLA        string  `json:"traceTla"`
	TraceLength     int     `json:"traceLength"`
}

// ConfigName is the configuration the run checked.
func (r Run) ConfigName() string {
	if r.Config != "" {
		return r.Config
	}
	return r.Name
}

// Exhaustive reports whether the run was TLC's breadth-first model checking,
// whose counts the explorer must reproduce.
func (r Run) Exhaustive() bool { return r.Mode == "" || r.Mode == "bfs" }

// LoadRuns reads dir/runs.json. A missing file is reported with
// os.ErrNotExist in the chain, so callers can skip comparisons.
func LoadRuns(dir string) (*Runs, error) {
	path := filepath.Join(dir, "runs.json")
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Runs
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for i, run := range r.Runs {
		if run.Name == "" {
			return nil, fmt.Errorf("%s: runs[%d] has no name", path, i)
		}
		switch {
		case run.Exhaustive() && run.Verdict != "holds" && run.Verdict != "violated":
			return nil, fmt.Errorf("%s: %s: verdict %q, want \"holds\" or \"violated\"", path, run.Name, run.Verdict)
		case !run.Exhaustive() && run.Verdict != "simulated":
			return nil, fmt.Errorf("%s: %s: a %s run's verdict is %q, want \"simulated\"", path, run.Name, run.Mode, run.Verdict)
		}
	}
	r.Dir = dir
	return &r, nil
}

// ForSpec reports whether the runs were recorded on the spec file at
// specPath (by its SHA-256); runs of another version of the spec say
// nothing about this one.
func (r *Runs) ForSpec(specPath string) (bool, error) {
	b, err := os.ReadFile(specPath)
	if err != nil {
		return false, err
	}
	sum := sha256.Sum256(b)
	return r.SpecSha256 == "" || r.SpecSha256 == hex.EncodeToString(sum[:]), nil
}

// Exhaustive returns the model-checking run of the named configuration.
func (r *Runs) Exhaustive(config string) (Run, bool) {
	for _, run := range r.Runs {
		if run.ConfigName() == config && run.Exhaustive() {
			return run, true
		}
	}
	return Run{}, false
}
