package main

import (
	"strings"
	"testing"
)

// deviations: each behaviour's header, one line per configuration of its
// releases, the summary; bad input is refused with a clear message.
func TestDeviations(t *testing.T) {
	code, out, errs := runCLI("deviations", "-restore", "stale-controller-requests,kraft-isr-rules", "le-unclean-loss", "w-de-stale-partition-epoch")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{"stale-controller-requests (issue 21 item 5, superset)", "equal   le-unclean-loss", "NoAckedLoss",
		"kraft-isr-rules (issue 21 item 4)", "equal   w-de-stale-partition-epoch"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	// kraft-isr-rules is of 3.9 and 4.1: not checked on a 2.1 configuration.
	if n := strings.Count(out, "le-unclean-loss"); n != 1 {
		t.Errorf("le-unclean-loss checked %d times, want once (2.1 has no KRaft):\n%s", n, out)
	}
	if !strings.Contains(errs, "2 checks, 2 equal, 0 differ, 0 vacuous, 0 skipped") {
		t.Errorf("summary: %s", errs)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"deviations", "-restore", "no-such"}, `unknown behaviour "no-such"`},
		{[]string{"deviations", "no-such-config"}, `no configuration "no-such-config"`},
		{[]string{"deviations", "-max-states", "0"}, "-max-states 0: want at least 1"},
		{[]string{"deviations", "-workers", "-1"}, "workers"},
	} {
		code, _, errs := runCLI(c.args...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errs, c.want)
		}
	}
}
