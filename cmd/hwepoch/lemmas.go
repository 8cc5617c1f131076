package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/hwepoch/hwepoch/internal/lemmas"
	"github.com/hwepoch/hwepoch/internal/verify"
	"github.com/hwepoch/hwepoch/model/tlccfg"
	"github.com/hwepoch/hwepoch/trace/scenario"
	"github.com/hwepoch/hwepoch/trace/tlcjson"
)

func init() {
	register("lemmas", "check the lemmas of docs/correctness.md on every reachable state of a configuration", runLemmas)
}

func runLemmas(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("lemmas", flag.ContinueOnError)
	fl.SetOutput(stderr)
	all := fl.Bool("all", false, "every plan, including the ones that take a minute or more")
	table := fl.Bool("table", false, "print the Markdown table of the lemmas along every scenario case (docs/correctness.md) and nothing else")
	quiet := fl.Bool("q", false, "no progress lines on stderr")
	record := fl.Bool("record", false, "record the results of the plans run in "+lemmas.RecordingFile+" (replacing their earlier records)")
	fl.Usage = func() {
		fmt.Fprint(stderr, `usage: hwepoch lemmas [-all] [-record] [CONFIG ...]
       hwepoch lemmas -table

Checks the lemmas that the correctness argument for LeaderEpoch truncation
rests on (docs/correctness.md; internal/lemmas), written in Go over the
model's states: the whole state graph of each configuration is explored
breadth first at the configuration's own bounds and every lemma is judged
on every state and step. Each configuration has a plan saying which lemmas
must hold there and which must be violated (where the protocol is broken,
so that the checks are seen to bite). Prints a table and every violation,
one line per replica per step.

Without CONFIG: the plans not marked big; with -all: every plan.
`)
		fmt.Fprint(stderr, wrap("", planTimes(), wrapColumns, ""))
		fmt.Fprint(stderr, `Progress goes to stderr every few seconds (-q: none).

With -record, each plan's result — distinct states, steps, depth, and per
lemma the number of states or steps where its premise was met (when it
holds) or the length of its shortest counterexample (when it is violated),
with the SHA-256s of spec/Replication.tla and spec/CONFIG.cfg — replaces
that plan's record in `+lemmas.RecordingFile+` as soon as the plan is done
(the search is deterministic, so only a change of the spec, the model or a
lemma changes the numbers). docs/correctness.md quotes that file (regenerate
its table with go test ./docs -update). Without -record, a row per plan
holds the fresh result to that file and to TLC's recorded count of states
(as hwepoch verify's lemma stage does), and traces' TestRecordedLemmasAreCurrent
fails when the spec or a configuration changed after recording. Re-record
everything with hwepoch lemmas -all -record.

Exit status: 0 when every lemma gives its plan's verdict, 1 otherwise, 2 on
a usage or input error.

flags:
`)
		printDefaults(fl)
	}
	if code, done := parseFlags(fl, args, noArgsWith("table")); done {
		return code
	}
	fail := usageError(stderr, "lemmas")
	specDir, err := tlccfg.FindSpecDir(".")
	if err != nil {
		return fail("%v", err)
	}
	if *table {
		scs, err := scenario.LoadDir(filepath.Join(filepath.Dir(specDir), "traces", "scenarios"))
		if err != nil {
			return fail("%v", err)
		}
		t, err := lemmas.ScenarioTable(scs)
		if err != nil {
			return fail("%v", err)
		}
		fmt.Fprint(stdout, t)
		return 0
	}
	man, err := tlccfg.LoadManifest(specDir)
	if err != nil {
		return fail("%v", err)
	}
	var plans []lemmas.Plan
	for _, p := range lemmas.Plans {
		if fl.NArg() == 0 && (*all || !p.Big) {
			plans = append(plans, p)
		}
	}
	for _, name := range fl.Args() {
		found := false
		for _, p := range lemmas.Plans {
			if p.Config == name {
				plans, found = append(plans, p), true
			}
		}
		if !found {
			return fail("no lemma plan for %q; the plans are for %v", name, planNames())
		}
	}
	var progress io.Writer = stderr
	if *quiet {
		progress = nil
	}
	if fl.NArg() == 0 && !*quiet {
		fmt.Fprint(stderr, wrap("hwepoch lemmas: ", planTimes(), wrapColumns, "  "))
	}
	var done func(lemmas.Plan, string, *lemmas.Report) error
	if *record {
		recPath := lemmas.RecordingPath(specDir)
		specHash, err := tlcjson.FileSHA256(filepath.Join(specDir, "Replication.tla"))
		if err != nil {
			return fail("%v", err)
		}
		done = func(p lemmas.Plan, cfgPath string, rep *lemmas.Report) error {
			cfgHash, err := tlcjson.FileSHA256(cfgPath)
			if err != nil {
				return err
			}
			rec, err := lemmas.LoadRecording(recPath)
			if errors.Is(err, fs.ErrNotExist) {
				rec, err = &lemmas.Recording{}, nil
			}
			if err != nil {
				return err
			}
			rec.Put(lemmas.RecordOf(p.Config, rep, cfgHash, specHash))
			if err := rec.Write(recPath); err != nil {
				return err
			}
			fmt.Fprintf(stderr, "hwepoch lemmas: recorded %s in %s (%d distinct states, depth %d, %v); regenerate docs/correctness.md's table with go test ./docs -update\n",
				p.Config, lemmas.RecordingFile, rep.Distinct, rep.Depth, rep.Duration.Round(time.Second/10))
			return nil
		}
	}
	var rows []verify.Row
	if *record {
		rows = verify.LemmaRowsFunc(context.Background(), man, plans, progress, "hwepoch lemmas: ", done)
	} else {
		runs, _, err := verify.LoadRuns(man, verify.RunsFile(specDir))
		if err != nil {
			return fail("%v", err)
		}
		rows = verify.LemmaRowsAgainstRecording(context.Background(), man, plans, progress, "hwepoch lemmas: ",
			lemmas.RecordingPath(specDir), runs)
	}
	n := 0
	for i := range rows {
		if c := rows[i].Counterexample; c != nil {
			n++
			rows[i].Found += fmt.Sprintf(" [%d]", n)
			title := *c
			title.Title = strings.TrimSuffix(wrap(fmt.Sprintf("[%d] ", n), c.Title, maxColumns, "    "), "\n")
			title.Write(stdout)
			fmt.Fprintln(stdout)
		}
	}
	writeLemmaTable(stdout, rows)
	pass, failed, _ := verify.Count(rows)
	fmt.Fprintf(stdout, "\nlemmas: %d as expected, %d not\n", pass, failed)
	if failed > 0 {
		return 1
	}
	return 0
}

