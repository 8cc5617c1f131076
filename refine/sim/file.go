package sim

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/hwepoch/hwepoch/impl/cluster"
	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/refine"
	"github.com/hwepoch/hwepoch/render"
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
	Settings  []string
	Steps     []cluster.Step
}

// WriteRun writes a simulated run as a RunFile.
func WriteRun(w io.Writer, r Result) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# hwepoch simulation run; replay: hwepoch chaos -replay FILE\n")
	fmt.Fprintf(bw, "# seed %d\n# events %d\n# hash %s\n# status %s\n", r.Seed, r.SimResult.Events, r.Hash(), oneLine(r.Status()))
	for _, f := range r.Faults {
		fmt.Fprintf(bw, "# fault %s\n", f)
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return cluster.WriteSteps(w, r.Settings, r.Steps)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// ReadRun reads what WriteRun (or cluster.WriteSteps) wrote.
func ReadRun(rd io.Reader) (RunFile, error) {
	var f RunFile
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
		var err error
		switch key {
		case "seed":
			f.Seed, err = strconv.ParseUint(val, 10, 64)
			f.Simulated = true
		case "events":
			f.Events, err = strconv.Atoi(val)
		case "hash":
			f.Hash = val
		case "status":
			f.Status = val
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
	if f.Simulated && (f.Events <= 0 || len(f.Hash) != 64) {
		return f, fmt.Errorf("a simulated run needs '# events N' and a 64-digit '# hash'")
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
}

// Lost reports a loss or a divergence of the replayed run.
func (r Replayed) Lost() bool {
	return !r.Verdict.OK() || len(r.Violated) > 0 || r.Diverged != "" || (r.Rerun != nil && r.Rerun.Failed())
}

// CannotReplay is a file that cannot be replayed, and why.
type CannotReplay struct{ Reason string }

func (e *CannotReplay) Error() string { return "cannot replay: " + e.Reason }

// Replay replays a run file: a simulated one is simulated again from its
// seed (it must reproduce the recorded event-log hash), and every file's
// steps are replayed on the model and on a stepped cluster, compared after
// each step. A file whose steps the model or the cluster refuses is a
// *CannotReplay, naming the step and the reason.
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
	cc := cluster.DefaultConfig(dir)
	if err := cc.SetAll(f.Settings); err != nil {
		return out, &CannotReplay{fmt.Sprintf("settings: %v", err)}
	}
	cc.Mode, cc.Hook = cluster.Stepped, nil
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
		if _, m := refine.CheckSnapshot(cfg, c.Snapshot(), tr.Steps[i+1].State); m != nil && out.Diverged == "" {
			out.Diverged = fmt.Sprintf("after step %d %s: %s\n%s", i+1, st, m.What, m.Diff)
		}
	}
	end := tr.Steps[len(tr.Steps)-1].State
	out.Verdict = cluster.Check(c.Snapshot())
	out.Violated = refine.Violated(cfg, end, Safety)
	if f.Simulated {
		r := Run(Options{Seed: f.Seed, Settings: f.Settings, Events: f.Events})
		out.Rerun = &r
		out.Reproduced = r.Hash() == f.Hash
	}
	return out, nil
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
