package viewer

import (
	"bytes"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/hwepoch/hwepoch/internal/viewer/browsertest"
	"github.com/hwepoch/hwepoch/model"
)

// The screenshots in docs/img show two pages at the two widths the page
// is made for: a desktop at 1,280 px and a phone at 390 px. The test
// takes them again and compares: the same size exactly, and at most
// maxDiffer of the pixels differing by more than pixelTolerance in a
// channel. Font rasterization differs a little between machines and
// Chromium builds (anti-aliasing at glyph edges), which this absorbs; a
// moved panel, a missing lane or another step shown changes far more.
// go test ./internal/viewer -run TestScreenshots -update rewrites them.
const (
	pixelTolerance = 64
	maxDiffer      = 0.02
)

type shot struct {
	file          string
	width, height int
	page          func(t *testing.T) Page
	step          int // -1: the first step that breaks an invariant
}

var shots = []shot{
	{"viewer-kip101-scenario-1-1280.png", 1280, 900, func(t *testing.T) Page {
		return load1(t, filepath.Join(repo, "traces/scenarios/kip101-scenario-1.scenario"), model.HighWatermark)
	}, -1},
	{"viewer-hw-divergence-390.png", 390, 844, func(t *testing.T) Page {
		return load1(t, filepath.Join(repo, "traces/tlc/hw-divergence.json"), "")
	}, -1},
}

func firstBreak(t *testing.T, p Page) int {
	var b bytes.Buffer
	if err := Write(&b, p); err != nil {
		t.Fatal(err)
	}
	for i, s := range embedded(t, b.Bytes()).Steps {
		for _, v := range s.Violated {
			if v.Fresh {
				return i
			}
		}
	}
	t.Fatal("no step breaks an invariant")
	return 0
}

// TestScreenshots: the pictures in docs/img are what the pages look like
// now (see above), and at each width the page fits: no horizontal
// scrolling of the page itself (wide logs and lanes scroll in their own
// boxes), and the step controls are on screen and big enough to tap.
func TestScreenshots(t *testing.T) {
	for _, sh := range shots {
		t.Run(sh.file, func(t *testing.T) {
			ctx, con := browsertest.New(t, sh.width, sh.height)
			p := sh.page(t)
			step := sh.step
			if step < 0 {
				step = firstBreak(t, p)
			}
			url := writePage(t, t.TempDir(), "p.html", p)
			open(t, ctx, fmt.Sprintf("%s#step=%d", url, step))
			fit, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(function () {
 var d = document.documentElement, out = [];
 if (d.scrollWidth > window.innerWidth) out.push("the page is " + d.scrollWidth + " px wide in a " + window.innerWidth + " px window");
 document.querySelectorAll("nav button, #slider").forEach(function (b) {
  var r = b.getBoundingClientRect();
  if (r.right > window.innerWidth || r.left < 0) out.push((b.title || b.id) + " is off screen");
  if (r.height < 28 || r.width < 28) out.push((b.title || b.id) + " is " + r.width + "x" + r.height + " px");
 });
 if (!document.querySelector("#violation .fresh")) out.push("no broken invariant shown");
 return out.join("; ");
})()`))
			if err != nil {
				t.Fatal(err)
			}
			if fit != "" {
				t.Errorf("at %d px: %s", sh.width, fit)
			}
			png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
			if err != nil {
				t.Fatal(err)
			}
			if errs := con.Errors(); len(errs) > 0 {
				t.Errorf("console errors: %v", errs)
			}
			path := filepath.Join(repo, "docs", "img", sh.file)
			if *update {
				if err := os.WriteFile(path, png, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			old, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v: go test ./internal/viewer -run TestScreenshots -update", err)
			}
			if why := differs(pngOf(t, old), pngOf(t, png)); why != "" {
				t.Errorf("docs/img/%s is stale: %s (go test ./internal/viewer -run TestScreenshots -update)", sh.file, why)
			}
		})
	}
}

// differs says how two screenshots differ beyond rendering noise, or "".
func differs(a, b image.Image) string {
	if a.Bounds() != b.Bounds() {
		return fmt.Sprintf("%v, now %v", a.Bounds().Size(), b.Bounds().Size())
	}
	if f := differing(a, b); f > maxDiffer {
		return fmt.Sprintf("%.2f%% of the pixels differ (at most %.2f%% may)", 100*f, 100*maxDiffer)
	}
	return ""
}

// differing is the fraction of pixels that differ by more than
// pixelTolerance in some channel.
func differing(a, b image.Image) float64 {
	r := a.Bounds()
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			r1, g1, b1, _ := a.At(x, y).RGBA()
			r2, g2, b2, _ := b.At(x, y).RGBA()
			d := max(absDiff(r1, r2), absDiff(g1, g2), absDiff(b1, b2)) >> 8
			if d > pixelTolerance {
				n++
			}
		}
	}
	return float64(n) / float64(r.Dx()*r.Dy())
}

func absDiff(a, b uint32) uint32 {
	if a > b {
		return a - b
	}
	return b - a
}

// TestScreenshotCompareBites: the comparison sees a page at another step.
func TestScreenshotCompareBites(t *testing.T) {
	ctx, _ := browsertest.New(t, 1280, 900)
	p := shots[0].page(t)
	url := writePage(t, t.TempDir(), "p.html", p)
	take := func(step int) image.Image {
		open(t, ctx, fmt.Sprintf("%s#step=%d", url, step))
		b, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatal(err)
		}
		return pngOf(t, b)
	}
	a, b, c := take(firstBreak(t, p)), take(firstBreak(t, p)), take(1)
	if why := differs(a, b); why != "" {
		t.Errorf("the same step twice differs: %s", why)
	}
	if differs(a, c) == "" {
		t.Errorf("step 1 and the breaking step compare equal (%.2f%% of pixels differ)", 100*differing(a, c))
	}
}

// BenchmarkPageLoad prints how long headless Chromium takes to load and
// draw the pages of the longest shrunk chaos failure (seed 65 of a
// 200-seed HighWatermark campaign, 87 steps) and of the largest TLC
// counterexample in traces/tlc (le-unfenced-2.json): from navigation to
// the first step drawn. Run: go test ./internal/viewer -run '^$' -bench PageLoad
func BenchmarkPageLoad(b *testing.B) {
	pages := []struct {
		name string
		page func(tb testing.TB) Page
	}{
		{"chaos-seed-65-shrunk", shrunkChaos},
		{"tlc-le-unfenced-2", func(tb testing.TB) Page {
			return load1(tb, filepath.Join(repo, "traces/tlc/le-unfenced-2.json"), "")
		}},
	}
	ctx, _ := browsertest.New(b, 1280, 900)
	for _, pg := range pages {
		p := pg.page(b)
		url := writePage(b, b.TempDir(), pg.name+".html", p)
		st, _ := os.Stat(url[len("file://"):])
		b.Run(pg.name, func(b *testing.B) {
			var worst time.Duration
			for b.Loop() {
				b.StopTimer()
				if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				start := time.Now()
				if err := chromedp.Do(ctx, chromedp.Navigate(url), chromedp.WaitVisible("#replicas .replica")); err != nil {
					b.Fatal(err)
				}
				worst = max(worst, time.Since(start))
			}
			b.ReportMetric(float64(worst.Milliseconds()), "worst-ms")
			b.Logf("%s: %d steps, %d bytes: loaded and drawn in %v at worst", pg.name, len(p.Trace.Steps)-1, st.Size(), worst)
		})
	}
}
