package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/hwepoch/hwepoch/internal/explorerruns"
	"github.com/hwepoch/hwepoch/internal/verify"
	"github.com/hwepoch/hwepoch/model/explore"
	"github.com/hwepoch/hwepoch/model/tlccfg"
	"github.com/hwepoch/hwepoch/trace"
	"github.com/hwepoch/hwepoch/trace/itf"
)

func init() {
	register("check", "explore the spec's configurations with the Go model and compare verdicts with the manifest and TLC", runCheck)
}

func runCheck(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("check", flag.ContinueOnError)
	fl.SetOutput(stderr)
	workers := fl.Int("workers", runtime.GOMAXPROCS(0), "explorer worker goroutines")
	specFlag := fl.String("spec", "", "directory of the .cfg files and manifest.json (default: spec/ of the enclosing repository)")
	runsFlag := fl.String("runs", "", "TLC's recorded runs to compare with (default: traces/tlc/runs.json beside the spec, skipped with a note when missing; a file named here must exist)")
	exRunsFlag := fl.String("explorer-runs", "", "the explorer's recorded runs to compare with and -record into (default: "+explorerruns.File+" beside the spec; a file named here must exist, unless -record is to start it)")
	record := fl.Bool("record", false, "record each run in the explorer's recorded runs, replacing the configuration's earlier record (only a run as the manifest expects that agrees with TLC's and with the earlier record of the same files)")
	itfDir := fl.String("itf", "", "also write each counterexample as ITF JSON into this directory")
	quiet := fl.Bool("q", false, "no progress lines on stderr")
	simulate := fl.Int("simulate", 0, "instead of exploring exhaustively, take this many random walks per configuration")
	seed := fl.Uint64("seed", 1, "seed of the random walks (-simulate)")
	steps := fl.Int("steps", 100, "steps per random walk at most (-simulate)")
	wide := fl.Bool("wide", false, "print the table with every column: the property each violation is of, states generated, TLC's distinct states, depth and counterexample length (wider than 120 columns)")
	spill := fl.String("spill", "", "spill what does not fit in -memory to `DIR`/NAME for each configuration NAME, and checkpoint the search there (see above)")
	var memory byteSize
	fl.Var(&memory, "memory", "`BYTES` of fingerprints, frontier and parent pointers the search holds in memory before spilling, e.g. 8G or 512M (default: 60% of the machine's memory)")
	engine := fl.String("engine", "", "the explorer's state form: packed (model/packed: fixed-size states, the default where a configuration fits its maxima) or readable (model.State, the reference it is held to)")
	resume := fl.Bool("resume", false, "continue the search of the one configuration named from its checkpoint in -spill DIR/NAME")
	reduce := fl.Bool("reduce", false, "search under the inert-message reduction (docs/correctness.md): the same verdicts, fewer states; counts are then the quotient's, compared with no TLC run (entries with \"reduce\" in the manifest always are)")
	ci := fl.Bool("ci", false, `only the configurations the manifest marks "ci" (seconds; what verify --quick explores)`)
	fl.Usage = func() {
		fmt.Fprint(stderr, `usage: hwepoch check [flags] [config ...]

Explores every configuration of spec/manifest.json (or the ones named,
or with -ci the ones it marks "ci") with the Go model, breadth first and
exhaustively like TLC, checking the invariants and properties each .cfg
names. All of them is a long run: about 1.2 billion distinct states,
some three hours on a 2-core machine by the recorded runs, nearly all of
it le-fenced-3-rec2-e2 (990 million states under the inert-message
reduction, 2 hours, 20 GB of memory and 27 GB of disk); the others
together are about 210 million states and under an hour
(de-fenced-3-rec2-e2 92 million under the reduction, de-fenced-2-e2 40
million, le-fenced-3-rec2 21 million); progress goes to stderr every 2 seconds
(-q: none). -ci takes seconds.

Prints a table of verdicts -- expected (manifest), found, distinct
states, depth, counterexample length, wall time -- and, where
traces/tlc/runs.json records TLC's run of the same configuration, how it
compares with TLC's ("vs TLC"; -wide also prints the property violated,
the states generated and TLC's numbers): "=" (a configuration that
holds: the same distinct states and depth), "same violation" (a violated
one: the same property, by a counterexample no longer than TLC's; the
states counted are not compared, as they depend on when each checker
stops), "cfg changed" (the .cfg was edited after TLC's run: nothing
compared) or "MISMATCH". Where the manifest says why TLC has no run of a
configuration (its "tlc" note), that is printed instead. Every
counterexample is printed step by step, one line per replica per step
(hwepoch help notation).

Each run is also compared with the explorer's own recorded run of the
configuration (`+explorerruns.File+`), where there is one ("vs rec"):
"=" (holds: the same distinct states, states generated and depth;
violated: the same property and counterexample length), "cfg changed" or
"spec changed" (the record was made on another version of the .cfg or of
Replication.tla: nothing compared; record again) or "MISMATCH". This is
what holds the configurations TLC cannot finish to a known count.

With -record each run is recorded there (verdict, property, distinct
states, states generated, depth, counterexample length, wall time,
workers, machine, date, the SHA-256 of the .cfg and of the spec, and the
hwepoch commit), as soon as it ends. A run whose verdict is not the
manifest's, or that disagrees with TLC's run or with the earlier record
of the same files, is not recorded: check says why and exits 1.

With -spill DIR the search of each configuration NAME holds at most
-memory bytes (default: 60% of the machine's memory) of fingerprints,
frontier and parent pointers, spilling the rest to DIR/NAME, and writes
a checkpoint there at the end of a level, at most once a minute; a
search that finishes removes its files. -resume continues a search
stopped part way (interrupted, killed, out of time) from that
checkpoint, to the result an uninterrupted search gives: name its one
configuration (hwepoch check -spill DIR -resume NAME). A checkpoint of
another search (other constants, invariants, properties or symmetry) is
refused. -memory alone spills into a temporary
directory. A liveness configuration keeps its graph in memory: it
neither spills nor resumes.

The search runs on model/packed's fixed-size states (successors without
allocation, a few words a state in the frontier) wherever a
configuration fits their maxima (4 replicas, 4 records, epochs to 5), and
on model.State otherwise; -engine readable asks for model.State, the
reference the packed form is held to (the same counts, depth and
counterexamples), -engine packed refuses a configuration that does not
fit.

With -simulate N it instead takes N random walks of each configuration
(seeded by -seed), checking the same properties; a walk can find a
violation but never prove a property, so only a violation of a property
the manifest expects to hold fails the run.

Exit status: 0 when every verdict is the manifest's, nothing disagrees
with TLC's or the explorer's recorded runs and (-record) every run was
recorded; 1 otherwise; 2 on a usage or input error.

flags:
`)
		printDefaults(fl)
	}
	if code, done := parseFlags(fl, args, positive("workers"), atLeast("simulate", 0), positive("steps"),
		needs("steps", "simulate"), needs("seed", "simulate"), excludes("record", "simulate"), excludes("record", "reduce"), noArgsWith("ci"),
		needs("resume", "spill"), excludes("simulate", "spill", "memory", "resume", "engine", "reduce"), atLeast("memory", 0)); done {
		return code
	}
	fail := usageError(stderr, "check")
	switch *engine {
	case explore.EngineAuto, explore.EnginePacked, explore.EngineReadable:
	default:
		return fail("-engine %q: want packed or readable", *engine)
	}
	if *resume && (fl.NArg() != 1 || *ci) {
		return fail("-resume continues one configuration's search: name it, as in hwepoch check -spill DIR -resume NAME (see hwepoch check -h)")
	}
	specDir := *specFlag
	if specDir == "" {
		d, err := tlccfg.FindSpecDir(".")
		if err != nil {
			return fail("%v, or give -spec DIR", err)
		}
		specDir = d
	}
	man, err := tlccfg.LoadManifest(specDir)
	if err != nil {
		return fail("%v (is -spec the directory with manifest.json?)", err)
	}
	entries := man.Configs
	if *ci {
		entries = nil
		for _, e := range man.Configs {
			if e.CI {
				entries = append(entries, e)
			}
		}
	}
	if fl.NArg() > 0 {
		entries = nil
		for _, name := range fl.Args() {
			e, ok := man.Lookup(name)
			if !ok {
				names := make([]string, len(man.Configs))
				for i, c := range man.Configs {
					names[i] = c.Name
				}
				return fail("no configuration %q in %s; the manifest has %v", name, filepath.Join(specDir, "manifest.json"), names)
			}
			entries = append(entries, e)
		}
	}
	runsPath := verify.RunsFile(specDir)
	if *runsFlag != "" {
		runsPath = *runsFlag // the file named, whatever its name
		// A record named on the command line must be there: comparing
		// with nothing, with only a note, is no comparison asked for.
		if _, err := os.Stat(runsPath); err != nil {
			return fail("-runs: %v", err)
		}
	}
	runs, note, err := verify.LoadRuns(man, runsPath)
	if err != nil {
		return fail("%v", err)
	}
	if note != "" {
		fmt.Fprintf(stderr, "hwepoch check: %s\n", note)
	}
	exRunsPath := explorerruns.Path(specDir)
	if *exRunsFlag != "" {
		exRunsPath = *exRunsFlag
		if _, err := os.Stat(exRunsPath); err != nil && !(*record && errors.Is(err, fs.ErrNotExist)) {
			return fail("-explorer-runs: %v (-record starts a new record)", err)
		}
	}
	exRuns, note, err := verify.LoadExplorerRuns(exRunsPath)
	if err != nil {
		return fail("%v", err)
	}
	if note != "" && !*record && *simulate == 0 {
		fmt.Fprintf(stderr, "hwepoch check: %s\n", note)
	}
	if *itfDir != "" {
		if err := os.MkdirAll(*itfDir, 0o755); err != nil {
			return fail("%v", err)
		}
	}

	if *simulate > 0 {
		return simulateConfigs(man, entries, *simulate, *seed, *steps, *itfDir, stdout, stderr)
	}
	var progress io.Writer = stderr
	if *quiet {
		progress = nil
	}
	if fl.NArg() == 0 && !*ci && !*quiet {
		fmt.Fprint(stderr, wrap("hwepoch check: ", fmt.Sprintf("exploring all %d configurations of the manifest: about three hours on 2 cores "+
			"(see hwepoch check -h); name some, or give -ci, to check fewer", len(entries)), maxColumns, "  "))
	}
	var rows []verify.ConfigResult
	notRecorded := map[string]string{}
	for _, e := range entries {
		row, err := verify.ExploreConfig(context.Background(), man, e, verify.Records{TLC: runs, Explorer: exRuns}, verify.ExploreOptions{
			Workers: *workers, Progress: progress, ProgressPrefix: "hwepoch check: ", Announce: true,
			SpillDir: spillDir(*spill, e.Name), MemoryBudget: int64(memory), Resume: *resume, Engine: *engine,
			Reduce: *reduce,
		})
		if err != nil {
			return fail("%v", err)
		}
		rows = append(rows, row)
		if *record {
			rec, err := recordExplorerRun(man, row, *workers, exRunsPath)
			if err != nil {
				notRecorded[e.Name] = err.Error()
			} else {
				fmt.Fprintf(stderr, "hwepoch check: recorded %s in %s: %s\n", e.Name, verify.Rel(exRunsPath), describeRecord(rec))
			}
		}
		if *itfDir != "" && row.Res.Violation != nil {
			path := filepath.Join(*itfDir, e.Name+".itf.json")
			if err := itf.WriteFile(path, &row.Check.Config, row.Res.Violation.Trace); err != nil {
				return fail("%v", err)
			}
		}
	}
	printTable(stdout, rows, *wide)
	printMemory(stdout, rows)
	for _, r := range rows {
		if r.TLC != nil {
			fmt.Fprintln(stdout, verify.VsTLCLegend)
			break
		}
	}
	for _, r := range rows {
		if r.Recorded != nil {
			fmt.Fprintln(stdout, explorerruns.Legend)
			break
		}
	}
	for _, r := range rows {
		switch why := r.Entry.NoTLCRun(); {
		case why != "" && r.TLC == nil:
			fmt.Fprintf(stdout, "no TLC run of %s: %s\n", r.Entry.Name, why)
		case why != "":
			fmt.Fprintf(stdout, "STALE NOTE %s: the manifest says TLC has no run of it (%q), but %s records one: drop the manifest's \"tlc\"\n",
				r.Entry.Name, why, verify.Rel(runsPath))
		}
	}
	status := 0
	if len(notRecorded) > 0 {
		status = 1
	}
	for _, r := range rows {
		if r.Res.Violation != nil {
			fmt.Fprintf(stdout, "\n%s: %s\n", r.Entry.Name, r.Res.Violation)
			trace.Render(stdout, &r.Check.Config, r.Res.Violation.Trace)
		}
		if !r.Good() {
			status = 1
		}
	}
	fmt.Fprintln(stdout)
	for _, r := range rows {
		if !r.OK {
			fmt.Fprintf(stdout, "WRONG VERDICT %s: expected %s, found %s\n", r.Entry.Name, verify.Expectation(r.Entry), r.FoundString())
		}
		switch r.VsTLC {
		case verify.VsMismatch:
			fmt.Fprintf(stdout, "MISMATCH WITH TLC %s: %s\n", r.Entry.Name, r.Why)
		case verify.VsCfgChanged, verify.VsSpecChanged:
			fmt.Fprintf(stdout, "NOT COMPARED WITH TLC %s: %s\n", r.Entry.Name, r.Why)
		}
		switch r.VsRec {
		case explorerruns.Mismatch:
			fmt.Fprintf(stdout, "MISMATCH WITH THE RECORDED RUN %s: %s\n", r.Entry.Name, r.WhyRec)
		case explorerruns.CfgChanged, explorerruns.SpecChanged:
			if !*record {
				fmt.Fprintf(stdout, "NOT COMPARED WITH THE RECORDED RUN %s: %s\n", r.Entry.Name, r.WhyRec)
			}
		}
		if why, ok := notRecorded[r.Entry.Name]; ok {
			fmt.Fprintf(stdout, "NOT RECORDED %s: %s\n", r.Entry.Name, why)
		}
	}
	if status == 0 {
		fmt.Fprintf(stdout, "all %d verdicts as expected\n", len(rows))
		if *record {
			fmt.Fprintf(stdout, "recorded %d runs in %s\n", len(rows), verify.Rel(exRunsPath))
		}
	}
	return status
}

