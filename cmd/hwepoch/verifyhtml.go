package main

import (
	"bytes"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/hwepoch/hwepoch/internal/verify"
	"github.com/hwepoch/hwepoch/internal/viewer"
	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/refine"
)

// allInvariants are every invariant of the spec: a verify counterexample's
// page marks whichever it breaks.
func allInvariants() []string {
	var out []string
	for n := range model.Invariants {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// writeVerifyHTML writes verify's result as DIR/index.html (every stage
// and check with its verdict) and a page per counterexample, witness and
// failure: a trace's page as hwepoch view writes it (the explorer's and
// the checks' counterexamples replayed on the model first, TLC's traces
// read and replayed as replay does); a failure that is text, as text.
// Pages are written whole or not at all (temporary file, rename).
func writeVerifyHTML(dir, runsDir string, rows []verify.Row) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	links := make([][]string, len(rows)) // per row: "href|label"
	used := map[string]bool{}
	name := func(s string) string {
		base := strings.Trim(unsafeName.ReplaceAllString(s, "-"), "-")
		if len(base) > 80 {
			base = base[:80]
		}
		n := base + ".html"
		for k := 2; used[n]; k++ {
			n = fmt.Sprintf("%s-%d.html", base, k)
		}
		used[n] = true
		return n
	}
	invs := allInvariants()
	for i, r := range rows {
		if r.Stage == "tlc-trace" && (strings.HasSuffix(r.Item, ".json") || strings.HasSuffix(r.Item, ".tla")) {
			pages, err := viewer.Load(filepath.Join(runsDir, r.Item), "", refine.Options{})
			if err == nil {
				for _, l := range pages {
					n := name("tlc-" + strings.TrimSuffix(l.Name, ".html"))
					if err := viewer.WriteFile(filepath.Join(dir, n), l.Page); err != nil {
						return err
					}
					links[i] = append(links[i], n+"|trace")
				}
			} else {
				n := name("tlc-" + r.Item + "-refused")
				if err := textPage(filepath.Join(dir, n), r.Item, err.Error()); err != nil {
					return err
				}
				links[i] = append(links[i], n+"|refused")
			}
		}
		c := r.Counterexample
		if c == nil {
			continue
		}
		if c.Config != nil && c.Trace.Len() > 0 {
			states, err := refine.ReplayModel(c.Config, c.Trace, refine.Options{})
			if err == nil {
				tr := c.Trace
				tr.Steps = append(tr.Steps[:0:0], tr.Steps...)
				for k := range tr.Steps {
					tr.Steps[k].State = states[k]
				}
				n := name(r.Stage + "-" + r.Item + "-" + r.Policy)
				p := viewer.Page{Title: c.Title, Subtitle: fmt.Sprintf("hwepoch verify, stage %s: %s; expected %s, found %s", r.Stage, r.Item, r.Expected, r.Found),
					Kind: "verify counterexample", Config: c.Config, Trace: tr, Invariants: invs, Loop: -1}
				if tr.Lasso {
					p.Loop = tr.Loop // a liveness counterexample: its cycle marked
				}
				if err := viewer.WriteFile(filepath.Join(dir, n), p); err != nil {
					return err
				}
				links[i] = append(links[i], n+"|counterexample")
				continue
			}
		}
		var b bytes.Buffer
		c.Write(&b)
		n := name(r.Stage + "-" + r.Item + "-" + r.Policy + "-text")
		if err := textPage(filepath.Join(dir, n), c.Title, b.String()); err != nil {
			return err
		}
		label := "evidence"
		if r.Status == verify.Fail {
			label = "failure"
		}
		links[i] = append(links[i], n+"|"+label)
	}
	var b bytes.Buffer
	pass, fail, skipped := verify.Count(rows)
	b.WriteString(`<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>hwepoch verify</title><style>
body{font:13px/1.4 "DejaVu Sans Mono",Menlo,Consolas,monospace;margin:12px 16px;color:#222}
table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:2px 6px;text-align:left;vertical-align:top}
tr.fail td{background:#fde0e0}tr.skipped td{color:#666}.mark{font-weight:bold}
</style></head><body>
`)
	fmt.Fprintf(&b, "<h1>hwepoch verify</h1>\n<p id=\"counts\">%d checks as expected, %d not, %d skipped</p>\n", pass, fail, skipped)
	b.WriteString("<table id=\"checks\"><tr><th>stage</th><th>item</th><th>policy</th><th>states/steps</th><th>depth</th><th>expected</th><th>found</th><th></th><th>pages</th></tr>\n")
	for i, r := range rows {
		cls := map[verify.Status]string{verify.Pass: "pass", verify.Fail: "fail", verify.Skipped: "skipped"}[r.Status]
		fmt.Fprintf(&b, "<tr class=\"%s\">", cls)
		for _, s := range []string{r.Stage, r.Item, r.Policy, r.Size, r.Depth, r.Expected, r.Found} {
			fmt.Fprintf(&b, "<td>%s</td>", html.EscapeString(s))
		}
		fmt.Fprintf(&b, "<td class=\"mark\">%s</td><td>", r.Status.Mark())
		for k, l := range links[i] {
			href, label, _ := strings.Cut(l, "|")
			if k > 0 {
				b.WriteString(" ")
			}
			fmt.Fprintf(&b, "<a href=\"%s\">%s</a>", html.EscapeString(href), html.EscapeString(label))
		}
		b.WriteString("</td></tr>\n")
	}
	b.WriteString("</table>\n</body></html>\n")
	return writeFileAtomic(filepath.Join(dir, "index.html"), b.Bytes())
}

// textPage writes a failure that is not a trace as an HTML page.
func textPage(path, title, text string) error {
	body := fmt.Sprintf("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>%s</title></head><body><h1 style=\"font:bold 15px monospace\">%s</h1><pre style=\"white-space:pre-wrap\">%s</pre><p><a href=\"index.html\">every check</a></p></body></html>\n",
		html.EscapeString(title), html.EscapeString(title), html.EscapeString(text))
	return writeFileAtomic(path, []byte(body))
}

func writeFileAtomic(path string, b []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(b)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}
