package tlc

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/trace/tlcjson"

	"github.com/hwepoch/hwepoch/internal/inputfile"
)

// MissingJarHelp is what a user sees when TLA2TOOLS_JAR is not set or wrong.
const MissingJarHelp = `TLC is needed for this and is not installed with the project.
Set TLA2TOOLS_JAR to the path of tla2tools.jar, for example:

    export TLA2TOOLS_JAR=$HOME/tools/tla2tools.jar

tla2tools.jar is built from the tlaplus/tlaplus repository's
tlatools/org.lamport.tlatools sources (ant -f customBuild.xml compile dist)
with a JDK (17 or newer), or taken from a TLA+ Toolbox/release download.
-dumpTrace tla also needs CommunityModules.jar next to tla2tools.jar; without
it only JSON traces are exported. See docs/tlc.md.`

// MissingJarError says TLA2TOOLS_JAR does not name a jar, and how to get one.
type MissingJarError struct{ Problem string }

func (e *MissingJarError) Error() string { return e.Problem + ".\n\n" + MissingJarHelp }

// Jar returns the tla2tools.jar named by TLA2TOOLS_JAR, or a *MissingJarError.
func Jar() (string, error) {
	jar := os.Getenv("TLA2TOOLS_JAR")
	if jar == "" {
		return "", &MissingJarError{Problem: "TLA2TOOLS_JAR is not set"}
	}
	st, err := os.Stat(jar)
	if err != nil || st.IsDir() {
		return "", &MissingJarError{Problem: "TLA2TOOLS_JAR=" + jar + " is not a file"}
	}
	return jar, nil
}

// Run is one TLC invocation on the spec.
type Run struct {
	Jar      string // tla2tools.jar
	SpecDir  string // directory holding the .tla modules and NAME.cfg
	Module   string // root module, e.g. "Replication"
	Config   string // configuration name (NAME.cfg in SpecDir)
	Workers  int
	Simulate *Simulation // nil: exhaustive breadth-first search
	OutDir   string      // where NAME.log and the exported traces go
	OutName  string      // base name of the outputs; Config when empty
	Progress io.Writer   // TLC's progress lines are echoed here (may be nil)
	Timeout  time.Duration
	// Mutant, when set, is seeded into the copy of Replication.tla TLC
	// runs on (model.MutantSpec).
	Mutant model.Mutant
	// Restore, when set, puts a Kafka behaviour back into the copy of
	// Replication.tla TLC runs on (model.RestoreSpec), and leaves out of
	// the configuration the invariants it breaks by design
	// (model.RestoreInfos[Restore].Unasserted).
	Restore model.Restore
	// LiveProperties are the configuration's liveness properties: when
	// there is one, a temporal violation is that property's.
	LiveProperties []string
	// Distributed runs TLC's distributed mode instead of tlc2.TLC; it
	// exports no trace files (the server prints the trace in its log).
	Distributed *Distributed
}

// Simulation asks TLC for one random behaviour of a fixed depth: the run
// checks an extra invariant "the behaviour is shorter than Depth", whose
// violation makes TLC export the behaviour as a trace that names every
// step's action and parameters.
type Simulation struct {
	Depth int
	Seed  int64
	// UntilViolation instead runs TLC's own random simulation: behaviours
	// of at most Depth states, one after another, until one violates a
	// configured property (or Timeout), which is exported as the trace
	// (hwepoch hunt's TLC -simulate column).
	UntilViolation bool
}

// Files names what a run left in OutDir (base names).
type Files struct {
	Log, TraceJSON, TraceTLA string
}