func planNames() []string {
	var out []string
	for _, p := range lemmas.Plans {
		out = append(out, p.Config)
	}
	return out
}

// writeLemmaTable prints the lemmas' rows grouped by configuration: a line
// per plan (its configuration, policy, states, depth and time), then a
// line per lemma (✓ when its verdict is the plan's: the verdict found and,
// for a lemma that must be violated, why), within maxColumns.
func writeLemmaTable(w io.Writer, rows []verify.Row) {
	plan := ""
	for _, r := range rows {
		lemma, config, ok := strings.Cut(r.Item, " @ ")
		if !ok {
			lemma, config = "", r.Item // the plan itself failed (no such configuration, an error)
		}
		if config != plan {
			plan = config
			head := config
			if r.Policy != "" {
				head += " (" + r.Policy + ")"
			}
			if r.Size != "" {
				head += fmt.Sprintf(": %s, depth %s, %v", r.Size, r.Depth, r.Time.Round(10*time.Millisecond))
			}
			fmt.Fprintln(w, head)
		}
		text := r.Found
		switch {
		case r.Status != verify.Pass:
			text = "found " + r.Found + "; expected " + r.Expected
		case strings.HasPrefix(r.Expected, "violated: "):
			text += ", as expected: " + strings.TrimPrefix(r.Expected, "violated: ")
		}
		fmt.Fprint(w, wrap(fmt.Sprintf("  %s %-4s ", r.Status.Mark(), lemma), text, maxColumns, "         "))
	}
}

// planTimes says which plans run without CONFIG and with -all, and how long
// each set took by the recorded runs (traces/lemmas.json), when found.
func planTimes() string {
	var rec *lemmas.Recording
	if specDir, err := tlccfg.FindSpecDir("."); err == nil {
		rec, _ = lemmas.LoadRecording(lemmas.RecordingPath(specDir))
	}
	var small, big []string
	var smallS, allS float64
	known := rec != nil
	for _, p := range lemmas.Plans {
		secs := 0.0
		if known {
			r, ok := rec.Get(p.Config)
			secs, known = r.Seconds, ok
		}
		allS += secs
		if p.Big {
			big = append(big, p.Config)
		} else {
			small, smallS = append(small, p.Config), smallS+secs
		}
	}
	s := fmt.Sprintf("The default plans: %s; the big ones: %s.", strings.Join(small, ", "), strings.Join(big, ", "))
	if known {
		s += fmt.Sprintf(" By the recorded runs (%s), the default plans take about %s, all of them about %s.",
			lemmas.RecordingFile, minutes(smallS), minutes(allS))
	}
	return s
}

// minutes is a duration of secs seconds in round minutes.
func minutes(secs float64) string {
	if m := int(secs/60 + 0.5); m > 1 {
		return fmt.Sprintf("%d minutes", m)
	}
	return "a minute"
}
