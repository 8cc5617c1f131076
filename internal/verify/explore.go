package verify

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"

	"github.com/hwepoch/hwepoch/model/explore"
	"github.com/hwepoch/hwepoch/model/tlccfg"
	"github.com/hwepoch/hwepoch/trace/tlcjson"
)

// ConfigResult is the outcome of exploring one configuration of the
// manifest with the Go explorer, judged against the manifest and against
// TLC's recorded run of the same configuration. It is a row of
// `hwepoch check` and of the explore stage of `hwepoch verify`.
type ConfigResult struct {
	Entry tlccfg.Entry
	Check *tlccfg.Check
	Res   *explore.Result
	Found string // "holds" | "violated"
	OK    bool   // Found (and the property) equals the manifest's expectation
	TLC   *tlcjson.Run
	VsTLC string // "=", "MISMATCH" or "" (no recorded run)
	Why   string // what the mismatch with TLC is
}

// Expectation is the manifest's verdict for e: "holds" or "violated P".
func Expectation(e tlccfg.Entry) string {
	if e.Expect == "violated" {
		return "violated " + e.Property
	}
	return e.Expect
}

// FoundString is what the explorer found: "holds" or "violated P".
func (r ConfigResult) FoundString() string {
	if r.Res.Violation != nil {
		return "violated " + r.Res.Violation.Property
	}
	return r.Found
}

// Good reports a verdict as the manifest expects that agrees with TLC's
// recorded run, if there is one.
func (r ConfigResult) Good() bool { return r.OK && r.VsTLC != "MISMATCH" }

// ExploreOptions configure ExploreConfig.
type ExploreOptions struct {
	Workers int
	// Progress, when set, gets a line "PREFIXexploring NAME (constants)"
	// before the search and the explorer's periodic progress lines.
	Progress       io.Writer
	ProgressPrefix string
}

// ExploreConfig loads e's .cfg, explores it exhaustively and judges the
// result (Judge). runs may be nil: then nothing is compared with TLC.
func ExploreConfig(ctx context.Context, man *tlccfg.Manifest, e tlccfg.Entry, runs *tlcjson.Runs, opt ExploreOptions) (ConfigResult, error) {
	chk, err := tlccfg.LoadCheck(man.CfgPath(e))
	if err != nil {
		return ConfigResult{}, err
	}
	if opt.Progress != nil {
		fmt.Fprintf(opt.Progress, "%sexploring %s (%s)\n", opt.ProgressPrefix, e.Name, chk.Config.String())
	}
	res, err := explore.Run(ctx, &chk.Config, explore.Options{
		Workers: opt.Workers, Invariants: chk.Invariants, Properties: chk.Properties,
		Symmetry: chk.Symmetry, ConfigName: e.Name, Progress: opt.Progress,
	})
	if err != nil {
		return ConfigResult{}, fmt.Errorf("%s: %v", e.Name, err)
	}
	return Judge(e, chk, res, runs), nil
}

// Judge compares the explorer's result with the manifest and TLC's run:
// the same verdict; for holding configurations the same distinct states
// and depth; for violations the same property and a counterexample no
// longer than TLC's.
func Judge(e tlccfg.Entry, chk *tlccfg.Check, res *explore.Result, runs *tlcjson.Runs) ConfigResult {
	row := ConfigResult{Entry: e, Check: chk, Res: res, Found: "holds"}
	if res.Violation != nil {
		row.Found = "violated"
	}
	row.OK = row.Found == e.Expect && (e.Expect == "holds" || res.Violation.Property == e.Property)
	if runs == nil {
		return row
	}
	tlc, ok := runs.Exhaustive(e.Name)
	if !ok {
		return row
	}
	row.TLC = &tlc
	row.VsTLC = "="
	switch {
	case tlc.Verdict != row.Found:
		row.VsTLC, row.Why = "MISMATCH", fmt.Sprintf("TLC: %s, explorer: %s", tlc.Verdict, row.Found)
	case tlc.Verdict == "holds" && (tlc.DistinctStates != res.Distinct || tlc.Depth != res.Depth):
		row.VsTLC, row.Why = "MISMATCH", fmt.Sprintf("TLC: %d distinct states, depth %d; explorer: %d, depth %d",
			tlc.DistinctStates, tlc.Depth, res.Distinct, res.Depth)
	case tlc.Verdict == "violated" && tlc.Property != "" && tlc.Property != res.Violation.Property:
		row.VsTLC, row.Why = "MISMATCH", fmt.Sprintf("TLC violated %s, explorer %s", tlc.Property, res.Violation.Property)
	case tlc.Verdict == "violated" && tlc.TraceLength > 0 && res.Violation.Trace.Len() > tlc.TraceLength:
		row.VsTLC, row.Why = "MISMATCH", fmt.Sprintf("TLC's counterexample has %d states, the explorer's %d", tlc.TraceLength, res.Violation.Trace.Len())
	}
	return row
}

// LoadRuns reads TLC's recorded runs for the spec of man: runsDir/runs.json.
// When the file does not exist, or was recorded for another version of the
// spec, it returns nil runs and a note saying so (nothing is then compared
// with TLC); other errors are errors.
func LoadRuns(man *tlccfg.Manifest, runsDir string) (runs *tlcjson.Runs, note string, err error) {
	runs, err = tlcjson.LoadRuns(runsDir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Sprintf("%s does not exist: not comparing with TLC (run `hwepoch tlc` to record TLC's runs)", filepath.Join(runsDir, "runs.json")), nil
	case err != nil:
		return nil, "", err
	case runs.SpecSHA256 != "":
		if sum, err := tlcjson.FileSHA256(filepath.Join(man.Dir, man.Spec)); err == nil && sum != runs.SpecSHA256 {
			return nil, fmt.Sprintf("%s was recorded for another version of %s: not comparing with TLC (rerun `hwepoch tlc`)", filepath.Join(runsDir, "runs.json"), man.Spec), nil
		}
	}
	return runs, "", nil
}

// RunsDir is traces/tlc beside the spec directory.
func RunsDir(specDir string) string { return filepath.Join(filepath.Dir(specDir), "traces", "tlc") }
