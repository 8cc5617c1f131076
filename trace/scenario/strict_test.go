package scenario

import (
	"strings"
	"testing"
)

// The scenario reader refuses trailing garbage on a line, anything given
// twice, and numbers out of range (a count 2^32+1 is not silently narrowed).
// (A final value no state can have, such as 0:0/-1, fails when it is
// checked, with its line.)
func TestRefusesGarbageDuplicatesAndOutOfRange(t *testing.T) {
	for _, tc := range []struct{ old, new, want string }{
		{"Produce(r1)", "Produce(r1) extra", "tiny.scenario:15"},
		{"Produce(r1)", "Produce(r1))", "tiny.scenario:15"},
		{"Produce(r1)", "Produce(r1);", "tiny.scenario:15"},
		{`Acks="1"`, `Acks="1" Acks="1"`, "already set on line 6"},
		{"name tiny", "name tiny\nname tiny", "a second name line"},
		{"policies HighWatermark LeaderEpoch", "policies HighWatermark LeaderEpoch LeaderEpoch", "tiny.scenario:7"},
		{"check NoAckedLoss", "check NoAckedLoss NoAckedLoss", "tiny.scenario:8"},
		{"final acked = 0:1", "final acked = 0:1\nfinal acked = 0:2", "tiny.scenario:21: \"acked\": already asserted on line 20"},
		{"final acked = 0:1", "final acked = 0:1\nfinal HighWatermark acked = 0:1", ""},
		{"Produce(r1)", "Crash(r1, 4294967297)", "keep must be a record count"},
		{"Produce(r1)", "Crash(r1, -1)", "keep must be a record count"},
		{`Acks="1"`, `Acks="1" MaxRecords=4294967297`, "tiny.scenario:6"},
		{`Acks="1"`, `Acks="1" MinInsyncReplicas=-1`, "tiny.scenario:6"},
	} {
		if !strings.Contains(tiny, tc.old) {
			t.Fatalf("tiny has no %q", tc.old)
		}
		_, err := Parse("tiny.scenario", []byte(strings.Replace(tiny, tc.old, tc.new, 1)))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%q: %v", tc.new, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%q: error %v, want %q", tc.new, err, tc.want)
		}
	}
}
