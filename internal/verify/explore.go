package verify

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"github.com/hwepoch/hwepoch/internal/columns"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hwepoch/hwepoch/internal/explorerruns"
	"github.com/hwepoch/hwepoch/model"
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
	VsTLC string // VsSameStates, VsSameViolation, VsMismatch, VsCfgChanged or "" (no recorded run)
	Why   string // what the mismatch with TLC is, or how the configuration changed
	// Recorded is the explorer's own recorded run of the configuration
	// (traces/explorer/runs.json), nil when there is none; VsRec is
	// explorerruns.Compare's verdict on this run against it, WhyRec its
	// reason.
	Recorded *explorerruns.Run
	VsRec    string
	WhyRec   string
}

// Records are the recorded runs an exploration is held to. Either may be
// nil: then nothing is compared with it.
type Records struct {
	TLC      *tlcjson.Runs      // traces/tlc/runs.json (LoadRuns)
	Explorer *explorerruns.Runs // traces/explorer/runs.json (LoadExplorerRuns)
}

// The comparisons with TLC's recorded run (the "vs TLC" column). "=" means
// one thing only: the explorer counted exactly TLC's distinct states and
// depth, which is only asked of configurations that hold. Where a property
// is violated, the states counted depend on when each checker stops, so
// the explorer must find the same property violated by a counterexample no
// longer than TLC's: that is VsSameViolation, never "=".
const (
	VsSameStates    = "="              // holds: the same verdict, distinct states and depth as TLC
	VsSameViolation = "same violation" // violated: the same property, a counterexample no longer than TLC's
	VsSameVerdict   = "same verdict"   // holds, searched under the inert-message reduction: its counts are the quotient's
	VsMismatch      = "MISMATCH"       // the verdict, the counts or the property differ from TLC's
	VsCfgChanged    = "cfg changed"    // the .cfg changed since TLC's run: not compared (rerun hwepoch tlc)
	VsSpecChanged   = "spec changed"   // TLC's run of this configuration is of another spec: not compared (rerun hwepoch tlc)
)

// VsTLCLegend explains the "vs TLC" column, for the tables that show it.
const VsTLCLegend = `vs TLC: "=" same distinct states and depth as TLC's recorded run (holds); "same violation" the same
        property violated, by a counterexample no longer than TLC's (states counted are not compared: they depend
        on when each checker stops); "cfg changed" / "spec changed" the .cfg or the spec was edited after TLC's
        run, so nothing is compared (rerun hwepoch tlc NAME); "same verdict" holds, as TLC found, in a search
        under the inert-message reduction (-reduce), whose counts are the quotient's and not compared`

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
// recorded run and the explorer's, where there are ones.
func (r ConfigResult) Good() bool {
	return r.OK && r.VsTLC != VsMismatch && r.VsRec != explorerruns.Mismatch
}

// Result is what the exploration found, as explorerruns records and
// compares it.
func (r ConfigResult) Result() explorerruns.Result {
	got := explorerruns.Result{Verdict: r.Found, DistinctStates: r.Res.Distinct, StatesGenerated: r.Res.Generated, Depth: r.Res.Depth}
	if v := r.Res.Violation; v != nil {
		got.Property, got.TraceLength = v.Property, v.Trace.Len()
	}
	return got
}

// ExploreOptions configure ExploreConfig.
type ExploreOptions struct {
	Workers int
	// Progress, when set, gets the explorer's periodic progress lines and,
	// with Announce, a line "PREFIXexploring NAME (constants)" before the
	// search.
	Progress       io.Writer
	ProgressPrefix string
	Announce       bool
	ProgressEvery  time.Duration // the explorer's interval (0: its default, 2s)
	// SpillDir, MemoryBudget and Resume are explore.Options' (a search of
	// Spec only: a liveness check keeps its graph in memory).
	SpillDir     string
	MemoryBudget int64
	// Engine is explore.Options.Engine ("" packed where it fits).
	Engine string
	Resume bool
	// Reduce searches under the inert-message reduction whatever the
	// manifest says (the manifest's "reduce" turns it on for its entry).
	Reduce bool
}

