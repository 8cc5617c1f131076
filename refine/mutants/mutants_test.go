package mutants

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/hwepoch/hwepoch/impl/broker"
	"github.com/hwepoch/hwepoch/impl/cluster"
)

// The checker bites: every seeded bug is caught by at least one check, at
// CI size, and the implementation without one passes every check (else
// "caught" would mean nothing).
func TestEveryMutantIsCaught(t *testing.T) {
	b := CI(filepath.Join("..", "..", "traces"))
	base := Run("", b, nil)
	for _, d := range base.Detections {
		if d.Caught || d.Err != nil {
			t.Fatalf("baseline: %s fails without a mutant (%s: %s %v): fix that first, the mutation check means nothing until then", d.Check, d.Where, d.Detail, d.Err)
		}
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for _, m := range broker.Mutants {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			r := Run(m, b, nil)
			mu.Lock()
			defer mu.Unlock()
			for _, d := range r.Detections {
				if d.Err != nil {
					t.Errorf("%s: %s could not run: %v", m, d.Check, d.Err)
				}
			}
			if d, ok := r.First(); ok {
				t.Logf("%-24s caught by %s in %d steps (%s)", m, d.Check, d.Length, d.Where)
			} else {
				t.Errorf("%s: no check caught it", m)
			}
		}()
	}
	wg.Wait()
}

// docs/mutants.md describes every mutant and every check.
func TestMutantsDocIsComplete(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "mutants.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, m := range broker.Mutants {
		if !strings.Contains(doc, "| `"+string(m)+"` |") || !strings.Contains(doc, "| "+string(m)+" |") {
			t.Errorf("docs/mutants.md: %s lacks its description row or its table row", m)
		}
	}
	for _, c := range Checks {
		if !strings.Contains(doc, "| "+string(c)+" |") {
			t.Errorf("docs/mutants.md: the check %q is not described", c)
		}
	}
	// The bug table and the measured table list exactly broker.Mutants, in
	// its order: no mutant documented that the code lacks, none twice.
	want := make([]string, len(broker.Mutants))
	for i, m := range broker.Mutants {
		want[i] = string(m)
	}
	if got := tableMutants(doc, "## The mutants", "| `"); !slices.Equal(got, want) {
		t.Errorf("docs/mutants.md: the bug table lists %v, impl/broker's Mutants are %v", got, want)
	}
	if got := tableMutants(doc, "## The table", "| "); !slices.Equal(got, want) {
		t.Errorf("docs/mutants.md: the measured table lists %v, impl/broker's Mutants are %v", got, want)
	}
}

// tableMutants returns the first cell of each row of the first table after
// the heading (its header row and separator skipped), trimmed of prefix and
// backquotes.
func tableMutants(doc, heading, prefix string) []string {
	i := strings.Index(doc, "\n"+heading+"\n")
	if i < 0 {
		return nil
	}
	var out []string
	inTable := false
	for _, line := range strings.Split(doc[i+1:], "\n")[1:] {
		if !strings.HasPrefix(line, "|") {
			if inTable {
				break
			}
			continue
		}
		if !inTable {
			inTable = true
			continue // the header row
		}
		if strings.HasPrefix(line, "|---") || !strings.HasPrefix(line, prefix) {
			continue
		}
		cell := strings.TrimSpace(strings.SplitN(line[1:], "|", 2)[0])
		out = append(out, strings.Trim(cell, "`"))
	}
	return out
}

// Each behaviour issue 10 restored to the releases has a named trace made
// for it, and that trace alone catches the behaviour's mutant: the check
// does not rest on a random trace happening to reach it. Without the mutant
// the trace replays (the baseline of this test). So do the behaviours of
// issue 19's seeded bugs that a trace can show.
func TestRestoredBehavioursHaveTheirTraces(t *testing.T) {
	traces := filepath.Join("..", "..", "traces")
	for _, tc := range []struct {
		m    broker.Mutant
		file string
	}{
		{broker.MutantReelectionViewReset, "scenarios/same-leader-reelection.scenario"},
		{broker.MutantReelectionFailsProduce, "scenarios/same-leader-reelection.scenario"},
		{broker.MutantFetchHWAfterUpdate, "scenarios/split-fetch-hw-lag.scenario"},
		{broker.MutantDropOrphanFetch, "scenarios/kip903-orphan-fetch.scenario"},
		{broker.MutantRestartOnEpochBump, "scenarios/same-leader-epoch-bump.scenario"},
		{broker.MutantLeaderEntryAtElection, "scenarios/kip101-leader-epoch-entry.scenario"},
		{broker.MutantSkipDeadLeader, "scenarios/missed-demotion.scenario"},
		{broker.MutantHWOverCommittedIsr, "scenarios/alter-partition-pending.scenario"},
		{broker.MutantStalePartitionEpoch, "scenarios/alter-partition-pending.scenario"},
		{broker.MutantExpandDeadFollower, "regressions/kip841-no-expand-of-dead-follower.itf.json"},
		{broker.MutantUndefinedToHW, "regressions/undefined-diverging-epoch-keeps-fetch-offset.itf.json"},
		// Issue 19: 3.9's min.insync.replicas gates count the committed ISR
		// (the scenario's HW with an expansion pending, and its refuse
		// line); every truncation below the recovery point shows a kept
		// recovery point (KIP-101's first scenario restarts, then truncates).
		{broker.MutantHWGateOverMaximalIsr, "scenarios/min-isr-pending-expansion.scenario"},
		{broker.MutantProduceGateOverMaximalIsr, "scenarios/min-isr-pending-expansion.scenario"},
		{broker.MutantTruncateKeepsRecoveryPoint, "scenarios/kip101-scenario-1.scenario"},
		// KIP-903's two checks (3.5+) and 4.1's Eligible Leader Replicas
		// (KIP-966): a hand-written regression each, whose model steps or
		// final refusal the mutant departs from.
		{broker.MutantExpandStaleBrokerEpoch, "regressions/kip903-no-expand-of-earlier-incarnation.itf.json"},
		{broker.MutantIgnoresBrokerEpochs, "regressions/kip903-controller-refuses-earlier-incarnation.itf.json"},
		{broker.MutantElrKeepsRestarted, "regressions/elr-election-order.itf.json"},
		{broker.MutantElrNotFilled, "regressions/elr-election-order.itf.json"},
		{broker.MutantElrIgnoredInElection, "regressions/elr-election-order.itf.json"},
		{broker.MutantNoLastKnownLeader, "regressions/elr-election-order.itf.json"},
		{broker.MutantElrLeaderWithIsr, "regressions/elr-no-election-while-isr.itf.json"},
	} {
		t.Run(string(tc.m), func(t *testing.T) {
			files := []string{filepath.Join(traces, filepath.FromSlash(tc.file))}
			if d := replayFiles(files, nil); d.Caught || d.Err != nil {
				t.Fatalf("%s fails without a mutant: %s %s %v", tc.file, d.Where, d.Detail, d.Err)
			}
			d := replayFiles(files, func(c *cluster.Config) { c.Mutants = []broker.Mutant{tc.m} })
			if d.Err != nil {
				t.Fatalf("%s: %v", tc.file, d.Err)
			}
			if !d.Caught {
				t.Fatalf("%s does not catch %s", tc.file, tc.m)
			}
			t.Logf("%s: caught at step %d of %s: %s", tc.m, d.Length, d.Where, d.Detail)
		})
	}
}
