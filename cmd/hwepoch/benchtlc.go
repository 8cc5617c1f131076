package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/hwepoch/hwepoch/internal/tlc"
	"github.com/hwepoch/hwepoch/model/explore"
	"github.com/hwepoch/hwepoch/model/tlccfg"
	"github.com/hwepoch/hwepoch/trace/tlcjson"

	"github.com/hwepoch/hwepoch/internal/inputfile"
)

func init() {
	register("bench-tlc", "run TLC and the explorer on one configuration and compare states/s and memory (needs TLA2TOOLS_JAR)", runBenchTLC)
}

// benchRow is one checker's run.
type benchRow struct {
	name                string
	distinct, generated int64
	depth               int
	verdict             string
	wall                time.Duration
	peakBytes           int64
	// the explorer's: its fingerprint set and parent pointers at the end,
	// and its encoded frontier at its largest
	tableBytes, frontierBytes int64
}

func (r benchRow) rate() float64 { return float64(r.distinct) / r.wall.Seconds() }

func runBenchTLC(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("bench-tlc", flag.ContinueOnError)
	fl.SetOutput(stderr)
	workers := fl.Int("workers", runtime.GOMAXPROCS(0), "workers for both TLC and the explorer")
	specFlag := fl.String("spec", "", "directory of Replication.tla and the .cfg files (default: spec/ of the enclosing repository)")
	timeout := fl.Duration("timeout", 60*time.Minute, "give up on TLC after this long, per configuration")
	holds := fl.Bool("holds", false, "every configuration of the manifest that holds and that TLC has a recorded breadth-first run of (safety ones: the spec's Spec)")
	fl.Usage = func() {
		fmt.Fprint(stderr, `usage: hwepoch bench-tlc [flags] [config ...]

Runs TLC and then the Go explorer on the same configuration (a manifest
name such as le-fenced-2, the default, or a path to a .cfg), with the same
number of workers, and prints for each the distinct states, states
generated, depth, wall time, distinct states per second and peak memory
(TLC: the JVM's maximum resident set size; explorer: the Go runtime's
memory obtained from the OS), then the ratios. TLC's time includes JVM
start-up and parsing (a second or two), so use a configuration that runs
for a while. TLC runs in a temporary directory, never in the repository.

With several configurations (or -holds: every safety configuration that
holds and that TLC has a recorded run of), each is run the same way, one
after the other, and one table sums them up: per configuration both
rates, both peaks, the speed and memory ratios and the explorer's bytes a
state at its peak.

TLA2TOOLS_JAR must name tla2tools.jar, and java must be on PATH.

flags:
`)
		printDefaults(fl)
	}
	if code, done := parseFlags(fl, args, positive("workers"), positive("timeout")); done {
		return code
	}
	fail := func(code int, format string, a ...any) int {
		fmt.Fprintf(stderr, "hwepoch bench-tlc: "+format+"\n", a...)
		return code
	}
	if *holds && fl.NArg() > 0 {
		return fail(2, "-holds names the configurations itself: give no configuration with it")
	}
	jar, err := tlc.Jar()
	if err != nil {
		return fail(2, "%v", err)
	}
	specDir := *specFlag
	if specDir == "" {
		d, err := tlccfg.FindSpecDir(".")
		if err != nil {
			return fail(2, "%v, or give -spec DIR", err)
		}
		specDir = d
	}
	names := fl.Args()
	if *holds {
		if names, err = holdsWithTLCRun(specDir); err != nil {
			return fail(2, "%v", err)
		}
	}
	if len(names) == 0 {
		names = []string{"le-fenced-2"}
	}
	var checks []*tlccfg.Check
	var paths []string
	for _, arg := range names {
		cfgPath := arg
		if !strings.HasSuffix(arg, ".cfg") {
			cfgPath = filepath.Join(specDir, arg+".cfg")
		}
		chk, err := tlccfg.LoadCheck(cfgPath)
		if err != nil {
			return fail(2, "%v", err)
		}
		if chk.Live {
			return fail(2, "%s is a liveness configuration (SPECIFICATION LiveSpec): bench-tlc compares safety searches", chk.Name)
		}
		checks, paths = append(checks, chk), append(paths, cfgPath)
	}

	var pairs [][2]benchRow
	code := 0
	for k, chk := range checks {
		fmt.Fprintf(stderr, "hwepoch bench-tlc: TLC on %s with %d workers...\n", chk.Name, *workers)
		tlcRow, err := benchTLC(jar, filepath.Join(specDir, "Replication.tla"), paths[k], *workers, *timeout)
		if err != nil {
			return fail(1, "TLC on %s: %v", chk.Name, err)
		}
		fmt.Fprintf(stderr, "hwepoch bench-tlc: the explorer on %s with %d workers...\n", chk.Name, *workers)
		exRow, err := benchExplorer(chk, *workers)
		if err != nil {
			return fail(1, "explorer on %s: %v", chk.Name, err)
		}
		pairs = append(pairs, [2]benchRow{tlcRow, exRow})
		printBenchPair(stdout, chk.Name, tlcRow, exRow)
		if msg := benchMismatch(tlcRow, exRow); msg != "" {
			fmt.Fprintf(stdout, "MISMATCH on %s: %s\n", chk.Name, msg)
			code = 1
		}
	}
	if len(checks) > 1 {
		fmt.Fprintln(stdout)
		printBenchSummary(stdout, checks, pairs)
	}
	return code
}