// ExploreConfig loads e's .cfg, explores it exhaustively and judges the
// result (Judge) against the manifest and the recorded runs.
func ExploreConfig(ctx context.Context, man *tlccfg.Manifest, e tlccfg.Entry, rec Records, opt ExploreOptions) (ConfigResult, error) {
	chk, err := man.LoadCheck(e)
	if err != nil {
		return ConfigResult{}, err
	}
	if opt.Progress != nil && opt.Announce {
		fmt.Fprint(opt.Progress, columns.Wrap(opt.ProgressPrefix, fmt.Sprintf("exploring %s (%s)", e.Name, chk.Config.String()), columns.Max, "  "))
	}
	res, err := RunCheck(ctx, chk, explore.Options{
		Workers: opt.Workers, Invariants: chk.Invariants, Properties: chk.Properties,
		Symmetry: chk.Symmetry, ConfigName: e.Name, Progress: opt.Progress, ProgressEvery: opt.ProgressEvery,
		SpillDir: opt.SpillDir, MemoryBudget: opt.MemoryBudget, Resume: opt.Resume, Engine: opt.Engine,
		// -reduce asks it of the safety searches; an entry's "reduce" is
		// passed on as it is (RunLive refuses it, with the reason).
		Reduce: opt.Reduce && !chk.Live || e.Reduce == tlccfg.ReduceInert,
	})
	if err != nil {
		return ConfigResult{}, fmt.Errorf("%s: %v", e.Name, err)
	}
	cfgSum, specSum, err := Sums(man, e)
	if err != nil {
		return ConfigResult{}, err
	}
	return Judge(e, chk, cfgSum, specSum, res, rec), nil
}

// RunCheck explores chk: explore.Run for a configuration of Spec,
// explore.RunLive (the fair-cycle check) for one of LiveSpec.
func RunCheck(ctx context.Context, chk *tlccfg.Check, opts explore.Options) (*explore.Result, error) {
	if chk.Live {
		return explore.RunLive(ctx, &chk.Config, opts, chk.LiveProperties)
	}
	return explore.Run(ctx, &chk.Config, opts)
}

// Sums are the SHA-256s of e's .cfg and of the spec: what ties a recorded
// run to the files it was made on. A spec directory without the spec
// (the explorer reads only the .cfg) has spec "": no recorded run
// matches it, and none can be recorded.
func Sums(man *tlccfg.Manifest, e tlccfg.Entry) (cfg, spec string, err error) {
	if cfg, err = tlcjson.FileSHA256(man.CfgPath(e)); err != nil {
		return "", "", err
	}
	spec, err = tlcjson.FileSHA256(filepath.Join(man.Dir, man.Spec))
	if errors.Is(err, fs.ErrNotExist) {
		return cfg, "", nil
	}
	if err != nil {
		return cfg, spec, err
	}
	// A LiveSpec configuration is of the liveness module too, and a
	// mutant's of the bug seeded: both go into its spec sum.
	if chk, cerr := tlccfg.LoadCheck(man.CfgPath(e)); cerr == nil && chk.Live {
		live, err := tlcjson.FileSHA256(filepath.Join(man.Dir, tlccfg.LivenessSpecFile))
		if err != nil {
			return cfg, "", err
		}
		spec = LiveSpecSum(spec, live, e.Mutant)
	}
	return cfg, spec, nil
}

// LiveSpecSum is the spec sum of a LiveSpec configuration: the SHA-256 of
// Replication.tla's and ReplicationLiveness.tla's sums and the mutant.
func LiveSpecSum(spec, liveness string, m model.Mutant) string {
	return fmt.Sprintf("%x", sha256.Sum256([]byte(spec+" "+liveness+" "+string(m))))
}

