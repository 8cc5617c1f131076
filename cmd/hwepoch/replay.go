package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/model/tlccfg"
	"github.com/hwepoch/hwepoch/refine"
	"github.com/hwepoch/hwepoch/refine/freerun"
	"github.com/hwepoch/hwepoch/refine/random"
)

func init() {
	register("replay", "hold the implementation to the model: replay traces, random traces or free runs", runReplay)
}

const replayUsage = `usage: hwepoch replay [flags] [trace files...]

Replays traces on the model and on the implementation (a stepped cluster
configured from the trace's constants): every step must be one the model
takes, and after every step the abstraction of the cluster's snapshot must
equal the model's state. With no files, every trace under traces/ is
replayed: TLC's exports (traces/tlc/*.json and *.tla, traces/tlc/sim/),
scenarios (traces/scenarios/*.scenario) and regressions
(traces/regressions/*.itf.json). A file is read by its name: *.itf.json is
ITF, *.scenario a scenario, any other *.json TLC's -dumpTrace json, *.tla
TLC's -dumpTrace tla. The
configuration a trace was made with is the one it carries (ITF
regressions), its run's in traces/tlc/runs.json, spec/NAME.cfg for a file
NAME.json, or -cfg's. Flags may follow the files.

  -random N   instead, run N gopter random traces per policy (or only
              -policy's); a failure is shrunk and written to -regressions,
              where the trace test replays it from then on.
  -free N     instead, run N free runs of the implementation (goroutines,
              a lossy network, crashes, elections) and validate each one's
              events against the model; a failing run's recording is
              saved to -out (revalidate it with -recording FILE).

Exit status 0 when everything held, 1 when something failed, 2 on bad use
or a file that could not be read.

flags:`

func runReplay(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	nRandom := fs.Int("random", 0, "random traces per policy (0: replay traces instead)")
	nFree := fs.Int("free", 0, "free runs to validate (0: replay traces instead)")
	policy := fs.String("policy", "", "only this truncation policy: HighWatermark, Kip101, LeaderEpoch, DivergingEpoch or EligibleLeader (random and free runs)")
	seed := fs.Int64("seed", 1, "seed of the random traces and free runs")
	steps := fs.Int("steps", 25, "longest random trace")
	regressions := fs.String("regressions", "", "where failing random traces are written (default: traces/regressions)")
	out := fs.String("out", "free-failures", "where failing free runs' recordings are saved")
	recording := fs.String("recording", "", "validate a saved free-run recording instead (and print its events with -v)")
	verbose := fs.Bool("v", false, "print every trace as it replays")
	cfgPath := fs.String("cfg", "", "the TLC .cfg the named traces were made with (default: the constants an ITF regression carries, the run's in traces/tlc/runs.json, else spec/NAME.cfg)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, replayUsage)
		printDefaults(fs)
	}
	if code, done := parseFlags(fs, args, atLeast("random", 0), atLeast("free", 0), positive("steps"), noArgsWith("recording"),
		needs("steps", "random"), needs("regressions", "random"), needs("out", "free"), needs("seed", "random", "free"),
		needs("policy", "random", "free")); done {
		return code
	}
	policies, err := replayPolicies(*policy)
	if err != nil {
		fmt.Fprintf(stderr, "hwepoch replay: %v\n", err)
		return 2
	}
	switch {
	case *recording != "" && (*nRandom > 0 || *nFree > 0):
		fmt.Fprintln(stderr, "hwepoch replay: -recording revalidates a saved free run; -random and -free are other runs: give one")
		return 2
	case *recording != "":
		return revalidate(*recording, *verbose, stdout, stderr)
	case *nRandom > 0 && *nFree > 0:
		fmt.Fprintln(stderr, "hwepoch replay: -random and -free are separate runs: give one")
		return 2
	case (*nRandom > 0 || *nFree > 0) && fs.NArg() > 0:
		fmt.Fprintln(stderr, "hwepoch replay: trace files and -random/-free are separate runs: give one")
		return 2
	case *nRandom > 0:
		dir := *regressions
		if dir == "" {
			root, err := repoRoot()
			if err != nil {
				fmt.Fprintf(stderr, "hwepoch replay: %v (or pass -regressions DIR)\n", err)
				return 2
			}
			dir = filepath.Join(root, "traces", "regressions")
		}
		return replayRandom(policies, *nRandom, *seed, *steps, dir, stdout, stderr)
	case *nFree > 0:
		return replayFree(policies, *nFree, *seed, *out, stdout, stderr)
	}
	if *cfgPath != "" && fs.NArg() == 0 {
		fmt.Fprintln(stderr, "hwepoch replay: -cfg applies to the trace files named: name them")
		return 2
	}
	return replayTraces(fs.Args(), *cfgPath, *verbose, stdout, stderr)
}

