package refine

import (
	"fmt"
	"os"
	"strings"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/hwepoch/hwepoch/impl/cluster"
	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/trace"
)

// Options tune a replay.
type Options struct {
	// Dir is where the cluster's temporary directory is made ("": see
	// TempRoot). The directory is removed afterwards.
	Dir string
	// Cluster, if set, changes the cluster's configuration before it starts
	// (the mutation check seeds its bugs here).
	Cluster func(*cluster.Config)
	// Context is how many steps before a failure the report shows (0: 4).
	Context int

	// after, if set, runs on the cluster once the trace has replayed.
	after func(*cluster.Cluster) error
}

func (o Options) context() int {
	if o.Context <= 0 {
		return 4
	}
	return o.Context
}

// Diff is the checker's comparison of two model states: empty when they are
// equal as TLA+ values. An empty and a nil sequence or set are the same
// value (<<>>, {}), so they compare equal here as in model.State.Equal.
// The states are compared as fields (stateFields has no Equal method, which
// cmp would otherwise call and then print both states whole); messages
// keep model.Msg.Equal, TLA+'s record equality, and print as the spec
// writes them.
func Diff(want, got model.State) string {
	if want.Equal(got) {
		return "" // the common case, and much cheaper than cmp
	}
	return cmp.Diff(stateFields(want), stateFields(got), cmpopts.EquateEmpty())
}

// stateFields is model.State without its methods.
type stateFields model.State

// Mismatch is a failed replay: which trace, which step and action, on
// which side, what differs, and the steps that led there.
type Mismatch struct {
	Trace  string // the trace's Source
	Step   int    // index into the trace's steps (0: the initial state)
	Action model.Action
	// Side is "model" (the trace does not replay on the model) or
	// "implementation" (the implementation does not refine the model).
	Side string
	// What says what failed, in a sentence.
	What string
	// Diff is cmp.Diff(want, got): on the model side the trace's recorded
	// state against the model's, on the implementation side the model's
	// state against the abstraction of the implementation's.
	Diff string
	// Context renders the last steps before the failure, one line per
	// replica per step, and the two states that differ.
	Context string
	// Got is the other side's state at Step where there is one: on the
	// implementation side the abstraction of the cluster's snapshot, on
	// the model side the model's state (the trace recorded another). The
	// viewer shows it beside the expected one (hwepoch view).
	Got *model.State
}

func (m *Mismatch) Error() string {
	var b strings.Builder
	act := "the initial state"
	if m.Action.Kind != model.NoAction {
		act = trace.ActionString(m.Action)
	}
	fmt.Fprintf(&b, "%s: step %d %s: %s: %s", m.Trace, m.Step, act, m.Side, m.What)
	if m.Diff != "" {
		fmt.Fprintf(&b, "\ndiff (-want +got):\n%s", m.Diff)
	}
	if m.Context != "" {
		fmt.Fprintf(&b, "\n%s", m.Context)
	}
	return b.String()
}

// HasState reports whether a trace step records a state (TLC and ITF
// traces do; a scenario's or a list of actions' steps need not).
func HasState(st trace.Step) bool { return st.State.Log != nil }

// ReplayModel replays tr on the model alone: the first state is Init, each
// action is enabled where it stands, and each recorded state is the one
// the model computes. It returns the model's states (the trace's own
// states where it recorded them: they are equal), one per step.
func ReplayModel(cfg *model.Config, tr trace.Trace, opt Options) ([]model.State, error) {
	if len(tr.Steps) == 0 {
		return nil, &Mismatch{Trace: tr.Source, Side: "model", What: "the trace has no states"}
	}
	states := make([]model.State, len(tr.Steps))
	states[0] = model.Init(cfg)
	for i, st := range tr.Steps {
		if i > 0 {
			next, err := model.Apply(cfg, states[i-1], st.Action)
			if err != nil {
				return states[:i], &Mismatch{Trace: tr.Source, Step: i, Action: st.Action, Side: "model",
					What:    fmt.Sprintf("the model cannot take this step: %v", err),
					Context: renderContext(cfg, tr, states[:i], i, opt.context(), nil)}
			}
			states[i] = next
		}
		if HasState(st) {
			if d := Diff(st.State, states[i]); d != "" {
				got := states[i]
				return states[:i], &Mismatch{Trace: tr.Source, Step: i, Action: st.Action, Side: "model",
					What: "the model's state differs from the state the trace recorded", Diff: d, Got: &got,
					Context: renderContext(cfg, tr, states[:i+1], i, opt.context(), &st.State)}
			}
		}
	}
	return states, nil
}

// Replay replays tr on the model and then on a fresh stepped cluster
// configured from cfg: after every step the abstraction of the cluster's
// snapshot must equal the model's state. The first failure is returned as
// a *Mismatch.
func Replay(cfg *model.Config, tr trace.Trace, opt Options) error {
	states, err := ReplayModel(cfg, tr, opt)
	if err != nil {
		return err
	}
	return ReplayImpl(cfg, tr, states, opt)
}