// recordExplorerRun records row's run in the explorer's runs at path,
// unless the run is one no later run should be held to: a verdict the
// manifest does not expect, a disagreement with TLC's run, or with the
// earlier record of the same files (a result that changed while the files
// did not is a bug in the explorer or the record, to be understood before
// either is replaced).
func recordExplorerRun(man *tlccfg.Manifest, row verify.ConfigResult, workers int, path string) (explorerruns.Run, error) {
	name := row.Entry.Name
	switch {
	case !row.OK:
		return explorerruns.Run{}, fmt.Errorf("the manifest expects %s, the explorer found %s: a wrong verdict is never recorded",
			verify.Expectation(row.Entry), row.FoundString())
	case row.VsTLC == verify.VsMismatch:
		return explorerruns.Run{}, fmt.Errorf("the run disagrees with TLC's (%s): not recorded", row.Why)
	case row.VsRec == explorerruns.Mismatch:
		return explorerruns.Run{}, fmt.Errorf("the run disagrees with the recorded run of the same files (%s): not replaced; if the record is wrong, delete its entry from %s and record again",
			row.WhyRec, verify.Rel(path))
	}
	cfgSum, specSum, err := verify.Sums(man, row.Entry)
	if err != nil {
		return explorerruns.Run{}, err
	}
	if specSum == "" {
		return explorerruns.Run{}, fmt.Errorf("%s is missing: a run is recorded with the spec's SHA-256", filepath.Join(man.Dir, man.Spec))
	}
	rec := explorerruns.NewRun(name, row.Result(), row.Res.Duration, workers, cfgSum, specSum, man.Dir)
	return rec, explorerruns.Record(path, rec)
}

