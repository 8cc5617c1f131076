package lemmas

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hwepoch/hwepoch/internal/strictjson"

	"github.com/hwepoch/hwepoch/internal/inputfile"
)

// RecordingFile is where the lemma results are recorded, relative to the
// repository root: the numbers docs/correctness.md quotes, written by
// `hwepoch lemmas -record` and held to fresh results by TestLemmaPlans.
const RecordingFile = "traces/lemmas.json"

// RecordCommand is the command that re-records the results of the named
// plans (all of them when none is named).
func RecordCommand(configs ...string) string {
	if len(configs) == 0 {
		return "go run ./cmd/hwepoch lemmas -all -record"
	}
	return "go run ./cmd/hwepoch lemmas -record " + strings.Join(configs, " ")
}

// Recording is traces/lemmas.json: the result of each plan's Check, with
// the SHA-256s of the spec and the configuration it was recorded on, so
// that a test notices when the recording describes files that changed.
type Recording struct {
	Plans []PlanRecord `json:"plans"`
}

// PlanRecord is one plan's recorded result.
type PlanRecord struct {
	Config     string        `json:"config"`
	CfgSHA256  string        `json:"cfgSha256"`  // of spec/CONFIG.cfg
	SpecSHA256 string        `json:"specSha256"` // of spec/Replication.tla
	Distinct   int64         `json:"distinctStates"`
	Steps      int64         `json:"steps"`
	Depth      int           `json:"depth"`
	Seconds    float64       `json:"seconds"` // how long the Check took; informative, never compared
	Lemmas     []LemmaRecord `json:"lemmas"`
	// Pending, when set, says why this record is of an earlier version of
	// the spec and has not been recorded again yet: verify then compares
	// nothing with it and says so, the docs mark it, and a stale record
	// without it fails TestRecordedLemmasAreCurrent. Recording the plan
	// again clears it.
	Pending string `json:"pending,omitempty"`
}

// LemmaRecord is one lemma's outcome: the premise count when it holds, the
// length of the shortest counterexample (initial state included) when it
// is violated. The premise count of a violated lemma is not recorded: the
// search stops judging a lemma at its first violation.
type LemmaRecord struct {
	Lemma       string `json:"lemma"`
	Unit        string `json:"unit"`    // "states" (a state lemma) or "steps" (a step lemma)
	Verdict     string `json:"verdict"` // "holds" or "violated"
	Premise     int64  `json:"premise,omitempty"`
	TraceLength int    `json:"traceLength,omitempty"`
}

// Unit is "states" for a state lemma and "steps" for a step lemma: what its
// premise counts.
func (l Lemma) Unit() string {
	if l.Step != nil {
		return "steps"
	}
	return "states"
}

// RecordOf turns a report on a plan's configuration into its record; the
// hashes are those of the configuration file and the spec it was checked on.
func RecordOf(config string, rep *Report, cfgSHA256, specSHA256 string) PlanRecord {
	pr := PlanRecord{Config: config, CfgSHA256: cfgSHA256, SpecSHA256: specSHA256,
		Distinct: rep.Distinct, Steps: rep.Steps, Depth: rep.Depth,
		Seconds: math.Round(rep.Duration.Seconds()*10) / 10}
	for _, o := range rep.Outcomes {
		lr := LemmaRecord{Lemma: o.Lemma.Name, Unit: o.Lemma.Unit(), Verdict: "holds", Premise: o.Premise}
		if o.Violated != nil {
			lr.Verdict, lr.Premise, lr.TraceLength = "violated", 0, o.Violated.Len()
		}
		pr.Lemmas = append(pr.Lemmas, lr)
	}
	return pr
}

// Lemma returns the record of the named lemma.
func (p PlanRecord) Lemma(name string) (LemmaRecord, bool) {
	i := slices.IndexFunc(p.Lemmas, func(l LemmaRecord) bool { return l.Lemma == name })
	if i < 0 {
		return LemmaRecord{}, false
	}
	return p.Lemmas[i], true
}

