package refine

import (
	"fmt"
	"io"

	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/trace"
)

// writeStep writes step i densely: the action and the controller on one
// line, then one line per replica (trace.ReplicaLine, the renderer the
// model's checks print with). A '*' marks the replicas whose line changed
// since prev.
func writeStep(w io.Writer, cfg *model.Config, i int, a model.Action, s model.State, prev *model.State) {
	act := "Init"
	if a.Kind != model.NoAction {
		act = trace.ActionString(a)
	}
	fmt.Fprintf(w, "%4d %-44s ctrl %s e%d isr%v next=%d crashes=%d acked%v committed%v\n",
		i, act, s.CtrlLeader, s.CtrlEpoch, s.CtrlIsr, s.NextId, s.Crashes, s.Acked, s.Committed)
	writeReplicas(w, cfg, s, prev)
}

func writeReplicas(w io.Writer, cfg *model.Config, s model.State, prev *model.State) {
	for r, name := range cfg.Replicas {
		line := trace.ReplicaLine(cfg, &s, r)
		mark := " "
		if prev != nil && trace.ReplicaLine(cfg, prev, r) != line {
			mark = "*"
		}
		fmt.Fprintf(w, "     %s%-4s %s\n", mark, name, line)
	}
}