// Execute runs TLC in a scratch directory (TLC writes states/ and trace
// modules into its working directory) and copies the log and traces out.
func (r Run) Execute(ctx context.Context) (Result, Files, error) {
	var files Files
	out := r.OutName
	if out == "" {
		out = r.Config
	}
	work, err := os.MkdirTemp("", "hwepoch-tlc-")
	if err != nil {
		return Result{}, files, err
	}
	defer os.RemoveAll(work)
	if err := copyGlob(r.SpecDir, "*.tla", work); err != nil {
		return Result{}, files, err
	}
	if r.Mutant != "" {
		spec := filepath.Join(work, "Replication.tla")
		b, err := os.ReadFile(spec)
		if err != nil {
			return Result{}, files, err
		}
		if b, err = model.MutantSpec(b, r.Mutant); err != nil {
			return Result{}, files, err
		}
		if err := os.WriteFile(spec, b, 0o644); err != nil {
			return Result{}, files, err
		}
	}
	if r.Restore != "" {
		spec := filepath.Join(work, "Replication.tla")
		b, err := os.ReadFile(spec)
		if err != nil {
			return Result{}, files, err
		}
		if b, err = model.RestoreSpec(b, r.Restore); err != nil {
			return Result{}, files, err
		}
		if err := os.WriteFile(spec, b, 0o644); err != nil {
			return Result{}, files, err
		}
	}
	cfgText, err := inputfile.ReadFile(filepath.Join(r.SpecDir, r.Config+".cfg"))
	if err != nil {
		return Result{}, files, fmt.Errorf("configuration %q: %w", r.Config, err)
	}
	if r.Restore != "" {
		cfgText = dropInvariants(cfgText, model.RestoreInfos[r.Restore].Unasserted)
	}
	module := r.Module
	if r.Simulate != nil && !r.Simulate.UntilViolation {
		module = "Sim" + r.Module
		wrapper := fmt.Sprintf("---- MODULE %s ----\n"+
			"\\* Generated by hwepoch tlc for a simulation export; not part of the spec.\n"+
			"EXTENDS %s, TLC\nBelowSimDepth == TLCGet(\"level\") < %d\n====\n", module, r.Module, r.Simulate.Depth)
		if err := os.WriteFile(filepath.Join(work, module+".tla"), []byte(wrapper), 0o644); err != nil {
			return Result{}, files, err
		}
		cfgText = append(cfgText, []byte("\nINVARIANT BelowSimDepth\n")...)
	}
	if err := os.WriteFile(filepath.Join(work, "run.cfg"), cfgText, 0o644); err != nil {
		return Result{}, files, err
	}

	if r.Distributed != nil && r.Simulate != nil {
		return Result{}, files, fmt.Errorf("TLC's distributed mode has no simulation")
	}
	if r.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, r.Timeout)
		defer cancel()
	}
	// The log starts with the command line, then the hashes of the files
	// it ran on.
	var head strings.Builder
	if h, err := tlcjson.FileSHA256(filepath.Join(r.SpecDir, r.Module+".tla")); err == nil {
		fmt.Fprintf(&head, "# spec %s.tla sha256 %s\n", r.Module, h)
	}
	if h, err := tlcjson.FileSHA256(filepath.Join(r.SpecDir, r.Config+".cfg")); err == nil {
		fmt.Fprintf(&head, "# config %s.cfg sha256 %s\n", r.Config, h)
	}
	var logBuf bytes.Buffer
	traceModule := "trace_" + strings.ReplaceAll(out, "-", "_")
	dumpTLA := false
	start := time.Now()
	var waitErr error
	failure := ""
	if r.Distributed != nil {
		if failure, err = r.runDistributed(ctx, work, module, head.String(), &logBuf); err != nil {
			return Result{}, files, err
		}
	} else {
		community := filepath.Join(filepath.Dir(r.Jar), "CommunityModules.jar")
		if _, err := os.Stat(community); err == nil {
			dumpTLA = true
		}
		args := []string{"-XX:+UseParallelGC", "-cp", r.Jar, "tlc2.TLC",
			"-workers", fmt.Sprint(max(1, r.Workers)), "-deadlock", "-cleanup",
			"-dumpTrace", "json", out + ".json"}
		if dumpTLA {
			args = append(args, "-dumpTrace", "tla", traceModule+".tla")
		}
		switch {
		case r.Simulate != nil && r.Simulate.UntilViolation:
			args = append(args, "-simulate", "-depth", fmt.Sprint(r.Simulate.Depth),
				"-seed", fmt.Sprint(r.Simulate.Seed))
		case r.Simulate != nil:
			args = append(args, "-simulate", "num=1", "-depth", fmt.Sprint(r.Simulate.Depth+1),
				"-seed", fmt.Sprint(r.Simulate.Seed))
		}
		args = append(args, "-config", "run.cfg", module+".tla")
		fmt.Fprintf(&logBuf, "# hwepoch tlc: java %s\n%s", strings.Join(args, " "), head.String())
		if waitErr, err = r.runTLC(ctx, work, out, args, &logBuf); err != nil {
			return Result{}, files, err
		}
	}
	elapsed := time.Since(start)
	fmt.Fprintf(&logBuf, "# wall time %.1fs\n", elapsed.Seconds())

	res, err := Parse(bytes.NewReader(logBuf.Bytes()))
	if err != nil {
		return res, files, err
	}
	res.Seconds = elapsed.Seconds()
	if res.Temporal && res.Property == "" && len(r.LiveProperties) == 1 {
		res.Property = r.LiveProperties[0]
	}
	switch {
	case ctx.Err() != nil:
		res.Verdict = "error"
		res.Error = "TLC did not finish within " + r.Timeout.String()
	case failure != "":
		res.Verdict = "error"
		res.Error = failure
	case waitErr != nil && res.Verdict == "error" && res.Error == "":
		res.Error = waitErr.Error()
	}
	if r.Simulate != nil && res.Verdict == "violated" && res.Property == "BelowSimDepth" {
		// The depth cap was reached with every real invariant holding.
		res.Verdict = "simulated"
	}

	if err := os.MkdirAll(r.OutDir, 0o755); err != nil {
		return res, files, err
	}
	files.Log = out + ".log"
	if err := os.WriteFile(filepath.Join(r.OutDir, files.Log), logBuf.Bytes(), 0o644); err != nil {
		return res, files, err
	}
	if r.Distributed == nil && (res.Verdict == "violated" || res.Verdict == "simulated") {
		if copyFile(filepath.Join(work, out+".json"), filepath.Join(r.OutDir, out+".json")) == nil {
			files.TraceJSON = out + ".json"
		}
		if dumpTLA && copyFile(filepath.Join(work, traceModule+".tla"), filepath.Join(r.OutDir, traceModule+".tla")) == nil {
			files.TraceTLA = traceModule + ".tla"
		}
	}
	return res, files, nil
}

