package hunt

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hwepoch/hwepoch/internal/tlc"
	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/model/explore"
	"github.com/hwepoch/hwepoch/model/tlccfg"
	"github.com/hwepoch/hwepoch/trace"
	"github.com/hwepoch/hwepoch/trace/tlcjson"
)

// Method is one way of searching.
type Method string

const (
	BFS    Method = "bfs"     // the explorer, breadth first (explore.Run)
	Swarm  Method = "swarm"   // the explorer's swarm of random walks (explore.Swarm)
	Cells  Method = "cells"   // the explorer's breadth-first search cut to K states per cell (explore.CellSearch)
	TLCBFS Method = "tlc-bfs" // TLC, breadth first
	TLCSim Method = "tlc-sim" // TLC -simulate -depth D -seed S
)

// Methods are every method, in the table's order.
var Methods = []Method{BFS, Swarm, Cells, TLCBFS, TLCSim}

// IsTLC says whether the method runs TLC.
func (m Method) IsTLC() bool { return m == TLCBFS || m == TLCSim }

// Seeded says whether the method's search depends on its seed (the
// breadth-first searches do not).
func (m Method) Seeded() bool { return m == Swarm || m == Cells || m == TLCSim }

// TLCSeedStride separates the first TLC seeds of tlc-sim's runs: one run
// goes on to the next seeds itself while its counterexample lacks the
// signature (each TLC start takes a second or more, so a run of at most
// a few hundred seconds does not reach the next run's).
const TLCSeedStride = 1000

// SeedsFor is the seed of each run of method m: Seed, Seed+1, ... for the
// swarm and the cell search (Seeds of them), Seed, Seed+TLCSeedStride, ...
// for TLC -simulate (TLCSeeds of them), and Seed alone for a method
// without a seed.
func (opt Options) SeedsFor(m Method) []uint64 {
	n, stride := 1, uint64(1)
	switch {
	case m == TLCSim:
		n, stride = opt.TLCSeeds, TLCSeedStride
	case m.Seeded():
		n = opt.Seeds
	}
	out := []uint64{opt.Seed}
	for j := 1; j < n; j++ {
		out = append(out, opt.Seed+uint64(j)*stride)
	}
	return out
}

// ParseMethods reads a comma-separated list of methods ("" or "all": every one).
func ParseMethods(list string) ([]Method, error) {
	if list == "" || list == "all" {
		return Methods, nil
	}
	var out []Method
	for _, n := range strings.Split(list, ",") {
		m := Method(strings.TrimSpace(n))
		ok := false
		for _, x := range Methods {
			ok = ok || x == m
		}
		if !ok {
			return nil, fmt.Errorf("unknown method %q (the methods: bfs, swarm, cells, tlc-bfs, tlc-sim)", n)
		}
		out = append(out, m)
	}
	return out, nil
}

// Options configure the searches.
type Options struct {
	Workers int    // explorer workers and TLC -workers (0: 1)
	Seed    uint64 // the swarm's and the cell search's seed; TLC -simulate's first seed
	// Seeds is how many times the swarm and the cell search run, with
	// seeds Seed, Seed+1, ... (0: once); TLCSeeds how many times TLC
	// -simulate runs (see SeedsFor). The breadth-first searches do not
	// depend on a seed and run once.
	Seeds, TLCSeeds int
	Timeout         time.Duration // per explorer search
	TLCTimeout      time.Duration // per TLC search
	// Jar is tla2tools.jar ("": the TLC cells say "no TLC"); SpecDir holds
	// the spec's modules (Replication.tla).
	Jar, SpecDir string
	// Progress receives progress lines (may be nil).
	Progress io.Writer
}

// Status is how a cell ended.
type Status string

const (
	Found    Status = "found"    // a counterexample with the bug's signature
	Other    Status = "other"    // the search stopped at a violation without it (BFS stops at the first)
	TimedOut Status = "timeout"  // nothing within the timeout
	Finished Status = "finished" // the whole space (or every walk asked for) without a violation
	NoTLC    Status = "no TLC"   // TLA2TOOLS_JAR is not set
	Failed   Status = "error"
)

