package viewer

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/hwepoch/hwepoch/impl/broker"
	"github.com/hwepoch/hwepoch/impl/cluster"
	"github.com/hwepoch/hwepoch/internal/viewer/browsertest"
	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/refine"
	"github.com/hwepoch/hwepoch/refine/sim"
)

// shown is what the page shows at a step, read from the DOM.
type shown struct {
	Step     string   `json:"step"`
	Counter  string   `json:"counter"`
	Action   string   `json:"action"`
	Changed  int      `json:"changed"` // log cells highlighted as changed
	Gone     int      `json:"gone"`    // cells drawn as truncated by the step
	Fresh    []string `json:"fresh"`   // invariants marked as broken at this step
	Heads    []string `json:"heads"`   // each replica's header line
	Cycle    bool     `json:"cycle"`
	Mismatch bool     `json:"mismatch"` // the side-by-side table is shown
	Differ   int      `json:"differ"`   // rows of it marked as differing
}

const readShown = `JSON.stringify({
 step: document.body.getAttribute("data-step"),
 counter: document.getElementById("counter").textContent,
 action: document.getElementById("action").textContent,
 changed: document.querySelectorAll("#replicas .cell.chg").length,
 gone: document.querySelectorAll("#replicas .cell.gone").length,
 fresh: Array.from(document.querySelectorAll("#violation .fresh")).map(function (e) { return e.getAttribute("data-inv"); }),
 heads: Array.from(document.querySelectorAll("#replicas .rhead")).map(function (e) { return e.textContent; }),
 cycle: !!document.getElementById("cycle"),
 mismatch: !document.getElementById("mismatch").hidden,
 differ: document.querySelectorAll("#mismatch-table tr.differ").length
})`

func read(t *testing.T, ctx context.Context) shown {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](readShown))
	if err != nil {
		t.Fatal(err)
	}
	var out shown
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func key(t *testing.T, ctx context.Context, k string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.KeyEvent(k)); err != nil {
		t.Fatal(err)
	}
}

// writePage writes p into dir and returns its file URL.
func writePage(t testing.TB, dir, name string, p Page) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := WriteFile(path, p); err != nil {
		t.Fatal(err)
	}
	return "file://" + path
}

func load1(t testing.TB, path string, policy string) Page {
	t.Helper()
	ls, err := Load(path, "", refine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range ls {
		if policy == "" || l.Page.Config.Truncation == policy {
			return l.Page
		}
	}
	t.Fatalf("%s has no case of %s", path, policy)
	return Page{}
}

// expect is what the page must show at step i of p.
func expect(p Page, d data, i int) shown {
	n := len(p.Trace.Steps)
	s := p.Trace.Steps[i].State
	w := shown{Step: fmt.Sprint(i), Counter: fmt.Sprintf("step %d of %d", i, n-1), Fresh: []string{}}
	if p.Loop >= 0 && i >= p.Loop {
		w.Counter += " (in the cycle)"
	}
	w.Action = fmt.Sprintf("%d %s", i, d.Steps[i].Action)
	for r := range p.Config.Replicas {
		if i > 0 {
			old, lg := p.Trace.Steps[i-1].State.Log[r], s.Log[r]
			for o := range lg {
				if o >= len(old) || old[o] != lg[o] {
					w.Changed++
				}
			}
			w.Gone += max(0, len(old)-len(lg))
		}
		h := fmt.Sprintf("leo %d", s.LEO(r))
		if s.Up(r) {
			h += fmt.Sprintf("hw %d", s.Hw[r])
		}
		w.Heads = append(w.Heads, h+fmt.Sprintf("ckpt %d", s.HwCheckpoint[r]))
	}
	for _, v := range d.Steps[i].Violated {
		if v.Fresh {
			w.Fresh = append(w.Fresh, v.Invariant)
		}
	}
	w.Cycle = p.Loop >= 0 && i == n-1
	if m := p.Mismatch; m != nil && m.Step == i {
		w.Mismatch, w.Differ = true, len(d.Mismatch.Differ)
	}
	return w
}

// walk drives the page from its first step to its last with the keyboard
// and checks what it shows at each against the trace.
func walk(t *testing.T, ctx context.Context, p Page) {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, p); err != nil {
		t.Fatal(err)
	}
	d := embedded(t, b.Bytes())
	n := len(p.Trace.Steps)
	key(t, ctx, kb.Home)
	for i := 0; i < n; i++ {
		if i > 0 {
			key(t, ctx, kb.ArrowRight)
		}
		got, want := read(t, ctx), expect(p, d, i)
		if got.Step != want.Step || got.Counter != want.Counter || got.Action != want.Action || got.Changed != want.Changed ||
			got.Gone != want.Gone || !slices.Equal(got.Fresh, want.Fresh) || got.Cycle != want.Cycle ||
			got.Mismatch != want.Mismatch || got.Differ != want.Differ {
			t.Fatalf("step %d: the page shows\n%+v\nwant\n%+v", i, got, want)
		}
		for r, h := range got.Heads {
			if !strings.Contains(strings.ReplaceAll(h, " ", ""), strings.ReplaceAll(want.Heads[r], " ", "")) {
				t.Fatalf("step %d: replica %s's header says %q, want %q in it", i, p.Config.Replicas[r], h, want.Heads[r])
			}
		}
	}
	// The last step is the end: → stays there; ← goes back one; End and
	// Home jump.
	key(t, ctx, kb.ArrowRight)
	if s := read(t, ctx); s.Step != fmt.Sprint(n-1) {
		t.Errorf("→ at the last step went to %s", s.Step)
	}
	key(t, ctx, kb.ArrowLeft)
	if s := read(t, ctx); n > 1 && s.Step != fmt.Sprint(n-2) {
		t.Errorf("← from the last step went to %s, want %d", s.Step, n-2)
	}
	key(t, ctx, kb.Home)
	if s := read(t, ctx); s.Step != "0" {
		t.Errorf("Home went to %s", s.Step)
	}
	key(t, ctx, kb.End)
	if s := read(t, ctx); s.Step != fmt.Sprint(n-1) {
		t.Errorf("End went to %s", s.Step)
	}
}