// printBenchPair is one configuration's two rows and its ratios.
func printBenchPair(w io.Writer, name string, tlcRow, exRow benchRow) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%s\tverdict\tdistinct\tgenerated\tdepth\tseconds\tdistinct/s\tpeak MiB\t\n", name)
	for _, r := range []benchRow{tlcRow, exRow} {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%.2f\t%.0f\t%.0f\t\n", r.name, r.verdict, r.distinct, r.generated, r.depth,
			r.wall.Seconds(), r.rate(), float64(r.peakBytes)/(1<<20))
	}
	tw.Flush()
	fmt.Fprintf(w, "explorer/TLC: %.1fx distinct states per second, %.2fx peak memory\n",
		exRow.rate()/tlcRow.rate(), float64(exRow.peakBytes)/float64(tlcRow.peakBytes))
	fmt.Fprint(w, memoryReport(exRow, explore.MachineMemory()))
}

// benchMismatch says how the two checkers disagree, "" when they do not:
// the verdict, and for a configuration that holds the distinct states and
// depth.
func benchMismatch(tlcRow, exRow benchRow) string {
	if tlcRow.verdict != exRow.verdict {
		return "the explorer and TLC disagree on the verdict"
	}
	if tlcRow.verdict == "holds" && (tlcRow.distinct != exRow.distinct || tlcRow.depth != exRow.depth) {
		return "the explorer and TLC disagree on distinct states or depth"
	}
	return ""
}

// printBenchSummary is the one table of a run over several configurations.
func printBenchSummary(w io.Writer, checks []*tlccfg.Check, pairs [][2]benchRow) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "config\tdistinct\tTLC s\tTLC states/s\tTLC MiB\texplorer s\texplorer states/s\texplorer MiB\tspeed\tmemory\tB/state\t\n")
	for k, p := range pairs {
		t, e := p[0], p[1]
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%.0f\t%.0f\t%.1f\t%.0f\t%.0f\t%.1fx\t%.2fx\t%.0f\t\n", checks[k].Name, e.distinct,
			t.wall.Seconds(), t.rate(), float64(t.peakBytes)/(1<<20), e.wall.Seconds(), e.rate(), float64(e.peakBytes)/(1<<20),
			e.rate()/t.rate(), float64(e.peakBytes)/float64(t.peakBytes), float64(e.peakBytes)/float64(max(e.distinct, 1)))
	}
	tw.Flush()
	fmt.Fprintln(w, "speed: explorer/TLC distinct states per second; memory: explorer/TLC peak; B/state: the explorer's peak from the OS per distinct state")
}

