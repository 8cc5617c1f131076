package verify

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/hwepoch/hwepoch/internal/deviation"
	"github.com/hwepoch/hwepoch/model/tlccfg"
)

// DeviationRows re-runs the checks traces/deviations.json records (hwepoch
// deviations -record): each configuration explored with a Kafka behaviour
// put back must give the manifest's verdict and the recorded counts, and
// the record must be of the spec and patches as they are now. Checks whose
// record counted more than budget states (0: no limit) are skipped with a
// row that names the command.
func DeviationRows(ctx context.Context, man *tlccfg.Manifest, budget int64, workers int, progress io.Writer) []Row {
	fail := func(item string, err error) []Row {
		return []Row{{Stage: "deviation", Item: item, Expected: "readable", Found: "error: " + err.Error(), Status: Fail}}
	}
	path := deviation.RecordPath(man.Dir)
	recs, err := deviation.LoadRecords(path)
	if err != nil {
		return fail(path, err)
	}
	sum, err := deviation.SpecSHA256(man.Dir)
	if err != nil {
		return fail("spec", err)
	}
	if recs.SpecSHA256 != sum {
		return []Row{{Stage: "deviation", Item: path, Expected: "a record of this spec", Found: "a record of another spec: rerun hwepoch deviations -record", Status: Fail}}
	}
	var rows []Row
	for _, c := range recs.Checks {
		item := string(c.Restore) + " @ " + c.Config
		row := Row{Stage: "deviation", Item: item, Expected: fmt.Sprintf("%s, %d states, depth %d", c.Verdict, c.Distinct, c.Depth), Status: Pass}
		if budget > 0 && c.Distinct > budget {
			row.Size, row.Found, row.Status = fmt.Sprintf("skipped (over %d states; hwepoch verify --all runs them)", budget), "not run", Skipped
			rows = append(rows, row)
			continue
		}
		start := time.Now()
		row.Found, row.Status = deviationRow(ctx, man, c, workers)
		row.Time = time.Since(start)
		row.Size, row.Depth = fmt.Sprintf("%d states", c.Distinct), fmt.Sprint(c.Depth)
		if progress != nil && row.Status == Fail {
			fmt.Fprintf(progress, "hwepoch verify: [deviation] %s: %s\n", item, row.Found)
		}
		rows = append(rows, row)
	}
	return rows
}

func deviationRow(ctx context.Context, man *tlccfg.Manifest, c deviation.Record, workers int) (string, Status) {
	patched, err := deviation.PatchedSHA256(man.Dir, c.Restore)
	if err != nil {
		return "error: " + err.Error(), Fail
	}
	if patched != c.PatchedSHA256 {
		return "recorded on another patched spec: rerun hwepoch deviations -record -restore " + string(c.Restore), Fail
	}
	if !c.Equal() {
		return fmt.Sprintf("recorded %s where the manifest says %s", c.Verdict, c.Expect), Fail
	}
	e, ok := man.Lookup(c.Config)
	if !ok {
		return "no such configuration in the manifest", Fail
	}
	res, err := deviation.Check(ctx, man, e, c.Restore, workers)
	if err != nil {
		return "error: " + err.Error(), Fail
	}
	now := deviation.ToRecord(res)
	if now.Verdict != c.Verdict || now.Distinct != c.Distinct || now.Depth != c.Depth {
		return fmt.Sprintf("MISMATCH: %s, %d states, depth %d", now.Verdict, now.Distinct, now.Depth), Fail
	}
	return "= (the same verdict and counts)", Pass
}
