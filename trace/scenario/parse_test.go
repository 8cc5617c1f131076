package scenario

import (
	"errors"
	"strings"
	"testing"

	"github.com/hwepoch/hwepoch/model"
)

// tiny is a complete, valid scenario; tests edit it.
const tiny = `# A title
# the description
#
# second paragraph
name tiny
config Replicas={r1, r2} Acks="1"
policies HighWatermark LeaderEpoch
check NoAckedLoss NoDivergence
expect HighWatermark holds
expect LeaderEpoch holds

# phase one
Elect(r1)
HandleLeaderAndIsr(r1)
Produce(r1)
[LeaderEpoch] HandleLeaderAndIsr(r2)

final log r1 = 0:0/1
final LeaderEpoch role r2 = Follower
final acked = 0:1
`

func TestParseTiny(t *testing.T) {
	sc, err := Parse("tiny.scenario", []byte(tiny))
	if err != nil {
		t.Fatal(err)
	}
	if sc.Name != "tiny" || sc.Title != "A title" || strings.Join(sc.Description, "|") != "the description||second paragraph" {
		t.Errorf("header: name %q title %q description %q", sc.Name, sc.Title, sc.Description)
	}
	if len(sc.Steps) != 4 || strings.Join(sc.Steps[0].Note, "|") != "phase one" || sc.Steps[1].Note != nil {
		t.Errorf("steps/notes: %+v", sc.Steps)
	}
	cases := sc.Cases()
	if len(cases) != 2 || cases[0].String() != "HighWatermark" || cases[1].String() != "LeaderEpoch" {
		t.Fatalf("cases %v", cases)
	}
	if got := len(sc.Actions(cases[0])); got != 3 {
		t.Errorf("HighWatermark takes %d steps, want 3 (the last is LeaderEpoch only)", got)
	}
	if got := sc.Actions(cases[1]); len(got) != 4 || got[3] != (model.Action{Kind: model.HandleLeaderAndIsr, R: "r2"}) {
		t.Errorf("LeaderEpoch actions %v", got)
	}
	cfg := sc.Config(cases[1])
	// Fencing is LeaderEpoch's release's (2.1 has KIP-320); one Elect
	// step bounds the partition epoch at 1.
	want := model.Config{Replicas: []model.Replica{"r1", "r2"}, Truncation: model.LeaderEpoch, Fencing: true, Acks: "1",
		MinInsyncReplicas: 1, MaxRecords: 1, MaxEpoch: 0, MaxCrashes: 0, MaxPartitionEpoch: 1}
	if cfg.String() != want.String() {
		t.Errorf("config\n got %s\nwant %s", cfg.String(), want.String())
	}
	if hw := sc.Config(cases[0]); hw.Fencing || hw.MinIsrGatesHW {
		t.Errorf("HighWatermark (0.10.2) has neither fencing nor the min.insync HW gate: %s", hw.String())
	}
	if n := sc.Notes(cases[1]); len(n) != 1 || n[1][0] != "phase one" {
		t.Errorf("notes %v", n)
	}
	for _, c := range cases {
		tr, v, err := sc.Verify(c)
		if err != nil {
			t.Errorf("%s: %v", c, err)
		}
		if tr.Len() != len(sc.Actions(c))+1 || !v.Holds || len(v.Violated) != tr.Len() {
			t.Errorf("%s: %d states, verdict %s, %d evaluations", c, tr.Len(), v, len(v.Violated))
		}
	}
}

