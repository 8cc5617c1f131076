package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hwepoch/hwepoch/internal/deviation"
	"github.com/hwepoch/hwepoch/internal/tlc"
	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/model/tlccfg"
	"github.com/hwepoch/hwepoch/trace"
	"github.com/hwepoch/hwepoch/trace/tlcjson"
)

func init() {
	register("deviations", "put back Kafka behaviours the spec leaves out and show each manifest verdict stays", runDeviations)
}

const deviationsUsage = `usage: hwepoch deviations [flags] [config...]

Checks rows of docs/spec.md's deviation table: for each Kafka behaviour
the spec leaves out and the model can put back (model.Restores), explores
every safety configuration of spec/manifest.json of the releases that
have it (or the configurations named; ablations, which are of no release,
only with -ablations) with the spec's behaviour and with
Kafka's, and prints the verdicts side by side. "equal" means the restored
search gives the manifest's verdict; "+N states" is what the restored
behaviour added (0 for a holds configuration, marked "vacuous": every
state the restored search reaches the spec's reaches too -- the behaviour
is unreachable at those bounds or only a shortcut -- so the equal verdict
holds by construction). A restoration marked superset adds more than Kafka does
(Kafka's choice depends on state the spec does not keep): a holds verdict
then holds for Kafka a fortiori, a different violation needs its trace
read (-v prints it).

Configurations whose TLC run found more than -max-states states are
skipped (the restored search runs on the readable engine, about 200,000
states a second on two cores), and so are those with no TLC run.

Exit status 0 when every verdict is equal, 1 when one differs, 2 on bad
use or an error.

flags:`