// describeRecord is a record in a few words, for the line that says it
// was written.
func describeRecord(r explorerruns.Run) string {
	s := fmt.Sprintf("%s, %d distinct states, %d generated, depth %d", r.Verdict, r.DistinctStates, r.StatesGenerated, r.Depth)
	if r.Verdict == "violated" {
		s = fmt.Sprintf("violated %s (counterexample of %d states), %d distinct states", r.Property, r.TraceLength, r.DistinctStates)
	}
	return s + fmt.Sprintf(", %.1f s, %d workers", r.Seconds, r.Workers)
}

// printTable prints check's table: one row per configuration, the
// verdict as ✓ when it is the manifest's (✗ and what was found when not),
// counterexample lengths in their own columns. The default table fits 120
// columns: the expected verdict without its property (the counterexample
// below names it), no states generated and no TLC numbers ("vs TLC" says
// how they compare; a mismatch is spelled out below). wide prints every
// column.
func printTable(w io.Writer, rows []verify.ConfigResult, wide bool) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	if wide {
		fmt.Fprintln(tw, "config\tpolicy\texpected\tfound\tdistinct\tgenerated\tdepth\ttrace\ttime\tTLC distinct\tTLC depth\tTLC trace\tvs TLC\tvs rec\t")
	} else {
		fmt.Fprintln(tw, "config\tpolicy\texpected\tfound\tdistinct\tdepth\ttrace\ttime\tvs TLC\tvs rec\t")
	}
	for _, r := range rows {
		found := "✓"
		if !r.OK {
			found = "✗ " + r.FoundString()
		}
		tlcD, tlcDepth, tlcTrace, vs := "-", "-", "-", "-"
		switch {
		case r.TLC != nil:
			tlcD, tlcDepth, vs = fmt.Sprint(r.TLC.DistinctStates), fmt.Sprint(r.TLC.Depth), r.VsTLC
			if r.TLC.Verdict == "violated" {
				tlcTrace = fmt.Sprint(r.TLC.TraceLength)
			}
		case r.Entry.NoTLCRun() != "":
			vs = "no run (below)"
		}
		vsRec := "-"
		if r.Recorded != nil {
			vsRec = r.VsRec
		}
		trace := "-"
		if r.Res.Violation != nil {
			trace = fmt.Sprint(r.Res.Violation.Trace.Len())
		}
		took := r.Res.Duration.Round(time.Millisecond)
		if wide {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", r.Entry.Name, r.Check.Config.Truncation,
				verify.Expectation(r.Entry), found, r.Res.Distinct, r.Res.Generated, r.Res.Depth, trace,
				took, tlcD, tlcDepth, tlcTrace, vs, vsRec)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%s\t%s\t%s\t%s\t\n", r.Entry.Name, r.Check.Config.Truncation,
			r.Entry.Expect, found, r.Res.Distinct, r.Res.Depth, trace, took, vs, vsRec)
	}
	tw.Flush()
	fmt.Fprintln(w, "trace: states in the counterexample, the initial one included; found: ✓ the manifest's verdict")
}

