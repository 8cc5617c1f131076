package trace

import (
	"fmt"
	"io"
	"strings"

	"github.com/hwepoch/hwepoch/internal/columns"
	"github.com/hwepoch/hwepoch/model"
)

// Render writes t densely, like TigerBeetle's VOPR: per step one line with
// the step number, the action with its parameters and the controller, then
// one line per replica: role, leader epoch, LEO, HW, the log as
// offset:epoch/id cells, the epoch cache as epoch@start, and what is in
// flight. A '*' marks the replicas the step changed.
func Render(w io.Writer, cfg *model.Config, t Trace) {
	for i, st := range t.Steps {
		var prev *model.State
		if i > 0 {
			prev = &t.Steps[i-1].State
		}
		RenderStep(w, cfg, i, st, prev)
	}
	if t.Lasso {
		fmt.Fprintln(w, LassoLine(t))
	}
}

// LassoLine says how a lasso goes on after its last state.
func LassoLine(t Trace) string {
	last := len(t.Steps) - 1
	if t.Loop == last {
		return fmt.Sprintf("  ∞ the behaviour stutters in state %d for ever (no fair step is enabled there)", last)
	}
	return fmt.Sprintf("  ∞ state %d is state %d again: steps %d-%d repeat for ever", last, t.Loop, t.Loop+1, last)
}

// RenderStep writes step i of a trace as Render does; prev is the state
// before it (nil for Init). With it a caller can render a trace it does
// not keep (scenario.Walk).
func RenderStep(w io.Writer, cfg *model.Config, i int, st Step, prev *model.State) {
	s := st.State
	act := "Init"
	if st.Action.Kind != model.NoAction {
		act = ActionString(st.Action)
	}
	pe := ""
	if cfg.Rel().AsyncIsr {
		pe = fmt.Sprintf(" pe%d", s.CtrlPartitionEpoch)
	}
	elr := ""
	if cfg.Rel().Elr {
		elr = fmt.Sprintf(" elr{%s} lastKnownElr{%s}", replicas(s.CtrlElr), replicas(s.CtrlLastKnownElr))
	}
	head := fmt.Sprintf("%3d %-44s ", i, act)
	fmt.Fprint(w, columns.Wrap(head, fmt.Sprintf("ctrl %s e%d%s isr{%s}%s next=%d crashes=%d acked%s committed%s",
		s.CtrlLeader, s.CtrlEpoch, pe, replicas(s.CtrlIsr), elr, s.NextId, s.Crashes, offsetIDs(s.Acked), offsetIDs(s.Committed)),
		columns.Max, strings.Repeat(" ", len(head))))
	for r, name := range cfg.Replicas {
		mark := " "
		if prev != nil && replicaChanged(prev, &s, r) {
			mark = "*"
		}
		fmt.Fprint(w, wrapFields(fmt.Sprintf("    %s%-4s ", mark, name), ReplicaLine(cfg, &s, r)))
	}
}

// wrapFields writes prefix and a replica line, the line going on in the
// next from a " | " separator wherever it would pass columns.Max (a field
// wider than a line by itself is wrapped at its spaces).
func wrapFields(prefix, line string) string {
	indent := strings.Repeat(" ", len(prefix))
	if columns.Width(prefix+line) <= columns.Max {
		return prefix + line + "\n"
	}
	var b strings.Builder
	cur := prefix
	for i, f := range strings.Split(line, " | ") {
		switch {
		case i == 0:
			cur += f
		case columns.Width(cur+" | "+f) <= columns.Max:
			cur += " | " + f
		default:
			b.WriteString(cur + "\n")
			cur = indent + "| " + f
		}
		if columns.Width(cur) > columns.Max {
			text := strings.TrimPrefix(cur, indent)
			wrapped := columns.Wrap(indent, text, columns.Max, indent+"  ")
			if i == 0 {
				wrapped = columns.Wrap(prefix, strings.TrimPrefix(cur, prefix), columns.Max, indent+"  ")
			}
			last := strings.LastIndex(strings.TrimSuffix(wrapped, "\n"), "\n")
			b.WriteString(wrapped[:last+1])
			cur = strings.TrimSuffix(wrapped[last+1:], "\n")
		}
	}
	b.WriteString(cur + "\n")
	return b.String()
}

