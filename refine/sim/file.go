package sim

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hwepoch/hwepoch/impl/broker"
	"github.com/hwepoch/hwepoch/impl/cluster"
	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/refine"
	"github.com/hwepoch/hwepoch/render"
	"github.com/hwepoch/hwepoch/trace"
)

// RunFile is a run written for replay: the settings and, for a simulated
// run, its seed, decision count and event-log hash (which rebuild it
// exactly); then its events as stepped-API steps (which replay it on a
// stepped cluster and on the model). A free run's file (hwepoch chaos
// -free) has steps and settings only.
type RunFile struct {
	Seed      uint64
	Simulated bool // Seed, Events and Hash are set
	Events    int
	Hash      string
	Status    string
	// Live is the liveness check's budget the run had ('# live', 0: none);
	// Mutants the seeded bugs it ran with ('# mutant' lines).
	Live     time.Duration
	Mutants  []broker.Mutant
	Settings []string
	Steps    []cluster.Step
}

// MaxEvents is the most decisions a run file may ask to simulate again
// (its '# events' line), and the most hwepoch chaos -events takes: a
// count beyond it is refused rather than run for hours (a run's cost
// grows faster than its length; 20,000 decisions took about 50 s on a
// loaded 2-core machine, the default is 400).
const MaxEvents = 50_000

// MaxLive is the longest liveness budget a run file or hwepoch chaos -live
// takes: ten seconds of simulated time (tens of thousands of decisions).
const MaxLive = 10 * time.Second

// WriteRun writes a simulated run as a RunFile.
func WriteRun(w io.Writer, r Result) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# hwepoch simulation run; replay: hwepoch chaos -replay FILE\n")
	fmt.Fprintf(bw, "# seed %d\n# events %d\n# hash %s\n# status %s\n", r.Seed, r.SimResult.Events, r.Hash(), oneLine(r.Status()))
	if r.LiveFor > 0 {
		fmt.Fprintf(bw, "# live %v\n", r.LiveFor)
	}
	for _, m := range r.mutants {
		fmt.Fprintf(bw, "# mutant %s\n", m)
	}
	for _, f := range r.Faults {
		fmt.Fprintf(bw, "# fault %s\n", f)
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return cluster.WriteSteps(w, r.Settings, r.Steps)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// simHeader opens every file WriteRun writes.
const simHeader = "hwepoch simulation run"

// ReadRun reads what WriteRun (or cluster.WriteSteps) wrote. A file with
// any mark of a simulated run (WriteRun's first line, '# seed', '# events'
// or '# hash') must have all of seed, events (1 to MaxEvents) and hash:
// a simulated run is checked by simulating its seed again, and a file
// that lost its seed would otherwise be replayed as a free run's steps,
// unchecked.
func ReadRun(rd io.Reader) (RunFile, error) {
	var f RunFile
	var marks []string // the simulated run's lines found
	seen := map[string]bool{}
	var body strings.Builder
	sc := bufio.NewScanner(rd)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		body.WriteString(line + "\n")
		key, val, _ := strings.Cut(strings.TrimPrefix(line, "# "), " ")
		if !strings.HasPrefix(line, "# ") {
			continue
		}
		if line == "# "+simHeader || strings.HasPrefix(line, "# "+simHeader+";") {
			marks = append(marks, "its first line")
			continue
		}
		var err error
		switch key {
		case "seed", "events", "hash", "status", "live":
			if seen[key] {
				return f, fmt.Errorf("line %d: a second '# %s' line", n, key)
			}
			seen[key] = true
		}
		switch key {
		case "seed":
			f.Seed, err = strconv.ParseUint(val, 10, 64)
			marks = append(marks, "'# seed'")
		case "events":
			f.Events, err = strconv.Atoi(val)
			if err == nil && (f.Events < 1 || f.Events > MaxEvents) {
				err = fmt.Errorf("%d decisions: want 1 to %d (the most a run file may ask to simulate)", f.Events, MaxEvents)
			}
			marks = append(marks, "'# events'")
		case "hash":
			f.Hash = val
			marks = append(marks, "'# hash'")
		case "status":
			f.Status = val
		case "live":
			f.Live, err = time.ParseDuration(val)
			if err == nil && (f.Live <= 0 || f.Live > MaxLive) {
				err = fmt.Errorf("%v: want a positive duration up to %v", f.Live, MaxLive)
			}
		case "mutant":
			m := broker.Mutant(val)
			if !slices.Contains(broker.Mutants, m) && !slices.Contains(broker.SimMutants, m) {
				err = fmt.Errorf("unknown seeded bug %q", val)
			}
			f.Mutants = append(f.Mutants, m)
		}
		if err != nil {
			return f, fmt.Errorf("line %d: %s: %w", n, key, err)
		}
	}
	if err := sc.Err(); err != nil {
		return f, err
	}
	var err error
	f.Settings, f.Steps, err = cluster.ReadSteps(strings.NewReader(body.String()))
	if err != nil {
		return f, err
	}
	f.Simulated = len(marks) > 0
	if f.Simulated {
		var missing []string
		if !seen["seed"] {
			missing = append(missing, "'# seed N'")
		}
		if !seen["events"] {
			missing = append(missing, "'# events N'")
		}
		if len(f.Hash) != 64 {
			missing = append(missing, "a 64-digit '# hash'")
		}
		if len(missing) > 0 {
			return f, fmt.Errorf("a simulated run (the file has %s) needs %s: it is checked by simulating its seed again",
				strings.Join(marks, ", "), strings.Join(missing, " and "))
		}
	}
	if len(f.Steps) == 0 {
		return f, fmt.Errorf("no steps")
	}
	return f, nil
}