// Cell is one search of one bug.
type Cell struct {
	Bug     string
	Method  Method
	Status  Status
	Seconds float64 // wall time to the counterexample (or to the timeout)
	// States: distinct states for a breadth-first search (at the timeout:
	// as many as its last progress line said, AtLeast set); for the swarm
	// the steps of its walks; for TLC -simulate the states TLC checked.
	States  int64
	AtLeast bool
	Walks   int // swarm walks, or TLC -simulate runs (one per seed)
	// Rejected counts violations without the bug's signature that random
	// walks went past.
	Rejected int
	Trace    *trace.Trace // the counterexample (Found or Other)
	Property string       // the invariant it violates
	Carries  []string     // the bugs whose signature it carries
	Note     string       // e.g. the seed and walk that found it
	Seed     uint64       // the seed it ran with (methods with a seed)
	// Level is, for a breadth-first search that timed out, the depth it
	// was searching (Init is level 1) and that level's states, and
	// PrevLevel the level before's (0 if the progress reports missed it).
	Level                  int
	LevelStates, PrevLevel int64
	// Cells is the cell search's result (method cells).
	Cells *explore.CellResult
	Err   error
}

// Length is the counterexample's length in states (TLC's count), 0 if none.
func (c *Cell) Length() int {
	if c.Trace == nil {
		return 0
	}
	return c.Trace.Len()
}

// Search runs one method on one bug.
func Search(ctx context.Context, b Bug, m Method, opt Options) Cell {
	cell := Cell{Bug: b.Name, Method: m}
	if m.Seeded() {
		cell.Seed = opt.Seed
	}
	switch m {
	case BFS:
		searchBFS(ctx, b, opt, &cell)
	case Swarm:
		searchSwarm(ctx, b, opt, &cell)
	case Cells:
		searchCells(ctx, b, opt, &cell)
	case TLCBFS, TLCSim:
		if opt.Jar == "" {
			cell.Status = NoTLC
			return cell
		}
		searchTLC(ctx, b, m, opt, &cell)
	default:
		cell.Status, cell.Err = Failed, fmt.Errorf("unknown method %q", m)
	}
	if cell.Trace != nil && cell.Status != Failed {
		cell.Carries = Carries(&b.Config, *cell.Trace, cell.Property)
	}
	return cell
}

// Carries names the bugs whose signature tr carries (for the violated
// property, under the configuration it was found in).
func Carries(cfg *model.Config, tr trace.Trace, property string) []string {
	var out []string
	seen := map[string]bool{}
	for _, x := range Bugs {
		if x.Invariant == property && !seen[x.Name] && x.Signature(cfg, tr, property) {
			out = append(out, x.Name)
			seen[x.Name] = true
		}
	}
	return out
}

// accept is the bug's signature as a search's acceptance test.
func accept(b Bug) func(*explore.Violation) bool {
	return func(v *explore.Violation) bool { return b.Signature(&b.Config, v.Trace, v.Property) }
}

func (opt Options) workers() int { return max(1, opt.Workers) }

func searchBFS(ctx context.Context, b Bug, opt Options, cell *Cell) {
	ctx, cancel := context.WithTimeout(ctx, opt.Timeout)
	defer cancel()
	prog := &lastCount{re: reExploreDistinct, echo: opt.Progress, prefix: "  [" + b.Name + " bfs] ", levels: map[int]int64{}}
	start := time.Now()
	res, err := explore.Run(ctx, &b.Config, explore.Options{Workers: opt.workers(), Invariants: []string{b.Invariant},
		Symmetry: true, ConfigName: "hunt-" + b.Name, Progress: prog, ProgressEvery: time.Second})
	cell.Seconds = time.Since(start).Seconds()
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		cell.Status, cell.States, cell.AtLeast = TimedOut, prog.count(), true
		cell.Level, cell.LevelStates, cell.PrevLevel = prog.level()
		return
	case err != nil:
		cell.Status, cell.Err = Failed, err
		return
	}
	cell.Seconds = res.Duration.Seconds()
	cell.States = res.Distinct
	if res.Violation == nil {
		cell.Status = Finished
		return
	}
	cell.Trace, cell.Property = &res.Violation.Trace, res.Violation.Property
	cell.Status = Other
	if b.Signature(&b.Config, res.Violation.Trace, res.Violation.Property) {
		cell.Status = Found
	}
}

// progressFor is where a search of b by method reports its progress: the
// caller's Progress with each line prefixed by the bug and method, nil when
// there is none.
func (opt Options) progressFor(b Bug, method string) io.Writer {
	if opt.Progress == nil {
		return nil
	}
	return &prefixWriter{w: opt.Progress, prefix: "  [" + b.Name + " " + method + "] "}
}

