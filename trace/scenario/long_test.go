package scenario

import (
	"runtime"
	"strings"
	"testing"

	"github.com/hwepoch/hwepoch/trace"
)

// Long generates a scenario of n fetch rounds (5n+6 steps) in which the
// leader's log keeps growing: the shape whose trace, kept whole, grows
// with the square of its length.
func Long(n int) string {
	var b strings.Builder
	b.WriteString(`name long
config Replicas={r1,r2} Acks="all" MinInsyncReplicas=1
policies LeaderEpoch
check TypeOK NoDivergence NoAckedLoss
expect LeaderEpoch holds

Elect(r1)
HandleLeaderAndIsr(r1)
HandleLeaderAndIsr(r2)
SendOffsetsForLeaderEpoch(r2)
HandleOffsetsForLeaderEpoch(r1, r2)
HandleOffsetsForLeaderEpochResponse(r2)
`)
	for range n {
		b.WriteString("Produce(r1)\nSendFetch(r2)\nHandleFetch(r1, r2)\nUpdateFollowerFetchState(r1, r2)\nHandleFetchResponse(r2)\n")
	}
	return b.String()
}

// Walk keeps one state at a time: walking 8,000 steps whose logs grow to
// 1,600 records holds a few MB live, where keeping the trace (Run) holds
// some 200 MB. It visits the same states Run keeps.
func TestWalkMemoryIsLinear(t *testing.T) {
	sc, err := Parse("long.scenario", []byte(Long(1600)))
	if err != nil {
		t.Fatal(err)
	}
	c := sc.Cases()[0]
	peak := uint64(0)
	measure := func(i int) {
		if i%2000 == 0 {
			runtime.GC()
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapAlloc)
		}
	}
	n := 0
	v, err := sc.Walk(c, func(i int, _ trace.Step, _ int) error {
		if i != n {
			t.Fatalf("visited state %d after %d states", i, n)
		}
		n++
		measure(i)
		return nil
	})
	if err != nil || !v.Holds || n != 8007 { // 5 × 1600 + 6 steps, and Init
		t.Fatalf("walk: %v, %v, %d states", err, v, n)
	}
	const limit = 64 << 20
	if peak > limit {
		t.Errorf("walking 8,000 steps held %d MB live, want under %d MB: memory is not linear", peak>>20, limit>>20)
	}
}

// Progress reports a long case every ProgressEvery steps, and nothing for
// a short one.
func TestProgressOfLongCases(t *testing.T) {
	long, err := Parse("long.scenario", []byte(Long(ProgressEvery/5+1)))
	if err != nil {
		t.Fatal(err)
	}
	var said []string
	say := func(s string) { said = append(said, s) }
	c := long.Cases()[0]
	if _, err := long.Walk(c, long.Progress(c, "running", say)); err != nil {
		t.Fatal(err)
	}
	n := len(long.StepsFor(c))
	want := []string{"running long LeaderEpoch: step 10000 of 10011", "running long LeaderEpoch: step 10011 of 10011"}
	if n != 10011 || strings.Join(said, "\n") != strings.Join(want, "\n") {
		t.Errorf("%d steps; progress %q, want %q", n, said, want)
	}
	short, err := Parse("tiny.scenario", []byte(tiny))
	if err != nil {
		t.Fatal(err)
	}
	if p := short.Progress(short.Cases()[0], "running", say); p != nil {
		t.Error("a short case reports progress")
	}
}