// A refuse line names an action the model does not enable after the last
// step of the cases it selects: the implementation must refuse it.
func TestRefusal(t *testing.T) {
	src := strings.Replace(tiny, "final log r1", "refuse HighWatermark Produce(r2)\nfinal log r1", 1)
	sc, err := Parse("tiny.scenario", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	hw, le := sc.Cases()[0], sc.Cases()[1]
	if a := sc.RefusalFor(hw); a == nil || *a != (model.Action{Kind: model.Produce, L: "r2"}) {
		t.Errorf("HighWatermark refuses %v, want Produce(r2)", a)
	}
	if a := sc.RefusalFor(le); a != nil {
		t.Errorf("LeaderEpoch refuses %v, want nothing (the line selects HighWatermark)", a)
	}
}

func TestVariantsMakeCases(t *testing.T) {
	src := strings.Replace(tiny, "policies HighWatermark LeaderEpoch", "policies LeaderEpoch\nvariants Fencing=FALSE Fencing=TRUE", 1)
	src = strings.Replace(src, "expect HighWatermark holds\nexpect LeaderEpoch holds", "expect Fencing=FALSE holds\nexpect LeaderEpoch Fencing=TRUE holds", 1)
	src = strings.Replace(src, "[LeaderEpoch] Handle", "[Fencing=TRUE] Handle", 1)
	sc, err := Parse("v.scenario", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	cases := sc.Cases()
	if len(cases) != 2 || cases[1].String() != "LeaderEpoch Fencing=TRUE" || cases[1].Slug() != "LeaderEpoch-Fencing-TRUE" {
		t.Fatalf("cases %v", cases)
	}
	if !sc.Config(cases[1]).Fencing || sc.Config(cases[0]).Fencing {
		t.Errorf("the variant does not set Fencing")
	}
	if len(sc.Actions(cases[0])) != 3 || len(sc.Actions(cases[1])) != 4 {
		t.Errorf("the step selected by the variant is taken in the wrong cases")
	}
	if _, err := sc.FindCase("LeaderEpoch Fencing=TRUE"); err != nil {
		t.Error(err)
	}
	if _, err := sc.FindCase("HighWatermark"); err == nil || !strings.Contains(err.Error(), `"LeaderEpoch Fencing=FALSE"`) {
		t.Errorf("FindCase of a missing case: %v", err)
	}
}

// TestErrorsNameLineAndToken: each broken variant of tiny must fail with an
// *Error naming the line and the offending token, and saying what is wrong.
func TestErrorsNameLineAndToken(t *testing.T) {
	for _, tc := range []struct {
		name, old, new string
		line           int
		token, msg     string
	}{
		{"unknown action", "Produce(r1)", "Produc(r1)", 15, "Produc(r1)", "unknown action Produc"},
		{"arity", "Produce(r1)", "Produce(r1, r2)", 15, "Produce(r1, r2)", "takes 1 argument(s) (l), got 2"},
		{"no args", "Produce(r1)", "Produce", 15, "Produce", "with its arguments"},
		{"keep not a number", "Produce(r1)", "Crash(r1, x)", 15, "Crash(r1, x)", "keep must be a record count"},
		{"not enabled", "Produce(r1)", "Produce(r2)", 15, "Produce(r2)", "Produce(r2) is not enabled; enabled here:"},
		{"unknown replica", "Produce(r1)", "Produce(r9)", 15, "Produce(r9)", "not in Replicas"},
		{"unknown constant", `Acks="1"`, `Akcs="1"`, 6, `Akcs="1"`, "no constant Akcs"},
		{"truncation in config", `Acks="1"`, `Truncation="Kip101"`, 6, `Truncation="Kip101"`, "set per case by the policies line"},
		{"bad value", `Acks="1"`, `Acks=all`, 6, "Acks=all", `quoted string such as "all"`},
		{"bad bool", `Acks="1"`, `Fencing=yes`, 6, "Fencing=yes", "TRUE or FALSE"},
		{"bad replica set", "{r1, r2}", "{r1, 2x}", 6, "Replicas={r1,2x}", "not a model value name"},
		{"set twice", `Acks="1"`, `Acks="1" Acks="all"`, 6, `Acks="all"`, "already set on line 6"},
		{"bad policy", "policies HighWatermark LeaderEpoch", "policies HighWatermark LE", 7, "LE", "not a Truncation policy"},
		{"bad invariant", "check NoAckedLoss", "check NoAckedLos", 8, "NoAckedLos", "unknown invariant"},
		{"bad selector", "[LeaderEpoch] Handle", "[Kip101] Handle", 16, "Kip101", "a selector names a policy"},
		{"unclosed selector", "[LeaderEpoch] Handle", "[LeaderEpoch Handle", 16, "[LeaderEpoch HandleLeaderAndIsr(r2)", "not closed"},
		{"missing expect", "expect LeaderEpoch holds\n", "", 0, "LeaderEpoch", "no expect line covers this case"},
		{"two expects", "expect LeaderEpoch holds", "expect LeaderEpoch holds\nexpect holds", 11, "HighWatermark", "covered by expect lines 9 and 11"},
		{"expect unchecked", "expect LeaderEpoch holds", "expect LeaderEpoch violates NoVisibleLoss", 10, "NoVisibleLoss", "does not evaluate"},
		{"expect syntax", "expect LeaderEpoch holds", "expect LeaderEpoch", 10, "LeaderEpoch", "write: expect"},
		{"header after steps", "final log r1", "check NoDivergence\nfinal log r1", 18, "check", "before the first step"},
		{"step after final", "final acked = 0:1", "final acked = 0:1\nProduce(r1)", 21, "Produce(r1)", "before the final lines"},
		{"final field", "final log r1", "final lg r1", 18, "lg r1", "no field to assert on"},
		{"final replica", "final log r1", "final log r7", 18, "r7", "not a replica"},
		{"final per replica", "final log r1", "final log", 18, "log", "per replica"},
		{"final no space", "final acked = 0:1", "final acked=0:1", 20, "acked=0:1", "spaces around '='"},
		{"bad name", "name tiny", "name tiny one", 5, "tiny one", "a scenario name"},
		{"no name", "name tiny\n", "", 0, "", "no name line"},
		{"dup name", "name tiny", "name tiny\nname tiny", 6, "name", "a second name line"},
		{"garbage", "Produce(r1)", "hello world", 15, "hello world", "not a directive"},
		{"refusal enabled", "final log r1", "refuse Produce(r1)\nfinal log r1", 18, "Produce(r1)", "the model enables this action"},
		{"refusal before the steps", "# phase one", "refuse Produce(r2)\n# phase one", 12, "refuse", "after the steps"},
		{"two refusals", "final log r1", "refuse Produce(r2)\nrefuse LeaderEpoch SendFetch(r1)\nfinal log r1", 19, "LeaderEpoch", "refuse lines 18 and 19"},
		{"refusal syntax", "final log r1", "refuse Produce\nfinal log r1", 18, "Produce", "write: refuse"},
		{"refusal selector", "final log r1", "refuse Kip101 Produce(r2)\nfinal log r1", 18, "Kip101", "a selector names a policy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(tiny, tc.old) {
				t.Fatalf("tiny has no %q", tc.old)
			}
			_, err := Parse("tiny.scenario", []byte(strings.Replace(tiny, tc.old, tc.new, 1)))
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("got %v, want an *Error", err)
			}
			if e.File != "tiny.scenario" || e.Line != tc.line || e.Token != tc.token || !strings.Contains(e.Msg, tc.msg) {
				t.Errorf("got %s\nwant tiny.scenario:%d: %q: ...%s...", err, tc.line, tc.token, tc.msg)
			}
		})
	}
}

