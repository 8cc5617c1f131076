package main

import (
	"bytes"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hwepoch/hwepoch/internal/verify"
	"github.com/hwepoch/hwepoch/trace"
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

// verify --quick, as the README tells a newcomer to run it: the explorer
// on the configurations the manifest marks "ci" (the others skipped, saying
// so), TLC's traces and the scenarios on the model, every trace on the
// implementation, a tiny random, free-run and chaos campaign. When all is
// as expected its whole output, progress included, fits one screen: at
// most 120 columns and about 60 lines, each expected counterexample one
// line naming the command that prints it in full.
func TestVerifyQuick(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a chaos campaign")
	}
	var rows []verify.Row
	var took map[string]time.Duration
	var mode verify.Mode
	verified = func(r []verify.Row, tk map[string]time.Duration, m verify.Mode) { rows, took, mode = r, tk, m }
	defer func() { verified = nil }()
	code, out, errs := runCLI("verify", "--quick")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{
		"stage  checks  as expected  not  skipped", "explore      60           41    0       19",
		"hwepoch check NAME: [1]hw-acked-loss [2]hw-divergence",
		"hwepoch scenario NAME -policy POLICY [-variant V], as NAME/POLICY[/V]:", "kip101-scenario-1/HighWatermark",
		"kip320-zombie-follower/LeaderEpoch/Fencing=FALSE",
		`explore kip101-divergence le-fenced-2`, `not in --quick's set:`, `manifest "ci": false`,
		"tlc-trace", "refine", "random", "freerun", "chaos", "verify --quick:", " 0 not",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	all := strings.Split(strings.TrimRight(errs+out, "\n"), "\n")
	for _, l := range all {
		if n := len([]rune(l)); n > 120 {
			t.Errorf("a line of %d columns, want at most 120: %s", n, l)
		}
	}
	if len(all) > 62 {
		t.Errorf("%d lines when everything is as expected, want about 60 at most:\n%s%s", len(all), errs, out)
	}
	if strings.Contains(out, "✗") || strings.Contains(out, "*r2   Follower") {
		t.Errorf("no check failed, so no trace is printed in full:\n%s", out)
	}
	// -v lists every check and -traces prints every counterexample in full,
	// one line per replica per step: the same checks' rows, written as
	// verify --quick -v -traces writes them (running every check again took
	// as long as the first run).
	var b bytes.Buffer
	writeVerifyReport(&b, rows, took, mode, true, true)
	out = b.String()
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "✗ ") {
			// Say which checks failed, so that a failure seen only under CI's
			// load can be told apart (the free-mode chaos row depends on timing).
			t.Errorf("-v -traces: %s", l)
		}
	}
	for _, want := range []string{"✓ explore hw-acked-loss · HighWatermark · 64820 states", "expected: violated NoAckedLoss (TLC's counterexample: 16 states)",
		"[1] explore hw-acked-loss: invariant NoAckedLoss is violated", "    *r2   Follower e1"} {
		if !strings.Contains(out, want) {
			t.Errorf("-v -traces: output lacks %q", want)
		}
	}
	checkVerifyHTML(t, rows)
}

// checkVerifyHTML: verify -html DIR writes an index with one row per check
// and a page per counterexample, witness and failure, each linked and
// there (the same rows, written as -html writes them after the report).
func checkVerifyHTML(t *testing.T, rows []verify.Row) {
	dir := t.TempDir()
	if err := writeVerifyHTML(dir, filepath.Join("..", "..", "traces", "tlc"), rows); err != nil {
		t.Fatal(err)
	}
	index, err := os.ReadFile(filepath.Join(dir, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(index), "<tr class="); n != len(rows) {
		t.Errorf("index.html has %d check rows, verify %d", n, len(rows))
	}
	hrefs := regexp.MustCompile(`<a href="([^"]+)">`).FindAllStringSubmatch(string(index), -1)
	cx := 0
	for _, r := range rows {
		if r.Counterexample != nil {
			cx++
		}
	}
	if len(hrefs) < cx {
		t.Errorf("%d pages linked for %d counterexamples", len(hrefs), cx)
	}
	witness := false
	for _, h := range hrefs {
		b, err := os.ReadFile(filepath.Join(dir, html.UnescapeString(h[1])))
		if err != nil {
			t.Errorf("index.html links %s: %v", h[1], err)
			continue
		}
		if strings.HasPrefix(h[1], "tlc-w-") && strings.Contains(string(b), `id="trace-data"`) {
			witness = true
		}
	}
	if !witness {
		t.Error("no page of a TLC witness (traces/tlc/w-*.json)")
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

// The legend of the dense trace notation is in hwepoch help and, verbatim,
// in docs/spec.md; help for a topic that does not exist fails.
func TestNotationIsDocumented(t *testing.T) {
	code, out, _ := runCLI("help", "notation")
	if code != 0 || !strings.Contains(out, trace.Notation) {
		t.Fatalf("help notation: exit %d\n%s", code, out)
	}
	for _, term := range []string{"views[", "slot", "ce=", "queue 1 (head e2 leader r2)", "*", "ckpt", "next=", "lfe=", "divergingEpoch=", "FetchRead", "pending{", "alter ", "since e0", "pe3"} {
		if !strings.Contains(trace.Notation, term) {
			t.Errorf("the legend does not explain %q", term)
		}
	}
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "spec.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), trace.Notation) {
		t.Error("docs/spec.md does not quote trace.Notation verbatim (section Reading a trace)")
	}
	if code, _, _ := runCLI("help"); code != 0 {
		t.Errorf("help: exit %d", code)
	}
	if code, _, errs := runCLI("help", "notations"); code != 2 || !strings.Contains(errs, "unknown command") {
		t.Errorf("help notations: exit %d %s", code, errs)
	}
}
