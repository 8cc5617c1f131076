package main

import (
	"strings"
	"testing"
)

func TestVerifyHelpAndUsageErrors(t *testing.T) {
	if code, _, errs := runCLI("verify", "-h"); code != 0 || !strings.Contains(errs, "usage: hwepoch verify") {
		t.Errorf("-h: exit %d, %s", code, errs)
	}
	if code, _, errs := runCLI("verify", "--quick", "--all"); code != 2 || !strings.Contains(errs, "not both") {
		t.Errorf("--quick --all: exit %d, %s", code, errs)
	}
	if code, _, errs := runCLI("verify", "le-fenced-2"); code != 2 || !strings.Contains(errs, "hwepoch check NAME") {
		t.Errorf("an argument: exit %d, %s", code, errs)
	}
}

// verify --quick: the explorer on the ci-marked configurations (the others
// skipped, saying so), TLC's traces and the scenarios on the model, every
// trace on the implementation, a tiny random, free-run and chaos campaign;
// every counterexample numbered above the table.
func TestVerifyQuick(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a chaos campaign")
	}
	code, out, errs := runCLI("verify", "--quick", "-q")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	table := out[strings.Index(out, "\nstage "):]
	for _, want := range []string{
		"explore    hw-acked-loss", "violated NoAckedLoss (trace 13) [1]",
		"skipped (not ci-marked; run without --quick)",
		"tlc-trace  hw-acked-loss.json", "replays, NoAckedLoss at step 12 (the last)",
		"scenario   kip320-stale-leader", "LeaderEpoch Fencing=TRUE",
		"lemma      (all)", "refine     tlc/hw-acked-loss.json", "impl = model at every step",
		"random     refine/random seed 3", "10 traces", "freerun", "every event a step the model takes",
		"chaos", "no loss, no divergence", "verify --quick:", "0 not",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if !strings.HasPrefix(out, "[1] explore hw-acked-loss: invariant NoAckedLoss is violated") || !strings.Contains(out, "    *r2   Follower e1") {
		t.Errorf("the counterexamples should come first, one line per replica per step:\n%.2000s", out)
	}
	if strings.Contains(table, "✗") {
		t.Errorf("a check failed:\n%s", table)
	}
}

// lemmas labels its progress as its own ("hwepoch lemmas:", not "hwepoch
// verify: [lemma]") and ends each plan with a line saying it is done, so
// the last count is not mistaken for the result while the search goes on.
func TestLemmasProgressIsLabelled(t *testing.T) {
	code, out, errs := runCLI("lemmas", "hw-acked-loss")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	for _, line := range strings.Split(strings.TrimSpace(errs), "\n") {
		if !strings.HasPrefix(line, "hwepoch lemmas: ") || strings.Contains(line, "verify") {
			t.Errorf("progress line %q is not labelled hwepoch lemmas", line)
		}
		if strings.Contains(line, "distinct states") && !strings.Contains(line, "so far") && !strings.Contains(line, " done: ") {
			t.Errorf("progress line %q reads like a result", line)
		}
	}
	if !strings.Contains(errs, "hwepoch lemmas: hw-acked-loss done: ") {
		t.Errorf("no line saying the plan is done:\n%s", errs)
	}
}