// Judge compares the explorer's result with the manifest, the explorer's
// recorded run (explorerruns.Compare) and TLC's run: the same verdict; for
// holding configurations the same distinct states and depth; for
// violations the same property and a counterexample no longer than TLC's.
// cfgSHA256 and specSHA256 are those of the .cfg and the spec explored: a
// run made on other versions of them is not compared (VsCfgChanged).
func Judge(e tlccfg.Entry, chk *tlccfg.Check, cfgSHA256, specSHA256 string, res *explore.Result, rec Records) ConfigResult {
	row := ConfigResult{Entry: e, Check: chk, Res: res, Found: "holds"}
	if res.Violation != nil {
		row.Found = "violated"
	}
	row.OK = row.Found == e.Expect && (e.Expect == "holds" || res.Violation.Property == e.Property)
	// A record is of the search the manifest asks for: a run reduced by
	// -reduce where the entry is not (or the reverse) counts other states.
	if r, ok := rec.Explorer.Get(e.Name); ok && res.Reduced == (e.Reduce == tlccfg.ReduceInert) {
		row.Recorded = &r
		row.VsRec, row.WhyRec = explorerruns.Compare(r, cfgSHA256, specSHA256, row.Result())
	}
	if rec.TLC == nil {
		return row
	}
	tlc, ok := rec.TLC.Exhaustive(e.Name)
	if !ok {
		return row
	}
	row.TLC = &tlc
	// While a re-record is under way runs.json holds runs of two versions
	// of the spec: a run of the other one says nothing about this search.
	if tlc.SpecSHA256 != "" && specSHA256 != "" && tlc.SpecSHA256 != specSHA256 {
		row.VsTLC, row.Why = VsSpecChanged, fmt.Sprintf("TLC's run of %s is of another spec (sha256 %.12s…, the spec explored is %.12s…): not compared; rerun `hwepoch tlc %s`",
			e.Name, tlc.SpecSHA256, specSHA256, e.Name)
		return row
	}
	if tlc.CfgSHA256 != cfgSHA256 {
		row.VsTLC, row.Why = VsCfgChanged, fmt.Sprintf("%s.cfg changed since TLC's run (recorded for sha256 %.12s…, the file is now %.12s…): not compared; rerun `hwepoch tlc %s`",
			e.Name, tlc.CfgSHA256, cfgSHA256, e.Name)
		return row
	}
	row.VsTLC = VsSameStates
	if tlc.Verdict == "violated" {
		row.VsTLC = VsSameViolation
	}
	switch {
	case tlc.Verdict != row.Found:
		row.VsTLC, row.Why = VsMismatch, fmt.Sprintf("TLC: %s, explorer: %s", tlc.Verdict, row.Found)
	case tlc.Verdict == "holds" && res.Reduced:
		// The quotient's counts are not TLC's: the verdict is what compares.
		row.VsTLC = VsSameVerdict
	case tlc.Verdict == "holds" && (tlc.DistinctStates != res.Distinct || tlc.Depth != res.Depth):
		row.VsTLC, row.Why = VsMismatch, fmt.Sprintf("TLC: %d distinct states, depth %d; explorer: %d, depth %d",
			tlc.DistinctStates, tlc.Depth, res.Distinct, res.Depth)
	case tlc.Verdict == "violated" && tlc.Property != "" && tlc.Property != res.Violation.Property:
		row.VsTLC, row.Why = VsMismatch, fmt.Sprintf("TLC violated %s, explorer %s", tlc.Property, res.Violation.Property)
	case tlc.Verdict == "violated" && tlc.TraceLength > 0 && !res.Violation.Lasso && res.Violation.Trace.Len() > tlc.TraceLength:
		// (A lasso is not compared: neither TLC's nor the explorer's
		// fair-cycle search looks for the shortest one.)
		row.VsTLC, row.Why = VsMismatch, fmt.Sprintf("TLC's counterexample has %d states, the explorer's %d", tlc.TraceLength, res.Violation.Trace.Len())
	}
	return row
}

// LoadRuns reads TLC's recorded runs for the spec of man from the file
// runsPath (traces/tlc/runs.json, or check -runs FILE). When the file does
// not exist, or was recorded for another version of the spec, it returns
// nil runs and a note saying so (nothing is then compared with TLC); other
// errors are errors. The note names the file relative to the current
// directory, where the user is.
func LoadRuns(man *tlccfg.Manifest, runsPath string) (runs *tlcjson.Runs, note string, err error) {
	runs, err = tlcjson.LoadRunsFile(runsPath)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Sprintf("%s does not exist: not comparing with TLC (run `hwepoch tlc` to record TLC's runs)", Rel(runsPath)), nil
	case err != nil:
		return nil, "", err
	case runs.SpecSHA256 != "":
		if sum, err := tlcjson.FileSHA256(filepath.Join(man.Dir, man.Spec)); err == nil && sum != runs.SpecSHA256 {
			return nil, fmt.Sprintf("%s was recorded for another version of %s: not comparing with TLC (rerun `hwepoch tlc`)", Rel(runsPath), man.Spec), nil
		}
	}
	return runs, "", nil
}

// LoadExplorerRuns reads the explorer's recorded runs from path
// (traces/explorer/runs.json, explorerruns.Path). When the file does not
// exist it returns nil runs and a note saying so; other errors are errors.
// Records of other versions of the spec or a .cfg are kept: Judge says of
// each that it was not compared, and why.
func LoadExplorerRuns(path string) (*explorerruns.Runs, string, error) {
	runs, err := explorerruns.Load(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Sprintf("%s does not exist: not comparing with the explorer's recorded runs (record them with `%s`)",
			Rel(path), explorerruns.RecordCommand("NAME")), nil
	}
	return runs, "", err
}

// Rel names path relative to the current directory when it lies below it,
// else as given (absolute paths stay absolute): how messages name files.
func Rel(path string) string {
	wd, err := os.Getwd()
	if err != nil {
		return path
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	rel, err := filepath.Rel(wd, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return path
	}
	return rel
}

// RunsDir is traces/tlc beside the spec directory.
func RunsDir(specDir string) string { return filepath.Join(filepath.Dir(specDir), "traces", "tlc") }

// RunsFile is RunsDir's runs.json.
func RunsFile(specDir string) string { return filepath.Join(RunsDir(specDir), "runs.json") }
