// Package explorerruns is traces/explorer/runs.json: the record of the Go
// explorer's exhaustive runs on the spec's configurations, written by
// `hwepoch check -record NAME` and compared with every later run by
// `hwepoch check` and `hwepoch verify`. It is TLC's traces/tlc/runs.json
// for the configurations TLC cannot finish (three replicas, two records):
// there the explorer's own earlier run is the only count to hold a new run
// to, and the only size `verify` can budget by.
package explorerruns

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"time"

	"github.com/hwepoch/hwepoch/internal/strictjson"

	"github.com/hwepoch/hwepoch/internal/inputfile"
)

// File is where the explorer's runs are recorded, relative to the
// repository root.
const File = "traces/explorer/runs.json"

// Path is File for the repository whose spec directory is specDir.
func Path(specDir string) string {
	return filepath.Join(filepath.Dir(specDir), filepath.FromSlash(File))
}

// RecordCommand is the command that records (or re-records) the explorer's
// run of the named configuration.
func RecordCommand(config string) string { return "hwepoch check -record " + config }

// Runs is the whole file.
type Runs struct {
	About string `json:"about"`
	Runs  []Run  `json:"runs"`
}

// about heads the file, so that a reader of the JSON knows what it is.
const about = "The Go explorer's exhaustive runs (hwepoch check -record NAME), one per configuration of spec/manifest.json. " +
	"hwepoch check and verify compare every run with its record: a configuration that holds must give the same distinct states, " +
	"states generated and depth; a violated one the same property and counterexample length. A record made on another " +
	"version of the .cfg or of Replication.tla (cfgSha256, specSha256) is not compared. seconds, workers, machine, date " +
	"and hwepochCommit say how the run was made; they are never compared."

// Run is one recorded run of the explorer on one configuration.
type Run struct {
	Config          string  `json:"config"`
	Verdict         string  `json:"verdict"`            // "holds" | "violated"
	Property        string  `json:"property,omitempty"` // the property violated
	DistinctStates  int64   `json:"distinctStates"`
	StatesGenerated int64   `json:"statesGenerated"`
	Depth           int     `json:"depth"`
	TraceLength     int     `json:"traceLength,omitempty"` // states in the counterexample, the initial one included
	Seconds         float64 `json:"seconds"`               // wall time of the search
	Workers         int     `json:"workers"`
	Machine         string  `json:"machine"` // GOOS/GOARCH, GOMAXPROCS, CPUs, Go version
	Date            string  `json:"date"`    // RFC 3339, UTC
	CfgSHA256       string  `json:"cfgSha256"`
	SpecSHA256      string  `json:"specSha256"`
	Commit          string  `json:"hwepochCommit"` // the hwepoch commit that ran it ("+modified": with uncommitted changes), or "unknown"
	// Pending, when set, says why this record is of an earlier version of
	// Replication.tla and has not been made again yet (a search of hours
	// that did not fit the session that changed the spec). Nothing is
	// compared with it, as with any record of other files, and check and
	// verify print the reason; a stale record without it fails
	// traces' TestRecordedExplorerRunsAreCurrent, and one with it made on
	// the spec as it is fails too. Recording the configuration again
	// clears it.
	Pending string `json:"pending,omitempty"`
}

// Get returns the record of the named configuration.
func (r *Runs) Get(config string) (Run, bool) {
	if r == nil {
		return Run{}, false
	}
	for _, run := range r.Runs {
		if run.Config == config {
			return run, true
		}
	}
	return Run{}, false
}

// Put replaces the record of the same configuration, or adds it, keeping
// the records sorted by configuration.
func (r *Runs) Put(run Run) {
	for i := range r.Runs {
		if r.Runs[i].Config == run.Config {
			r.Runs[i] = run
			return
		}
	}
	r.Runs = append(r.Runs, run)
	sort.Slice(r.Runs, func(i, j int) bool { return r.Runs[i].Config < r.Runs[j].Config })
}