func searchSwarm(ctx context.Context, b Bug, opt Options, cell *Cell) {
	ctx, cancel := context.WithTimeout(ctx, opt.Timeout)
	defer cancel()
	prog := opt.progressFor(b, "swarm")
	res, err := explore.Swarm(ctx, &b.Config, explore.SwarmOptions{
		Options: explore.Options{Workers: opt.workers(), Invariants: []string{b.Invariant},
			ConfigName: "hunt-" + b.Name, Progress: prog},
		Seed: opt.Seed, MinSteps: b.WalkSteps[0], MaxSteps: b.WalkSteps[1], Archive: true, Accept: accept(b)})
	if err != nil {
		cell.Status, cell.Err = Failed, err
		return
	}
	cell.Seconds, cell.States, cell.Walks, cell.Rejected = res.Duration.Seconds(), res.Steps, res.Walks, res.Rejected
	cell.Note = fmt.Sprintf("archive of %d cells", res.Archived)
	if res.Violation == nil {
		cell.Status = TimedOut
		return
	}
	cell.Status = Found
	cell.Trace, cell.Property = &res.Violation.Trace, res.Violation.Property
	cell.Note = fmt.Sprintf("seed %d walk %d (%s): %s", opt.Seed, res.Walk, cell.Note, res.Profile)
}

func searchCells(ctx context.Context, b Bug, opt Options, cell *Cell) {
	ctx, cancel := context.WithTimeout(ctx, opt.Timeout)
	defer cancel()
	prog := opt.progressFor(b, "cells")
	res, err := explore.CellSearch(ctx, &b.Config, explore.CellOptions{
		Options: explore.Options{Workers: opt.workers(), Invariants: []string{b.Invariant}, Symmetry: true,
			ConfigName: "hunt-" + b.Name, Progress: prog, ProgressEvery: 5 * time.Second},
		Seed: opt.Seed, Accept: accept(b)})
	if err != nil {
		cell.Status, cell.Err = Failed, err
		return
	}
	cell.Seconds, cell.States, cell.Rejected = res.Duration.Seconds(), res.States, res.Rejected
	cell.Cells = res
	switch {
	case res.Violation != nil:
		cell.Status = Found
		cell.Trace, cell.Property = &res.Violation.Trace, res.Violation.Property
		cell.Note = fmt.Sprintf("round %d (K %d per cell), %s cells", res.Rounds, res.K, count(int64(res.Cells)))
	case res.Exhausted:
		cell.Status = Finished
	default:
		cell.Status = TimedOut
	}
}

// searchTLC runs TLC on the bug's configuration, written into a scratch
// directory with the spec's modules. -simulate runs again with the next
// seed while the violation it finds lacks the signature (TLC stops at the
// first violation of a run), until the timeout: the time includes every
// run's JVM start.
func searchTLC(ctx context.Context, b Bug, m Method, opt Options, cell *Cell) {
	dir, err := os.MkdirTemp("", "hwepoch-hunt-")
	if err != nil {
		cell.Status, cell.Err = Failed, err
		return
	}
	defer os.RemoveAll(dir)
	if err := copyModules(opt.SpecDir, dir); err != nil {
		cell.Status, cell.Err = Failed, err
		return
	}
	name := "hunt-" + b.Name
	symmetry := m == TLCBFS // TLC does not reduce by symmetry in simulation
	cfgText := tlccfg.Format(b.Config, []string{b.Invariant}, nil, symmetry,
		fmt.Sprintf("hwepoch hunt: %s (%s)", b.Title, b.Release))
	if err := os.WriteFile(filepath.Join(dir, name+".cfg"), cfgText, 0o644); err != nil {
		cell.Status, cell.Err = Failed, err
		return
	}
	start := time.Now()
	deadline := start.Add(opt.TLCTimeout)
	seed := int64(opt.Seed)
	for {
		left := time.Until(deadline)
		if left <= 0 {
			cell.Status = TimedOut
			break
		}
		run := tlc.Run{Jar: opt.Jar, SpecDir: dir, Module: "Replication", Config: name, Workers: opt.workers(),
			OutDir: filepath.Join(dir, "out"), OutName: fmt.Sprintf("%s-%d", name, cell.Walks), Timeout: left}
		if opt.Progress != nil {
			run.Progress = opt.Progress
		}
		if m == TLCSim {
			run.Simulate = &tlc.Simulation{Depth: b.SimDepth, Seed: seed, UntilViolation: true}
		}
		res, files, err := run.Execute(ctx)
		cell.Walks++
		cell.States += tlcStates(res, filepath.Join(run.OutDir, files.Log))
		if err != nil {
			cell.Status, cell.Err = Failed, err
			break
		}
		if res.Verdict == "error" && strings.Contains(res.Error, "did not finish within") {
			cell.Status = TimedOut
			break
		}
		if res.Verdict == "holds" {
			cell.Status = Finished
			break
		}
		if res.Verdict != "violated" || files.TraceJSON == "" {
			cell.Status, cell.Err = Failed, fmt.Errorf("TLC: verdict %s %s %s (no trace exported)", res.Verdict, res.Property, res.Error)
			break
		}
		tr, err := tlcjson.Load(filepath.Join(run.OutDir, files.TraceJSON), &b.Config, name)
		if err != nil {
			cell.Status, cell.Err = Failed, fmt.Errorf("reading TLC's trace: %w", err)
			break
		}
		cell.Trace, cell.Property = &tr, res.Property
		if b.Signature(&b.Config, tr, res.Property) {
			cell.Status = Found
			if m == TLCSim {
				cell.Note = fmt.Sprintf("TLC -simulate -depth %d -seed %d", b.SimDepth, seed)
			}
			break
		}
		if m == TLCBFS {
			cell.Status = Other
			break
		}
		cell.Rejected++
		seed++
	}
	cell.Seconds = time.Since(start).Seconds()
	if cell.Status == TimedOut {
		cell.Trace, cell.Property = nil, ""
		cell.AtLeast = m == TLCBFS
	}
}

