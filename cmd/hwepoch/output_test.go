package main

import (
	"sort"
	"strings"
	"testing"

	"github.com/hwepoch/hwepoch/internal/columns"
)

// Every command's default output (the fast ones: help, the scenario
// summary, a short chaos campaign, a trace drawn) fits a terminal 120
// columns wide, stdout and stderr alike, and the defaults that summarize
// fit a screen. scenario once printed a 477-column line, scenario -all
// 6,023 lines, chaos a 192-column progress line.
func TestDefaultOutputFitsTheScreen(t *testing.T) {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	type check struct {
		args     []string
		maxLines int // 0: not bounded
	}
	checks := []check{
		{args: nil, maxLines: 40},
		{args: []string{"-h"}, maxLines: 40},
		{args: []string{"help", "help"}},
		{args: []string{"help", "notation"}},
		{args: []string{"scenario"}, maxLines: 15},
		{args: []string{"scenario", "-all"}, maxLines: 45},
		{args: []string{"scenario", "kip101-scenario-2"}},
		{args: []string{"render", "../../traces/tlc/w-de-hw-pending.json"}},
		{args: []string{"chaos", "-seeds", "20", "-events", "40", "-out", t.TempDir()}, maxLines: 30},
		{args: []string{"chaos", "-seeds", "3", "-policy", "HighWatermark", "-seed", "4", "-out", t.TempDir()}},
		{args: []string{"check", "-q", "w-de-hw-pending"}},
		{args: []string{"deviations", "le-unclean-loss", "w-de3e2-diverging-truncation"}, maxLines: 30},
	}
	for _, n := range names {
		checks = append(checks, check{args: []string{n, "-h"}}, check{args: []string{"help", n}})
	}
	for _, c := range checks {
		_, out, errs := runCLI(c.args...)
		name := "hwepoch " + strings.Join(c.args, " ")
		for stream, text := range map[string]string{"stdout": out, "stderr": errs} {
			lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
			for i, l := range lines {
				if w := columns.Width(l); w > columns.Max {
					t.Errorf("%s: %s line %d is %d columns wide (at most %d):\n%s", name, stream, i+1, w, columns.Max, l)
				}
			}
			if c.maxLines > 0 && len(lines) > c.maxLines {
				t.Errorf("%s: %d lines on %s, more than a screen (%d)", name, len(lines), stream, c.maxLines)
			}
		}
	}
}

// The lemmas table names each configuration once, above its lemmas (it
// once repeated the configuration, its policy, states, depth and time on
// each of its six rows).
func TestLemmaTableNamesEachPlanOnce(t *testing.T) {
	_, out, errs := runCLI("lemmas", "-q", "hw-acked-loss")
	if !strings.Contains(out, "lemmas: 9 as expected, 0 not") {
		t.Fatalf("lemmas hw-acked-loss:\n%s\n%s", out, errs)
	}
	if n := strings.Count(out, "hw-acked-loss (HighWatermark):"); n != 1 {
		t.Errorf("the plan's line appears %d times, want once:\n%s", n, out)
	}
	for _, want := range []string{"  ✓ L2a  violated (trace 17) [1], as expected: truncating to the HW", "  ✓ L4a  holds (premise met in"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for i, l := range strings.Split(out, "\n") {
		if w := columns.Width(l); w > columns.Max {
			t.Errorf("line %d is %d columns wide:\n%s", i+1, w, l)
		}
	}
}
