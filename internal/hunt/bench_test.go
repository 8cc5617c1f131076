package hunt

import (
	"context"
	"flag"
	"testing"
	"time"
)

var benchTimeout = flag.Duration("hunt.timeout", 120*time.Second, "BenchmarkHunt: per search")

// BenchmarkHunt measures the explorer's time to each bug at the table's
// three-replica bounds: per bug, the breadth-first search, the swarm and
// the cell search (seed 1, 2 workers). It reports s-to-bug (wall seconds to the first
// counterexample with the bug's signature, or to the timeout), found (1
// or 0: a BFS stopped at a violation without the signature, or a timeout,
// is 0), states and the counterexample's length.
//
//	go test ./internal/hunt -run '^$' -bench Hunt -benchtime 1x [-hunt.timeout 60s]
func BenchmarkHunt(b *testing.B) {
	for _, bug := range Bugs {
		for _, m := range []Method{BFS, Swarm, Cells} {
			b.Run(bug.Name+"/"+string(m), func(b *testing.B) {
				var c Cell
				for b.Loop() {
					c = Search(context.Background(), bug, m, Options{Workers: 2, Seed: 1, Timeout: *benchTimeout})
					if c.Status == Failed {
						b.Fatal(c.Err)
					}
				}
				found := 0.0
				if c.Status == Found {
					found = 1
				}
				b.ReportMetric(c.Seconds, "s-to-bug")
				b.ReportMetric(found, "found")
				b.ReportMetric(float64(c.States), "states")
				b.ReportMetric(float64(c.Length()), "length")
			})
		}
	}
}