// TestFinalsAndVerdictCanFail: a wrong final assertion and a wrong
// expectation are reported by Verify, with the line.
func TestFinalsAndVerdictCanFail(t *testing.T) {
	src := strings.Replace(tiny, "final log r1 = 0:0/1", "final log r1 = 0:0/2", 1)
	src = strings.Replace(src, "expect HighWatermark holds", "expect HighWatermark violates NoDivergence", 1)
	sc, err := Parse("tiny.scenario", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = sc.Verify(sc.Cases()[0])
	if err == nil || !strings.Contains(err.Error(), "tiny.scenario:18: final log r1 = 0:0/2, got 0:0/1") ||
		!strings.Contains(err.Error(), "expected a violation of NoDivergence (line 9), but it holds throughout") {
		t.Errorf("Verify: %v", err)
	}
}

// TestVerdictLocatesViolations: acks=1 and an election of the replica
// without the record violate NoAckedLoss at that step, and only there on.
func TestVerdictLocatesViolations(t *testing.T) {
	src := `name loss
config Acks="1"
policies HighWatermark
check NoDivergence NoAckedLoss
expect violates NoAckedLoss
Elect(r1)
HandleLeaderAndIsr(r1)
Produce(r1)
Crash(r1, 1)
Elect(r2)
`
	sc, err := Parse("loss.scenario", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	_, v, err := sc.Verify(sc.Cases()[0])
	if err != nil {
		t.Fatal(err)
	}
	f := v.First()
	if f == nil || f.Invariant != "NoAckedLoss" || f.Step != 5 || f.Line != 10 || f.Action.String() != "Elect(r2)" {
		t.Errorf("first violation %+v", f)
	}
	if len(v.Violated[4]) != 0 || strings.Join(v.Violated[5], " ") != "NoAckedLoss" {
		t.Errorf("per-state violations %v", v.Violated)
	}
	want := "violates NoAckedLoss at step 5 Elect(r2) (line 10)"
	if v.String() != want {
		t.Errorf("verdict %q, want %q", v, want)
	}
}

func TestSplitAssignments(t *testing.T) {
	got, err := splitAssignments(`Replicas={r1, r2 ,r3}  Acks="all" Fencing=TRUE`)
	if err != nil || strings.Join(got, "|") != `Replicas={r1,r2,r3}|Acks="all"|Fencing=TRUE` {
		t.Errorf("got %q, %v", got, err)
	}
	for _, bad := range []string{`A={r1`, `A=r1}`, `A="x`} {
		if _, err := splitAssignments(bad); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// Fencing and MinIsrGatesHW follow each case's release unless the config
// line sets them; DivergingEpoch is a policy; the new final fields read
// the leader's views, ISR and partition epoch.
func TestReleaseDefaultsAndOverrides(t *testing.T) {
	src := strings.Replace(tiny, "policies HighWatermark LeaderEpoch", "policies HighWatermark DivergingEpoch", 1)
	src = strings.ReplaceAll(src, "LeaderEpoch", "DivergingEpoch")
	src += "final DivergingEpoch isr r1 = r1 r2\nfinal DivergingEpoch followerLeo r1 = -1 -1\nfinal DivergingEpoch partitionEpoch r1 = 0\nfinal ctrlPartitionEpoch = 0\nfinal DivergingEpoch pendingIsr r1 = empty\n"
	sc, err := Parse("de.scenario", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	de := sc.Config(sc.Cases()[1])
	if !de.Fencing || !de.MinIsrGatesHW {
		t.Errorf("DivergingEpoch (3.9) fences and gates the HW on min.insync: %s", de.String())
	}
	for _, c := range sc.Cases() {
		if _, _, err := sc.Verify(c); err != nil {
			t.Errorf("%s: %v", c, err)
		}
	}
	over, err := Parse("over.scenario", []byte(strings.Replace(src, `Acks="1"`, `Acks="1" Fencing=FALSE MinIsrGatesHW=FALSE`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if cfg := over.Config(over.Cases()[1]); cfg.Fencing || cfg.MinIsrGatesHW {
		t.Errorf("the config line's Fencing=FALSE MinIsrGatesHW=FALSE is not applied: %s", cfg.String())
	}
	bad := strings.Replace(src, "final ctrlPartitionEpoch = 0", "final ctrlPartitionEpoch = 1", 1)
	sc, err = Parse("bad.scenario", []byte(bad))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := sc.Verify(sc.Cases()[0]); err == nil || !strings.Contains(err.Error(), "ctrlPartitionEpoch") {
		t.Errorf("a wrong final ctrlPartitionEpoch is not reported: %v", err)
	}
}