// Replayed is what replaying a RunFile found.
type Replayed struct {
	// Rerun is the seed's run simulated again (simulated files only), and
	// Reproduced whether its event log hashes as recorded.
	Rerun      *Result
	Reproduced bool
	Config     *model.Config
	// Steps were replayed on the model and a stepped cluster, whose
	// abstraction equalled the model's state after each; Verdict judges the
	// cluster's end state, Violated lists the safety invariants the model's
	// end state violates.
	Steps    int
	Verdict  cluster.Verdict
	Violated []string
	// Diverged is set when the cluster's abstraction differed from the
	// model's state (an implementation bug): the step and the difference.
	Diverged string
	// Trace is the file's steps as the model takes them, with the model's
	// states (what hwepoch view draws). DivergedStep is the first step
	// (index into Trace) where the cluster departed, and DivergedState
	// the abstraction of the cluster there, if it had one; 0 and nil when
	// it never departed.
	Trace         trace.Trace
	DivergedStep  int
	DivergedState *model.State
}

// Lost reports a loss or a divergence of the replayed run.
func (r Replayed) Lost() bool {
	return !r.Verdict.OK() || len(r.Violated) > 0 || r.Diverged != "" || (r.Rerun != nil && r.Rerun.Failed())
}

// CannotReplay is a file that cannot be replayed, and why.
type CannotReplay struct{ Reason string }

func (e *CannotReplay) Error() string { return "cannot replay: " + e.Reason }

