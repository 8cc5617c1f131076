package verify

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/refine/freerun"
)

// FreeRunConfigs are the free runs' configurations, refine/freerun's own
// (freerun.Configs): each policy as its release has it, with and without
// unclean elections and unflushed loss. The bounds are ignored by a free
// run.
var FreeRunConfigs = freerun.Configs

// FreeRunRows runs the implementation free (refine/freerun: goroutines, a
// seeded lossy network, seeded chaos) runs times per configuration, and
// validates each recording event by event against the model: every event
// must be a step the model enables whose post-state is the model's. One
// row per configuration; the documented gaps the validator bridges are
// counted in the row.
func FreeRunRows(runs int, progress io.Writer) []Row {
	var rows []Row
	for ci, cfg := range FreeRunConfigs {
		row := Row{Stage: "freerun", Item: freeRunItem(cfg), Policy: cfg.Truncation,
			Expected: "every event a step the model takes, post-state equal", Status: Pass}
		start := time.Now()
		events := 0
		gaps := 0
		for i := range runs {
			seed := uint64(1 + ci + i*len(FreeRunConfigs))
			if progress != nil {
				fmt.Fprintf(progress, "hwepoch verify: [freerun] %s seed %d\n", row.Item, seed)
			}
			rec := freerun.Record(freerun.DefaultOptions(cfg, seed))
			if rec.Err != nil {
				row.Status, row.Found = Fail, fmt.Sprintf("seed %d: the run failed: %v", seed, rec.Err)
				break
			}
			rep := freerun.Validate(rec)
			events += rep.Events
			for _, n := range rep.Gaps {
				gaps += n
			}
			if rep.Err != nil {
				row.Status = Fail
				row.Found = fmt.Sprintf("seed %d: %s", seed, firstLine(rep.Err.Error()))
				row.Counterexample = &Counterexample{
					Title: fmt.Sprintf("freerun %s seed %d: %d events, not validated", row.Item, seed, rep.Events),
					Text:  rep.Err.Error() + "\nchaos schedule:\n    " + strings.Join(rec.Chaos, "\n    "),
				}
				break
			}
		}
		row.Time = time.Since(start)
		row.Size = fmt.Sprintf("%d run%s, %d events", runs, plural(runs), events)
		if row.Status == Pass {
			row.Found = fmt.Sprintf("all %d validated; %d steps bridged a known spec/implementation gap (docs/mapping.md)", runs, gaps)
		}
		rows = append(rows, row)
	}
	return rows
}

func freeRunItem(cfg *model.Config) string {
	parts := []string{fmt.Sprintf("%d brokers acks=%s", cfg.N(), cfg.Acks)}
	for _, f := range []struct {
		on   bool
		name string
	}{{cfg.Fencing, "fencing"}, {cfg.UncleanLeaderElectionEnable, "unclean"}, {cfg.UnflushedLoss, "unflushed"}, {cfg.MinIsrGatesHW, "minISR-gates-HW"}} {
		if f.on {
			parts = append(parts, f.name)
		}
	}
	return strings.Join(parts, " ")
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
