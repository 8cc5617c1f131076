package main

import (
	"strings"
	"testing"
)

// Every numeric flag out of range, every stray argument and an unknown
// help topic is a usage error (exit 2) naming the fault, before any work
// starts: none may run with a meaning the user did not ask for (check
// -simulate -1 once explored exhaustively; tlc -simulate -1 ran full TLC;
// help NO-SUCH-VERB exited 0).
func TestNumericFlagsAndArgumentsAreRangeChecked(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"check", "-simulate", "-1"}, "-simulate -1: must be at least 0"},
		{[]string{"check", "-workers", "0"}, "-workers 0: must be greater than zero"},
		{[]string{"check", "-simulate", "5", "-steps", "0"}, "-steps 0: must be greater than zero"},
		{[]string{"verify", "-workers", "-2"}, "-workers -2: must be greater than zero"},
		{[]string{"verify", "-budget", "-1"}, "-budget -1: must be at least 0"},
		{[]string{"replay", "-random", "-1"}, "-random -1: must be at least 0"},
		{[]string{"replay", "-free", "-3"}, "-free -3: must be at least 0"},
		{[]string{"replay", "-random", "2", "-steps", "-1"}, "-steps -1: must be greater than zero"},
		{[]string{"replay", "-recording", "x.json", "stray"}, `unexpected arguments ["stray"]: with -recording`},
		{[]string{"tlc", "-simulate", "-1"}, "-simulate -1: must be at least 0"},
		{[]string{"tlc", "-timeout", "-1s"}, "-timeout -1s: must be greater than zero"},
		{[]string{"tlc", "-workers", "0"}, "-workers 0: must be greater than zero"},
		{[]string{"tlc", "-simulate", "2", "-depth", "0"}, "-depth 0: must be greater than zero"},
		{[]string{"tlc", "-simulate", "2", "le-fenced-2"}, `unexpected arguments ["le-fenced-2"]: with -simulate`},
		{[]string{"tlc", "-table", "le-fenced-2"}, `unexpected arguments ["le-fenced-2"]: with -table`},
		{[]string{"bench-tlc", "-timeout", "0s"}, "-timeout 0s: must be greater than zero"},
		{[]string{"bench-tlc", "-holds", "le-fenced-2"}, "-holds names the configurations itself"},
		{[]string{"mutants", "-random", "-1"}, "-random -1: must be at least 0"},
		{[]string{"mutants", "-free", "-1"}, "-free -1: must be at least 0"},
		{[]string{"mutants", "stray"}, `unexpected arguments ["stray"]: mutants takes flags only`},
		{[]string{"mutants", "-checks", "scenario,bogus"}, `-checks: unknown check "bogus" (known: tlc, scenario, regression, random, free, invariant, liveness)`},
		{[]string{"mutants", "-checks", ""}, "mutants: -checks: give at least one check"},
		{[]string{"mutants", "-only", "no-such-bug"}, `unknown mutant "no-such-bug"`},
		{[]string{"lemmas", "-table", "le-fenced-2"}, `unexpected arguments ["le-fenced-2"]: with -table`},
		// Flags that mean something only with another are not ignored alone.
		{[]string{"check", "-steps", "50", "w-acked"}, "-steps applies only with -simulate"},
		{[]string{"check", "-seed", "3", "w-acked"}, "-seed applies only with -simulate"},
		{[]string{"tlc", "-depth", "10"}, "-depth applies only with -simulate"},
		{[]string{"tlc", "-sim-config", "w-acked"}, "-sim-config applies only with -simulate"},
		{[]string{"replay", "-steps", "10"}, "-steps applies only with -random"},
		{[]string{"replay", "-policy", "Kip101", "x.json"}, "-policy applies only with -random or -free"},
		{[]string{"replay", "-out", "dir"}, "-out applies only with -free"},
		{[]string{"replay", "-seed", "4"}, "-seed applies only with -random or -free"},
		{[]string{"replay", "-recording", "x.json", "-free", "2"}, "-recording revalidates a saved free run"},
		{[]string{"help", "no-such-verb"}, `unknown command "no-such-verb"`},
		{[]string{"help", "check", "extra"}, "give one command"},
	} {
		code, out, errs := runCLI(tc.args...)
		if code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("hwepoch %s: exit %d, stderr %q, stdout %q; want exit 2 and %q", strings.Join(tc.args, " "), code, errs, out, tc.want)
		}
	}
}