func open(t *testing.T, ctx context.Context, url string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatal(err)
	}
}

// TestBrowserStepsThroughEveryKind: in headless Chromium, a page of each
// kind of trace steps from its first state to its last by the keyboard,
// and at every step shows the step counter, the action, the log cells the
// step changed or truncated, every replica's LEO, HW and checkpoint, the
// invariant the step breaks, a lasso's cycle and a mismatch's two sides,
// as the trace has them; the console stays free of errors.
func TestBrowserStepsThroughEveryKind(t *testing.T) {
	ctx, con := browsertest.New(t, 1280, 900)
	dir := t.TempDir()
	pages := map[string]Page{
		"tlc-json":     load1(t, filepath.Join(repo, "traces/tlc/hw-acked-loss.json"), ""),
		"tlc-tla":      load1(t, filepath.Join(repo, "traces/tlc/trace_kip101_divergence.tla"), ""),
		"itf":          load1(t, filepath.Join(repo, "traces/regressions/kafka-7128-expand-below-epoch-start.itf.json"), ""),
		"scenario":     load1(t, filepath.Join(repo, "traces/scenarios/kip101-scenario-2.scenario"), model.HighWatermark),
		"chaos-run":    load1(t, writeSim(t, dir), ""),
		"lasso":        load1(t, first(writeLasso(t, dir, false)), ""),
		"chaos-shrunk": shrunkChaos(t),
		"hunt":         huntPage(t),
	}
	mm, err := Load(filepath.Join(repo, "traces/scenarios/kip101-scenario-1.scenario"), "", mutantOpt())
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range mm {
		if l.Page.Mismatch != nil {
			pages["mismatch"] = l.Page
			break
		}
	}
	names := make([]string, 0, len(pages))
	for n := range pages {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			open(t, ctx, writePage(t, dir, name+".html", pages[name]))
			walk(t, ctx, pages[name])
		})
	}
	if errs := con.Errors(); len(errs) > 0 {
		t.Errorf("console errors: %v", errs)
	}
}