// holdsWithTLCRun are the manifest's safety configurations that hold and
// that traces/tlc/runs.json records a breadth-first TLC run of.
func holdsWithTLCRun(specDir string) ([]string, error) {
	man, err := tlccfg.LoadManifest(specDir)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(specDir, "..", "traces", "tlc")
	runs, err := tlcjson.LoadRuns(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range man.Configs {
		if e.Expect != "holds" {
			continue
		}
		chk, err := man.LoadCheck(e)
		if err != nil {
			return nil, err
		}
		if _, ok := runs.Exhaustive(e.Name); ok && !chk.Live {
			out = append(out, e.Name)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no configuration that holds has a recorded TLC run in %s", filepath.Join(dir, "runs.json"))
	}
	return out, nil
}

var (
	reTLCCounts = regexp.MustCompile(`(\d+) states generated, (\d+) distinct states found`)
	reTLCDepth  = regexp.MustCompile(`depth of the complete state graph search is (\d+)`)
)

// benchTLC runs TLC in a scratch directory and reads its counts from its
// output and its peak memory from the kernel's rusage of the JVM.
func benchTLC(jar, spec, cfgPath string, workers int, timeout time.Duration) (benchRow, error) {
	dir, err := os.MkdirTemp("", "hwepoch-bench-tlc-")
	if err != nil {
		return benchRow{}, err
	}
	defer os.RemoveAll(dir)
	for _, f := range []string{spec, cfgPath} {
		b, err := inputfile.ReadFile(f)
		if err != nil {
			return benchRow{}, err
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), b, 0o644); err != nil {
			return benchRow{}, err
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "java", "-XX:+UseParallelGC", "-cp", jar, "tlc2.TLC",
		"-workers", strconv.Itoa(workers), "-deadlock", "-metadir", filepath.Join(dir, "states"),
		"-config", filepath.Base(cfgPath), filepath.Base(spec))
	cmd.Dir = dir
	start := time.Now()
	out, err := cmd.CombinedOutput()
	wall := time.Since(start)
	if ctx.Err() != nil {
		return benchRow{}, fmt.Errorf("no result within %v", timeout)
	}
	counts, depth := reTLCCounts.FindSubmatch(out), reTLCDepth.FindSubmatch(out)
	if counts == nil || depth == nil {
		return benchRow{}, fmt.Errorf("TLC's output has no state counts (%v):\n%s", err, tail(out, 2000))
	}
	row := benchRow{name: "TLC", wall: wall, verdict: "holds"}
	row.generated, _ = strconv.ParseInt(string(counts[1]), 10, 64)
	row.distinct, _ = strconv.ParseInt(string(counts[2]), 10, 64)
	row.depth, _ = strconv.Atoi(string(depth[1]))
	if !strings.Contains(string(out), "No error has been found") {
		row.verdict = "violated"
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		row.peakBytes = ru.Maxrss * 1024 // kilobytes on Linux
	}
	return row, nil
}

// benchExplorer runs the explorer in this process, sampling the memory the
// Go runtime holds from the OS.
func benchExplorer(chk *tlccfg.Check, workers int) (benchRow, error) {
	runtime.GC()
	var peak int64
	var mu sync.Mutex
	done := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			mu.Lock()
			peak = max(peak, int64(ms.Sys-ms.HeapReleased))
			mu.Unlock()
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	res, err := explore.Run(context.Background(), &chk.Config, explore.Options{Workers: workers,
		Invariants: chk.Invariants, Properties: chk.Properties, Symmetry: chk.Symmetry, ConfigName: chk.Name})
	close(done)
	<-sampled
	if err != nil {
		return benchRow{}, err
	}
	row := benchRow{name: "explorer", distinct: res.Distinct, generated: res.Generated, depth: res.Depth,
		wall: res.Duration, verdict: "holds", peakBytes: peak, tableBytes: res.MemBytes, frontierBytes: res.FrontierBytes}
	if res.Violation != nil {
		row.verdict = "violated"
	}
	return row, nil
}

func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// memoryReport is the explorer's bytes per state, split into what every
// state costs for the whole search (fingerprint set, parent pointer and
// action) and what only the frontier costs, and the state count that
// would fit in total bytes of memory at the measured peak per state.
func memoryReport(r benchRow, total int64) string {
	if r.distinct == 0 {
		return ""
	}
	per := func(b int64) float64 { return float64(b) / float64(r.distinct) }
	s := fmt.Sprintf("explorer memory: %.1f B/state for fingerprints and parent pointers, %.1f B/state for the frontier at its largest, %.1f B/state peak from the OS (with the garbage collector's headroom)\n",
		per(r.tableBytes), per(r.frontierBytes), per(r.peakBytes))
	if total > 0 && r.peakBytes > 0 {
		fits := float64(total) / per(r.peakBytes)
		s += fmt.Sprintf("at that peak per state, this machine's %.1f GiB holds about %.2g states", float64(total)/(1<<30), fits)
		if fits >= 1<<32 {
			s += " (the explorer numbers states with 32 bits: at most 4.29e+09)"
		}
		s += "\n"
	}
	return s
}
