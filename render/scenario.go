package render

import (
	"fmt"
	"strings"

	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/trace/scenario"
)

// ScenarioOptions are the options for case c of sc: its title,
// configuration, checked invariants and phase notes. The command line and
// the docs both render scenarios with them, so that a committed picture
// can be compared with a fresh one.
func ScenarioOptions(sc scenario.Scenario, c scenario.Case) Options {
	cfg := sc.Config(c)
	return Options{
		Title:      sc.Name + " · " + c.String(),
		Subtitle:   sc.Title + "\n" + ConfigSummary(&cfg),
		Invariants: sc.Checks,
		Notes:      sc.Notes(c),
	}
}

// ConfigSummary is the constants that change behaviour, in the spec's
// names (the bounds are left out: they only limit TLC's search).
func ConfigSummary(cfg *model.Config) string {
	rs := make([]string, len(cfg.Replicas))
	for i, r := range cfg.Replicas {
		rs[i] = string(r)
	}
	b := func(v bool) string {
		if v {
			return "TRUE"
		}
		return "FALSE"
	}
	return fmt.Sprintf("Replicas={%s} Truncation=%q Fencing=%s Acks=%q MinInsyncReplicas=%d MinIsrGatesHW=%s UncleanLeaderElectionEnable=%s UnflushedLoss=%s LossyNetwork=%s",
		strings.Join(rs, ","), cfg.Truncation, b(cfg.Fencing), cfg.Acks, cfg.MinInsyncReplicas, b(cfg.MinIsrGatesHW),
		b(cfg.UncleanLeaderElectionEnable), b(cfg.UnflushedLoss), b(cfg.LossyNetwork)) + missed(cfg.MissedLeaderAndIsr)
}

// missed writes MissedLeaderAndIsr only where it is set, so that the
// configurations of every other scenario read as before.
func missed(on bool) string {
	if on {
		return " MissedLeaderAndIsr=TRUE"
	}
	return ""
}