// String is the outcome as `hwepoch lemmas` says it.
func (l LemmaRecord) String() string {
	if l.Verdict == "violated" {
		return fmt.Sprintf("violated (trace of %d states)", l.TraceLength)
	}
	return fmt.Sprintf("holds (premise met in %d %s)", l.Premise, l.Unit)
}

// Diff lists the differences between a recorded result and a fresh one
// (everything but the time and the hashes), empty when they agree.
func (p PlanRecord) Diff(fresh PlanRecord) []string {
	var out []string
	if p.Distinct != fresh.Distinct || p.Depth != fresh.Depth || p.Steps != fresh.Steps {
		out = append(out, fmt.Sprintf("recorded %d distinct states, %d steps, depth %d; found %d, %d steps, depth %d",
			p.Distinct, p.Steps, p.Depth, fresh.Distinct, fresh.Steps, fresh.Depth))
	}
	for _, f := range fresh.Lemmas {
		r, ok := p.Lemma(f.Lemma)
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("%s: not recorded; found %s", f.Lemma, f))
		case r != f:
			out = append(out, fmt.Sprintf("%s: recorded %s; found %s", f.Lemma, r, f))
		}
	}
	for _, r := range p.Lemmas {
		if _, ok := fresh.Lemma(r.Lemma); !ok {
			out = append(out, fmt.Sprintf("%s: recorded %s; no such lemma now", r.Lemma, r))
		}
	}
	return out
}

// Get returns the record of the plan on config.
func (r *Recording) Get(config string) (PlanRecord, bool) {
	i := slices.IndexFunc(r.Plans, func(p PlanRecord) bool { return p.Config == config })
	if i < 0 {
		return PlanRecord{}, false
	}
	return r.Plans[i], true
}

// Put replaces the record of the same configuration, or adds it, keeping
// the records in the order of Plans (configurations without a plan last,
// by name).
func (r *Recording) Put(p PlanRecord) {
	if i := slices.IndexFunc(r.Plans, func(q PlanRecord) bool { return q.Config == p.Config }); i >= 0 {
		r.Plans[i] = p
		return
	}
	r.Plans = append(r.Plans, p)
	rank := func(c string) int {
		if i := slices.IndexFunc(Plans, func(p Plan) bool { return p.Config == c }); i >= 0 {
			return i
		}
		return len(Plans)
	}
	slices.SortStableFunc(r.Plans, func(a, b PlanRecord) int {
		if d := rank(a.Config) - rank(b.Config); d != 0 {
			return d
		}
		return strings.Compare(a.Config, b.Config)
	})
}

// LoadRecording reads a recording (RecordingFile under the repository
// root). A missing file is reported with os.ErrNotExist in the chain.
func LoadRecording(path string) (*Recording, error) {
	b, err := inputfile.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Recording
	if err := strictjson.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for i, p := range r.Plans {
		if p.Config == "" {
			return nil, fmt.Errorf("%s: plans[%d] has no config", path, i)
		}
		for _, l := range p.Lemmas {
			if l.Verdict != "holds" && l.Verdict != "violated" {
				return nil, fmt.Errorf("%s: %s: %s: verdict %q, want \"holds\" or \"violated\"", path, p.Config, l.Lemma, l.Verdict)
			}
		}
	}
	return &r, nil
}