// runTLC runs java with args in work, collecting its console output in
// log and echoing progress lines. waitErr is how java exited.
func (r Run) runTLC(ctx context.Context, work, out string, args []string, log *bytes.Buffer) (waitErr error, err error) {
	cmd := exec.CommandContext(ctx, "java", args...)
	cmd.Dir = work
	pr, pw := io.Pipe()
	cmd.Stdout = pw
	cmd.Stderr = pw
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting java (is a JDK installed?): %w", err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 1<<20), 1<<26)
		for sc.Scan() {
			line := sc.Text()
			log.WriteString(line)
			log.WriteByte('\n')
			if r.Progress != nil && (strings.HasPrefix(line, "Progress(") || strings.HasPrefix(line, "Error:")) {
				fmt.Fprintf(r.Progress, "  [%s] %s\n", out, line)
			}
		}
		io.Copy(io.Discard, pr)
	}()
	waitErr = cmd.Wait()
	pw.Close()
	<-done
	return waitErr, nil
}

func copyGlob(dir, pattern, dst string) error {
	matches, err := filepath.Glob(filepath.Join(dir, pattern))
	if err != nil {
		return err
	}
	if len(matches) == 0 {
		return fmt.Errorf("no %s in %s", pattern, dir)
	}
	for _, m := range matches {
		if err := copyFile(m, filepath.Join(dst, filepath.Base(m))); err != nil {
			return err
		}
	}
	return nil
}

func copyFile(src, dst string) error {
	b, err := inputfile.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, b, 0o644)
}

// dropInvariants removes the lines of a configuration that name one of
// names alone ("    HWBelowLEO" under INVARIANTS, or "INVARIANT HWBelowLEO").
func dropInvariants(cfg []byte, names []string) []byte {
	var out [][]byte
	for _, line := range bytes.SplitAfter(cfg, []byte("\n")) {
		f := strings.Fields(string(line))
		if (len(f) == 1 && slices.Contains(names, f[0])) || (len(f) == 2 && f[0] == "INVARIANT" && slices.Contains(names, f[1])) {
			continue
		}
		out = append(out, line)
	}
	return bytes.Join(out, nil)
}