// ActionString is an action with its parameters named: Crash(r=r1, keep=0).
func ActionString(a model.Action) string {
	ctx := ActionContext(a)
	parts := make([]string, 0, len(ctx))
	for _, p := range a.Kind.Params() {
		parts = append(parts, fmt.Sprintf("%s=%v", p, ctx[p]))
	}
	return a.Kind.String() + "(" + strings.Join(parts, ", ") + ")"
}

// ReplicaLine is replica r's state in one line.
func ReplicaLine(cfg *model.Config, s *model.State, r int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-8s e%-2d leo %d hw %d ckpt %d |", s.Role[r], s.LeaderEpoch[r], s.LEO(r), s.Hw[r], s.HwCheckpoint[r])
	for o, rec := range s.Log[r] {
		fmt.Fprintf(&b, " %d:%d/%d", o, rec.Epoch, rec.ID)
	}
	b.WriteString(" | cache")
	for _, e := range s.EpochCache[r] {
		fmt.Fprintf(&b, " %d@%d", e.Epoch, e.Start)
	}
	switch s.Role[r] {
	case model.Leader:
		fmt.Fprintf(&b, " | isr{%s} views%v", replicas(s.Isr[r]), s.FollowerLeo[r])
		if s.ProduceEpoch[r] != s.LeaderEpoch[r] {
			fmt.Fprintf(&b, " since e%d", s.ProduceEpoch[r])
		}
		if cfg.Rel().AsyncIsr {
			fmt.Fprintf(&b, " pe%d", s.PartitionEpoch[r])
			if len(s.PendingIsr[r]) > 0 {
				fmt.Fprintf(&b, " pending{%s}", replicas(s.PendingIsr[r]))
			}
		}
	case model.Follower:
		fmt.Fprintf(&b, " | of %s %s", s.Leader[r], s.FetchState[r])
	}
	if m := s.Inflight[r]; m.Type != model.MsgNone {
		fmt.Fprintf(&b, " | slot %s", m)
	}
	if m := s.AlterPartition[r]; m.Type != model.MsgNone {
		fmt.Fprintf(&b, " | alter %s", m)
	}
	if q := s.ControllerQueue[r]; len(q) > 0 {
		fmt.Fprintf(&b, " | queue %d (head e%d leader %s)", len(q), q[0].Epoch, q[0].Leader)
	}
	return b.String()
}

func replicaChanged(a, b *model.State, r int) bool {
	x := model.State{Log: a.Log[r : r+1], EpochCache: a.EpochCache[r : r+1], HwCheckpoint: a.HwCheckpoint[r : r+1],
		Role: a.Role[r : r+1], LeaderEpoch: a.LeaderEpoch[r : r+1], Leader: a.Leader[r : r+1], Hw: a.Hw[r : r+1],
		Isr: a.Isr[r : r+1], FollowerLeo: a.FollowerLeo[r : r+1], FetchState: a.FetchState[r : r+1],
		ControllerQueue: a.ControllerQueue[r : r+1], Inflight: a.Inflight[r : r+1],
		ProduceEpoch: a.ProduceEpoch[r : r+1], PartitionEpoch: a.PartitionEpoch[r : r+1],
		PendingIsr: a.PendingIsr[r : r+1], AlterPartition: a.AlterPartition[r : r+1]}
	y := model.State{Log: b.Log[r : r+1], EpochCache: b.EpochCache[r : r+1], HwCheckpoint: b.HwCheckpoint[r : r+1],
		Role: b.Role[r : r+1], LeaderEpoch: b.LeaderEpoch[r : r+1], Leader: b.Leader[r : r+1], Hw: b.Hw[r : r+1],
		Isr: b.Isr[r : r+1], FollowerLeo: b.FollowerLeo[r : r+1], FetchState: b.FetchState[r : r+1],
		ControllerQueue: b.ControllerQueue[r : r+1], Inflight: b.Inflight[r : r+1],
		ProduceEpoch: b.ProduceEpoch[r : r+1], PartitionEpoch: b.PartitionEpoch[r : r+1],
		PendingIsr: b.PendingIsr[r : r+1], AlterPartition: b.AlterPartition[r : r+1]}
	return !x.Equal(y)
}