// ReplayCase replays a case (Replay) and, if the case says so, checks that
// the implementation then refuses an action the model does not enable.
func ReplayCase(c Case, opt Options) error {
	if c.Refuse == nil {
		return Replay(c.Config, c.Trace, opt)
	}
	states, err := ReplayModel(c.Config, c.Trace, opt)
	if err != nil {
		return err
	}
	last := states[len(states)-1]
	if _, err := model.Apply(c.Config, last, *c.Refuse); err == nil {
		return &Mismatch{Trace: c.Trace.Source, Step: len(states), Action: *c.Refuse, Side: "model",
			What: "the case says the implementation must refuse this action, but the model enables it"}
	}
	opt.after = func(cl *cluster.Cluster) error {
		n := len(states)
		if err := Step(cl, c.Config, *c.Refuse); err == nil {
			return &Mismatch{Trace: c.Trace.Source, Step: n, Action: *c.Refuse, Side: "implementation",
				What:    "the implementation took a step the model does not enable",
				Context: renderContext(c.Config, c.Trace, states, n-1, opt.context(), nil)}
		}
		if got, m := Check(c.Config, cl, last); m != nil {
			m.Trace, m.Step, m.Action, m.Got = c.Trace.Source, n, *c.Refuse, got
			m.What = "refusing the step changed the implementation's state: " + m.What
			m.Context = renderContext(c.Config, c.Trace, states, n-1, opt.context(), got)
			return m
		}
		return nil
	}
	return ReplayImpl(c.Config, c.Trace, states, opt)
}

// ReplayImpl replays tr's actions on a fresh stepped cluster and compares
// its abstraction with states (the model's, one per step) after each.
func ReplayImpl(cfg *model.Config, tr trace.Trace, states []model.State, opt Options) error {
	dir, err := os.MkdirTemp(TempRoot(opt.Dir), "hwepoch-replay-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	c, err := NewCluster(cfg, dir, opt.Cluster)
	if err != nil {
		return fmt.Errorf("%s: starting the cluster: %w", tr.Source, err)
	}
	defer c.Close()
	for i, st := range tr.Steps {
		if i > 0 {
			if err := Step(c, cfg, st.Action); err != nil {
				return &Mismatch{Trace: tr.Source, Step: i, Action: st.Action, Side: "implementation",
					What:    fmt.Sprintf("the implementation refused a step the model takes: %v", err),
					Context: renderContext(cfg, tr, states[:i+1], i, opt.context(), nil)}
			}
		}
		if got, m := Check(cfg, c, states[i]); m != nil {
			m.Trace, m.Step, m.Action, m.Got = tr.Source, i, st.Action, got
			m.Context = renderContext(cfg, tr, states[:i+1], i, opt.context(), got)
			return m
		}
	}
	if opt.after != nil {
		return opt.after(c)
	}
	return nil
}

// Check compares the abstraction of c's snapshot with the model state
// want. It returns nil when they are equal, else the mismatch (its Trace,
// Step and Action left for the caller) and the abstract state, if the
// snapshot had one.
func Check(cfg *model.Config, c *cluster.Cluster, want model.State) (*model.State, *Mismatch) {
	return CheckSnapshot(cfg, c.Snapshot(), want)
}

// CheckSnapshot is Check of a snapshot already taken.
func CheckSnapshot(cfg *model.Config, snap cluster.Snapshot, want model.State) (*model.State, *Mismatch) {
	got, err := Abstract(cfg, snap)
	if err != nil {
		return nil, &Mismatch{Side: "implementation", What: err.Error()}
	}
	// Under the synchronous releases an ISR change is one step (ShrinkIsr,
	// ExpandIsr), so between steps no AlterPartition is in flight; under
	// the asynchronous one the pending ISR is a spec variable, compared
	// with the rest.
	for _, b := range snap.Brokers {
		if p := b.Partition; p.RecoveryPoint > p.LEO {
			return &got, &Mismatch{Side: "implementation",
				What: fmt.Sprintf("broker %d's recovery point %d is beyond its LEO %d: records appended from %d on would count as fsynced before any flush and survive a power loss (a truncation must lower the recovery point, as Kafka's LocalLog.updateLogEndOffset does)", b.ID, p.RecoveryPoint, p.LEO, p.LEO)}
		}
		if !cfg.Rel().AsyncIsr && len(b.Partition.PendingIsr) > 0 {
			return &got, &Mismatch{Side: "implementation",
				What: fmt.Sprintf("broker %d has an AlterPartition in flight (pending ISR %v) between steps: the ISR changes of %s (Kafka %s) are atomic", b.ID, b.Partition.PendingIsr, cfg.Truncation, cfg.Rel().Release)}
		}
	}
	if d := Diff(want, got); d != "" {
		return &got, &Mismatch{Side: "implementation",
			What: "the abstraction of the implementation's state differs from the model's", Diff: d}
	}
	return nil, nil
}

// renderContext shows the steps of tr up to step `at` (the last `keep` of
// them) with the model's states, one line per replica ('*' marks what the
// step changed), then, if other is set, the state that differs from the
// model's at that step.
func renderContext(cfg *model.Config, tr trace.Trace, states []model.State, at, keep int, other *model.State) string {
	var b strings.Builder
	b.WriteString("the model's last steps:\n")
	for i := max(0, at-keep+1); i < len(states) && i <= at; i++ {
		writeStep(&b, cfg, i, tr.Steps[i].Action, states[i], prevOf(states, i))
	}
	if other != nil {
		fmt.Fprintf(&b, "the other side after step %d:\n", at)
		writeReplicas(&b, cfg, *other, nil)
	}
	return b.String()
}

func prevOf(states []model.State, i int) *model.State {
	if i == 0 {
		return nil
	}
	return &states[i-1]
}