// bigRun is the size from which check reports a run's bytes a state.
const bigRun = 1_000_000

// printMemory reports, for every search of at least bigRun states, what it
// held per state: the fingerprints and parent pointers (for the whole
// search), the frontier at its largest, what went to disk, and the
// process's peak resident memory so far (which includes the collector's
// headroom and, after several configurations, the largest of them).
func printMemory(w io.Writer, rows []verify.ConfigResult) {
	for _, r := range rows {
		res := r.Res
		if res == nil || res.Distinct < bigRun {
			continue
		}
		per := func(b int64) float64 { return float64(b) / float64(res.Distinct) }
		fmt.Fprintf(w, "memory: %s: %.1f B/state for fingerprints and parent pointers, %.1f B/state for the frontier at its largest, %.1f MiB spilled to disk at most",
			r.Entry.Name, per(res.MemBytes), per(res.FrontierBytes), float64(res.SpilledBytes)/(1<<20))
		if peak := peakRSS(); peak > 0 {
			fmt.Fprintf(w, "; peak resident memory of this process so far %.0f MiB (%.1f B/state)", float64(peak)/(1<<20), per(peak))
		}
		fmt.Fprintln(w)
	}
}

// peakRSS is this process's peak resident set size, 0 when unknown.
func peakRSS() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Maxrss * 1024 // kilobytes on Linux
}

