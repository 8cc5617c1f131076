package cluster

import (
	"strings"
	"testing"
)

// The steps reader (chaos event lists, replayed with hwepoch chaos -replay)
// refuses trailing garbage, a setting given twice, and numbers out of range:
// Elect(4294967297) once ran as Elect(1).
func TestReadStepsRefusesGarbageDuplicatesAndOutOfRange(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"# set acks=all\nElect(1)\nCrash(2, 3)\n", ""},
		{"Elect(1) x\n", "line 1"},
		{"Elect(1))\n", "line 1"},
		{"Elect(1)\nElect(1, 2)\n", "line 2"},
		{"# set acks=all\n# set acks=1\nElect(1)\n", "line 2: setting acks given twice (first on line 1)"},
		{"Elect(4294967297)\n", "not a broker id"},
		{"HandleFetch(1, -2)\n", "not a broker id"},
		{"Elect(99999999999999999999)\n", "out of range"},
		{"Crash(1, -1)\n", "record count -1 is negative"},
	} {
		_, _, err := ReadSteps(strings.NewReader(tc.in))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%q: %v", tc.in, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%q: error %v, want %q", tc.in, err, tc.want)
		}
	}
	// Steps built in code are checked when applied, too.
	if err := (&Cluster{}).Apply(S(ActElect, 1<<32+1)); err == nil || !strings.Contains(err.Error(), "not a broker id") {
		t.Errorf("Apply(Elect(4294967297)): %v", err)
	}
}

// WriteSteps writes a key given twice once, with its last value, so that
// ReadSteps (which refuses duplicates) reads back what a run used.
func TestWriteStepsKeepsTheLastSetting(t *testing.T) {
	var b strings.Builder
	if err := WriteSteps(&b, []string{"brokers=3", "Truncation=LeaderEpoch", "Truncation=HighWatermark"}, []Step{S(ActElect, 1)}); err != nil {
		t.Fatal(err)
	}
	settings, steps, err := ReadSteps(strings.NewReader(b.String()))
	if err != nil {
		t.Fatalf("%v in:\n%s", err, b.String())
	}
	if len(settings) != 2 || settings[1] != "Truncation=HighWatermark" || len(steps) != 1 {
		t.Fatalf("settings %v steps %v", settings, steps)
	}
}