// Replay replays a run file: a simulated one is simulated again from its
// seed (it must reproduce the recorded event-log hash, and when it does,
// the file's steps must be the run's), and every file's steps are replayed
// on the model and on a stepped cluster, compared after each step. A file
// whose steps the model or the cluster refuses, or whose reproduced seed
// gives other steps than it holds, is a *CannotReplay, naming the step
// and the reason.
func Replay(f RunFile, dir string) (Replayed, error) {
	cfg, err := ModelConfig(f.Settings)
	if err != nil {
		return Replayed{}, &CannotReplay{fmt.Sprintf("settings: %v", err)}
	}
	out := Replayed{Config: cfg}
	actions := make([]model.Action, len(f.Steps))
	for i, st := range f.Steps {
		if actions[i], err = stepAction(cfg, st); err != nil {
			return out, &CannotReplay{fmt.Sprintf("step %d %s: %v", i+1, st, err)}
		}
	}
	tr, err := refine.ActionsTrace("replay", cfg, actions)
	if err != nil {
		return out, &CannotReplay{fmt.Sprintf("the model does not take the file's steps: %v", err)}
	}
	out.Trace = tr
	cc := cluster.DefaultConfig(dir)
	if err := cc.SetAll(f.Settings); err != nil {
		return out, &CannotReplay{fmt.Sprintf("settings: %v", err)}
	}
	if f.Simulated {
		// The hash covers the event log, not the steps written after it:
		// when the seed reproduces, the steps must be the ones it gives,
		// or the file would replay steps of its own under the seed's
		// name. (When it does not reproduce, the file's steps are
		// replayed as they are, and the caller says it did not.)
		r := Run(Options{Seed: f.Seed, Settings: f.Settings, Events: f.Events, LiveFor: f.Live, Mutants: f.Mutants})
		out.Rerun = &r
		out.Reproduced = r.Hash() == f.Hash
		if d := stepsDiffer(f.Steps, r.Steps); out.Reproduced && d != "" {
			return out, &CannotReplay{fmt.Sprintf("the file's steps are not the ones seed %d gives (%d decisions): %s; was the file edited?", f.Seed, f.Events, d)}
		}
	}
	cc.Mode, cc.Hook, cc.Mutants = cluster.Stepped, nil, f.Mutants
	c, err := cluster.New(cc)
	if err != nil {
		return out, err
	}
	defer c.Close()
	for i, st := range f.Steps {
		if err := c.Apply(st); err != nil {
			return out, &CannotReplay{fmt.Sprintf("step %d %s: the stepped cluster refuses it: %v (a free run's interleaving is not always one the stepped cluster can take; a simulated run's always is)", i+1, st, err)}
		}
		out.Steps = i + 1
		if got, m := refine.CheckSnapshot(cfg, c.Snapshot(), tr.Steps[i+1].State); m != nil && out.Diverged == "" {
			out.Diverged = fmt.Sprintf("after step %d %s: %s\n%s", i+1, st, m.What, m.Diff)
			out.DivergedStep, out.DivergedState = i+1, got
		}
	}
	end := tr.Steps[len(tr.Steps)-1].State
	out.Verdict = cluster.Check(c.Snapshot())
	out.Violated = refine.Violated(cfg, end, Safety)
	return out, nil
}

// stepsDiffer says where a file's steps first differ from a run's, or ""
// when they are the same.
func stepsDiffer(file, run []cluster.Step) string {
	for i := 0; i < len(file) && i < len(run); i++ {
		if a, b := file[i].String(), run[i].String(); a != b {
			return fmt.Sprintf("step %d is %s in the file, %s in the run", i+1, a, b)
		}
	}
	switch {
	case len(file) > len(run):
		return fmt.Sprintf("the file has %d steps, the run %d: the file's step %d (%s) and after are not the run's", len(file), len(run), len(run)+1, file[len(run)])
	case len(file) < len(run):
		return fmt.Sprintf("the file has %d steps, the run %d", len(file), len(run))
	}
	return ""
}

// stepAction is the model action a stepped-API step stands for.
func stepAction(cfg *model.Config, st cluster.Step) (model.Action, error) {
	k, err := model.ParseActionKind(st.Action)
	if err != nil {
		return model.Action{}, err
	}
	params := k.Params()
	if len(params) != len(st.Args) {
		return model.Action{}, fmt.Errorf("%s takes %d arguments", st.Action, len(params))
	}
	e := cluster.Event{Action: st.Action, Params: map[string]int64{}}
	for i, p := range params {
		e.Params[p] = st.Args[i]
	}
	return refine.ActionOf(cfg, e)
}

// WriteShrunk writes a shrunk failure as an ITF regression (replayed by
// hwepoch replay FILE, drawn by hwepoch render FILE -svg OUT).
func WriteShrunk(path string, s Shrunk, note string) error {
	return refine.WriteRegression(path, s.Config, s.Trace, nil, note)
}

// SVG draws a shrunk failure as an SVG timeline.
func SVG(w io.Writer, s Shrunk, title string) error {
	return render.SVG(w, s.Config, s.Trace, render.Options{Title: title,
		Subtitle:   fmt.Sprintf("shrunk from %d steps of a simulated run to %d; violates %s", s.From, s.Trace.Len()-1, s.Invariant),
		Invariants: []string{s.Invariant}})
}
