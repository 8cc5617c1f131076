package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestScenarioVerdicts(t *testing.T) {
	code, out, errs := runCLI("scenario", "-q", "kip101-scenario-1", "kip320-stale-leader")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{
		"kip101-scenario-1 HighWatermark: violates NoAckedLoss at step 26 Elect(r1)",
		"kip101-scenario-1 LeaderEpoch: holds -- as expected",
		"kip101-scenario-1 DivergingEpoch: holds -- as expected",
		"kip320-stale-leader LeaderEpoch Fencing=FALSE: violates CommittedPrefixesAgree",
		"kip320-stale-leader LeaderEpoch Fencing=TRUE: holds -- as expected",
		"all 6 cases as expected",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestScenarioTraceMarkdownAndSVG(t *testing.T) {
	code, out, _ := runCLI("scenario", "-policy", "LeaderEpoch", "kip101-scenario-1")
	if code != 0 || !strings.Contains(out, "HandleOffsetsForLeaderEpoch(l=r2, f=r1)") || strings.Contains(out, "HighWatermark:") {
		t.Errorf("dense trace of one policy: exit %d\n%s", code, out)
	}
	code, out, _ = runCLI("scenario", "-md", "-policy", "HighWatermark", "seeds-acks1-loss")
	if code != 0 || !strings.Contains(out, "| step | action | r1 | r2 | controller | violated |") ||
		!strings.Contains(out, "✗ **NoAckedLoss**: leader r2 lacks acked m3@2") {
		t.Errorf("-md: exit %d\n%s", code, out)
	}
	svg := filepath.Join(t.TempDir(), "x.svg")
	code, _, errs := runCLI("scenario", "-q", "-svg", svg, "-variant", "Fencing=TRUE", "kip320-stale-leader")
	b, err := os.ReadFile(svg)
	if code != 0 || err != nil || !strings.HasPrefix(string(b), "<svg ") || !strings.Contains(string(b), "kip320-stale-leader · LeaderEpoch Fencing=TRUE") {
		t.Errorf("-svg: exit %d, %v, %s", code, err, errs)
	}
}

func TestScenarioErrorsSayWhatToDo(t *testing.T) {
	if code, _, errs := runCLI("scenario", "-h"); code != 0 || !strings.Contains(errs, "usage: hwepoch scenario") {
		t.Errorf("-h: exit %d %s", code, errs)
	}
	code, _, errs := runCLI("scenario", "no-such")
	if code != 2 || !strings.Contains(errs, `no scenario "no-such"`) || !strings.Contains(errs, "kip279-fast-leader-changes") {
		t.Errorf("unknown scenario: exit %d %s", code, errs)
	}
	if code, _, errs := runCLI("scenario"); code != 2 || !strings.Contains(errs, "name a scenario, or give -all") {
		t.Errorf("no name: exit %d %s", code, errs)
	}
	code, _, errs = runCLI("scenario", "-svg", "x.svg", "kip101-scenario-1")
	if code != 2 || !strings.Contains(errs, "choose one with -policy") {
		t.Errorf("-svg with two cases: exit %d %s", code, errs)
	}
	if code, _, errs := runCLI("scenario", "-policy", "Kip101", "seeds-acks1-loss"); code != 2 || !strings.Contains(errs, `"LeaderEpoch"`) {
		t.Errorf("no matching case: exit %d %s", code, errs)
	}
}

// TestScenarioUnexpectedVerdictFails: a scenario whose expectation is
// wrong makes the command exit 1 and say why.
func TestScenarioUnexpectedVerdictFails(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "traces", "scenarios", "kip101-scenario-1.scenario"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bad := strings.Replace(string(src), "expect Kip101 LeaderEpoch DivergingEpoch holds",
		"expect Kip101 DivergingEpoch holds\nexpect LeaderEpoch violates NoAckedLoss", 1)
	if bad == string(src) {
		t.Fatal("kip101-scenario-1 no longer has the expect line this test edits")
	}
	if err := os.WriteFile(filepath.Join(dir, "kip101-scenario-1.scenario"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := runCLI("scenario", "-q", "-dir", dir, "-all")
	if code != 1 || !strings.Contains(out, "UNEXPECTED: case LeaderEpoch: expected a violation of NoAckedLoss") {
		t.Errorf("exit %d\n%s", code, out)
	}
}

func TestRenderTLCAndScenario(t *testing.T) {
	tlc := filepath.Join("..", "..", "trace", "tlcjson", "testdata", "hw-acked-loss.json")
	cfg := filepath.Join("..", "..", "spec", "hw-acked-loss.cfg")
	code, out, errs := runCLI("render", "-md", "-cfg", cfg, tlc)
	if code != 0 || !strings.Contains(out, "### hw-acked-loss.json") || !strings.Contains(out, "**NoAckedLoss**") {
		t.Errorf("TLC JSON: exit %d\n%s\n%s", code, out, errs)
	}
	svg := filepath.Join(t.TempDir(), "s.svg")
	code, _, errs = runCLI("render", "-svg", svg, "-policy", "Kip101", filepath.Join("..", "..", "traces", "scenarios", "kip279-fast-leader-changes.scenario"))
	if b, err := os.ReadFile(svg); code != 0 || err != nil || !strings.Contains(string(b), "NoDivergence") {
		t.Errorf("scenario: exit %d, %v, %s", code, err, errs)
	}
}

func TestRenderErrorsSayWhatToDo(t *testing.T) {
	if code, _, errs := runCLI("render", "-h"); code != 0 || !strings.Contains(errs, "usage: hwepoch render") {
		t.Errorf("-h: exit %d %s", code, errs)
	}
	if code, _, errs := runCLI("render"); code != 2 || !strings.Contains(errs, "give exactly one FILE") {
		t.Errorf("no file: exit %d %s", code, errs)
	}
	if code, _, errs := runCLI("render", "notes.txt"); code != 2 || !strings.Contains(errs, "want a TLC trace (.json or .tla)") {
		t.Errorf("unknown kind: exit %d %s", code, errs)
	}
	tlc := filepath.Join("..", "..", "trace", "tlcjson", "testdata", "hw-acked-loss.json")
	if code, _, errs := runCLI("render", "-cfg", filepath.Join(t.TempDir(), "nope.cfg"), tlc); code != 2 || !strings.Contains(errs, "the configuration given for") || !strings.Contains(errs, "nope.cfg") {
		t.Errorf("missing cfg: exit %d %s", code, errs)
	}
	// A regression carries its constants; a -cfg that contradicts them is refused.
	reg := filepath.Join("..", "..", "traces", "regressions", "nextid-after-leader-change-Kip101.itf.json")
	if code, out, errs := runCLI("render", reg); code != 0 || !strings.Contains(out, "Init") {
		t.Errorf("regression: exit %d %s", code, errs)
	}
	le := filepath.Join("..", "..", "spec", "le-fenced-2.cfg")
	if code, _, errs := runCLI("render", reg, "-cfg", le); code != 2 || !strings.Contains(errs, "carries its own constants, which differ") {
		t.Errorf("conflicting -cfg: exit %d %s", code, errs)
	}
	// A trace outside the repository needs -cfg, and says so.
	outside := copyOutside(t, tlc)
	if code, _, errs := runCLI("render", outside); code != 2 || !strings.Contains(errs, "-cfg FILE.cfg") {
		t.Errorf("outside the repository: exit %d %s", code, errs)
	}
}

// replay: a missing file is an input error (exit 2), a trace from outside
// the repository replays with -cfg (given after the file), and flags may
// follow positional arguments everywhere the docs write them so.
func TestReplayAndScenarioArguments(t *testing.T) {
	if code, _, errs := runCLI("replay", "nosuch.json"); code != 2 || !strings.Contains(errs, "no such file") {
		t.Errorf("missing file: exit %d %s", code, errs)
	}
	tlc := filepath.Join("..", "..", "trace", "tlcjson", "testdata", "hw-acked-loss.json")
	outside := copyOutside(t, tlc)
	if code, out, errs := runCLI("replay", outside, "-cfg", filepath.Join("..", "..", "spec", "hw-acked-loss.cfg")); code != 0 || !strings.Contains(out, "1 of 1 traces replayed") {
		t.Errorf("-cfg after the file: exit %d %s %s", code, out, errs)
	}
	// A -cfg that contradicts the configuration the repository records
	// for a trace is refused: the trace would be judged under other rules.
	wacked := filepath.Join("..", "..", "traces", "tlc", "w-acked.json")
	if code, _, errs := runCLI("replay", "-cfg", filepath.Join("..", "..", "spec", "le-unfenced-2.cfg"), wacked); code != 2 || !strings.Contains(errs, "whose constants differ from those given") {
		t.Errorf("contradicting -cfg: exit %d %s", code, errs)
	}
	if code, out, errs := runCLI("replay", "-cfg", filepath.Join("..", "..", "spec", "w-acked.cfg"), wacked); code != 0 || !strings.Contains(out, "1 of 1 traces replayed") {
		t.Errorf("agreeing -cfg: exit %d %s %s", code, out, errs)
	}
	if code, out, errs := runCLI("scenario", "kip101-scenario-1", "--policy", "HighWatermark"); code != 0 || !strings.Contains(out, "all 1 cases as expected") {
		t.Errorf("scenario NAME --policy P: exit %d %s %s", code, out, errs)
	}
}

// copyOutside copies a trace to a directory outside the repository, where
// no spec/ names its configuration.
func copyOutside(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), filepath.Base(path))
	if err := os.WriteFile(out, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// render draws only behaviours of the spec under the configuration given,
// as replay demands: a -cfg the trace contradicts, or a state with a
// negative HW, is refused, not drawn.
func TestRenderRefusesATraceItsConfigurationContradicts(t *testing.T) {
	tlc := copyOutside(t, filepath.Join("..", "..", "trace", "tlcjson", "testdata", "hw-acked-loss.json"))
	spec := filepath.Join("..", "..", "spec")
	if code, out, errs := runCLI("render", "-cfg", filepath.Join(spec, "hw-acked-loss.cfg"), tlc); code != 0 || !strings.Contains(out, "Init") {
		t.Fatalf("the right -cfg: exit %d %s %s", code, out, errs)
	}
	for _, other := range []string{"le-fenced-2.cfg", "le-unclean-loss.cfg"} {
		code, out, errs := runCLI("render", "-cfg", filepath.Join(spec, other), tlc)
		if code != 2 || !strings.Contains(errs, "is not a behaviour of the spec under") || !strings.Contains(errs, other) || out != "" {
			t.Errorf("-cfg %s contradicting the trace: exit %d\n%s\n%s", other, code, out, errs)
		}
		if code, _, errs := runCLI("replay", "-cfg", filepath.Join(spec, other), tlc); code == 0 {
			t.Errorf("replay accepts what render must refuse: %s", errs)
		}
	}
	b, err := os.ReadFile(tlc)
	if err != nil {
		t.Fatal(err)
	}
	neg := filepath.Join(t.TempDir(), "neg.json")
	if err := os.WriteFile(neg, []byte(strings.Replace(string(b), `"hw":{"r1":0,"r2":0}`, `"hw":{"r1":-1,"r2":0}`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := runCLI("render", "-cfg", filepath.Join(spec, "hw-acked-loss.cfg"), neg); code != 2 || out != "" {
		t.Errorf("a negative HW: exit %d\n%s\n%s", code, out, errs)
	}
}

// Outside the repository, advice names only flags the verb has (verify,
// lemmas and scenario have no -spec), a scenario file given by its path
// runs without -dir, and render -svg says what it wrote.
func TestAdviceOutsideTheRepository(t *testing.T) {
	sc := copyOutside(t, filepath.Join("..", "..", "traces", "scenarios", "kip101-scenario-1.scenario"))
	svg := filepath.Join(t.TempDir(), "t.svg")
	here, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	if code, out, errs := runCLI("scenario", "-q", sc); code != 0 || !strings.Contains(out, "as expected") {
		t.Errorf("scenario FILE outside the repository: exit %d\n%s\n%s", code, out, errs)
	}
	for _, verb := range []string{"verify", "lemmas", "scenario", "check"} {
		code, _, errs := runCLI(verb, "-q", "kip101-scenario-1")
		if verb == "verify" || verb == "lemmas" {
			code, _, errs = runCLI(verb, "-q")
		}
		if code != 2 || !strings.Contains(errs, "no spec/manifest.json") {
			t.Errorf("%s outside the repository: exit %d %s", verb, code, errs)
		}
		if has := strings.Contains(errs, "-spec"); has != (verb == "check") {
			t.Errorf("%s: advice about -spec %v, the verb has -spec %v: %s", verb, has, verb == "check", errs)
		}
	}
	trace := filepath.Join(here, "..", "..", "traces", "tlc", "hw-acked-loss.json")
	if code, out, errs := runCLI("render", "-svg", svg, "-cfg", filepath.Join(here, "..", "..", "spec", "hw-acked-loss.cfg"), trace); code != 0 ||
		!strings.Contains(out, "wrote "+svg) {
		t.Errorf("render -svg: exit %d, stdout %q, %s", code, out, errs)
	}
}

// A long scenario reports its progress on stderr as it is checked and
// run (it once ran silently), and its verdict still comes out.
func TestScenarioProgressOnLongCases(t *testing.T) {
	src := "name rounds\nconfig Replicas={r1,r2} Acks=\"1\"\npolicies LeaderEpoch\ncheck TypeOK\nexpect LeaderEpoch holds\n" +
		"Elect(r1)\nHandleLeaderAndIsr(r1)\nHandleLeaderAndIsr(r2)\nSendOffsetsForLeaderEpoch(r2)\nHandleOffsetsForLeaderEpoch(r1, r2)\nHandleOffsetsForLeaderEpochResponse(r2)\n" + strings.Repeat("SendFetch(r2)\nHandleFetch(r1, r2)\nUpdateFollowerFetchState(r1, r2)\nHandleFetchResponse(r2)\n", 2550)
	path := filepath.Join(t.TempDir(), "rounds.scenario")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI("scenario", "-q", path)
	for _, want := range []string{"hwepoch scenario: checking rounds LeaderEpoch: step 10000 of 10206", "hwepoch scenario: running rounds LeaderEpoch: step 10206 of 10206"} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	if code != 0 || !strings.Contains(out, "rounds LeaderEpoch: holds -- as expected") {
		t.Errorf("exit %d\n%s", code, out)
	}
}