// Load reads a record. A missing file is reported with os.ErrNotExist in
// the chain: callers then compare nothing.
func Load(path string) (*Runs, error) {
	b, err := inputfile.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Runs
	if err := strictjson.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	// A misspelt key would otherwise read as a zero count.
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&Runs{}); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	seen := map[string]bool{}
	for i, run := range r.Runs {
		if err := run.check(); err != nil {
			if run.Config == "" {
				return nil, fmt.Errorf("%s: runs[%d]: %v", path, i, err)
			}
			return nil, fmt.Errorf("%s: %s: %v", path, run.Config, err)
		}
		if seen[run.Config] {
			return nil, fmt.Errorf("%s: %s recorded twice", path, run.Config)
		}
		seen[run.Config] = true
	}
	return &r, nil
}

// check is the shape every record must have: what a comparison reads must
// be there, so that a hand-edited or truncated record cannot compare as
// equal by its zero values.
func (run Run) check() error {
	switch {
	case run.Config == "":
		return fmt.Errorf("no config")
	case run.Verdict != "holds" && run.Verdict != "violated":
		return fmt.Errorf("verdict %q, want \"holds\" or \"violated\"", run.Verdict)
	case run.Verdict == "violated" && (run.Property == "" || run.TraceLength < 1):
		return fmt.Errorf("a violated run needs its property and traceLength (got %q, %d)", run.Property, run.TraceLength)
	case run.Verdict == "holds" && (run.Property != "" || run.TraceLength != 0):
		return fmt.Errorf("a run that holds has no property or traceLength (got %q, %d)", run.Property, run.TraceLength)
	case run.DistinctStates < 1 || run.StatesGenerated < run.DistinctStates || run.Depth < 1:
		return fmt.Errorf("distinctStates %d, statesGenerated %d, depth %d: want at least one state, no fewer generated than distinct, depth at least 1",
			run.DistinctStates, run.StatesGenerated, run.Depth)
	case run.Seconds < 0 || run.Workers < 1:
		return fmt.Errorf("seconds %g, workers %d", run.Seconds, run.Workers)
	case run.CfgSHA256 == "" || run.SpecSHA256 == "":
		return fmt.Errorf("no cfgSha256 or specSha256: a record must say which files it was made on")
	}
	return nil
}

