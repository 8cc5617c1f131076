package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hwepoch/hwepoch/refine/sim"
)

// The bad-input classes of issue 19: each gives a clear error naming the
// problem and a non-zero exit (2 for bad use), never a silent success or a
// hang.

// runCLIWithin is runCLI that fails the test, instead of hanging it, when
// the command does not return within d.
func runCLIWithin(t *testing.T, d time.Duration, args ...string) (int, string, string) {
	t.Helper()
	type result struct {
		code     int
		out, err string
	}
	done := make(chan result, 1)
	go func() {
		code, out, errs := runCLI(args...)
		done <- result{code, out, errs}
	}()
	select {
	case r := <-done:
		return r.code, r.out, r.err
	case <-time.After(d):
		t.Fatalf("hwepoch %s: still running after %v (a hang)", strings.Join(args, " "), d)
	}
	return 0, "", ""
}

// chaos -out must be a directory the run can write into, checked before
// the first seed runs (chaos -out /etc/hostname once ran every seed and
// exited 0 with the failing seeds' files never written).
func TestChaosOutMustBeWritable(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a-file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{file, filepath.Join(file, "sub"), "/dev/null/x"} {
		code, stdout, errs := runCLI("chaos", "-seeds", "1", "-events", "10", "-out", out)
		if code != 2 || !strings.Contains(errs, "-out "+out) || !strings.Contains(errs, "not a directory") || stdout != "" {
			t.Errorf("-out %s: exit %d (want 2), stderr %q, stdout %q", out, code, errs, stdout)
		}
	}
	// A directory that is created for the run and stays empty is removed
	// again: a run that writes nothing leaves nothing behind.
	fresh := filepath.Join(dir, "new", "failures")
	if code, out, errs := runCLI("chaos", "-seeds", "1", "-events", "10", "-out", fresh); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "new")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the empty -out directories were left behind: %v", err)
	}
}

// A failing seed whose files cannot be written fails the campaign (exit 1,
// the file named) rather than being reported as written.
func TestChaosUnwritableFailureFails(t *testing.T) {
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	settings := []string{"brokers=3", "Truncation=HighWatermark", "Fencing=true", "acks=all", "min.insync.replicas=2",
		"unclean.leader.election.enable=false", "UnflushedLoss=false", "MinIsrGatesHW=false"}
	var out, errb bytes.Buffer
	// HighWatermark loses records within a dozen seeds (as
	// TestChaosHighWatermarkFailuresReplay relies on too).
	code := simChaos(sim.CampaignOptions{First: 1, Seeds: 12, Settings: settings, Events: 400, Parallel: 2},
		"HighWatermark", "violated", filepath.Join(file, "out"), -1, false, false, &out, &errb)
	if code != 1 || !strings.Contains(errb.String(), "could not write its run") || !strings.Contains(errb.String(), "could not be written") {
		t.Errorf("exit %d (want 1)\nstdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
	}
	if strings.Contains(out.String(), "written to") {
		t.Errorf("a run reported written:\n%s", out.String())
	}
}

// simRun writes a short simulated LeaderEpoch run as chaos writes a failing
// seed's, and returns its path and lines.
func simRun(t *testing.T) (string, []string) {
	t.Helper()
	r := sim.Run(sim.Options{Seed: 3, Settings: []string{"brokers=3", "Truncation=LeaderEpoch"}, Events: 60})
	if r.Err != nil || r.Invalid != nil {
		t.Fatalf("the run itself failed: %v %v", r.Err, r.Invalid)
	}
	var b bytes.Buffer
	if err := sim.WriteRun(&b, r); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "seed-3-LeaderEpoch.sim")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
}