func runDeviations(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("deviations", flag.ContinueOnError)
	fs.SetOutput(stderr)
	only := fs.String("restore", "", "comma-separated behaviours to put back (default: all)")
	maxStates := fs.Int64("max-states", deviation.DefaultMaxStates, "skip configurations whose TLC run found more states")
	workers := fs.Int("workers", 0, "explorer goroutines (0: GOMAXPROCS)")
	markdown := fs.Bool("markdown", false, "print the table as Markdown (for docs/spec.md)")
	verbose := fs.Bool("v", false, "print the trace of a verdict that differs")
	ablations := fs.Bool("ablations", false, "also check the ablations (configurations of no release)")
	withTLC := fs.Bool("tlc", false, "also run TLC on the spec with the behaviour put back (TLA2TOOLS_JAR) and compare its verdict and counts with the explorer's")
	record := fs.Bool("record", false, "write the results into traces/deviations.json (replacing those of the same behaviour and configuration)")
	specFlag := fs.String("spec", "", "spec directory (default: found from the working directory)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, deviationsUsage)
		printDefaults(fs)
		names := make([]string, len(model.Restores))
		for i, r := range model.Restores {
			names[i] = string(r)
		}
		fmt.Fprint(stderr, "\n"+wrap("behaviours: ", strings.Join(names, " "), wrapColumns, "  "))
	}
	if code, done := parseFlags(fs, args, atLeast("workers", 0)); done {
		return code
	}
	if *maxStates < 1 {
		fmt.Fprintf(stderr, "hwepoch deviations: -max-states %d: want at least 1\n", *maxStates)
		return 2
	}
	rs := model.Restores
	if *only != "" {
		rs = nil
		for _, name := range strings.Split(*only, ",") {
			r := model.Restore(strings.TrimSpace(name))
			if _, ok := model.RestoreInfos[r]; !ok {
				fmt.Fprintf(stderr, "hwepoch deviations: unknown behaviour %q (known: %v)\n", r, model.Restores)
				return 2
			}
			rs = append(rs, r)
		}
	}
	specDir := *specFlag
	if specDir == "" {
		d, err := tlccfg.FindSpecDir(".")
		if err != nil {
			fmt.Fprintf(stderr, "hwepoch deviations: %v\n", err)
			return 2
		}
		specDir = d
	}
	man, err := tlccfg.LoadManifest(specDir)
	if err != nil {
		fmt.Fprintf(stderr, "hwepoch deviations: %v\n", err)
		return 2
	}
	runs, err := tlcjson.LoadRuns(filepath.Join(specDir, "..", "traces", "tlc"))
	if err != nil {
		fmt.Fprintf(stderr, "hwepoch deviations: %v\n", err)
		return 2
	}
	for _, name := range fs.Args() {
		if _, ok := man.Lookup(name); !ok {
			fmt.Fprintf(stderr, "hwepoch deviations: no configuration %q in %s\n", name, filepath.Join(specDir, "manifest.json"))
			return 2
		}
	}

	jar := ""
	if *withTLC {
		if jar, err = tlc.Jar(); err != nil {
			fmt.Fprintf(stderr, "hwepoch deviations: %v\n", err)
			return 2
		}
	}
	var recs *deviation.Records
	specSum := ""
	if *record {
		if recs, err = deviation.LoadRecords(deviation.RecordPath(specDir)); err != nil {
			fmt.Fprintf(stderr, "hwepoch deviations: %v\n", err)
			return 2
		}
		if specSum, err = deviation.SpecSHA256(specDir); err != nil {
			fmt.Fprintf(stderr, "hwepoch deviations: %v\n", err)
			return 2
		}
	}
	var rows []deviation.Result
	var skipped []string
	differ := 0
	start := time.Now()
	for _, r := range rs {
		es, err := deviation.Entries(man, r, *ablations)
		if err != nil {
			fmt.Fprintf(stderr, "hwepoch deviations: %v\n", err)
			return 2
		}
		header := false
		for _, e := range es {
			if len(fs.Args()) > 0 && !slices.Contains(fs.Args(), e.Name) {
				continue
			}
			rec, ok := runs.Exhaustive(e.Name)
			switch {
			case !ok:
				skipped = append(skipped, fmt.Sprintf("%s %s (no TLC run)", r, e.Name))
				continue
			case rec.DistinctStates > *maxStates:
				skipped = append(skipped, fmt.Sprintf("%s %s (%s states > -max-states)", r, e.Name, tlc.Commas(rec.DistinctStates)))
				continue
			}
			res, err := deviation.Check(context.Background(), man, e, r, *workers)
			if err != nil {
				fmt.Fprintf(stderr, "hwepoch deviations: %v\n", err)
				return 2
			}
			if jar != "" {
				out, err := os.MkdirTemp("", "hwepoch-deviations-")
				if err != nil {
					fmt.Fprintf(stderr, "hwepoch deviations: %v\n", err)
					return 2
				}
				res.TLC, err = deviation.CheckTLC(context.Background(), jar, specDir, out, e.Name, r, *workers)
				os.RemoveAll(out)
				if err != nil {
					fmt.Fprintf(stderr, "hwepoch deviations: %v\n", err)
					return 2
				}
			}
			if !*markdown {
				if !header {
					fmt.Fprint(stdout, wrap("", deviation.Header(r), wrapColumns, "    "))
					header = true
				}
				fmt.Fprintln(stdout, deviation.Line(res))
			}
			if recs != nil {
				rec := deviation.ToRecord(res)
				if rec.PatchedSHA256, err = deviation.PatchedSHA256(specDir, r); err != nil {
					fmt.Fprintf(stderr, "hwepoch deviations: %v\n", err)
					return 2
				}
				recs.Put(specSum, rec)
				// written after each check, so a long run keeps what it did
				if err := recs.Write(deviation.RecordPath(specDir)); err != nil {
					fmt.Fprintf(stderr, "hwepoch deviations: %v\n", err)
					return 2
				}
			}
			if !res.Equal() {
				differ++
				if *verbose && res.Restored.Violation != nil {
					chk, _ := man.LoadCheck(e)
					cfg := chk.Config
					cfg.Restore = r
					trace.Render(stdout, &cfg, res.Restored.Violation.Trace)
				}
			}
			rows = append(rows, res)
		}
	}
	if *markdown {
		md := &deviation.Records{}
		for _, r := range rows {
			md.Checks = append(md.Checks, deviation.ToRecord(r))
		}
		fmt.Fprint(stdout, deviation.RecordsMarkdown(md))
	}
	for _, s := range skipped {
		fmt.Fprintf(stderr, "skipped: %s\n", s)
	}
	fmt.Fprintf(stderr, "%d checks, %d equal, %d differ, %d vacuous, %d skipped, in %s\n",
		len(rows), len(rows)-differ, differ, countVacuous(rows), len(skipped), time.Since(start).Round(time.Second))
	if differ > 0 {
		return 1
	}
	return 0
}

func countVacuous(rows []deviation.Result) int {
	n := 0
	for _, r := range rows {
		if r.Vacuous() {
			n++
		}
	}
	return n
}
