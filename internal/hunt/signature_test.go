package hunt

import (
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/trace"
	"github.com/hwepoch/hwepoch/trace/scenario"
)

// A story is a hand-written behaviour of one bug: a case of a named
// scenario, or (KAFKA-7128, which has no scenario that breaks an
// invariant) a list of actions under the bug's own configuration.
type story struct {
	bug             string
	file            string // traces/scenarios/FILE.scenario
	policy, variant string
	actions         string // instead of a scenario: Kind(args) separated by ';'
	cfg             model.Config
	tr              trace.Trace
}

// kafka7128Actions: r3 is shrunk out of the ISR and lags; r1 writes m1,
// r2 fetches it twice, so r1's HW passes it and it is acknowledged, while
// r2's HW stays 0. r2 is elected (epoch 1): its epoch starts at its LEO, 1,
// but its HW is 0. r3 reconciles and fetches from 0: r2's view of it, 0,
// is at the HW but below the epoch start, and 0.11.0.3 adds it to the ISR
// anyway. r3, in the ISR without m1, is elected: the acknowledged m1 is
// gone (NoAckedLoss). From 2.1 ExpandIsr is refused here.
const kafka7128Actions = "Elect(r1); HandleLeaderAndIsr(r1); HandleLeaderAndIsr(r2); HandleLeaderAndIsr(r3);" +
	"SendOffsetsForLeaderEpoch(r2); HandleOffsetsForLeaderEpoch(r1,r2); HandleOffsetsForLeaderEpochResponse(r2);" +
	"ShrinkIsr(r1,r3); Produce(r1);" +
	"SendFetch(r2); HandleFetch(r1,r2); UpdateFollowerFetchState(r1,r2); HandleFetchResponse(r2);" +
	"SendFetch(r2); HandleFetch(r1,r2); UpdateFollowerFetchState(r1,r2);" +
	"Elect(r2); HandleLeaderAndIsr(r2); HandleLeaderAndIsr(r3);" +
	"SendOffsetsForLeaderEpoch(r3); HandleOffsetsForLeaderEpoch(r2,r3); HandleOffsetsForLeaderEpochResponse(r3);" +
	"SendFetch(r3); HandleFetch(r2,r3); UpdateFollowerFetchState(r2,r3); ExpandIsr(r2,r3); Elect(r3)"

func stories(t *testing.T) []story {
	t.Helper()
	ss := []story{
		{bug: "kip101-1", file: "kip101-scenario-1", policy: model.HighWatermark},
		{bug: "kip101-2", file: "kip101-scenario-2", policy: model.HighWatermark},
		{bug: "kip279", file: "kip279-fast-leader-changes", policy: model.Kip101},
		{bug: "kip320", file: "kip320-zombie-follower", policy: model.LeaderEpoch, variant: "Fencing=FALSE"},
		{bug: "kafka-7128", actions: kafka7128Actions},
	}
	for i := range ss {
		s := &ss[i]
		if s.actions != "" {
			b := mustBug(t, s.bug)
			s.cfg, s.tr = b.Config, applyActions(t, &b.Config, s.actions)
			continue
		}
		sc, err := scenario.Load(filepath.Join(repoDir(t), "traces", "scenarios", s.file+scenario.Ext))
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, c := range sc.Cases() {
			if c.Policy != s.policy || c.Variant.String() != s.variant {
				continue
			}
			tr, _, err := sc.Run(c)
			if err != nil {
				t.Fatal(err)
			}
			s.cfg, s.tr, found = sc.Config(c), tr, true
		}
		if !found {
			t.Fatalf("%s has no case %s %s", s.file, s.policy, s.variant)
		}
	}
	return ss
}

func repoDir(t *testing.T) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("no caller")
	}
	return filepath.Join(filepath.Dir(file), "..", "..")
}

func mustBug(t *testing.T, name string) Bug {
	t.Helper()
	bs, err := Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return bs[0]
}

// parseAction reads "Kind(a,b)".
func parseAction(t *testing.T, text string) model.Action {
	t.Helper()
	text = strings.TrimSpace(text)
	name, rest, _ := strings.Cut(text, "(")
	k, err := model.ParseActionKind(name)
	if err != nil {
		t.Fatal(err)
	}
	args := strings.Split(strings.TrimSuffix(rest, ")"), ",")
	if len(args) != len(k.Params()) {
		t.Fatalf("%s: want %d arguments", text, len(k.Params()))
	}
	a := model.Action{Kind: k}
	for i, p := range k.Params() {
		r := model.Replica(strings.TrimSpace(args[i]))
		switch p {
		case "r":
			a.R = r
		case "l":
			a.L = r
		case "f":
			a.F = r
		default:
			t.Fatalf("%s: parameter %s is not supported here", text, p)
		}
	}
	return a
}