// A .sim file is held to its seed: steps added or removed are refused
// (the hash covers the event log, not the steps); a file without its
// '# seed' line is refused rather than replayed unchecked; an absurd
// '# events' count is refused at once with the bound.
func TestChaosReplayRefusesEditedRuns(t *testing.T) {
	path, lines := simRun(t)
	if code, out, errs := runCLI("chaos", "-replay", path); code != 0 || !strings.Contains(out, "reproduced exactly") {
		t.Fatalf("the run as written: exit %d\n%s\n%s", code, out, errs)
	}
	write := func(name string, ls []string) string {
		p := filepath.Join(filepath.Dir(path), name)
		if err := os.WriteFile(p, []byte(strings.Join(ls, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	without := func(prefix string) []string {
		var out []string
		for _, l := range lines {
			if !strings.HasPrefix(l, prefix) {
				out = append(out, l)
			}
		}
		return out
	}
	refused := func(what, file, want string) {
		t.Helper()
		code, out, errs := runCLIWithin(t, 2*time.Minute, "chaos", "-replay", file)
		if code != 2 || !strings.Contains(errs, want) || strings.Contains(out, "reproduced exactly") {
			t.Errorf("%s: exit %d (want 2), stderr %q (want %q), stdout %q", what, code, errs, want, out)
		}
	}
	// The last step dropped: every step of it is still one the model takes.
	refused("a step removed", write("short.sim", lines[:len(lines)-1]), "not the ones seed 3 gives")
	// A step appended that the model takes (the first candidate that it
	// does); one it does not take is refused for that, as before.
	appended := false
	for _, step := range []string{"CheckpointHW(1)", "CheckpointHW(2)", "CheckpointHW(3)", "Elect(1)", "Elect(2)", "Elect(3)",
		"Restart(1)", "Restart(2)", "Restart(3)", "SendFetch(1)", "SendFetch(2)", "SendFetch(3)"} {
		code, out, errs := runCLI("chaos", "-replay", write("long.sim", append(append([]string(nil), lines...), step)))
		if code != 2 || strings.Contains(out, "reproduced exactly") {
			t.Fatalf("%s appended: exit %d (want 2)\n%s\n%s", step, code, out, errs)
		}
		if strings.Contains(errs, "not the ones seed 3 gives") {
			appended = true
			break
		}
	}
	if !appended {
		t.Error("no appended step was taken by the model: the test's candidates need updating")
	}
	refused("no seed line", write("noseed.sim", without("# seed ")), "needs '# seed N'")
	refused("no hash line", write("nohash.sim", without("# hash ")), "a 64-digit '# hash'")
	huge := without("# events ")
	huge = append([]string{"# events 99999999999"}, huge...)
	refused("a huge event count", write("huge.sim", huge), "want 1 to 50000")
	if !strings.Contains(strings.Join(lines, "\n"), "# events 60") {
		t.Fatalf("the run file does not record its events:\n%s", strings.Join(lines[:6], "\n"))
	}
}

// A flag the command would ignore is a usage error (exit 2) naming it.
func TestIgnoredFlagsAreUsageErrors(t *testing.T) {
	tlc := filepath.Join("..", "..", "traces", "tlc", "hw-acked-loss.json")
	sc := filepath.Join("..", "..", "traces", "scenarios", "kip101-scenario-1.scenario")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"chaos", "-replay", "x.sim", "-free"}, "with -replay, -free would be ignored"},
		{[]string{"chaos", "-replay", "x.sim", "-seeds", "100"}, "with -replay, -seeds would be ignored"},
		{[]string{"chaos", "-replay", "x.sim", "-policy", "Kip101"}, "with -replay, -policy would be ignored"},
		{[]string{"chaos", "-replay", "x.sim", "-out", "d", "-v"}, "-out, -v would be ignored"},
		{[]string{"chaos", "-drop", "0.1"}, "-drop applies only with -free"},
		{[]string{"chaos", "-delay", "0.3"}, "-delay applies only with -free"},
		{[]string{"chaos", "-duration", "2s"}, "-duration applies only with -free"},
		{[]string{"chaos", "-interval", "5ms"}, "-interval applies only with -free"},
		{[]string{"chaos", "-max-delay", "1ms"}, "-max-delay applies only with -free"},
		{[]string{"chaos", "-free=false", "-drop", "0.1"}, "-drop applies only with -free"},
		{[]string{"chaos", "-free", "-events", "10"}, "-free cannot be combined with -events"},
		{[]string{"chaos", "-free", "-log"}, "-free cannot be combined with -log"},
		{[]string{"chaos", "-events", "99999999999"}, "-events 99999999999: must be between 1 and 50000"},
		{[]string{"render", "-policy", "Kip101", tlc}, "-policy selects a scenario's cases"},
		{[]string{"render", "-variant", "Fencing=TRUE", tlc}, "-variant selects a scenario's cases"},
		{[]string{"render", "-cfg", "x.cfg", sc}, "a scenario (" + sc + ") carries its own"},
		{[]string{"scenario", "-table"}, "-table applies only with -all"},
		{[]string{"scenario", "-table", "kip101-scenario-1"}, "-table applies only with -all"},
		{[]string{"scenario", "-all", "-table", "-policy", "Kip101"}, "-table cannot be combined with -policy"},
		{[]string{"scenario", "-all", "-table", "-q"}, "-table cannot be combined with -q"},
		{[]string{"scenario", "-v", "kip101-scenario-1"}, "-v applies only with -all"},
		{[]string{"scenario", "-all", "-q", "-v"}, "-q cannot be combined with -v"},
		{[]string{"check", "-ci", "w-acked"}, `unexpected arguments ["w-acked"]: with -ci`},
	} {
		code, out, errs := runCLI(tc.args...)
		if code != 2 || !strings.Contains(errs, tc.want) || out != "" {
			t.Errorf("hwepoch %s: exit %d, stderr %q, stdout %q; want exit 2 and %q", strings.Join(tc.args, " "), code, errs, out, tc.want)
		}
	}
}

// A named pipe, a device or a directory given as an input file is refused
// at once (exit 2, naming it), never read: a FIFO once hung every reader.
func TestNonRegularInputsAreRefused(t *testing.T) {
	dir := t.TempDir()
	fifo := func(name string) string {
		p := filepath.Join(dir, name)
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Skipf("no FIFO here: %v", err)
		}
		return p
	}
	// check -spec: a directory whose manifest.json, or a .cfg, is a FIFO.
	specFIFO := filepath.Join(dir, "spec-fifo")
	if err := os.Mkdir(specFIFO, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(specFIFO, "manifest.json"), 0o600); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	specCfg := filepath.Join(dir, "spec-cfg")
	if err := os.Mkdir(specCfg, 0o755); err != nil {
		t.Fatal(err)
	}
	man, err := os.ReadFile(filepath.Join("..", "..", "spec", "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(specCfg, "manifest.json"), man, 0o644); err != nil {
		t.Fatal(err)
	}
	cfgs, _ := filepath.Glob(filepath.Join("..", "..", "spec", "*.cfg"))
	for _, c := range cfgs {
		if filepath.Base(c) == "w-acked.cfg" {
			continue
		}
		b, err := os.ReadFile(c)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(specCfg, filepath.Base(c)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(specCfg, "w-acked.cfg"), 0o600); err != nil {
		t.Fatal(err)
	}
	dirJSON := filepath.Join(dir, "dir.json")
	if err := os.Mkdir(dirJSON, 0o755); err != nil {
		t.Fatal(err)
	}
	tlc := filepath.Join("..", "..", "traces", "tlc", "hw-acked-loss.json")
	zero := filepath.Join(dir, "zero.json")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"check", "-spec", specFIFO, "-q", "w-acked"},
		{"check", "-spec", specCfg, "-q", "w-acked"},
		{"check", "-q", "-runs", fifo("runs.json"), "w-acked"},
		{"replay", fifo("trace.json")},
		{"replay", fifo("trace.itf.json")},
		{"replay", dirJSON},
		{"render", dirJSON},
		{"render", fifo("render.json")},
		{"render", fifo("render.tla")},
		{"render", "-cfg", fifo("render.cfg"), tlc},
		{"render", zero},
		{"replay", zero},
		{"scenario", fifo("s.scenario")},
		{"render", fifo("r.scenario")},
		{"chaos", "-replay", fifo("run.sim")},
		{"chaos", "-replay", "/dev/zero"},
		{"chaos", "-replay", dir},
	} {
		code, out, errs := runCLIWithin(t, time.Minute, args...)
		if code != 2 || !strings.Contains(errs, "not a regular file") {
			t.Errorf("hwepoch %s: exit %d (want 2), stderr %q, stdout %q", strings.Join(args, " "), code, errs, out)
		}
	}
}

