package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Out-of-range chaos flags are usage errors (exit 2) that name the flag,
// never a panic or a run.
func TestChaosFlagsAreRangeChecked(t *testing.T) {
	for _, args := range [][]string{
		{"-interval", "0"}, {"-interval", "-5ms"}, {"-duration", "0"},
		{"-seeds", "0"}, {"-seeds", "-1"}, {"-brokers", "0"}, {"-brokers", "10"},
		{"-drop", "2"}, {"-drop", "-0.1"}, {"-delay", "NaN"}, {"-min-insync", "4"}, {"-min-insync", "0"},
		{"-events", "0"}, {"-parallel", "0"}, {"-expect", "maybe"}, {"-policy", "Nope"}, {"-acks", "2"},
		{"-set", "replica.lag.time.max.ms=x"}, {"-out", ""},
	} {
		code, out, errs := runCLI(append([]string{"chaos"}, args...)...)
		flagName := strings.TrimPrefix(args[0], "-")
		if code != 2 || !strings.Contains(errs, flagName) || strings.Contains(out, "seeds") {
			t.Errorf("chaos %v: exit %d (want 2), stderr %q, stdout %q", args, code, errs, out)
		}
	}
}

// A HighWatermark campaign catches losses; each failing seed is written
// as a run that -replay reproduces exactly (same event-log hash, same
// verdict) with exit 1, and as a shrunk trace that replays on the model and
// the implementation and is drawn as SVG.
func TestChaosHighWatermarkFailuresReplay(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := runCLI("chaos", "-seeds", "12", "-policy", "HighWatermark", "-live", "0", "-out", dir) // the loss path alone: no liveness tail
	if code != 0 || !strings.Contains(out, "with loss or divergence") {
		t.Fatalf("exit %d (want 0: expect violated)\n%s\n%s", code, out, errs)
	}
	runs, _ := filepath.Glob(filepath.Join(dir, "*.sim"))
	if len(runs) == 0 {
		t.Fatalf("no failing seed written:\n%s", out)
	}
	if !strings.Contains(out, "replays on the model and the implementation") {
		t.Errorf("no shrunk trace replayed:\n%s", out)
	}
	for _, run := range runs {
		code, rout, rerrs := runCLI("chaos", "-replay", run)
		if code != 1 || !strings.Contains(rout, "reproduced exactly") || !strings.Contains(rout, "acknowledged records lost") && !strings.Contains(rout, "divergent") {
			t.Errorf("%s: exit %d (want 1)\n%s\n%s", run, code, rout, rerrs)
		}
		base := strings.TrimSuffix(run, ".sim")
		for _, ext := range []string{".itf.json", ".svg", ".html"} {
			if fi, err := os.Stat(base + ext); err != nil || fi.Size() == 0 {
				t.Errorf("%s%s: %v", base, ext, err)
			}
		}
		if code, rout, _ := runCLI("replay", base+".itf.json"); code != 0 {
			t.Errorf("hwepoch replay %s.itf.json: exit %d\n%s", base, code, rout)
		}
	}
	// A run whose recorded hash is not what its seed gives is not
	// reproduced: exit 1, saying so.
	b, err := os.ReadFile(runs[0])
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "# hash ") {
			lines[i] = "# hash " + strings.Repeat("0", 64)
		}
	}
	tampered := filepath.Join(dir, "tampered.sim")
	if err := os.WriteFile(tampered, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, rout, _ := runCLI("chaos", "-replay", tampered); code != 1 || !strings.Contains(rout, "NOT reproduced") {
		t.Errorf("a tampered hash: exit %d (want 1)\n%s", code, rout)
	}
}

// A LeaderEpoch campaign holds (exit 0).
func TestChaosLeaderEpochHolds(t *testing.T) {
	code, out, errs := runCLI("chaos", "-seeds", "10", "-out", t.TempDir())
	if code != 0 || !strings.Contains(oneLineStatus(out), "10 simulated seeds, 0 with loss or divergence, 0 stalled after 150ms fault-free") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
}

