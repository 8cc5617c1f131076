package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/hwepoch/hwepoch/internal/viewer"
	"github.com/hwepoch/hwepoch/refine"
)

func init() {
	register("view", "write a trace (TLC json or tla, ITF, scenario, chaos .sim, hunt counterexample) as one self-contained interactive HTML page", runView)
}

const viewUsage = `usage: hwepoch view [flags] FILE

Writes FILE as an interactive HTML page and prints the page's path. The
page is self-contained (no network: its style, script and data are
inline) and opens from a file in any browser: step through the trace with
the slider or the keyboard (← → Home End); each replica's log is drawn as
cells coloured by epoch, with its HW, LEO, checkpoint and epoch cache;
what the step changed is highlighted; each step names its action and
parameters, the spec action and the Kafka code it follows (docs/mapping.md,
docs/kafka-releases.md); the invariant a step breaks is marked there; a
refinement mismatch shows the model's and the implementation's states
side by side; a lasso's cycle (ITF "loop") is marked.

FILE is read and replayed as hwepoch replay reads and replays it:
  - a TLC trace (-dumpTrace json or tla), with the constants of its run in
    traces/tlc/runs.json, of spec/NAME.cfg or of -cfg;
  - an ITF trace (*.itf.json: a regression, a shrunk chaos failure, or a
    hunt counterexample with -cfg DIR/hunt-BUG.cfg);
  - a scenario (*.scenario): one page per case (or -policy/-variant's);
and as hwepoch chaos -replay replays it:
  - a chaos run (*.sim, or a -free run's *.steps).
A trace the model cannot replay is refused as replay refuses it, and no
page is written (pages are written to a temporary file and renamed).

Exit status 0 when the pages were written, 1 when the trace was refused
or a page could not be written, 2 on bad use or an unreadable file.

flags:`

func runView(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("view", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfgPath := fs.String("cfg", "", "the TLC .cfg the trace was made with (as replay's -cfg)")
	out := fs.String("o", "", "where to write: a FILE.html (one page), or a directory (default: the current directory, NAME.html)")
	policy := fs.String("policy", "", "for a scenario: only the cases of this policy")
	variant := fs.String("variant", "", "for a scenario: only the cases of this variant")
	fs.Usage = func() {
		fmt.Fprintln(stderr, viewUsage)
		printDefaults(fs)
	}
	if code, done := parseFlags(fs, args); done {
		return code
	}
	fail := usageError(stderr, "view")
	if fs.NArg() != 1 {
		return fail("give exactly one trace FILE, e.g. traces/tlc/hw-acked-loss.json (see hwepoch view -h)")
	}
	path := fs.Arg(0)
	if st, err := os.Stat(path); err != nil {
		return fail("%v", err)
	} else if st.IsDir() {
		return fail("%s is a directory: give one trace file", path)
	}
	if (*policy != "" || *variant != "") && !strings.HasSuffix(path, ".scenario") {
		return fail("-policy and -variant select a scenario's cases; %s is not a scenario", path)
	}
	pages, err := viewer.Load(path, *cfgPath, refine.Options{})
	var refused *viewer.RefusedError
	switch {
	case errors.As(err, &refused):
		fmt.Fprintf(stderr, "hwepoch view: %v\n", err)
		return 1
	case err != nil:
		return fail("%v", err)
	}
	var chosen []viewer.Loaded
	for _, l := range pages {
		c := l.Page.Config
		if *policy != "" && !strings.EqualFold(c.Truncation, *policy) {
			continue
		}
		if *variant != "" && !strings.Contains(l.Name, strings.ReplaceAll(*variant, "=", "-")) {
			continue
		}
		chosen = append(chosen, l)
	}
	if len(chosen) == 0 {
		names := make([]string, len(pages))
		for i, l := range pages {
			names[i] = strings.TrimSuffix(l.Name, ".html")
		}
		return fail("%s: no case matches -policy %q -variant %q (its cases: %s)", path, *policy, *variant, strings.Join(names, ", "))
	}
	targets := make([]string, len(chosen))
	switch {
	case strings.HasSuffix(*out, ".html"):
		if len(chosen) != 1 {
			return fail("-o %s names one page, and %s has %d cases: give a directory, or choose one with -policy and -variant", *out, path, len(chosen))
		}
		targets[0] = *out
	default:
		dir := *out
		if dir == "" {
			dir = "."
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fail("-o: %v", err)
		}
		for i, l := range chosen {
			targets[i] = filepath.Join(dir, l.Name)
		}
	}
	for i, l := range chosen {
		if err := viewer.WriteFile(targets[i], l.Page); err != nil {
			fmt.Fprintf(stderr, "hwepoch view: %v\n", err)
			return 1
		}
		fmt.Fprintln(stdout, targets[i])
	}
	return 0
}
