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

// Geometry, in pixels. Text is monospace so that widths can be computed
// from character counts without a font library: DejaVu Sans Mono and its
// kin advance 0.6 em per character.
const (
	margin    = 16.0
	gap       = 12.0 // between panels
	pad       = 8.0  // inside a panel
	cellW     = 26.0
	cellH     = 18.0
	rowH      = 28.0
	lineH     = 12.5                 // a line of 10px text
	labelW    = 122.0                // room for "r3 truncating e2" and the HW bar at 0
	infoW     = 6 + 17*charW10 + pad // "leo 9 hw 9 ckpt 9"
	minPanelW = 300.0
	charW10   = 6.02 // advance of a 10px monospace character
	fontStack = "DejaVu Sans Mono, Menlo, Consolas, monospace"
)

// layout is one panel's computed text, before positions are known.
type layout struct {
	p     panel
	state *model.State
	head  []string // note lines (italic), then caption lines
	nNote int
	foot  []string // controller line, then violation lines
	alarm bool     // a violation begins here, or this is the last panel
	still int      // index in foot of the first "still violated" line; 0 if none
	width float64
}

// SVG writes t as a timeline (see the package comment).
func SVG(w io.Writer, cfg *model.Config, t trace.Trace, opt Options) error {
	if len(t.Steps) == 0 {
		return fmt.Errorf("render: the trace has no states")
	}
	ps := panels(cfg, t, opt)
	maxLEO := 1
	for _, st := range t.Steps {
		for r := range cfg.Replicas {
			maxLEO = max(maxLEO, st.State.LEO(r))
		}
	}
	panelW := max(minPanelW, labelW+float64(maxLEO)*cellW+infoW)
	textChars := int((panelW - 2*pad) / charW10)
	lays := make([]layout, len(ps))
	for i, p := range ps {
		l := layout{p: p, state: &t.Steps[p.last].State, width: panelW}
		if len(p.note) > 0 {
			l.head = wrap(firstSentence(p.note), textChars, 0)
			l.nNote = len(l.head)
		}
		if p.last == 0 {
			l.head = append(l.head, "0 Init")
		}
		for k, c := range p.captions {
			l.head = append(l.head, wrap(fmt.Sprintf("%d %s", p.first+k, c), textChars, 3)...)
		}
		l.foot = []string{controllerLine(l.state)}
		// A violation is explained where it begins and in the last panel;
		// in between one muted line says it persists, so that a lasting
		// loss does not drown what happens next.
		var still []string
		for _, v := range p.violations {
			if v.fresh || i == len(ps)-1 {
				l.foot = append(l.foot, wrap("✗ "+v.invariant+": "+v.why, textChars, 2)...)
				l.alarm = true
			} else {
				still = append(still, v.invariant)
			}
		}
		if len(still) > 0 {
			l.foot = append(l.foot, wrap("still violated: "+strings.Join(still, ", "), textChars, 2)...)
			l.still = len(l.foot) - len(wrap("still violated: "+strings.Join(still, ", "), textChars, 2))
		}
		lays[i] = l
	}
	if t.Lasso {
		// A liveness counterexample: where its cycle starts, and that it
		// repeats for ever (or stutters) after the last panel.
		for i := range lays {
			if p := lays[i].p; p.first <= t.Loop+1 && t.Loop+1 <= p.last || i == len(lays)-1 && t.Loop == len(t.Steps)-1 {
				lays[i].head = append([]string{fmt.Sprintf("⟲ the cycle starts after state %d", t.Loop)}, lays[i].head...)
				lays[i].nNote++
				break
			}
		}
		last := &lays[len(lays)-1]
		last.foot = append(last.foot, wrap(strings.TrimSpace(trace.LassoLine(t)), textChars, 2)...)
		last.alarm = true
	}

	perRow := max(1, int((float64(opt.width())-2*margin+gap)/(panelW+gap)))
	var body bytes.Buffer
	y := header(&body, cfg, t, opt, maxEpoch(t), panelW*float64(min(perRow, len(lays)))+gap*float64(min(perRow, len(lays))-1))
	for start := 0; start < len(lays); start += perRow {
		band := lays[start:min(start+perRow, len(lays))]
		headN, footN := 0, 0
		for _, l := range band {
			headN, footN = max(headN, len(l.head)), max(footN, len(l.foot))
		}
		h := pad + float64(headN)*lineH + 4 + 12 + float64(cfg.N())*rowH + float64(footN)*lineH + pad
		for k, l := range band {
			drawPanel(&body, cfg, l, margin+float64(k)*(panelW+gap), y, h, headN, maxLEO)
		}
		y += h + gap
	}
	totalW := 2*margin + float64(min(perRow, len(lays)))*(panelW+gap) - gap
	totalH := y - gap + margin
	var out bytes.Buffer
	fmt.Fprintf(&out, `<svg xmlns="http://www.w3.org/2000/svg" width="%s" height="%s" viewBox="0 0 %s %s" font-family="%s" font-size="10">`+"\n",
		num(totalW), num(totalH), num(totalW), num(totalH), fontStack)
	fmt.Fprintf(&out, `<rect width="100%%" height="100%%" fill="#ffffff"/>`+"\n")
	out.Write(body.Bytes())
	out.WriteString("</svg>\n")
	_, err := w.Write(out.Bytes())
	return err
}