// copyModules copies the spec's .tla modules into dir.
func copyModules(specDir, dir string) error {
	mods, err := filepath.Glob(filepath.Join(specDir, "*.tla"))
	if err != nil || len(mods) == 0 {
		return fmt.Errorf("no .tla modules in %s", specDir)
	}
	for _, p := range mods {
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(p)), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

var (
	reExploreDistinct = regexp.MustCompile(`\s(\d+) distinct`)
	// TLC's progress, once a minute: "Progress(12) at ...: 1,234 states generated (...), 567
	// distinct states found" in a breadth-first search, "Progress: 2101005 states checked, ..."
	// in simulation.
	reTLCDistinct = regexp.MustCompile(`([\d,]+) distinct states found`)
	reTLCChecked  = regexp.MustCompile(`^Progress: ([\d,]+) states checked`)
	reTLCSimFinal = regexp.MustCompile(`^The number of states generated: ([\d,]+)`)
)

// tlcStates is what TLC counted: its result's distinct states, else the
// last count its log mentions (a run stopped by the timeout, a simulation).
func tlcStates(res tlc.Result, logPath string) int64 {
	if res.DistinctStates > 0 {
		return res.DistinctStates
	}
	f, err := os.Open(logPath)
	if err != nil {
		return 0
	}
	defer f.Close()
	var n int64
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		line := sc.Text()
		for _, re := range []*regexp.Regexp{reTLCDistinct, reTLCChecked, reTLCSimFinal} {
			if m := re.FindStringSubmatch(line); m != nil {
				if v, err := strconv.ParseInt(strings.ReplaceAll(m[1], ",", ""), 10, 64); err == nil {
					n = v
				}
			}
		}
	}
	return n
}

// lastCount is a progress writer that remembers the last count re matched
// (the explorer reports every second, so that a search stopped by its
// timeout still has a count) and echoes every tenth line (with a prefix)
// to echo.
type lastCount struct {
	mu     sync.Mutex
	re     *regexp.Regexp
	n      int64
	lines  int
	echo   io.Writer
	prefix string
	// levels, if set, gets the explorer's level sizes: the queue its
	// progress lines report at each depth.
	levels map[int]int64
	depth  int
}

var reExploreLevel = regexp.MustCompile(`queue (\d+)\s+depth (\d+)`)

func (l *lastCount) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, line := range bytes.Split(bytes.TrimRight(p, "\n"), []byte("\n")) {
		if m := l.re.FindSubmatch(line); m != nil {
			if v, err := strconv.ParseInt(string(m[1]), 10, 64); err == nil {
				l.n = v
			}
		}
		if m := reExploreLevel.FindSubmatch(line); m != nil && l.levels != nil {
			q, err1 := strconv.ParseInt(string(m[1]), 10, 64)
			d, err2 := strconv.Atoi(string(m[2]))
			if err1 == nil && err2 == nil {
				l.levels[d], l.depth = q, d
			}
		}
		if l.lines++; l.echo != nil && l.lines%10 == 0 {
			fmt.Fprintf(l.echo, "%s%s\n", l.prefix, line)
		}
	}
	return len(p), nil
}

func (l *lastCount) count() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n
}

// level is the last depth the progress lines reported, its states and
// the states of the level before (0 if no line reported it).
func (l *lastCount) level() (depth int, states, prev int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.depth, l.levels[l.depth], l.levels[l.depth-1]
}

// prefixWriter prefixes each line written to w.
type prefixWriter struct {
	w      io.Writer
	prefix string
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	for _, line := range bytes.Split(bytes.TrimRight(b, "\n"), []byte("\n")) {
		fmt.Fprintf(p.w, "%s%s\n", p.prefix, line)
	}
	return len(b), nil
}