func replayPolicies(p string) ([]string, error) {
	all := model.Policies
	if p == "" {
		return all, nil
	}
	for _, x := range all {
		if strings.EqualFold(p, x) {
			return []string{x}, nil
		}
	}
	return nil, fmt.Errorf("unknown policy %q: want one of %s", p, strings.Join(model.Policies, ", "))
}

// repoRoot is the repository's root: the parent of spec/.
func repoRoot() (string, error) {
	spec, err := tlccfg.FindSpecDir(".")
	if err != nil {
		return "", err
	}
	return filepath.Dir(spec), nil
}

// replayTraces replays the given files, or every trace under traces/.
func replayTraces(files []string, cfgPath string, verbose bool, stdout, stderr io.Writer) int {
	if len(files) == 0 {
		root, err := repoRoot()
		if err != nil {
			fmt.Fprintf(stderr, "hwepoch replay: %v, or name trace files\n", err)
			return 2
		}
		if files, err = refine.Discover(filepath.Join(root, "traces")); err != nil {
			fmt.Fprintf(stderr, "hwepoch replay: %v\n", err)
			return 2
		}
		if len(files) == 0 {
			fmt.Fprintf(stderr, "hwepoch replay: no traces under %s: record TLC's with `hwepoch tlc`, or name trace files\n", filepath.Join(root, "traces"))
			return 2
		}
	}
	failed, cases, unread := 0, 0, 0
	start := time.Now()
	for _, f := range files {
		cs, err := refine.LoadWithConfig(f, cfgPath)
		if err != nil {
			fmt.Fprintf(stderr, "hwepoch replay: %v\n", err)
			unread++
			continue
		}
		for _, c := range cs {
			cases++
			t0 := time.Now()
			err := refine.ReplayCase(c, refine.Options{})
			switch {
			case err != nil:
				failed++
				fmt.Fprintf(stdout, "FAIL %s (%d steps)\n%v\n\n", c.Name, c.Trace.Len()-1, err)
			case verbose:
				fmt.Fprintf(stdout, "ok   %s (%d steps, %v)\n", c.Name, c.Trace.Len()-1, time.Since(t0).Round(time.Millisecond))
			}
		}
	}
	fmt.Fprintf(stdout, "%d of %d traces replayed on model and implementation in %v", cases-failed, cases, time.Since(start).Round(time.Millisecond))
	if failed > 0 {
		fmt.Fprintf(stdout, "; %d FAILED", failed)
	}
	if unread > 0 {
		fmt.Fprintf(stdout, "; %d of %d files could not be read (above)", unread, len(files))
	}
	fmt.Fprintln(stdout)
	switch {
	case failed > 0:
		return 1
	case unread > 0:
		return 2
	}
	return 0
}

// replayRandom runs n random traces per policy.
func replayRandom(policies []string, n int, seed int64, steps int, dir string, stdout, stderr io.Writer) int {
	status := 0
	for i, p := range policies {
		s := seed + int64(i)
		next := 100
		opt := random.Options{Policy: p, Traces: n, Seed: s, MaxSteps: steps, Progress: func(started int) {
			if started >= next {
				fmt.Fprintf(stdout, "  %s: %d clusters started\n", p, started)
				next += 100 * (1 + next/1000)
			}
		}}
		res, err := random.Run(opt)
		if res.Failure == nil && err != nil {
			fmt.Fprintf(stderr, "hwepoch replay: %s: %v\n", p, err)
			return 2
		}
		if f := res.Failure; f != nil {
			status = 1
			path := filepath.Join(dir, fmt.Sprintf("random-%s-seed%d.itf.json", p, s))
			note := fmt.Sprintf("random trace (policy %s, seed %d), shrunk: %s", p, s, f.Problem)
			werr := refine.WriteRegression(path, f.Config, f.Trace, f.Refuse, note)
			fmt.Fprintf(stdout, "FAIL %s: after %d traces held, a trace failed; shrunk to %s\n", p, res.Passed, f)
			if werr != nil {
				fmt.Fprintf(stdout, "     (could not write the regression: %v)\n", werr)
			} else {
				fmt.Fprintf(stdout, "     written to %s; replay it with: hwepoch replay %s\n", path, path)
			}
			if err != nil {
				fmt.Fprintf(stdout, "     %v\n", err)
			}
			continue
		}
		fmt.Fprintf(stdout, "ok   %s: %d random traces held (%d clusters) in %v\n", p, res.Passed, res.Started, res.Took.Round(time.Millisecond))
	}
	return status
}

