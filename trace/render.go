package trace

import (
	"fmt"
	"io"
	"strings"

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
	fmt.Fprintf(w, "%3d %-44s ctrl %s e%d isr{%s} next=%d crashes=%d acked%s committed%s\n",
		i, act, s.CtrlLeader, s.CtrlEpoch, replicas(s.CtrlIsr), s.NextId, s.Crashes, offsetIDs(s.Acked), offsetIDs(s.Committed))
	for r, name := range cfg.Replicas {
		mark := " "
		if prev != nil && replicaChanged(prev, &s, r) {
			mark = "*"
		}
		fmt.Fprintf(w, "    %s%-4s %s\n", mark, name, ReplicaLine(cfg, &s, r))
	}
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
	case model.Follower:
		fmt.Fprintf(&b, " | of %s %s", s.Leader[r], s.FetchState[r])
	}
	if m := s.Inflight[r]; m.Type != model.MsgNone {
		fmt.Fprintf(&b, " | slot %s", m)
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
		ControllerQueue: a.ControllerQueue[r : r+1], Inflight: a.Inflight[r : r+1]}
	y := model.State{Log: b.Log[r : r+1], EpochCache: b.EpochCache[r : r+1], HwCheckpoint: b.HwCheckpoint[r : r+1],
		Role: b.Role[r : r+1], LeaderEpoch: b.LeaderEpoch[r : r+1], Leader: b.Leader[r : r+1], Hw: b.Hw[r : r+1],
		Isr: b.Isr[r : r+1], FollowerLeo: b.FollowerLeo[r : r+1], FetchState: b.FetchState[r : r+1],
		ControllerQueue: b.ControllerQueue[r : r+1], Inflight: b.Inflight[r : r+1]}
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
