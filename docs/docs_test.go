// Package docs holds the project's documentation; this test keeps
// docs/correctness.md honest: every check it names exists, its generated
// tables and pictures are current, the lemma numbers its prose quotes are
// the ones traces/lemmas.json records, and its links lead somewhere.
package docs

import (
	"bytes"
	"cmp"
	"flag"
	"fmt"
	"github.com/hwepoch/hwepoch/trace"
	"github.com/hwepoch/hwepoch/trace/itf"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hwepoch/hwepoch/impl/broker"
	"github.com/hwepoch/hwepoch/internal/deviation"
	"github.com/hwepoch/hwepoch/internal/explorerruns"
	"github.com/hwepoch/hwepoch/internal/lemmas"
	"github.com/hwepoch/hwepoch/internal/tlc"
	"github.com/hwepoch/hwepoch/internal/verify"
	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/model/tlccfg"
	"github.com/hwepoch/hwepoch/render"
	"github.com/hwepoch/hwepoch/trace/scenario"
	"github.com/hwepoch/hwepoch/trace/tlcjson"
)

var update = flag.Bool("update", false, "rewrite the generated parts of docs/correctness.md and its docs/img/tlc-*.svg pictures")

const (
	root = ".."
	doc  = "correctness.md"
)

func readDoc(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// testFuncs are the names of every Test function in the repository.
func testFuncs(t *testing.T) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && p != root || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Recv == nil && strings.HasPrefix(fn.Name.Name, "Test") {
				out[fn.Name.Name] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// commands are the verbs cmd/hwepoch registers: register("NAME", ...).
func commands(t *testing.T) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	fset := token.NewFileSet()
	files, _ := filepath.Glob(filepath.Join(root, "cmd", "hwepoch", "*.go"))
	for _, p := range files {
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) == 0 {
				return true
			}
			if id, ok := call.Fun.(*ast.Ident); ok && id.Name == "register" {
				if lit, ok := call.Args[0].(*ast.BasicLit); ok {
					name, _ := strconv.Unquote(lit.Value)
					out[name] = true
				}
			}
			return true
		})
	}
	if len(out) == 0 {
		t.Fatal("found no registered commands in cmd/hwepoch")
	}
	return out
}