// replayFree validates n free runs, cycling through the free-run
// configurations of the chosen policies.
func replayFree(policies []string, n int, seed int64, out string, stdout, stderr io.Writer) int {
	var cfgs []*model.Config
	for _, c := range freerun.Configs {
		for _, p := range policies {
			if c.Truncation == p {
				cfgs = append(cfgs, c)
			}
		}
	}
	if len(cfgs) == 0 {
		fmt.Fprintf(stderr, "hwepoch replay: no free-run configuration uses %v\n", policies)
		return 2
	}
	failed, events := 0, 0
	gaps := map[string]int{}
	start := time.Now()
	for i := range n {
		cfg := cfgs[i%len(cfgs)]
		s := uint64(seed) + uint64(i)
		rec := freerun.Record(freerun.DefaultOptions(cfg, s))
		if rec.Err != nil {
			fmt.Fprintf(stdout, "FAIL run %d (%s, seed %d): the run itself failed: %v\n", i+1, cfg.Truncation, s, rec.Err)
			failed++
			continue
		}
		rep := freerun.Validate(rec)
		events += rep.Events
		for k, c := range rep.Gaps {
			gaps[k] += c
		}
		if rep.Err != nil {
			failed++
			path := filepath.Join(out, fmt.Sprintf("free-%s-seed%d.json", cfg.Truncation, s))
			werr := os.MkdirAll(out, 0o755)
			if werr == nil {
				werr = rec.WriteFile(path)
			}
			fmt.Fprintf(stdout, "FAIL run %d (%s, seed %d): %d events\n%v\n", i+1, cfg.Truncation, s, rep.Events, rep.Err)
			if werr != nil {
				fmt.Fprintf(stdout, "     (could not save the recording: %v)\n", werr)
			} else {
				fmt.Fprintf(stdout, "     recording saved to %s; validate it again with: hwepoch replay -recording %s -v\n\n", path, path)
			}
			continue
		}
		fmt.Fprintf(stdout, "ok   run %d (%s, seed %d): %d events, %d steps\n", i+1, cfg.Truncation, s, rep.Events, rep.Steps)
	}
	fmt.Fprintf(stdout, "%d of %d free runs validated (%d events) in %v\n", n-failed, n, events, time.Since(start).Round(time.Millisecond))
	writeGaps(stdout, gaps)
	if failed > 0 {
		return 1
	}
	return 0
}

func writeGaps(w io.Writer, gaps map[string]int) {
	if len(gaps) == 0 {
		return
	}
	fmt.Fprintln(w, "gaps between spec and implementation bridged (docs/mapping.md):")
	keys := make([]string, 0, len(gaps))
	for k := range gaps {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "  %6d  %s\n", gaps[k], k)
	}
}

// revalidate validates a saved recording again.
func revalidate(path string, verbose bool, stdout, stderr io.Writer) int {
	rec, err := freerun.ReadRecording(path)
	if err != nil {
		fmt.Fprintf(stderr, "hwepoch replay: %v\n", err)
		return 2
	}
	if verbose {
		if err := freerun.Dump(stdout, rec); err != nil {
			fmt.Fprintf(stdout, "(%v)\n", err)
		}
	}
	rep := freerun.Validate(rec)
	writeGaps(stdout, rep.Gaps)
	if rep.Err != nil {
		fmt.Fprintf(stdout, "FAIL %s: %d events\n%v\n", path, rep.Events, rep.Err)
		return 1
	}
	fmt.Fprintf(stdout, "ok   %s: %d events, %d steps\n", path, rep.Events, rep.Steps)
	return 0
}