// TestBrowserSliderAndHash: the slider moves the page (its own arrow keys
// included, without a double step), and #step=N opens the page at N.
func TestBrowserSliderAndHash(t *testing.T) {
	ctx, con := browsertest.New(t, 1280, 900)
	p := load1(t, filepath.Join(repo, "traces/tlc/hw-acked-loss.json"), "")
	url := writePage(t, t.TempDir(), "p.html", p)
	open(t, ctx, url+"#step=5")
	if s := read(t, ctx); s.Step != "5" {
		t.Fatalf("#step=5 opened step %s", s.Step)
	}
	if err := chromedp.Do(ctx, chromedp.Focus("#slider"), chromedp.KeyEvent(kb.ArrowRight)); err != nil {
		t.Fatal(err)
	}
	if s := read(t, ctx); s.Step != "6" {
		t.Errorf("→ on the slider at 5 went to %s, want 6", s.Step)
	}
	if err := chromedp.Do(ctx, chromedp.SetValue("#slider", "2"), chromedp.Evaluate[chromedp.Void](`document.getElementById("slider").dispatchEvent(new Event("input"))`)); err != nil {
		t.Fatal(err)
	}
	if s := read(t, ctx); s.Step != "2" {
		t.Errorf("the slider set to 2 shows step %s", s.Step)
	}
	if errs := con.Errors(); len(errs) > 0 {
		t.Errorf("console errors: %v", errs)
	}
}

// TestBrowserCatchesAWrongPage: the browser checks above can fail: a page
// whose embedded HW was changed shows another header than the trace.
func TestBrowserCatchesAWrongPage(t *testing.T) {
	ctx, _ := browsertest.New(t, 1280, 900)
	p := load1(t, filepath.Join(repo, "traces/tlc/hw-acked-loss.json"), "")
	var b bytes.Buffer
	if err := Write(&b, p); err != nil {
		t.Fatal(err)
	}
	d := embedded(t, b.Bytes())
	// Step 0 sets every variable: give every replica an HW of 9 there.
	hw := map[string]any{}
	for _, r := range d.Replicas {
		hw[r] = 9
	}
	js, _ := json.Marshal(d.Steps[0].Set["hw"])
	js9, _ := json.Marshal(hw)
	page := strings.Replace(b.String(), `"hw":`+string(js), `"hw":`+string(js9), 1)
	if page == b.String() {
		t.Fatalf("the page has no %s to corrupt", js)
	}
	path := filepath.Join(t.TempDir(), "wrong.html")
	os.WriteFile(path, []byte(page), 0o644)
	open(t, ctx, "file://"+path)
	got, want := read(t, ctx), expect(p, d, 0)
	same := true
	for r := range got.Heads {
		same = same && strings.Contains(strings.ReplaceAll(got.Heads[r], " ", ""), strings.ReplaceAll(want.Heads[r], " ", ""))
	}
	if same {
		t.Errorf("a page with HW 9 at step 0 shows the trace's headers: %v", got.Heads)
	}
}

func mutantOpt() refine.Options {
	return refine.Options{Cluster: func(c *cluster.Config) { c.Mutants = []broker.Mutant{broker.MutantTruncateToHW} }}
}

// huntPage is the page of a counterexample hwepoch hunt -out wrote
// (testdata/hunt: kip101-1 found by the explorer's breadth-first search),
// read with the configuration hunt wrote beside it, as replay -cfg reads it.
func huntPage(t testing.TB) Page {
	t.Helper()
	// Copied out of the repository first, where hunt -out writes: inside
	// it, the ITF's #meta config name is looked up under spec/ (as
	// hwepoch replay -cfg does), and spec/ has no hunt-kip101-1.cfg.
	dir := t.TempDir()
	for _, f := range []string{"kip101-1-bfs.itf.json", "hunt-kip101-1.cfg"} {
		b, err := os.ReadFile(filepath.Join("testdata", "hunt", f))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, f), b, 0o644)
	}
	ls, err := Load(filepath.Join(dir, "kip101-1-bfs.itf.json"), filepath.Join(dir, "hunt-kip101-1.cfg"), refine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return ls[0].Page
}

// shrunkChaos is the longest shrunk failure of a 200-seed HighWatermark
// campaign (hwepoch chaos -seeds 200 -policy HighWatermark: seed 65,
// testdata/seed-65-HighWatermark.sim), shrunk again as chaos shrinks it.
func shrunkChaos(t testing.TB) Page {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "seed-65-HighWatermark.sim"))
	if err != nil {
		t.Fatal(err)
	}
	rf, err := sim.ReadRun(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	rep, err := sim.Replay(rf, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var acts []model.Action
	for _, st := range rep.Trace.Steps[1:] {
		acts = append(acts, st.Action)
	}
	s, err := sim.Shrink(rep.Config, acts)
	if err != nil {
		t.Fatal(err)
	}
	return ChaosPage(s, "seed-65-HighWatermark (shrunk)")
}

// pngOf decodes a screenshot.
func pngOf(t *testing.T, b []byte) image.Image {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return img
}

func first(path string, _ int) string { return path }