func maxEpoch(t trace.Trace) int {
	m := 0
	for _, st := range t.Steps {
		for _, lg := range st.State.Log {
			for _, x := range lg {
				m = max(m, x.Epoch)
			}
		}
		m = max(m, st.State.CtrlEpoch)
	}
	return m
}

// header writes the title, the subtitle, the verdict and the legend, and
// returns where the panels start.
func header(b *bytes.Buffer, cfg *model.Config, t trace.Trace, opt Options, maxE int, width float64) float64 {
	y := margin + 14
	if opt.Title != "" {
		fmt.Fprintf(b, `<text x="%s" y="%s" font-size="15" font-weight="bold" fill="%s">%s</text>`+"\n", num(margin), num(y), colorText, xmlEscape(opt.Title))
		y += 18
	}
	for _, para := range strings.Split(opt.Subtitle, "\n") {
		for _, line := range wrap(para, int(width/charW10*10/11), 0) {
			fmt.Fprintf(b, `<text x="%s" y="%s" font-size="11" fill="%s">%s</text>`+"\n", num(margin), num(y), colorMuted, xmlEscape(line))
			y += 15
		}
	}
	if v := verdictLine(cfg, t, opt.Invariants); v != "" {
		color := colorText
		if strings.HasPrefix(v, "violated") {
			color = colorViolated
		}
		for _, line := range wrap(v, int(width/charW10*10/11), 2) {
			fmt.Fprintf(b, `<text x="%s" y="%s" font-size="11" font-weight="bold" fill="%s">%s</text>`+"\n", num(margin), num(y), color, xmlEscape(line))
			y += 15
		}
	}
	// The legend: one swatch per epoch that occurs, then the marks.
	y += 4
	x := margin
	for e := 0; e <= maxE; e++ {
		fmt.Fprintf(b, `<rect x="%s" y="%s" width="22" height="14" rx="2" fill="%s" stroke="#666" stroke-width="0.5"/>`, num(x), num(y-11), epochColor(e))
		fmt.Fprintf(b, `<text x="%s" y="%s" text-anchor="middle">e%d</text>`+"\n", num(x+11), num(y), e)
		x += 26
	}
	x += 8
	items := []struct {
		mark func(x float64)
		text string
	}{
		{func(x float64) {
			fmt.Fprintf(b, `<text x="%s" y="%s" text-anchor="middle">m3</text>`, num(x+8), num(y))
		}, "record id 3, coloured by its epoch"},
		{func(x float64) {
			fmt.Fprintf(b, `<circle cx="%s" cy="%s" r="2.4" fill="%s"/>`, num(x+8), num(y-4), colorText)
		}, "acknowledged"},
		{func(x float64) {
			fmt.Fprintf(b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="3"/>`, num(x+8), num(y-12), num(x+8), num(y+3), colorHW)
		}, "HW"},
		{func(x float64) {
			fmt.Fprintf(b, `<rect x="%s" y="%s" width="16" height="4" fill="%s" stroke="#444" stroke-width="0.5"/>`, num(x), num(y-5), epochColor(0))
		}, "epoch cache"},
		{func(x float64) {
			fmt.Fprintf(b, `<rect x="%s" y="%s" width="16" height="13" fill="%s"/>`, num(x), num(y-10), colorChanged)
		}, "changed"},
		{func(x float64) {
			fmt.Fprintf(b, `<rect x="%s" y="%s" width="16" height="13" fill="none" stroke="%s" stroke-width="2"/>`, num(x), num(y-10), colorViolated)
		}, "invariant violated"},
	}
	for _, it := range items {
		w := 20 + float64(len([]rune(it.text)))*charW10
		if x+w > margin+width {
			x, y = margin, y+20
		}
		it.mark(x)
		fmt.Fprintf(b, `<text x="%s" y="%s">%s</text>`+"\n", num(x+20), num(y), xmlEscape(it.text))
		x += w + 14
	}
	return y + 14
}

// verdictLine summarizes the checked invariants over the whole trace.
func verdictLine(cfg *model.Config, t trace.Trace, invs []string) string {
	var known []string
	for _, n := range invs {
		if _, ok := model.Invariants[n]; ok {
			known = append(known, n)
		}
	}
	if len(known) == 0 {
		return ""
	}
	first := map[string]int{}
	var order []string
	for i := range t.Steps {
		for _, n := range violatedNames(cfg, &t.Steps[i].State, known) {
			if _, seen := first[n]; !seen {
				first[n] = i
				order = append(order, n)
			}
		}
	}
	if len(order) == 0 {
		return fmt.Sprintf("all %d checked invariants hold at every step", len(known))
	}
	parts := make([]string, len(order))
	for i, n := range order {
		parts[i] = fmt.Sprintf("%s (from step %d)", n, first[n])
	}
	return "violated: " + strings.Join(parts, ", ")
}

func controllerLine(s *model.State) string {
	isr := make([]string, len(s.CtrlIsr))
	for i, r := range s.CtrlIsr {
		isr[i] = string(r)
	}
	if s.CtrlLeader == model.None {
		return "controller: no leader yet"
	}
	return fmt.Sprintf("controller: leader %s, e%d, ISR {%s}", s.CtrlLeader, s.CtrlEpoch, strings.Join(isr, ","))
}

func roleLabel(s *model.State, r int) string {
	role := ""
	switch s.Role[r] {
	case model.Leader:
		role = "leader"
	case model.Follower:
		role = "follower"
		if s.FetchState[r] == model.Truncating {
			role = "truncating"
		}
	case model.Starting:
		role = "starting"
	case model.Offline:
		role = "offline"
	}
	if s.LeaderEpoch[r] >= 0 {
		role += fmt.Sprintf(" e%d", s.LeaderEpoch[r])
	}
	return role
}

func drawPanel(b *bytes.Buffer, cfg *model.Config, l layout, x, y, h float64, headN, maxLEO int) {
	s := l.state
	frame, width, fill := colorFrame, "1", "#fcfcfc"
	if l.alarm {
		frame, width, fill = colorViolated, "2.5", "#fff6f6"
	}
	fmt.Fprintf(b, `<g transform="translate(%s,%s)">`+"\n", num(x), num(y))
	fmt.Fprintf(b, `<rect width="%s" height="%s" rx="4" fill="%s" stroke="%s" stroke-width="%s"/>`+"\n", num(l.width), num(h), fill, frame, width)
	ty := pad + 9
	for i, line := range l.head {
		style := ""
		if i < l.nNote {
			style = ` font-style="italic" fill="` + colorMuted + `"`
		}
		fmt.Fprintf(b, `<text x="%s" y="%s" xml:space="preserve"%s>%s</text>`+"\n", num(pad), num(ty), style, xmlEscape(line))
		ty += lineH
	}
	// Offsets above the cells.
	top := pad + float64(headN)*lineH + 4
	for o := range maxLEO {
		fmt.Fprintf(b, `<text x="%s" y="%s" font-size="9" fill="%s" text-anchor="middle">%d</text>`, num(labelW+float64(o)*cellW+cellW/2-1), num(top+9), colorMuted, o)
	}
	b.WriteString("\n")
	for r, name := range cfg.Replicas {
		drawReplica(b, s, r, string(name), top+12+float64(r)*rowH, l.p.changed[r], maxLEO)
	}
	fy := top + 12 + float64(cfg.N())*rowH + 9
	for i, line := range l.foot {
		attr := ` fill="` + colorMuted + `"`
		switch {
		case l.still > 0 && i >= l.still:
			attr = ` fill="` + colorViolated + `"`
		case i > 0:
			attr = ` fill="` + colorViolated + `" font-weight="bold"`
		}
		fmt.Fprintf(b, `<text x="%s" y="%s" xml:space="preserve"%s>%s</text>`+"\n", num(pad), num(fy), attr, xmlEscape(line))
		fy += lineH
	}
	b.WriteString("</g>\n")
}

func drawReplica(b *bytes.Buffer, s *model.State, r int, name string, y float64, changed bool, maxLEO int) {
	if changed {
		fmt.Fprintf(b, `<rect x="%s" y="%s" width="%s" height="%s" rx="2" fill="%s"/>`, num(pad-3), num(y), num(labelW-pad-2), num(cellH+4), colorChanged)
	}
	weight := ""
	if changed {
		weight = ` font-weight="bold"`
	}
	fmt.Fprintf(b, `<text x="%s" y="%s" font-size="11"%s>%s</text>`, num(pad), num(y+15), weight, xmlEscape(name))
	fmt.Fprintf(b, `<text x="%s" y="%s">%s</text>`+"\n", num(pad+22), num(y+15), xmlEscape(roleLabel(s, r)))
	opacity := ""
	if !s.Up(r) {
		// A crashed broker keeps its durable log and cache: drawn faded.
		opacity = ` opacity="0.4"`
	}
	fmt.Fprintf(b, `<g%s>`, opacity)
	acked := func(o, id int) bool { return slices.Contains(s.Acked, model.OffsetID{Offset: o, ID: id}) }
	for o, rec := range s.Log[r] {
		cx := labelW + float64(o)*cellW
		fmt.Fprintf(b, `<rect x="%s" y="%s" width="%s" height="%s" rx="2" fill="%s" stroke="#555" stroke-width="0.6"/>`,
			num(cx), num(y+2), num(cellW-2), num(cellH), epochColor(rec.Epoch))
		fmt.Fprintf(b, `<text x="%s" y="%s" text-anchor="middle">m%d</text>`, num(cx+cellW/2-1), num(y+15), rec.ID)
		if acked(o, rec.ID) {
			fmt.Fprintf(b, `<circle cx="%s" cy="%s" r="2" fill="%s"/>`, num(cx+cellW-6), num(y+5.5), colorText)
		}
	}
	// The epoch cache: each entry spans from its start to the next one's
	// (or the LEO); an entry that starts at the LEO is a flag.
	c := s.EpochCache[r]
	for k, e := range c {
		end := s.LEO(r)
		if k+1 < len(c) {
			end = c[k+1].Start
		}
		ex := labelW + float64(e.Start)*cellW
		if end > e.Start {
			fmt.Fprintf(b, `<rect x="%s" y="%s" width="%s" height="4" fill="%s" stroke="#444" stroke-width="0.5"/>`,
				num(ex), num(y+cellH+4), num(float64(end-e.Start)*cellW-2), epochColor(e.Epoch))
		} else {
			fmt.Fprintf(b, `<path d="M%s %sl5 4l-5 4z" fill="%s" stroke="#444" stroke-width="0.5"/>`, num(ex), num(y+cellH+1), epochColor(e.Epoch))
		}
	}
	b.WriteString("</g>")
	info := fmt.Sprintf("leo %d ckpt %d", s.LEO(r), s.HwCheckpoint[r])
	if s.Up(r) {
		hx := labelW + float64(s.Hw[r])*cellW - 1
		fmt.Fprintf(b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="3"/>`, num(hx), num(y-1), num(hx), num(y+cellH+5), colorHW)
		info = fmt.Sprintf("leo %d hw %d ckpt %d", s.LEO(r), s.Hw[r], s.HwCheckpoint[r])
	}
	fmt.Fprintf(b, `<text x="%s" y="%s" fill="%s">%s</text>`+"\n", num(labelW+float64(maxLEO)*cellW+6), num(y+15), colorMuted, info)
}