// A stalled seed (the liveness check, with a seeded bug that stops a
// follower's fetcher after a lost request) fails the campaign, is counted
// apart, written and shrunk; the shrunk run replays, stalling again.
func TestChaosStallIsReportedShrunkAndReplayed(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := runCLI("chaos", "-seeds", "1", "-mutant", "fetcher-stops-after-loss", "-out", dir)
	flat := oneLineStatus(out)
	if code != 1 || !strings.Contains(flat, "stalled: ReplicasCatchUp") || !strings.Contains(flat, "0 with loss or divergence, 1 stalled after 150ms") {
		t.Fatalf("exit %d (want 1)\n%s\n%s", code, out, errs)
	}
	shrunk := filepath.Join(dir, "seed-1-LeaderEpoch.shrunk.sim")
	for _, f := range []string{filepath.Join(dir, "seed-1-LeaderEpoch.sim"), shrunk} {
		if _, err := os.Stat(f); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
	}
	code, rout, rerr := runCLI("chaos", "-replay", shrunk)
	if code != 1 || !strings.Contains(rout, "reproduced exactly") || !strings.Contains(oneLineStatus(rout), "status: stalled: ReplicasCatchUp") {
		t.Fatalf("replaying the shrunk run: exit %d (want 1)\n%s\n%s", code, rout, rerr)
	}
}

// The liveness flags refuse bad values (exit 2), never panic.
func TestChaosLivenessFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-live", "-1s"}, {"-live", "11s"}, {"-live", "banana"},
		{"-mutant", "no-such-bug"}, {"-free", "-live", "1s"}, {"-free", "-mutant", "truncation-loop-stuck"},
	} {
		code, out, errs := runCLI(append([]string{"chaos", "-seeds", "1", "-out", t.TempDir()}, args...)...)
		if code != 2 {
			t.Errorf("chaos %v: exit %d (want 2)\n%s\n%s", args, code, out, errs)
		}
	}
}

// A file that cannot be replayed is refused with the reason (exit 2): an
// unknown step, a step the model does not take, a tampered hash.
func TestChaosReplayRefusesWhatItCannotReplay(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct{ body, want string }{
		{"# set brokers=2\nFrobnicate(1)\n", "unknown action"},
		{"# set brokers=2\nProduce(1)\n", "the model does not take"},
		{"# set brokers=2\n# seed 3\n# events 10\nElect(1)\n", "hash"},
		{"# set brokers=x\nElect(1)\n", "brokers"},
		{"", "no steps"},
	} {
		code, _, errs := runCLI("chaos", "-replay", write("f", c.body))
		if code != 2 || !strings.Contains(errs, "cannot replay") || !strings.Contains(errs, c.want) {
			t.Errorf("%q: exit %d (want 2), stderr %q (want %q)", c.body, code, errs, c.want)
		}
	}
	if code, _, errs := runCLI("chaos", "-replay", filepath.Join(dir, "missing")); code != 2 || errs == "" {
		t.Errorf("missing file: exit %d, %q", code, errs)
	}
}

// -shrink N shrinks only the first N seeds that lose or diverge; the
// others' runs are still written, and the verdict is the same.
func TestChaosShrinkLimit(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := runCLI("chaos", "-seeds", "40", "-policy", "HighWatermark", "-shrink", "1", "-live", "0", "-out", dir) // no liveness tail: its cost is not the point
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	sims, _ := filepath.Glob(filepath.Join(dir, "*.sim"))
	shrunk, _ := filepath.Glob(filepath.Join(dir, "*.itf.json"))
	if len(sims) < 2 || len(shrunk) != 1 || strings.Count(out, "not shrunk (-shrink)") != len(sims)-1 {
		t.Errorf("%d runs written, %d shrunk, want every run and one shrunk:\n%s", len(sims), len(shrunk), out)
	}
	if code, _, errs := runCLI("chaos", "-shrink", "-2"); code != 2 || !strings.Contains(errs, "-shrink") {
		t.Errorf("-shrink -2: exit %d, %s", code, errs)
	}
}