func replicas(rs []model.Replica) string {
	ss := make([]string, len(rs))
	for i, r := range rs {
		ss[i] = string(r)
	}
	return strings.Join(ss, ",")
}

func offsetIDs(xs []model.OffsetID) string {
	ss := make([]string, len(xs))
	for i, x := range xs {
		ss[i] = fmt.Sprintf("%d:%d", x.Offset, x.ID)
	}
	return "{" + strings.Join(ss, " ") + "}"
}

// Notation explains the dense format of Render, for `hwepoch help
// notation` and docs/spec.md ("Reading a trace"), which must quote it
// verbatim (cmd/hwepoch's TestNotationIsDocumented).
const Notation = `Each step is one line, then one line per replica:

 12 HandleLeaderAndIsr(r=r2)   ctrl r2 e2 isr{r1,r2} next=2 crashes=0 acked{0:1} committed{0:1}
    r1   Leader   e0  leo 1 hw 1 ckpt 0 | 0:0/1 | cache 0@0 | isr{r1,r2} views[-1 1]
   *r2   Follower e1  leo 1 hw 0 ckpt 0 | 0:0/1 | cache 0@0 | of r1 Fetching
         | slot Fetch(r2->r1 offset=1 ce=0) | queue 1 (head e2 leader r2)
(A line wider than 120 columns goes on in the next from a |, as r2's here.)

The step line: the step's number (0 is Init), the action with its
parameters, then the controller and the producers' view:
  ctrl r2 e2 isr{r1,r2}  the controller's leader, leader epoch and ISR
                         (DivergingEpoch: and its partition epoch, pe3)
  next=2                 the id the next produced record gets
  crashes=0              crashes so far (bounded by MaxCrashes)
  acked{0:1}             records acknowledged to producers, as offset:id
  committed{0:1}         records committed (below a leader's HW), offset:id

A replica line:
  *                      this step changed this replica
  Follower e1            its role and the leader epoch it knows
  leo 1 hw 0             its log end offset and high watermark (both exclusive)
  ckpt 0                 the HW in its replication-offset-checkpoint file
  0:0/1                  its log, one offset:epoch/id cell per record
  cache 0@0              its leader-epoch-checkpoint: epoch@start offset
  isr{r1,r2}             (a leader) its ISR
  views[-1 1]            (a leader) each replica's LEO as it last heard it,
                         in Replicas order; -1: not heard yet
  since e0               (a leader re-elected without a break) the epoch its
                         leadership began: acks=all records from then on are
                         still acknowledged (DelayedProduce checks no epoch)
  pe2 pending{r1,r2}     (a leader, DivergingEpoch) its partition epoch and
                         the ISR it proposed, pending the controller's answer
  of r1 Fetching         (a follower) its leader and fetch state: Truncating
                         (asking OffsetsForLeaderEpoch; under DivergingEpoch:
                         fetching, not yet answered without divergence),
                         Fetching or None
  slot Fetch(...)        the one request or response in flight between it and
                         its leader: src->dst, offset, recs=[{id epoch}],
                         hw, leo, an error code (NONE, FENCED_LEADER_EPOCH,
                         ...), lfe=, the lastFetchedEpoch a Fetch carries
                         (DivergingEpoch; -1 otherwise), divergingEpoch=(e,o)
                         the leader's answer when the logs may differ, and
                         ce=, the current leader epoch the request carries
                         (KIP-320 fencing) or its response echoes. FetchRead
                         is the leader's read of a Fetch, records and HW
                         taken, not yet counted (UpdateFollowerFetchState
                         counts it and sends the FetchResponse)
  alter AlterPartition(...)
                         (a leader, DivergingEpoch) its AlterPartition request
                         or the controller's answer in flight
  queue 1 (head e2 leader r2)
                         LeaderAndIsr requests from the controller not yet
                         handled: how many, and the first's epoch and leader
`
