package tlcjson

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/hwepoch/hwepoch/internal/strictjson"

	"github.com/hwepoch/hwepoch/internal/inputfile"
)

// Runs is traces/tlc/runs.json, the record `hwepoch tlc` keeps of TLC's runs
// on the spec's configurations, so that tests and `hwepoch verify` without
// TLC can compare with TLC's numbers and notice when a run went stale. It
// is the one reader and writer of that file.
type Runs struct {
	TLCVersion string `json:"tlcVersion"`
	SpecSHA256 string `json:"specSha256"`
	Runs       []Run  `json:"runs"`
	Dir        string `json:"-"` // the directory it was read from
}

// Run is one TLC run.
type Run struct {
	Name            string  `json:"name"`
	Mode            string  `json:"mode"`   // ModeBFS, ModeSimulate or ModeDistributed; absent means bfs
	Config          string  `json:"config"` // the configuration; absent means Name
	CfgSHA256       string  `json:"cfgSha256"`
	SpecSHA256      string  `json:"specSha256"`
	TLCVersion      string  `json:"tlcVersion"`
	Verdict         string  `json:"verdict"` // "holds" | "violated"; "simulated" for a simulation export
	Property        string  `json:"property,omitempty"`
	DistinctStates  int64   `json:"distinctStates"`
	StatesGenerated int64   `json:"statesGenerated"`
	Depth           int     `json:"depth"`
	Seconds         float64 `json:"seconds"`
	Workers         int     `json:"workers"` // TLC worker threads (distributed: registered with the server)
	// WorkerProcesses is the number of TLCWorker processes of a
	// distributed run.
	WorkerProcesses int `json:"workerProcesses,omitempty"`
	// FPSetServers is the number of FPSet server processes, local and
	// remote, holding a distributed run's fingerprint set (0: the TLC
	// server held it).
	FPSetServers int    `json:"fpsetServers,omitempty"`
	Seed         int64  `json:"seed,omitempty"`
	Log          string `json:"log"`
	TraceJSON    string `json:"traceJson,omitempty"`
	TraceTLA     string `json:"traceTla,omitempty"`
	TraceLength  int    `json:"traceLength,omitempty"`
}

// The modes of a run.
const (
	ModeBFS      = "bfs"      // tlc2.TLC's breadth-first model checking
	ModeSimulate = "simulate" // tlc2.TLC -simulate: one random behaviour
	// ModeDistributed is model checking by TLC's distributed mode
	// (TLCServer and TLCWorker processes). Its verdict and distinct states
	// are TLC's; its states generated and depth are not comparable with a
	// breadth-first run's (workers count cache hits their own way; workers
	// take blocks of the queue concurrently, so the search is not strictly
	// breadth-first, and the server reports the level of the last state it
	// wrote: 31 to 35 where tlc2.TLC says 34), so it is not Exhaustive.
	ModeDistributed = "distributed"
)

// ConfigName is the configuration the run checked.
func (r Run) ConfigName() string {
	if r.Config != "" {
		return r.Config
	}
	return r.Name
}

// Exhaustive reports whether the run was TLC's breadth-first model checking,
// whose counts the explorer must reproduce.
func (r Run) Exhaustive() bool { return r.Mode == "" || r.Mode == ModeBFS }

// LoadRuns reads dir/runs.json. A missing file is reported with
// os.ErrNotExist in the chain, so callers can skip comparisons (or, like
// `hwepoch tlc`, start an empty record).
func LoadRuns(dir string) (*Runs, error) {
	return LoadRunsFile(filepath.Join(dir, "runs.json"))
}

// LoadRunsFile reads a runs record from path, whatever its name; the
// files its runs name (logs, traces) are relative to path's directory.
func LoadRunsFile(path string) (*Runs, error) {
	dir := filepath.Dir(path)
	b, err := inputfile.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Runs
	if err := strictjson.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for i, run := range r.Runs {
		if run.Name == "" {
			return nil, fmt.Errorf("%s: runs[%d] has no name", path, i)
		}
		checks := run.Exhaustive() || run.Mode == ModeDistributed
		switch {
		case !checks && run.Mode != ModeSimulate:
			return nil, fmt.Errorf("%s: %s: unknown mode %q", path, run.Name, run.Mode)
		case checks && run.Verdict != "holds" && run.Verdict != "violated":
			return nil, fmt.Errorf("%s: %s: verdict %q, want \"holds\" or \"violated\"", path, run.Name, run.Verdict)
		case !checks && run.Verdict != "simulated":
			return nil, fmt.Errorf("%s: %s: a %s run's verdict is %q, want \"simulated\"", path, run.Name, run.Mode, run.Verdict)
		case run.DistinctStates < 0 || run.StatesGenerated < 0 || run.Depth < 0 || run.TraceLength < 0 || run.Workers < 0 || run.WorkerProcesses < 0 || run.FPSetServers < 0 || run.Seconds < 0:
			return nil, fmt.Errorf("%s: %s: a negative count (distinctStates %d, statesGenerated %d, depth %d, traceLength %d, workers %d, seconds %g)",
				path, run.Name, run.DistinctStates, run.StatesGenerated, run.Depth, run.TraceLength, run.Workers, run.Seconds)
		}
	}
	r.Dir = dir
	return &r, nil
}

// ForSpec reports whether the runs were recorded on the spec file at
// specPath (by its SHA-256); runs of another version of the spec say
// nothing about this one.
func (r *Runs) ForSpec(specPath string) (bool, error) {
	sum, err := FileSHA256(specPath)
	if err != nil {
		return false, err
	}
	return r.SpecSHA256 == "" || r.SpecSHA256 == sum, nil
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

// Get returns the run with the given name.
func (r *Runs) Get(name string) (Run, bool) {
	for _, run := range r.Runs {
		if run.Name == name {
			return run, true
		}
	}
	return Run{}, false
}

// Put replaces the run with the same name, or adds it, keeping the runs
// sorted by name.
func (r *Runs) Put(run Run) {
	for i := range r.Runs {
		if r.Runs[i].Name == run.Name {
			r.Runs[i] = run
			return
		}
	}
	r.Runs = append(r.Runs, run)
	sort.Slice(r.Runs, func(i, j int) bool { return r.Runs[i].Name < r.Runs[j].Name })
}

// Write stores the record as dir/runs.json with stable formatting.
func (r *Runs) Write(dir string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "runs.json"), append(b, '\n'), 0o644)
}

// FileSHA256 is the hex SHA-256 of a file: how runs are tied to the spec
// and configuration they were recorded on.
func FileSHA256(path string) (string, error) {
	b, err := inputfile.ReadFile(path)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}
