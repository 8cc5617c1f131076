package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
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

Without CONFIG: the plans that take seconds (with -all: every plan).
The plans: `)
		for i, p := range lemmas.Plans {
			if i > 0 {
				fmt.Fprint(stderr, ", ")
			}
			fmt.Fprint(stderr, p.Config)
		}
		fmt.Fprint(stderr, `.

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
		fl.PrintDefaults()
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
			fmt.Fprintf(stdout, "[%d] ", n)
			c.Write(stdout)
			fmt.Fprintln(stdout)
		}
	}
	verify.WriteTable(stdout, rows)
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