// simulateConfigs is check -simulate: random walks instead of the exhaustive search.
func simulateConfigs(man *tlccfg.Manifest, entries []tlccfg.Entry, walks int, seed uint64, steps int, itfDir string, stdout, stderr io.Writer) int {
	status := 0
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "config\texpected\twalks\tsteps\tfound\ttime\t")
	var found []*explore.Violation
	var cfgs []*tlccfg.Check
	for _, e := range entries {
		chk, err := man.LoadCheck(e)
		if err != nil {
			fmt.Fprintf(stderr, "hwepoch check: %v\n", err)
			return 2
		}
		if chk.Live {
			// A random walk is finite: it cannot show a fair cycle, nor
			// its absence.
			fmt.Fprintf(tw, "%s\t%s\t-\t-\tnot simulated: a liveness configuration\t-\t\n", e.Name, verify.Expectation(e))
			continue
		}
		res, err := explore.Simulate(context.Background(), &chk.Config, explore.SimOptions{
			Options: explore.Options{Invariants: chk.Invariants, Properties: chk.Properties, ConfigName: e.Name},
			Seed:    seed, Walks: walks, MaxSteps: steps,
		})
		if err != nil {
			fmt.Fprintf(stderr, "hwepoch check: %s: %v\n", e.Name, err)
			return 2
		}
		verdict := "no violation"
		if v := res.Violation; v != nil {
			verdict = "violated " + v.Property
			found = append(found, v)
			cfgs = append(cfgs, chk)
			if e.Expect == "holds" {
				verdict += " (WRONG)"
				status = 1
			}
			if itfDir != "" {
				if err := itf.WriteFile(filepath.Join(itfDir, e.Name+".sim.itf.json"), &chk.Config, v.Trace); err != nil {
					fmt.Fprintf(stderr, "hwepoch check: %v\n", err)
					return 2
				}
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\t\n", e.Name, verify.Expectation(e), res.Walks, res.Steps, verdict, res.Duration.Round(time.Millisecond))
	}
	tw.Flush()
	for i, v := range found {
		fmt.Fprintf(stdout, "\n%s: %s\n", v.Trace.ConfigName, v)
		trace.Render(stdout, &cfgs[i].Config, v.Trace)
	}
	return status
}

// spillDir is where check spills the search of configuration name: a
// directory of its own under -spill, so that each keeps its checkpoint.
func spillDir(spill, name string) string {
	if spill == "" {
		return ""
	}
	return filepath.Join(spill, name)
}

// byteSize is a flag's number of bytes: digits, optionally followed by K,
// M, G or T (powers of 1024), as in 512M or 8G.
type byteSize int64

func (b *byteSize) String() string { return strconv.FormatInt(int64(*b), 10) }

func (b *byteSize) Get() any { return int64(*b) }

func (b *byteSize) Set(s string) error {
	t := strings.TrimSuffix(strings.TrimSuffix(strings.ToUpper(strings.TrimSpace(s)), "B"), "I")
	shift := 0
	if t != "" {
		if i := strings.IndexByte("KMGT", t[len(t)-1]); i >= 0 {
			shift, t = 10*(i+1), t[:len(t)-1]
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 0 || n > math.MaxInt64>>shift {
		return fmt.Errorf("%q is no number of bytes (digits, optionally followed by K, M, G or T)", s)
	}
	*b = byteSize(n << shift)
	return nil
}