var (
	codeSpan  = regexp.MustCompile("`([^`\n]+)`")
	testName  = regexp.MustCompile(`^Test[A-Z]\w*$`)
	lemmaName = regexp.MustCompile(`^L\d[a-z]?$`)
	kebab     = regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)+$`)
	command   = regexp.MustCompile(`^(?:go run \./cmd/hwepoch|hwepoch) ([a-z]+)`)
	mdLink    = regexp.MustCompile(`\]\(([^)#\s]+)(#[^)]*)?\)`)
	pathLike  = regexp.MustCompile(`^(spec|traces|docs|internal|model|impl|refine|cmd|render|trace)/[\w./*-]*$`)
)

// kafkaNames are hyphenated names that are Kafka's, not ours.
var kafkaNames = []string{"leader-epoch-checkpoint", "replication-offset-checkpoint"}

// TestChecksNamedExist: every check docs/correctness.md names exists —
// test functions (by name, anywhere in the repository), configurations of
// spec/manifest.json and scenarios of traces/scenarios (any hyphenated
// name in a code span), lemmas of internal/lemmas, hwepoch commands,
// repository paths, and the files its links point at.
func TestChecksNamedExist(t *testing.T) {
	text := readDoc(t)
	tests, cmds := testFuncs(t), commands(t)
	_, man := specManifest(t)
	scs, err := scenario.LoadDir(filepath.Join(root, "traces", "scenarios"))
	if err != nil {
		t.Fatal(err)
	}
	isScenario := func(n string) bool {
		return slices.ContainsFunc(scs, func(s scenario.Scenario) bool { return s.Name == n })
	}
	counts := map[string]int{}
	for _, m := range codeSpan.FindAllStringSubmatch(text, -1) {
		span := m[1]
		switch {
		case testName.MatchString(span):
			counts["test"]++
			if !tests[span] {
				t.Errorf("`%s`: no test function of that name in the repository", span)
			}
		case lemmaName.MatchString(span):
			counts["lemma"]++
			if _, ok := lemmas.Find(span); !ok {
				t.Errorf("`%s`: no such lemma in internal/lemmas", span)
			}
		case command.MatchString(span):
			counts["command"]++
			if c := command.FindStringSubmatch(span)[1]; !cmds[c] {
				t.Errorf("`%s`: hwepoch has no command %q", span, c)
			}
		case kebab.MatchString(span):
			counts["config/scenario"]++
			if _, ok := man.Lookup(span); !ok && !isScenario(span) && !slices.Contains(kafkaNames, span) &&
				!slices.Contains(broker.Mutants, broker.Mutant(span)) && !slices.Contains(model.Mutants, model.Mutant(span)) {
				t.Errorf("`%s`: neither a configuration of spec/manifest.json, a scenario of traces/scenarios nor a mutant of impl/broker or model", span)
			}
		case pathLike.MatchString(span):
			counts["path"]++
			if ms, _ := filepath.Glob(filepath.Join(root, span)); len(ms) == 0 {
				t.Errorf("`%s`: no such file or directory", span)
			}
		case model.Invariants[span] != nil || model.Properties[span] != nil:
			counts["invariant"]++
		}
	}
	for _, m := range mdLink.FindAllStringSubmatch(text, -1) {
		target := m[1]
		if strings.Contains(target, "://") {
			continue
		}
		counts["link"]++
		if _, err := os.Stat(target); err != nil {
			t.Errorf("link (%s): %v", target, err)
		}
	}
	t.Logf("checked names: %v", counts)
	for _, kind := range []string{"test", "lemma", "command", "config/scenario", "path", "link"} {
		if counts[kind] == 0 {
			t.Errorf("docs/correctness.md names no %s: the test would check nothing", kind)
		}
	}
}

// generated replaces (with -update) or checks the text between the markers
// "<!-- NAME:begin ... -->" and "<!-- NAME:end -->".
func generated(t *testing.T, name, want, how string) {
	t.Helper()
	generatedIn(t, doc, name, want, how)
}

// generatedIn is generated for the document file (in docs/).
func generatedIn(t *testing.T, file, name, want, how string) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	begin, end := "<!-- "+name+":begin", "<!-- "+name+":end -->"
	i, j := strings.Index(text, begin), strings.Index(text, end)
	if i < 0 || j < i {
		t.Fatalf("docs/%s lacks the %s ... %s markers", file, begin, end)
	}
	k := i + strings.Index(text[i:], "\n") + 1
	if text[k:j] == want {
		return
	}
	if *update {
		if err := os.WriteFile(file, []byte(text[:k]+want+text[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("docs/%s: the %s table is stale (%s); regenerate it with go test ./docs -update\n got:\n%s\nwant:\n%s", file, name, how, text[k:j], want)
}

// TestDeviationTableIsCurrent: docs/spec.md's table of the deviation checks
// is traces/deviations.json's (hwepoch deviations -record).
func TestDeviationTableIsCurrent(t *testing.T) {
	recs, err := deviation.LoadRecords(deviation.RecordPath(filepath.Join(root, "spec")))
	if err != nil {
		t.Fatal(err)
	}
	generatedIn(t, "spec.md", "deviation-checks", deviation.RecordsMarkdown(recs), "from traces/deviations.json")
}

// TestLemmaTableIsCurrent: the lemmas along every scenario case, as
// `hwepoch lemmas -table` prints them.
func TestLemmaTableIsCurrent(t *testing.T) {
	scs, err := scenario.LoadDir(filepath.Join(root, "traces", "scenarios"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := lemmas.ScenarioTable(scs)
	if err != nil {
		t.Fatal(err)
	}
	generated(t, "lemmas-along-scenarios", want, "hwepoch lemmas -table")
}

// TestTLCTraceLemmaTableIsCurrent: the lemmas along each counterexample
// TLC exported (traces/tlc/NAME.json of a violated configuration).
func TestTLCTraceLemmaTableIsCurrent(t *testing.T) {
	_, man := specManifest(t)
	var b strings.Builder
	b.WriteString("| TLC trace | policy | states | violates (at the last state) | lemmas broken (first step) |\n|---|---|---|---|---|\n")
	for _, e := range man.Configs {
		if e.Expect != "violated" || e.Kind != "counterexample" {
			continue
		}
		rel := "traces/tlc/" + e.Name + ".json"
		chk, err := tlccfg.LoadCheck(man.CfgPath(e))
		if err != nil {
			t.Fatal(err)
		}
		if chk.Live {
			continue // a lasso breaks a liveness property, not a lemma (section 8)
		}
		var tr trace.Trace
		if e.NoTLCRun() != "" {
			// No TLC run (the manifest says why): the explorer's
			// counterexample, kept under traces/explorer/counterexamples.
			rel = "traces/explorer/counterexamples/" + e.Name + ".itf.json"
			tr, err = itf.ReadFile(filepath.Join(root, rel), &chk.Config)
		} else {
			tr, err = tlcjson.Load(filepath.Join(root, rel), &chk.Config, e.Name)
		}
		if err != nil {
			t.Fatalf("%v (the counterexample exported for %s)", err, e.Name)
		}
		var parts []string
		for _, x := range lemmas.AlongTrace(&chk.Config, tr) {
			parts = append(parts, fmt.Sprintf("%s (%d)", x.Lemma, x.Step))
		}
		broken := strings.Join(parts, ", ")
		if broken == "" {
			broken = "none"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %d | %s | %s |\n", rel, chk.Config.Truncation, tr.Len(), e.Property, broken)
	}
	generated(t, "lemmas-along-tlc-traces", b.String(), "the lemmas judged along traces/tlc/*.json")
}

// TestConfigurationTableIsCurrent: every configuration of the manifest
// with its bounds, what it must give, and what TLC recorded.
func TestConfigurationTableIsCurrent(t *testing.T) {
	spec, man := specManifest(t)
	runs, note, err := verify.LoadRuns(man, verify.RunsFile(spec))
	if err != nil {
		t.Fatal(err)
	}
	exRuns, _, err := verify.LoadExplorerRuns(explorerruns.Path(spec))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("| configuration | policy | release | replicas | acks | min ISR | fencing | unclean | unflushed | records, epochs, crashes | must | TLC recorded |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	yes := func(v bool) string {
		if v {
			return "yes"
		}
		return "no"
	}
	for _, e := range man.Configs {
		chk, err := tlccfg.LoadCheck(man.CfgPath(e))
		if err != nil {
			t.Fatal(err)
		}
		c := chk.Config
		reps := fmt.Sprint(c.N())
		if chk.Symmetry {
			reps += " (symmetry)"
		}
		rec := "not recorded (`hwepoch tlc " + e.Name + "`)"
		if why := e.NoTLCRun(); why != "" {
			rec = "no TLC run: " + why
			reduced := ""
			if e.Reduce != "" {
				reduced = " under the " + e.Reduce + "-message reduction (the quotient's count)"
			}
			if r, ok := exRuns.Get(e.Name); ok && r.Verdict == "holds" {
				rec += fmt.Sprintf("; the explorer%s: holds, %d states, depth %d, %.0f s", reduced, r.DistinctStates, r.Depth, r.Seconds)
			} else if ok {
				rec += fmt.Sprintf("; the explorer: violated %s, trace of %d states", r.Property, r.TraceLength)
			}
		} else if note != "" {
			rec = "not comparable: runs.json is for another spec version"
		} else if r, ok := runs.Exhaustive(e.Name); ok {
			if r.Verdict == "holds" {
				rec = fmt.Sprintf("holds: %d states, depth %d, %.0f s", r.DistinctStates, r.Depth, r.Seconds)
			} else {
				rec = fmt.Sprintf("violated %s: trace of %d states", r.Property, r.TraceLength)
			}
		}
		bounds := fmt.Sprintf("%d, %d, %d", c.MaxRecords, c.MaxEpoch, c.MaxCrashes)
		if c.Rel().AsyncIsr {
			bounds += fmt.Sprintf("; ISR proposals below partition epoch %d", c.MaxPartitionEpoch)
		}
		if c.MissedLeaderAndIsr {
			bounds += "; a LeaderAndIsr may be missed"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %d | %s | %s | %s | %s | %s | %s |\n", e.Name, c.Truncation, e.Release, reps, c.Acks,
			c.MinInsyncReplicas, yes(c.Fencing), yes(c.UncleanLeaderElectionEnable), yes(c.UnflushedLoss),
			bounds, verify.Expectation(e), rec)
	}
	generated(t, "configurations", b.String(), "spec/manifest.json, spec/*.cfg and traces/tlc/runs.json")
}

// TestTLCPicturesAreCurrent: each docs/img/tlc-NAME.svg the document shows
// is `hwepoch render -cfg spec/NAME.cfg -svg docs/img/tlc-NAME.svg
// traces/tlc/NAME.json` now.
func TestTLCPicturesAreCurrent(t *testing.T) {
	text := readDoc(t)
	shown := regexp.MustCompile(`\(img/tlc-([a-z0-9-]+)\.svg\)`).FindAllStringSubmatch(text, -1)
	if len(shown) == 0 {
		t.Fatal("docs/correctness.md shows no TLC counterexample")
	}
	for _, m := range shown {
		name := m[1]
		chk, err := tlccfg.LoadCheck(filepath.Join(root, "spec", name+".cfg"))
		if err != nil {
			t.Fatal(err)
		}
		rel := "traces/tlc/" + name + ".json"
		b, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Fatalf("%v (docs/correctness.md shows TLC's trace of %s)", err, name)
		}
		tr, err := tlcjson.Parse(rel, b, &chk.Config, chk.Name)
		if err != nil {
			t.Fatal(err)
		}
		var fresh bytes.Buffer
		opt := render.Options{
			Title:      filepath.Base(rel),
			Subtitle:   fmt.Sprintf("%s, with the constants of %s\n%s", tr.Source, "spec/"+name+".cfg", render.ConfigSummary(&chk.Config)),
			Invariants: chk.Invariants,
		}
		if err := render.SVG(&fresh, &chk.Config, tr, opt); err != nil {
			t.Fatal(err)
		}
		pic := filepath.Join("img", "tlc-"+name+".svg")
		got, err := os.ReadFile(pic)
		switch {
		case err == nil && bytes.Equal(got, fresh.Bytes()):
		case *update:
			if err := os.WriteFile(pic, fresh.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		default:
			t.Errorf("docs/%s is not a fresh render of %s: go run ./cmd/hwepoch render -cfg spec/%s.cfg -svg docs/%s %s (or go test ./docs -update)",
				pic, rel, name, pic, rel)
		}
	}
}

// recording is traces/lemmas.json, the lemma results `hwepoch lemmas
// -record` wrote.
func recording(t *testing.T) *lemmas.Recording {
	t.Helper()
	rec, err := lemmas.LoadRecording(filepath.Join(root, filepath.FromSlash(lemmas.RecordingFile)))
	if err != nil {
		t.Fatalf("%v (record with %s)", err, lemmas.RecordCommand())
	}
	return rec
}

// TestLemmaResultTableIsCurrent: the lemma results of every plan, as
// traces/lemmas.json records them.
func TestLemmaResultTableIsCurrent(t *testing.T) {
	generated(t, "lemma-results", lemmas.ResultTable(recording(t)), "traces/lemmas.json, as hwepoch lemmas -record wrote it")
}

var (
	// A paragraph or list item that begins a lemma's part of the argument:
	// **`L2a` — ...** or - `L4a`: ...; **`L4a`–`L4d` ...** begins a group
	// (no one lemma).
	lemmaStart = regexp.MustCompile("^(?:\\*\\*`(L\\d[a-z]?)`(–`L\\d[a-z]?`)?|- `(L\\d[a-z]?)`:)")
	premiseMet = regexp.MustCompile(`(?i)\bpremise\s+met\s+(?:in|on)\s+(\d+)\s+(?:of\s+(\d+)\s+)?(states|steps)\b`)
	traceOf    = regexp.MustCompile(`(?i)\btrace\s+of\s+(\d+)\s+states\b`)
	bigCount   = regexp.MustCompile(`\b(\d{4,})\s+(?:states|steps)\b`)
)

// lemmaProse is one paragraph or list item about a lemma.
type lemmaProse struct {
	lemma string // "" for a paragraph about a group of lemmas
	text  string
}

// lemmaParagraphs are the paragraphs and list items of docs/correctness.md
// from one that begins with a lemma's name (**`L1` — ...**, - `L4a`: ...)
// up to the next such, a heading or another bold paragraph.
func lemmaParagraphs(text string) []lemmaProse {
	var units []string
	for _, block := range strings.Split(text, "\n\n") {
		var cur []string
		for _, line := range strings.Split(block, "\n") {
			if strings.HasPrefix(line, "- ") && len(cur) > 0 {
				units = append(units, strings.Join(cur, "\n"))
				cur = nil
			}
			cur = append(cur, line)
		}
		units = append(units, strings.Join(cur, "\n"))
	}
	var out []lemmaProse
	in, lemma := false, ""
	for _, u := range units {
		u = strings.TrimSpace(u)
		switch m := lemmaStart.FindStringSubmatch(u); {
		case m != nil:
			in, lemma = true, m[1]+m[3]
			if m[2] != "" {
				lemma = ""
			}
		case strings.HasPrefix(u, "**") || strings.HasPrefix(u, "#") || strings.HasPrefix(u, "|") || strings.HasPrefix(u, "<!--"):
			in = false
		}
		if in {
			out = append(out, lemmaProse{lemma, u})
		}
	}
	return out
}

// sentences splits a paragraph at a full stop followed by white space.
func sentences(p string) []string {
	var out []string
	start := 0
	for i := 0; i < len(p); i++ {
		if p[i] == '.' && (i+1 == len(p) || p[i+1] == ' ' || p[i+1] == '\n') {
			out = append(out, p[start:i+1])
			start = i + 1
		}
	}
	if strings.TrimSpace(p[start:]) != "" {
		out = append(out, p[start:])
	}
	return out
}

// flat is s with each run of white space (a line break) one space.
func flat(s string) string { return strings.Join(strings.Fields(s), " ") }

// planAt is the plan a number at offset at of sentence s speaks of: the
// last plan named (in a code span) before it in the sentence, else the
// first named after it, else le-fenced-2.
func planAt(s string, at int) string {
	plan, after := "", ""
	for _, m := range codeSpan.FindAllStringSubmatchIndex(s, -1) {
		name := s[m[2]:m[3]]
		if !slices.ContainsFunc(lemmas.Plans, func(p lemmas.Plan) bool { return p.Config == name }) {
			continue
		}
		if m[0] < at {
			plan = name
		} else if after == "" {
			after = name
		}
	}
	switch {
	case plan != "":
		return plan
	case after != "":
		return after
	}
	return "le-fenced-2"
}

// TestLemmaProseNumbers: every number the paragraphs about the lemmas of
// docs/correctness.md quote — "premise met in N states", "premise met on N
// steps", "premise met in N of M states" (M the distinct states), "a trace
// of N states" (a violation's shortest counterexample) — is the one
// traces/lemmas.json records for the lemma of the paragraph and the plan
// its sentence names (le-fenced-2 unless it names another). A count of
// thousands of states or steps in another form is reported too, since it
// would go unchecked. When one fails, the recording is the truth: fix the
// prose.
func TestLemmaProseNumbers(t *testing.T) {
	rec := recording(t)
	paras := lemmaParagraphs(readDoc(t))
	checked := map[string]int{}
	for _, p := range paras {
		for _, s := range sentences(p.text) {
			where := func() string {
				if p.lemma == "" {
					return "docs/correctness.md, a paragraph about several lemmas"
				}
				return "docs/correctness.md, `" + p.lemma + "`"
			}
			lookup := func(at int, quote string) (lemmas.PlanRecord, lemmas.LemmaRecord, bool) {
				plan := planAt(s, at)
				if p.lemma == "" {
					t.Errorf("%s: %q: which lemma's number is it? Quote numbers in a lemma's own paragraph", where(), quote)
					return lemmas.PlanRecord{}, lemmas.LemmaRecord{}, false
				}
				pr, ok := rec.Get(plan)
				if !ok {
					t.Errorf("%s: %q is about %s, which traces/lemmas.json does not record (%s)", where(), quote, plan, lemmas.RecordCommand(plan))
					return pr, lemmas.LemmaRecord{}, false
				}
				lr, ok := pr.Lemma(p.lemma)
				if !ok {
					t.Errorf("%s: %q: traces/lemmas.json has no %s on %s", where(), quote, p.lemma, plan)
					return pr, lr, false
				}
				checked[p.lemma]++
				return pr, lr, true
			}
			covered := map[int]bool{}
			for _, m := range premiseMet.FindAllStringSubmatchIndex(s, -1) {
				quote := flat(s[m[0]:m[1]])
				for i := m[0]; i < m[1]; i++ {
					covered[i] = true
				}
				pr, lr, ok := lookup(m[0], quote)
				if !ok {
					continue
				}
				n, _ := strconv.ParseInt(s[m[2]:m[3]], 10, 64)
				unit := s[m[6]:m[7]]
				switch {
				case lr.Verdict != "holds":
					t.Errorf("%s: %q on %s, but traces/lemmas.json records it %s", where(), quote, pr.Config, lr)
				case n != lr.Premise || unit != lr.Unit:
					t.Errorf("%s: %q on %s, but traces/lemmas.json records %d %s: fix the prose (the recording is the truth)", where(), quote, pr.Config, lr.Premise, lr.Unit)
				}
				if m[4] >= 0 {
					if d, _ := strconv.ParseInt(s[m[4]:m[5]], 10, 64); d != pr.Distinct {
						t.Errorf("%s: %q: %s has %d distinct states in traces/lemmas.json: fix the prose", where(), quote, pr.Config, pr.Distinct)
					}
				}
			}
			for _, m := range traceOf.FindAllStringSubmatchIndex(s, -1) {
				quote := flat(s[m[0]:m[1]])
				pr, lr, ok := lookup(m[0], quote)
				if !ok {
					continue
				}
				n, _ := strconv.Atoi(s[m[2]:m[3]])
				switch {
				case lr.Verdict != "violated":
					t.Errorf("%s: %q on %s, but traces/lemmas.json records it %s", where(), quote, pr.Config, lr)
				case n != lr.TraceLength:
					t.Errorf("%s: %q on %s, but traces/lemmas.json records a trace of %d states: fix the prose (the recording is the truth)", where(), quote, pr.Config, lr.TraceLength)
				}
			}
			for _, m := range bigCount.FindAllStringSubmatchIndex(s, -1) {
				if !covered[m[0]] {
					t.Errorf("%s: %q is not in a form this test checks (\"premise met in N states\", \"premise met on N steps\", \"premise met in N of M states\")", where(), flat(s[m[0]:m[1]]))
				}
			}
		}
	}
	t.Logf("%d lemma paragraphs; numbers checked per lemma: %v", len(paras), checked)
	for _, l := range lemmas.All {
		if checked[l.Name] == 0 {
			t.Errorf("docs/correctness.md quotes no recorded number for %s (or this test no longer finds its paragraph)", l.Name)
		}
	}
}

// specManifest finds spec/ and reads its manifest.
func specManifest(t *testing.T) (string, *tlccfg.Manifest) {
	t.Helper()
	spec, err := tlccfg.FindSpecDir(".")
	if err != nil {
		t.Fatal(err)
	}
	man, err := tlccfg.LoadManifest(spec)
	if err != nil {
		t.Fatal(err)
	}
	return spec, man
}

// TestHoldsBoundsAreCurrent: section 6's statement of the bounds every
// "holds" is checked at, per number of replicas, computed from the .cfg
// files of the configurations that must hold (counterexamples and
// witnesses need only reach a violation, so their larger bounds say
// nothing about what holds).
func TestHoldsBoundsAreCurrent(t *testing.T) {
	_, man := specManifest(t)
	// Bounds per replica count, each combination with the configurations
	// checked at it: a maximum over configurations would claim bounds
	// (say two records and a crash at three replicas) no single one has.
	type bounds struct{ records, epoch, crashes int }
	per := map[int]map[bounds][]string{}
	var ns []int
	for _, e := range man.Configs {
		if e.Expect != "holds" {
			continue
		}
		chk, err := tlccfg.LoadCheck(man.CfgPath(e))
		if err != nil {
			t.Fatal(err)
		}
		if chk.Live {
			continue // liveness, with its own table (TestLivenessTableIsCurrent)
		}
		c := chk.Config
		if per[c.N()] == nil {
			per[c.N()] = map[bounds][]string{}
			ns = append(ns, c.N())
		}
		k := bounds{c.MaxRecords, c.MaxEpoch, c.MaxCrashes}
		per[c.N()][k] = append(per[c.N()][k], "`"+e.Name+"`")
	}
	if len(ns) == 0 {
		t.Fatal("the manifest has no configuration that must hold")
	}
	slices.Sort(ns)
	var b strings.Builder
	for _, n := range ns {
		var ks []bounds
		for k := range per[n] {
			ks = append(ks, k)
		}
		slices.SortFunc(ks, func(x, y bounds) int {
			return cmp.Or(cmp.Compare(y.records, x.records), cmp.Compare(y.epoch, x.epoch), cmp.Compare(y.crashes, x.crashes))
		})
		fmt.Fprintf(&b, "- %d replicas:", n)
		for i, k := range ks {
			sep := ";"
			if i == len(ks)-1 {
				sep = "."
			}
			fmt.Fprintf(&b, " %d record(s), leader epochs 0 to %d, %d crash(es) (%s)%s",
				k.records, k.epoch, k.crashes, strings.Join(per[n][k], ", "), sep)
		}
		b.WriteString("\n")
	}
	generated(t, "holds-bounds", b.String(), "the .cfg files of the manifest's holds configurations")
}

// TestLivenessTableIsCurrent: the liveness section's table of the
// manifest's LiveSpec configurations: bounds from the .cfg files, the
// verdict each must give, and TLC's recorded run.
func TestLivenessTableIsCurrent(t *testing.T) {
	_, man := specManifest(t)
	runs, err := tlcjson.LoadRuns(filepath.Join(root, "traces", "tlc"))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("| configuration | release | seeded bug | bounds | properties | expected | TLC found | TLC distinct states |\n|---|---|---|---|---|---|---|---:|\n")
	n := 0
	for _, e := range man.Configs {
		chk, err := man.LoadCheck(e)
		if err != nil {
			t.Fatal(err)
		}
		if !chk.Live {
			continue
		}
		n++
		c := chk.Config
		net := "reliable network"
		if c.LossyNetwork {
			net = "lossy network"
		}
		pe := ""
		if c.Rel().AsyncIsr {
			pe = fmt.Sprintf(", AlterPartition below partition epoch %d", c.MaxPartitionEpoch)
		}
		bounds := fmt.Sprintf("%d replicas, %d record(s), epochs 0-%d, %d crash(es)%s, min.insync.replicas=%d, %s",
			c.N(), c.MaxRecords, c.MaxEpoch, c.MaxCrashes, pe, c.MinInsyncReplicas, net)
		mutant := "-"
		if e.Mutant != "" {
			mutant = "`" + string(e.Mutant) + "`"
		}
		found, distinct := "not recorded", ""
		if r, ok := runs.Exhaustive(e.Name); ok {
			found, distinct = r.Verdict, tlc.Commas(r.DistinctStates)
			if r.Verdict == "violated" {
				found = "violates `" + r.Property + "`"
				distinct += " (stopped at the violation)"
			}
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s | %s | %s |\n", e.Name, e.Release, mutant, bounds,
			strings.Join(chk.LiveProperties, ", "), verifyExpectation(e), found, distinct)
	}
	if n == 0 {
		t.Fatal("the manifest has no liveness configuration")
	}
	generated(t, "liveness-configs", b.String(), "the manifest's LiveSpec configurations and traces/tlc/runs.json")
}

func verifyExpectation(e tlccfg.Entry) string {
	if e.Expect == "violated" {
		return "violates `" + e.Property + "`"
	}
	return "holds"
}