// applyActions runs "Kind(a,b); ..." from Init on the model.
func applyActions(t *testing.T, cfg *model.Config, script string) trace.Trace {
	t.Helper()
	s := model.Init(cfg)
	tr := trace.Trace{Source: "hand-written", Steps: []trace.Step{{State: s}}}
	for _, text := range strings.Split(script, ";") {
		a := parseAction(t, text)
		next, err := model.Apply(cfg, s, a)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		s = next
		tr.Steps = append(tr.Steps, trace.Step{Action: a, State: s})
	}
	return tr
}

// Each bug's story breaks the bug's invariant and carries its signature.
func TestSignatureAcceptsItsStory(t *testing.T) {
	for _, s := range stories(t) {
		b := mustBug(t, s.bug)
		if _, bad := violated(&s.cfg, s.tr, b.Invariant); !bad {
			t.Errorf("%s: the story's last state does not violate %s", s.bug, b.Invariant)
			continue
		}
		if !b.Signature(&s.cfg, s.tr, b.Invariant) {
			t.Errorf("%s: the signature rejects the bug's own story", s.bug)
		}
	}
}

// The signatures bite: where another bug's story also breaks this bug's
// invariant, this bug's signature rejects it; and a story cut before its
// mechanism (or its violation) is rejected by its own signature. Without
// this, a signature that accepted every violation would pass the test
// above.
func TestSignatureRejectsOtherStories(t *testing.T) {
	ss := stories(t)
	cross := 0
	for _, s := range ss {
		for _, b := range Bugs {
			if b.Name == s.bug {
				continue
			}
			if _, bad := violated(&s.cfg, s.tr, b.Invariant); !bad {
				continue
			}
			cross++
			if b.Signature(&s.cfg, s.tr, b.Invariant) {
				t.Errorf("%s's signature accepts the story of %s", b.Name, s.bug)
			}
		}
	}
	// kip101-2's story also loses an acked record (a crash, not a
	// truncation), kip101-1's and the zombie's break NoAckedLoss or
	// NoDivergence too: the matrix is not empty.
	if cross == 0 {
		t.Fatal("no story breaks another bug's invariant: the cross check checked nothing")
	}
	for _, s := range ss {
		b := mustBug(t, s.bug)
		cut := s.tr
		cut.Steps = cut.Steps[:len(cut.Steps)-1]
		for len(cut.Steps) > 1 {
			if _, bad := violated(&s.cfg, cut, b.Invariant); !bad {
				break
			}
			cut.Steps = cut.Steps[:len(cut.Steps)-1]
		}
		if b.Signature(&s.cfg, cut, b.Invariant) {
			t.Errorf("%s: the signature accepts the story cut before its violation", s.bug)
		}
	}
}

// KAFKA-7128's story is refused from 2.1 on: the release that checks the
// epoch start does not take the ExpandIsr step.
func TestKafka7128NeedsARelease(t *testing.T) {
	b := mustBug(t, "kafka-7128")
	if b.Config.Rel().ExpandNeedsEpochStart {
		t.Fatalf("%s: the configuration's release %s checks the epoch start: the bug cannot show", b.Name, b.Config.Rel().Release)
	}
	cfg := b.Config
	cfg.Truncation = model.LeaderEpoch
	cfg.Fencing = true
	tr := applyActionsUntil(t, &cfg, kafka7128Actions, "ExpandIsr(r2,r3)")
	if tr == "" {
		t.Fatal("under 2.1.0 the story's ExpandIsr(r2, r3) was taken")
	}
}

// applyActionsUntil replays script and returns the first action that
// was not enabled, or "" if every step was; it must be want.
func applyActionsUntil(t *testing.T, cfg *model.Config, script, want string) string {
	t.Helper()
	s := model.Init(cfg)
	for _, text := range strings.Split(script, ";") {
		text = strings.TrimSpace(text)
		next, err := model.Apply(cfg, s, parseAction(t, text))
		if err != nil {
			if text != want {
				t.Fatalf("under %s the story stops earlier than %s, at %s: %v", cfg.Truncation, want, text, err)
			}
			return text
		}
		s = next
	}
	return ""
}