// Write stores the recording at path with stable formatting: reading it
// and writing it back gives the same bytes.
func (r *Recording) Write(path string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// RecordingPath is RecordingFile for the repository whose spec directory
// is specDir (tlccfg.FindSpecDir).
func RecordingPath(specDir string) string {
	return filepath.Join(filepath.Dir(specDir), filepath.FromSlash(RecordingFile))
}

// Expected lists how a recorded plan departs from what its plan demands:
// a lemma of Hold violated or vacuous, a lemma of Violate holding.
func (p Plan) Expected(r PlanRecord) []string {
	var out []string
	for _, n := range p.Hold {
		l, ok := r.Lemma(n)
		switch {
		case !ok:
			out = append(out, n+": not recorded")
		case l.Verdict != "holds":
			out = append(out, fmt.Sprintf("%s must hold, recorded %s", n, l))
		case l.Premise == 0:
			out = append(out, n+" holds vacuously: its premise is never met")
		}
	}
	for n := range p.Violate {
		l, ok := r.Lemma(n)
		switch {
		case !ok:
			out = append(out, n+": not recorded")
		case l.Verdict != "violated":
			out = append(out, fmt.Sprintf("%s must be violated, recorded %s", n, l))
		}
	}
	slices.Sort(out)
	return out
}

// ResultTable is the Markdown table of the recorded results of every plan,
// as docs/correctness.md shows it: per plan the states and depth, the
// premise count of each lemma that must hold, and the trace length of each
// that must fail.
func ResultTable(r *Recording) string {
	var b strings.Builder
	b.WriteString("| plan | states | time | lemmas that hold (premise met) | lemmas that must fail, and do |\n|---|---|---|---|---|\n")
	for _, p := range Plans {
		rec, ok := r.Get(p.Config)
		if !ok {
			fmt.Fprintf(&b, "| `%s` | not recorded (`hwepoch lemmas -record %s`) | | | |\n", p.Config, p.Config)
			continue
		}
		if rec.Pending != "" {
			fmt.Fprintf(&b, "| `%s` | not recorded on this spec (%s; `hwepoch lemmas -record %s`) | | | |\n", p.Config, rec.Pending, p.Config)
			continue
		}
		hold := "not judged"
		if len(p.Hold) > 0 {
			var lead string
			switch missing := slices.DeleteFunc(everyLemma(), func(n string) bool { return slices.Contains(p.Hold, n) }); {
			case len(missing) == 0:
				lead = "all " + numberWord(len(All))
			default:
				lead = "all but `" + strings.Join(missing, "`, `") + "`"
			}
			// State lemmas first, then step lemmas, each group in the order of All.
			var groups []string
			for _, unit := range []string{"states", "steps"} {
				var parts []string
				for _, l := range All {
					if l.Unit() != unit || !slices.Contains(p.Hold, l.Name) {
						continue
					}
					lr, _ := rec.Lemma(l.Name)
					if lr.Verdict == "holds" {
						parts = append(parts, fmt.Sprintf("`%s` %d", l.Name, lr.Premise))
					} else {
						parts = append(parts, fmt.Sprintf("`%s` violated (trace %d), must not be", l.Name, lr.TraceLength))
					}
				}
				if len(parts) > 0 {
					groups = append(groups, strings.Join(parts, ", ")+" "+unit)
				}
			}
			hold = lead + ": " + strings.Join(groups, "; ")
		}
		fail := "—"
		if len(p.Violate) > 0 {
			var parts []string
			for _, l := range All {
				if p.Violate[l.Name] == "" {
					continue
				}
				lr, _ := rec.Lemma(l.Name)
				switch {
				case lr.Verdict != "violated":
					parts = append(parts, fmt.Sprintf("`%s` holds, must not", l.Name))
				case len(parts) == 0:
					parts = append(parts, fmt.Sprintf("`%s` (trace %d)", l.Name, lr.TraceLength))
				default:
					parts = append(parts, fmt.Sprintf("`%s` (%d)", l.Name, lr.TraceLength))
				}
			}
			fail = strings.Join(parts, ", ")
		}
		fmt.Fprintf(&b, "| `%s` | %d, depth %d | %s | %s | %s |\n", p.Config, rec.Distinct, rec.Depth, seconds(rec.Seconds), hold, fail)
	}
	return b.String()
}

func numberWord(n int) string {
	words := []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"}
	if n < len(words) {
		return words[n]
	}
	return fmt.Sprint(n)
}

// seconds is a recorded time, rounded for reading.
func seconds(s float64) string {
	switch {
	case s < 10:
		return fmt.Sprintf("%.1f s", s)
	case s < 120:
		return fmt.Sprintf("%.0f s", s)
	default:
		return fmt.Sprintf("%.1f min", s/60)
	}
}