// failingWriter fails every write, as stdout redirected to /dev/full does.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, syscall.ENOSPC }

// A failed write to stdout is reported and fails the command (exit 1):
// scenario -all > /dev/full and chaos -log > /dev/full once exited 0.
func TestStdoutWriteErrorsAreReported(t *testing.T) {
	outs := map[string]func() (io.Writer, func()){
		"a failing writer": func() (io.Writer, func()) { return failingWriter{}, func() {} },
	}
	if _, err := os.Stat("/dev/full"); err == nil {
		outs["/dev/full"] = func() (io.Writer, func()) {
			f, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			return f, func() { f.Close() }
		}
	}
	for name, open := range outs {
		for _, args := range [][]string{
			{"scenario", "-all"},
			{"scenario", "-all", "-v"},
			{"chaos", "-log", "-seeds", "1", "-events", "20", "-out", t.TempDir()},
			{"help", "notation"},
			{"check", "-h"}, // help goes to stderr: no write to stdout fails
		} {
			w, done := open()
			var errb bytes.Buffer
			code := run(args, w, &errb)
			done()
			wantFail := args[len(args)-1] != "-h"
			if wantFail && (code != 1 || !strings.Contains(errb.String(), "writing the output failed")) {
				t.Errorf("%s: hwepoch %s: exit %d (want 1), stderr %q", name, strings.Join(args, " "), code, errb.String())
			}
			if !wantFail && code != 0 {
				t.Errorf("%s: hwepoch %s: exit %d, stderr %q", name, strings.Join(args, " "), code, errb.String())
			}
		}
	}
}

// check -runs names a file that must exist: a missing one is an error
// naming it (it once only warned and exited 0); so is a missing
// -explorer-runs, unless -record is to start it.
func TestCheckRecordsNamedMustExist(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nonexistent", "runs.json")
	for _, args := range [][]string{
		{"check", "-q", "-runs", missing, "w-acked"},
		{"check", "-q", "-explorer-runs", missing, "w-acked"},
	} {
		code, out, errs := runCLI(args...)
		if code != 2 || !strings.Contains(errs, missing) || out != "" {
			t.Errorf("hwepoch %s: exit %d (want 2), stderr %q, stdout %q", strings.Join(args, " "), code, errs, out)
		}
	}
}
