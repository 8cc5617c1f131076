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
	timeout := fl.Duration("timeout", 60*time.Minute, "give up on TLC after this long")
	fl.Usage = func() {
		fmt.Fprint(stderr, `usage: hwepoch bench-tlc [flags] [config]

Runs TLC and then the Go explorer on the same configuration (a manifest
name such as le-fenced-2, the default, or a path to a .cfg), with the same
number of workers, and prints for each the distinct states, states
generated, depth, wall time, distinct states per second and peak memory
(TLC: the JVM's maximum resident set size; explorer: the Go runtime's
memory obtained from the OS), then the ratios. TLC's time includes JVM
start-up and parsing (a second or two), so use a configuration that runs
for a while. TLC runs in a temporary directory, never in the repository.

TLA2TOOLS_JAR must name tla2tools.jar, and java must be on PATH.

flags:
`)
		printDefaults(fl)
	}
	if code, done := parseFlags(fl, args, positive("workers"), positive("timeout"), maxArgs(1, "one configuration")); done {
		return code
	}
	fail := func(code int, format string, a ...any) int {
		fmt.Fprintf(stderr, "hwepoch bench-tlc: "+format+"\n", a...)
		return code
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
	arg := "le-fenced-2"
	if fl.NArg() == 1 {
		arg = fl.Arg(0)
	}
	cfgPath := arg
	if !strings.HasSuffix(arg, ".cfg") {
		cfgPath = filepath.Join(specDir, arg+".cfg")
	}
	chk, err := tlccfg.LoadCheck(cfgPath)
	if err != nil {
		return fail(2, "%v", err)
	}

	fmt.Fprintf(stderr, "hwepoch bench-tlc: TLC on %s with %d workers...\n", chk.Name, *workers)
	tlcRow, err := benchTLC(jar, filepath.Join(specDir, "Replication.tla"), cfgPath, *workers, *timeout)
	if err != nil {
		return fail(1, "TLC: %v", err)
	}
	fmt.Fprintf(stderr, "hwepoch bench-tlc: the explorer on %s with %d workers...\n", chk.Name, *workers)
	exRow, err := benchExplorer(chk, *workers)
	if err != nil {
		return fail(1, "explorer: %v", err)
	}

	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%s\tverdict\tdistinct\tgenerated\tdepth\tseconds\tdistinct/s\tpeak MiB\t\n", chk.Name)
	for _, r := range []benchRow{tlcRow, exRow} {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%.2f\t%.0f\t%.0f\t\n", r.name, r.verdict, r.distinct, r.generated, r.depth,
			r.wall.Seconds(), r.rate(), float64(r.peakBytes)/(1<<20))
	}
	tw.Flush()
	fmt.Fprintf(stdout, "explorer/TLC: %.1fx distinct states per second, %.2fx peak memory\n",
		exRow.rate()/tlcRow.rate(), float64(exRow.peakBytes)/float64(tlcRow.peakBytes))
	fmt.Fprint(stdout, memoryReport(exRow, explore.MachineMemory()))
	if tlcRow.verdict == "holds" && exRow.verdict == "holds" &&
		(tlcRow.distinct != exRow.distinct || tlcRow.depth != exRow.depth) {
		fmt.Fprintln(stdout, "MISMATCH: the explorer and TLC disagree on distinct states or depth")
		return 1
	}
	if tlcRow.verdict != exRow.verdict {
		fmt.Fprintln(stdout, "MISMATCH: the explorer and TLC disagree on the verdict")
		return 1
	}
	return 0
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
