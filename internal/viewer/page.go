package viewer

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/render"
	"github.com/hwepoch/hwepoch/trace"
	"github.com/hwepoch/hwepoch/trace/tlcjson"
)

//go:embed assets/viewer.css
var css string

//go:embed assets/viewer.js
var js string

// Page is one trace to show.
type Page struct {
	Title    string
	Subtitle string // '\n' separates paragraphs
	// Kind says what the file was ("TLC trace (json)", "scenario case",
	// "chaos simulation run", ...).
	Kind string
	// Config and Trace: the trace's states must be the model's (see the
	// package comment); New does not check them, the loader does.
	Config *model.Config
	Trace  trace.Trace
	// Invariants are evaluated on every state; a step that starts
	// violating one is marked.
	Invariants []string
	// Notes maps a step to the comment lines of the phase it begins.
	Notes map[int][]string
	// Loop, when a lasso: the index of the state the cycle returns to
	// after the last state (ITF's "loop"); -1 when the trace is no lasso.
	Loop int
	// Mismatch, if set, is where the implementation departed from the
	// model: the page shows both states side by side there.
	Mismatch *Mismatch
}

// Mismatch is a refinement failure to show.
type Mismatch struct {
	Step int    // index into Trace.Steps
	Side string // "implementation" or "model"
	What string // the checker's sentence
	// Got is the other side's state at Step (the abstraction of the
	// implementation's); nil when there was none to abstract.
	Got *model.State
}

// The page's data, read by assets/viewer.js. Field names are short JSON
// keys; states are in the spec's variable names.
type data struct {
	Title      string              `json:"title"`
	Subtitle   string              `json:"subtitle"`
	Kind       string              `json:"kind"`
	Source     string              `json:"source"`
	Config     string              `json:"config"`
	Policy     string              `json:"policy"`
	Release    string              `json:"release"`
	Replicas   []string            `json:"replicas"`
	Invariants []string            `json:"invariants"`
	Palette    []string            `json:"palette"`
	Colors     map[string]string   `json:"colors"`
	Steps      []step              `json:"steps"`
	Kafka      map[string]KafkaRef `json:"kafka"`
	Loop       int                 `json:"loop"`
	Mismatch   *mismatchData       `json:"mismatch,omitempty"`
}

type step struct {
	Action  string         `json:"action"` // as trace.ActionString writes it; "Init" at 0
	Spec    string         `json:"spec"`   // the TLA+ action's name; "" at 0
	Params  map[string]any `json:"params,omitempty"`
	Caption string         `json:"caption"`
	Note    string         `json:"note,omitempty"`
	// Set holds the variables whose value differs from the previous
	// state's (every variable at step 0).
	Set      map[string]any `json:"set"`
	Violated []violation    `json:"violated,omitempty"`
	// Labels are the pictures' role labels, per replica.
	Labels []string `json:"labels"`
	Ctrl   string   `json:"ctrl"`
}

type violation struct {
	Invariant string `json:"inv"`
	Why       string `json:"why"`
	Fresh     bool   `json:"fresh"` // not violated at the step before
}

type mismatchData struct {
	Step  int            `json:"step"`
	Side  string         `json:"side"`
	What  string         `json:"what"`
	Model map[string]any `json:"model"`
	Got   map[string]any `json:"got,omitempty"`
	// Differ are the variables whose values differ.
	Differ []string `json:"differ"`
}

// values is s as TLC's JSON spells it, by TLA+ variable name.
func values(cfg *model.Config, s model.State) map[string]any {
	return trace.VarsToValues(cfg, s, tlcjson.TLCSpelling{})
}

// canon is v as JSON, for comparing values.
func canon(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // values of VarsToValues always marshal
	}
	return string(b)
}

