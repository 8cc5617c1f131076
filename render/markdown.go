package render

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/trace"
)

// Markdown writes t as tables, one per phase (a phase begins at a step
// with a note), one row per step and one column per replica. Unlike the
// timeline it folds nothing: every step has its row, with what its message
// carried.
func Markdown(w io.Writer, cfg *model.Config, t trace.Trace, opt Options) error {
	if len(t.Steps) == 0 {
		return fmt.Errorf("render: the trace has no states")
	}
	var b bytes.Buffer
	if opt.Title != "" {
		fmt.Fprintf(&b, "### %s\n\n", mdEscape(opt.Title))
	}
	for _, para := range strings.Split(opt.Subtitle, "\n") {
		if para != "" {
			fmt.Fprintf(&b, "%s\n\n", mdEscape(para))
		}
	}
	if v := verdictLine(cfg, t, opt.Invariants); v != "" {
		fmt.Fprintf(&b, "**%s**\n\n", mdEscape(v))
	}
	b.WriteString("A cell is the replica's role and leader epoch, LEO, HW and checkpointed HW, its log as " +
		"`offset:epoch/id` and its epoch cache as `epoch@start`; bold: the step changed it.\n")
	tableHead := func() {
		b.WriteString("\n| step | action |")
		for _, r := range cfg.Replicas {
			fmt.Fprintf(&b, " %s |", r)
		}
		b.WriteString(" controller | violated |\n|---:|---|")
		for range cfg.Replicas {
			b.WriteString("---|")
		}
		b.WriteString("---|---|\n")
	}
	tableHead()
	row(&b, cfg, t, opt, 0)
	for i := 1; i < len(t.Steps); i++ {
		if note := opt.Notes[i]; len(note) > 0 {
			fmt.Fprintf(&b, "\n%s\n", mdEscape(strings.Join(note, " ")))
			tableHead()
		}
		row(&b, cfg, t, opt, i)
	}
	_, err := w.Write(b.Bytes())
	return err
}

func row(b *bytes.Buffer, cfg *model.Config, t trace.Trace, opt Options, i int) {
	s := &t.Steps[i].State
	act := "Init"
	if i > 0 {
		act = caption(cfg, &t.Steps[i-1].State, s, t.Steps[i].Action)
	}
	fmt.Fprintf(b, "| %d | %s |", i, mdEscape(act))
	for r := range cfg.Replicas {
		cell := replicaCell(s, r)
		if i > 0 && replicaDrawnChanged(&t.Steps[i-1].State, s, r) {
			cell = "**" + cell + "**"
		}
		fmt.Fprintf(b, " %s |", cell)
	}
	ctrl := strings.TrimPrefix(controllerLine(s), "controller: ")
	if len(s.Acked) > 0 {
		ids := make([]string, len(s.Acked))
		for k, x := range s.Acked {
			ids[k] = fmt.Sprintf("m%d@%d", x.ID, x.Offset)
		}
		ctrl += "; acked " + strings.Join(ids, " ")
	}
	var viol []string
	var before []string
	if i > 0 {
		before = violatedNames(cfg, &t.Steps[i-1].State, opt.Invariants)
	}
	for _, v := range violations(cfg, s, opt.Invariants) {
		if slices.Contains(before, v.invariant) {
			viol = append(viol, v.invariant)
		} else {
			viol = append(viol, "✗ **"+v.invariant+"**: "+mdEscape(v.why))
		}
	}
	fmt.Fprintf(b, " %s | %s |\n", mdEscape(ctrl), strings.Join(viol, "; "))
}

// replicaCell is one replica in one line, in the notation of the dense
// renderer: "leader e1 · leo 2 hw 1 ckpt 0 · `0:0/1 1:1/2` · cache 0@0 1@1".
func replicaCell(s *model.State, r int) string {
	hw := fmt.Sprint(s.Hw[r])
	if !s.Up(r) {
		hw = "–"
	}
	parts := []string{roleLabel(s, r), fmt.Sprintf("leo %d hw %s ckpt %d", s.LEO(r), hw, s.HwCheckpoint[r])}
	if len(s.Log[r]) > 0 {
		recs := make([]string, len(s.Log[r]))
		for o, x := range s.Log[r] {
			recs[o] = fmt.Sprintf("%d:%d/%d", o, x.Epoch, x.ID)
		}
		parts = append(parts, "`"+strings.Join(recs, " ")+"`")
	}
	if len(s.EpochCache[r]) > 0 {
		es := make([]string, len(s.EpochCache[r]))
		for k, e := range s.EpochCache[r] {
			es[k] = fmt.Sprintf("%d@%d", e.Epoch, e.Start)
		}
		parts = append(parts, "cache "+strings.Join(es, " "))
	}
	return strings.Join(parts, " · ")
}

// mdEscape keeps text from breaking a table or turning into markup.
func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "*", `\*`, "_", `\_`, "<", "&lt;").Replace(s)
}
