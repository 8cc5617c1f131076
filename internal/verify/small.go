package verify

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/hwepoch/hwepoch/model/explore"
)

// SmallRows compares the explorer with TLC on every configuration of
// tlc-small.json (explore.SmallRunsPath): the same verdict, and where it
// holds exactly TLC's distinct states, states generated and depth. Those
// configurations together cover every combination of the spec's switches
// under every release. go test compares a representative subset
// (model/explore's TestSmallConfigsMatchTLC, explore.Representative); this
// compares them all, which takes minutes (hwepoch verify --all). Each
// configuration is explored by one worker, workers of them at a time;
// specSHA256 is spec/Replication.tla's, which every run must have been
// made on. One row per configuration, in the file's order.
func SmallRows(ctx context.Context, path, specSHA256 string, workers int, progress io.Writer) []Row {
	runs, err := explore.LoadSmallRuns(path)
	if err != nil {
		return []Row{{Stage: "tlc-small", Item: path, Expected: "readable", Found: "error: " + err.Error(), Status: Fail}}
	}
	rows := make([]Row, len(runs.Runs))
	jobs := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for range max(workers, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				rows[i] = smallRow(ctx, runs.Runs[i], specSHA256)
				mu.Lock()
				done++
				if progress != nil && (rows[i].Status == Fail || done%50 == 0) {
					fmt.Fprintf(progress, "hwepoch verify: [tlc-small] %d of %d compared (%s: %s)\n", done, len(rows), rows[i].Item, rows[i].Found)
				}
				mu.Unlock()
			}
		}()
	}
	for i := range runs.Runs {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	return rows
}

func smallRow(ctx context.Context, r explore.SmallRun, specSHA256 string) Row {
	start := time.Now()
	row := Row{Stage: "tlc-small", Item: r.Name, Policy: r.Config.Truncation, Status: Pass}
	if r.TLC.Verdict == "holds" {
		row.Expected = fmt.Sprintf("holds: TLC's %d distinct, %d generated, depth %d", r.TLC.Distinct, r.TLC.Generated, r.TLC.Depth)
	} else {
		row.Expected = fmt.Sprintf("violated %s, as TLC", r.TLC.Property)
	}
	res, mismatch, err := r.Compare(ctx, specSHA256)
	row.Time = time.Since(start)
	switch {
	case err != nil:
		row.Found, row.Status = "error: "+err.Error(), Fail
	case mismatch != "":
		row.Found, row.Status = "MISMATCH: "+mismatch, Fail
	case res.Violation != nil:
		row.Found = "violated " + res.Violation.Property
	default:
		row.Found = "= (the same counts)"
	}
	if res != nil {
		row.Size, row.Depth = fmt.Sprintf("%d states", res.Distinct), fmt.Sprint(res.Depth)
	}
	return row
}