func (p Page) data() (data, error) {
	if p.Config == nil {
		return data{}, fmt.Errorf("viewer: no configuration")
	}
	if len(p.Trace.Steps) == 0 {
		return data{}, fmt.Errorf("viewer: the trace has no states")
	}
	if p.Loop < -1 || p.Loop >= len(p.Trace.Steps) {
		return data{}, fmt.Errorf("viewer: loop %d is not a state of the trace's %d", p.Loop, len(p.Trace.Steps))
	}
	cfg := p.Config
	rel := cfg.Rel().Release
	d := data{Title: p.Title, Subtitle: p.Subtitle, Kind: p.Kind, Source: p.Trace.Source,
		Config: render.ConfigSummary(cfg), Policy: cfg.Truncation, Release: rel,
		Invariants: p.Invariants, Palette: render.EpochPalette(), Colors: render.Colors(),
		Kafka: map[string]KafkaRef{}, Loop: p.Loop}
	if d.Invariants == nil {
		d.Invariants = []string{}
	}
	for _, r := range cfg.Replicas {
		d.Replicas = append(d.Replicas, string(r))
	}
	var prev map[string]any
	var before []string
	for i, st := range p.Trace.Steps {
		s := st.State
		vals := values(cfg, s)
		x := step{Action: "Init", Set: map[string]any{}, Ctrl: render.ControllerLine(&s)}
		for r := range cfg.Replicas {
			x.Labels = append(x.Labels, render.RoleLabel(&s, r))
		}
		for _, n := range model.VarNames {
			if prev == nil || canon(prev[n]) != canon(vals[n]) {
				x.Set[n] = vals[n]
			}
		}
		if i > 0 {
			a := st.Action
			x.Action = trace.ActionString(a)
			x.Spec = a.Kind.String()
			x.Params = trace.ActionContext(a)
			x.Caption = render.Caption(cfg, &p.Trace.Steps[i-1].State, &s, a)
			if _, ok := d.Kafka[x.Spec]; !ok {
				d.Kafka[x.Spec] = Ref(a.Kind, rel)
			}
		}
		if n := p.Notes[i]; len(n) > 0 {
			x.Note = strings.Join(n, "\n")
		}
		var now []string
		for _, v := range render.Violations(cfg, &s, p.Invariants) {
			fresh := true
			for _, b := range before {
				fresh = fresh && b != v.Invariant
			}
			x.Violated = append(x.Violated, violation{Invariant: v.Invariant, Why: v.Why, Fresh: fresh})
			now = append(now, v.Invariant)
		}
		before = now
		d.Steps = append(d.Steps, x)
		prev = vals
	}
	if m := p.Mismatch; m != nil {
		if m.Step < 0 || m.Step >= len(p.Trace.Steps) {
			return data{}, fmt.Errorf("viewer: the mismatch is at step %d, the trace has %d states", m.Step, len(p.Trace.Steps))
		}
		md := &mismatchData{Step: m.Step, Side: m.Side, What: m.What, Model: values(cfg, p.Trace.Steps[m.Step].State), Differ: []string{}}
		if m.Got != nil {
			md.Got = values(cfg, *m.Got)
			for _, n := range model.VarNames {
				if canon(md.Model[n]) != canon(md.Got[n]) {
					md.Differ = append(md.Differ, n)
				}
			}
		}
		d.Mismatch = md
	}
	return d, nil
}

// Write writes p as one HTML page.
func Write(w io.Writer, p Page) error {
	d, err := p.data()
	if err != nil {
		return err
	}
	var js0 bytes.Buffer
	enc := json.NewEncoder(&js0)
	enc.SetEscapeHTML(true) // "</script>" in a title cannot end the script
	if err := enc.Encode(d); err != nil {
		return err
	}
	var b bytes.Buffer
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	b.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	// No request leaves the page: inline styles and script only.
	b.WriteString("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n")
	fmt.Fprintf(&b, "<title>%s</title>\n<style>\n%s</style>\n</head>\n<body>\n", html.EscapeString(p.Title), minify(css))
	fmt.Fprintf(&b, "<noscript><p>This page draws the trace with JavaScript; the data are in the script element #trace-data.</p></noscript>\n")
	fmt.Fprintf(&b, "<script type=\"application/json\" id=\"trace-data\">\n%s</script>\n", js0.Bytes())
	fmt.Fprintf(&b, "<script>\n%s</script>\n</body>\n</html>\n", minify(js))
	_, err = w.Write(b.Bytes())
	return err
}

// WriteFile writes p to path: to a temporary file in path's directory,
// renamed into place once complete, so that a failure leaves no
// half-written page (and no earlier page overwritten by one).
func WriteFile(path string, p Page) error {
	var b bytes.Buffer
	if err := Write(&b, p); err != nil {
		return err
	}
	return writeAtomic(path, b.Bytes())
}

func writeAtomic(path string, content []byte) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(content)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o644)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// minify drops what a reader of the page's source does not need: leading
// indentation and whole-line comments (assets keep no multi-line strings,
// so this cannot change their meaning). Committed pages under docs/ are
// many; this keeps each one smaller.
func minify(src string) string {
	var b strings.Builder
	for _, line := range strings.Split(src, "\n") {
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "//") || (strings.HasPrefix(t, "/*") && strings.HasSuffix(t, "*/")) {
			continue
		}
		b.WriteString(t)
		b.WriteByte('\n')
	}
	return b.String()
}