// Write stores the record at path with stable formatting (reading it and
// writing it back gives the same bytes), creating its directory.
func (r *Runs) Write(path string) error {
	r.About = about
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// Record adds run to the record at path, reading the file again just
// before writing it: another `hwepoch check -record` may have recorded
// runs since this one started (a three-replica search takes half an hour),
// and writing back what was read at the start would drop them.
func Record(path string, run Run) error {
	if err := run.check(); err != nil {
		return fmt.Errorf("%s: not recorded: %v", run.Config, err)
	}
	runs, err := Load(path)
	if os.IsNotExist(err) {
		runs, err = &Runs{}, nil
	}
	if err != nil {
		return err
	}
	runs.Put(run)
	return runs.Write(path)
}

// Result is what a run found, as Compare reads it.
type Result struct {
	Verdict         string // "holds" | "violated"
	Property        string
	DistinctStates  int64
	StatesGenerated int64
	Depth           int
	TraceLength     int
}

// The outcomes of Compare (check's "vs rec" column).
const (
	Same        = "="            // holds: the same states and depth; violated: the same property and counterexample length
	Mismatch    = "MISMATCH"     // the same files, a different result
	CfgChanged  = "cfg changed"  // the .cfg changed since the record: not compared
	SpecChanged = "spec changed" // Replication.tla changed since the record: not compared
	NotRecorded = ""             // no record of the configuration
)

// Legend explains the "vs rec" column, for the tables that show it.
const Legend = `vs rec: the explorer's recorded run (` + File + `): "=" the same distinct states, states generated
        and depth (holds), the same property and counterexample length (violated); "cfg changed"/"spec changed" the
        record was made on other files, so nothing is compared (re-record with hwepoch check -record NAME)`

// Compare holds a fresh result to the recorded run of the same
// configuration, made on files with the given SHA-256s. It returns one of
// Same, Mismatch, CfgChanged, SpecChanged, and why (empty for Same). A
// violated run's states counted are not compared: how many states the
// search had seen when it met the first counterexample depends on the
// workers' interleaving, while the property and the counterexample's
// length (breadth first: the shortest) do not.
func Compare(rec Run, cfgSHA256, specSHA256 string, got Result) (string, string) {
	switch {
	case rec.SpecSHA256 != specSHA256 && rec.Pending != "":
		return SpecChanged, fmt.Sprintf("%s was recorded on Replication.tla sha256 %.12s…, the file is now %.12s…, and is pending (%s): not compared; re-record with `%s`",
			rec.Config, rec.SpecSHA256, specSHA256, rec.Pending, RecordCommand(rec.Config))
	case rec.SpecSHA256 != specSHA256:
		return SpecChanged, fmt.Sprintf("%s was recorded on Replication.tla sha256 %.12s…, the file is now %.12s…: not compared; re-record with `%s`",
			rec.Config, rec.SpecSHA256, specSHA256, RecordCommand(rec.Config))
	case rec.CfgSHA256 != cfgSHA256:
		return CfgChanged, fmt.Sprintf("%s was recorded on %s.cfg sha256 %.12s…, the file is now %.12s…: not compared; re-record with `%s`",
			rec.Config, rec.Config, rec.CfgSHA256, cfgSHA256, RecordCommand(rec.Config))
	case rec.Verdict != got.Verdict:
		return Mismatch, fmt.Sprintf("recorded %s, found %s", rec.describe(), got.describe())
	case got.Verdict == "holds" && (rec.DistinctStates != got.DistinctStates || rec.StatesGenerated != got.StatesGenerated || rec.Depth != got.Depth):
		return Mismatch, fmt.Sprintf("recorded %d distinct states, %d generated, depth %d; found %d, %d, depth %d",
			rec.DistinctStates, rec.StatesGenerated, rec.Depth, got.DistinctStates, got.StatesGenerated, got.Depth)
	case got.Verdict == "violated" && (rec.Property != got.Property || rec.TraceLength != got.TraceLength):
		return Mismatch, fmt.Sprintf("recorded %s, found %s", rec.describe(), got.describe())
	}
	return Same, ""
}

func (run Run) describe() string {
	return Result{Verdict: run.Verdict, Property: run.Property, TraceLength: run.TraceLength}.describe()
}

func (r Result) describe() string {
	if r.Verdict == "violated" {
		return fmt.Sprintf("violated %s (counterexample of %d states)", r.Property, r.TraceLength)
	}
	return r.Verdict
}

// NewRun is the record of a result found now, on files with the given
// SHA-256s, by this binary on this machine; dir is a directory of the
// repository, for the commit when the binary does not carry it.
func NewRun(config string, got Result, took time.Duration, workers int, cfgSHA256, specSHA256, dir string) Run {
	return Run{Config: config, Verdict: got.Verdict, Property: got.Property,
		DistinctStates: got.DistinctStates, StatesGenerated: got.StatesGenerated, Depth: got.Depth, TraceLength: got.TraceLength,
		Seconds: math.Round(took.Seconds()*10) / 10, Workers: workers, Machine: Machine(),
		Date: time.Now().UTC().Format(time.RFC3339), CfgSHA256: cfgSHA256, SpecSHA256: specSHA256, Commit: Commit(dir)}
}

// Machine says where a run was made: what its wall time depends on.
func Machine() string {
	return fmt.Sprintf("%s/%s, GOMAXPROCS %d, %d CPUs, %s", runtime.GOOS, runtime.GOARCH, runtime.GOMAXPROCS(0), runtime.NumCPU(), runtime.Version())
}

// Commit is the hwepoch commit this binary was built from: the
// vcs.revision the go command stamped into it, or else (`go run` and test
// binaries carry none) the HEAD of the git repository holding dir; with
// "+modified" when the tree had uncommitted changes; "unknown" when neither
// says.
func Commit(dir string) string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		rev, modified := "", false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
		if rev != "" {
			if modified {
				rev += "+modified"
			}
			return rev
		}
	}
	out, err := exec.Command("git", "-C", dir, "rev-parse", "HEAD").Output()
	rev := strings.TrimSpace(string(out))
	if err != nil || rev == "" {
		return "unknown"
	}
	switch st, err := exec.Command("git", "-C", dir, "status", "--porcelain", "--untracked-files=no").Output(); {
	case err != nil:
		rev += " (uncommitted changes unknown)"
	case len(st) > 0:
		rev += "+modified"
	}
	return rev
}
