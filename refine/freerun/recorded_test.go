package freerun

import (
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hwepoch/hwepoch/impl/broker"
	"github.com/hwepoch/hwepoch/impl/cluster"
	"github.com/hwepoch/hwepoch/model"
)

// Free runs do not reproduce (goroutine scheduling is part of them), so a
// check that records a new run each time varies from run to run. The
// recordings under testdata/ are fixed runs, validated again by every
// `go test` (TestRecordedRuns): they hold the validator to its verdicts (a
// regression in its search shows as a changed count or verdict), and they
// back the detection of the one mutant only free runs expose
// (stale-leader-and-isr: its re-applied LeaderAndIsr needs the
// controller's resend after a lost answer, which no trace has).
//
// TestRecordTestdata (HWEPOCH_RECORD_TESTDATA=1, below) records them again;
// the expectations in recorded then have to be updated to the new files'.

// recordedRun is one recording under testdata/ and what validating it
// gives, every time.
type recordedRun struct {
	file   string
	mutant broker.Mutant // the seeded bug the run was recorded with; "" none
	config int           // index into Configs
	// The verdict: events validated; when accepted, steps, backtracks and
	// the bridges taken by kind; when rejected, the failing event's index
	// (a LeaderAndIsr) and a substring of its reason.
	events, steps int
	backtracks    int
	gaps          map[string]int
	failAt        int
	reason        string
	// For TestRecordTestdata: changes to DefaultOptions, and the bridges
	// (Gap*) a correct run is picked for exercising.
	opts func(*Options)
	want []string
	// actions a correct run must hold an event of (the steps it is picked
	// to cover).
	actions []string
	// elr is the Eligible Leader Replicas steps the run covers (Report.Elr;
	// zero but under EligibleLeader). With elrKinds, TestRecordTestdata
	// picks a correct run that covers the most kinds of them (at least
	// one; the search ends at elrKinds).
	elr      ElrSteps
	elrKinds int
}

var recorded = []recordedRun{
	{file: "leader-epoch-fencing.json.gz", config: 0, opts: rough, want: []string{GapIsrNoApply, GapCrashEarly, GapMaximalIsr, GapLostUnobserved},
		events: 289, steps: 291, backtracks: 2, gaps: map[string]int{GapCrashEarly: 1, GapLostUnobserved: 2, GapRecordIDs: 10}},
	{file: "leader-epoch-fencing-isr-order.json.gz", config: 0, want: []string{GapIsrBeforeElect, GapIsrCommitEarly, GapLateRequest, GapIsrSplit},
		events: 119, steps: 118, backtracks: 0, gaps: map[string]int{GapLateRequest: 1, GapRecordIDs: 8, GapStaleRequest: 1}},
	{file: "high-watermark.json.gz", config: 1, opts: brief, want: []string{GapStaleRequest, GapStaleEffect, GapMaximalIsr},
		events: 335, steps: 334, backtracks: 7, gaps: map[string]int{GapIsrNoApply: 1, GapMaximalIsr: 3, GapRecordIDs: 29, GapStaleEffect: 1, GapStaleRequest: 1}},
	{file: "diverging-epoch.json.gz", config: 3, opts: rough, want: []string{GapStaleRequest, GapStaleEffect, GapAlterPartitionLost, GapAlterPartitionRetry},
		actions: []string{model.ShrinkIsr.String(), model.ExpandIsr.String(), cluster.ActHandleAlterPartition, model.HandleAlterPartitionResponse.String(), model.UpdateFollowerFetchState.String()},
		events:  177, steps: 179, backtracks: 1, gaps: map[string]int{GapAlterPartitionLost: 1, GapRecordIDs: 1}},
	{file: "eligible-leader.json.gz", config: 4, opts: rough, want: []string{GapStaleRequest, GapCrashEarly, GapAlterPartitionLost}, elrKinds: 5,
		actions: []string{cluster.ActCrash, cluster.ActRestart, cluster.ActElect, cluster.ActHandleAlterPartition},
		events:  276, steps: 277, backtracks: 1, gaps: map[string]int{GapAlterPartitionLost: 1, GapRecordIDs: 5},
		elr: ElrSteps{Joined: 3, Emptied: 1, LeaderFenced: 3, LeftOnRestart: 3, LastKnownElections: 1}},
	{file: "stale-leader-and-isr.json.gz", mutant: broker.MutantStaleLeaderAndIsr, config: 0,
		events: 486, failAt: 60, reason: "the event's post-state differs from the model's"},
}

// The recorded runs get the same verdict every time: the correct
// implementation's are accepted with the same counts (events, steps, the
// bridges by kind, backtracks), the mutant's is rejected at the same event
// for the same reason; and each accepted one, tampered with, is rejected.
// Validating twice checks that the verdict does not depend on anything but
// the recording (map order, say).
func TestRecordedRuns(t *testing.T) {
	for _, r := range recorded {
		t.Run(strings.TrimSuffix(r.file, ".json.gz"), func(t *testing.T) {
			rec := readRecorded(t, r.file)
			if got, want := rec.Config.Truncation, Configs[r.config].Truncation; got != want {
				t.Fatalf("recorded under %s, want %s", got, want)
			}
			rep := Validate(rec)
			if again := Validate(rec); !sameVerdict(rep, again) {
				t.Fatalf("validating twice gives two verdicts:\n%s\n%s", expectation(rep), expectation(again))
			}
			if rep.Events != r.events {
				t.Errorf("%d events validated, want %d", rep.Events, r.events)
			}
			if r.mutant != "" {
				checkRejected(t, r, rec, rep)
				return
			}
			if rep.Err != nil {
				t.Fatalf("rejected: %v", rep.Err)
			}
			if rep.Steps != r.steps || rep.Backtracks != r.backtracks || !maps.Equal(rep.Gaps, r.gaps) || rep.Elr != r.elr {
				t.Errorf("got  %s\nwant events: %d, steps: %d, backtracks: %d, gaps: %v, elr: %+v", expectation(rep), r.events, r.steps, r.backtracks, r.gaps, r.elr)
			}
			tamperCases(t, rec)
		})
	}
}

// checkRejected checks the mutant's run is rejected at the recorded event,
// for the recorded reason, and that the event is the mutant's doing (see
// reapplied).
func checkRejected(t *testing.T, r recordedRun, rec Recording, rep Report) {
	t.Helper()
	var f *Failure
	if !errors.As(rep.Err, &f) {
		t.Fatalf("want a rejection at event %d, got: %v", r.failAt, rep.Err)
	}
	msg := rep.Err.Error()
	if f.Index != r.failAt || !strings.HasPrefix(msg, fmt.Sprintf("event %d %s", r.failAt, broker.ActHandleLeaderAndIsr)) || !strings.Contains(msg, r.reason) {
		t.Fatalf("want a rejection at event %d (%s) saying %q, got: %v", r.failAt, broker.ActHandleLeaderAndIsr, r.reason, msg)
	}
	if !reapplied(rec, f) {
		t.Fatalf("event %d is not a LeaderAndIsr of the broker's own epoch applied again", f.Index)
	}
}

// reapplied reports whether a failure is at a LeaderAndIsr that the broker
// applied in the epoch it was already in (by its previous event): what the
// stale-leader-and-isr mutant does (epoch >= where Kafka, and the
// implementation, have >).
func reapplied(rec Recording, f *Failure) bool {
	if f.Event.Action != broker.ActHandleLeaderAndIsr {
		return false
	}
	evs, err := Linearize(rec)
	if err != nil || f.Index >= len(evs) {
		return false
	}
	for i := f.Index - 1; i >= 0; i-- {
		if e := evs[i]; e.Broker == f.Event.Broker {
			return e.Post.LeaderEpoch == f.Event.Post.LeaderEpoch && e.Post.LeaderEpoch >= 0
		}
	}
	return false
}

// sameVerdict reports whether two reports of one recording agree.
func sameVerdict(a, b Report) bool {
	ea, eb := "", ""
	if a.Err != nil {
		ea = a.Err.Error()
	}
	if b.Err != nil {
		eb = b.Err.Error()
	}
	return a.Events == b.Events && a.Steps == b.Steps && a.Backtracks == b.Backtracks && maps.Equal(a.Gaps, b.Gaps) && a.Elr == b.Elr && ea == eb
}

// brief is a shorter chaos phase (a run of a few hundred events where the
// default's has near a thousand).
func brief(o *Options) { o.Duration = 120 * time.Millisecond }

// rough is a shorter chaos phase, but twice as dense, on a lossier
// network: more timeouts, hence more stale and late requests to bridge.
func rough(o *Options) {
	o.Duration, o.Interval = 150*time.Millisecond, 4*time.Millisecond
	o.Faults.DropRate = 0.05
}

// readRecorded loads a recording of testdata/, gzipped or not.
func readRecorded(t testing.TB, file string) Recording {
	t.Helper()
	path := filepath.Join("testdata", file)
	if !strings.HasSuffix(file, ".gz") {
		rec, err := ReadRecording(path)
		if err != nil {
			t.Fatal(err)
		}
		return rec
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	plain := filepath.Join(t.TempDir(), strings.TrimSuffix(file, ".gz"))
	if err := os.WriteFile(plain, b, 0o644); err != nil {
		t.Fatal(err)
	}
	rec, err := ReadRecording(plain)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// writeRecorded saves rec under testdata/ as file, gzipped if file says so.
func writeRecorded(rec Recording, file string) error {
	path := filepath.Join("testdata", file)
	if !strings.HasSuffix(file, ".gz") {
		return rec.WriteFile(path)
	}
	tmp, err := os.CreateTemp("", "hwepoch-rec-*.json")
	if err != nil {
		return err
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	if err := rec.WriteFile(tmp.Name()); err != nil {
		return err
	}
	b, err := os.ReadFile(tmp.Name())
	if err != nil {
		return err
	}
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	zw, _ := gzip.NewWriterLevel(out, gzip.BestCompression)
	if _, err := zw.Write(b); err != nil {
		out.Close()
		return err
	}
	if err := zw.Close(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// bridgeKinds counts the kinds of bridge a report took, beyond the record
// ids' renaming (which nearly every run needs).
func bridgeKinds(rep Report) int {
	n := 0
	for k := range rep.Gaps {
		if k != GapRecordIDs {
			n++
		}
	}
	return n
}

// HWEPOCH_RECORD_TESTDATA=1 go test ./refine/freerun -run TestRecordTestdata -v
// records testdata/'s runs again (all, or those whose file names contain
// HWEPOCH_RECORD_ONLY), then prints each file's verdict for recorded's
// expectations, which must be updated by hand. For each file it records
// free runs of 300 seeds from 1 (HWEPOCH_RECORD_SEEDS, HWEPOCH_RECORD_FIRST)
// with the file's configuration, options and mutant, and replaces the file
// by the best run of at most 700 events, if better than the file's own: for
// a mutant, the shortest run rejected at a LeaderAndIsr the mutant applied
// again (see reapplied); for the correct implementation, the accepted run that exercises
// the most bridges of want, then the most kinds of bridge, then backtracks,
// then is shortest. The search stops at the fifth run with the mutant's
// verdict, or the third with every bridge of want. The runs vary with the
// machine's load, so it can take several searches to find a good one.
// HWEPOCH_RECORD_VERBOSE=1 logs every run. A run of the correct
// implementation the validator rejects is saved to the temporary directory
// and logged: a bug in the implementation or the validator.
func TestRecordTestdata(t *testing.T) {
	if os.Getenv("HWEPOCH_RECORD_TESTDATA") == "" {
		t.Skip("set HWEPOCH_RECORD_TESTDATA=1 to record testdata/'s free runs again")
	}
	only := os.Getenv("HWEPOCH_RECORD_ONLY")
	verbose := os.Getenv("HWEPOCH_RECORD_VERBOSE") != ""
	first, seeds := 1, 300
	if n, err := strconv.Atoi(os.Getenv("HWEPOCH_RECORD_FIRST")); err == nil {
		first = n
	}
	if n, err := strconv.Atoi(os.Getenv("HWEPOCH_RECORD_SEEDS")); err == nil {
		seeds = n
	}
	for _, r := range recorded {
		if only != "" && !strings.Contains(r.file, only) {
			continue
		}
		wanted := func(rep Report) int {
			n := 0
			for _, k := range r.want {
				if rep.Gaps[k] > 0 {
					n++
				}
			}
			return n
		}
		// qualifies reports whether a run has the verdict wanted of it, and
		// whether it ends the search.
		qualifies := func(rec Recording, rep Report) (ok, full bool) {
			if r.mutant != "" {
				var f *Failure
				ok = errors.As(rep.Err, &f) && reapplied(rec, f)
				return ok, ok
			}
			for _, a := range r.actions {
				if !slices.ContainsFunc(rec.Events, func(e cluster.Event) bool { return e.Action == a }) {
					return false, false
				}
			}
			if !tamperable(rec) {
				return false, false // TestRecordedRuns tampers with it
			}
			if r.elrKinds > 0 {
				return rep.Err == nil && rep.Elr.Kinds() > 0, rep.Err == nil && rep.Elr.Kinds() >= r.elrKinds
			}
			return rep.Err == nil && wanted(rep) > 0, rep.Err == nil && wanted(rep) == len(r.want)
		}
		// better reports whether a qualifying run is a better pick than the
		// best so far.
		better := func(rep, best Report) bool {
			if r.mutant == "" {
				if a, b := rep.Elr.Kinds(), best.Elr.Kinds(); a != b {
					return a > b
				}
				if a, b := wanted(rep), wanted(best); a != b {
					return a > b
				}
				if a, b := bridgeKinds(rep), bridgeKinds(best); a != b {
					return a > b
				}
				if a, b := rep.Backtracks > 0, best.Backtracks > 0; a != b {
					return a
				}
			}
			return rep.Events < best.Events
		}
		var bestRep Report
		have, best := false, "the file's own"
		if _, err := os.Stat(filepath.Join("testdata", r.file)); err == nil {
			rec := readRecorded(t, r.file)
			bestRep = Validate(rec)
			have, _ = qualifies(rec, bestRep)
		}
		found, enough := 0, 3
		if r.mutant != "" {
			enough = 5
		}
		for seed := uint64(first); seed < uint64(first+seeds) && found < enough; seed++ {
			opt := DefaultOptions(Configs[r.config], seed)
			if r.mutant != "" {
				opt.Cluster = func(c *cluster.Config) { c.Mutants = []broker.Mutant{r.mutant} }
			}
			if r.opts != nil {
				r.opts(&opt)
			}
			rec := Record(opt)
			if rec.Err != nil || len(rec.Events) > 700 {
				if verbose {
					t.Logf("%s seed %d: %d events, %v", r.file, seed, len(rec.Events), rec.Err)
				}
				continue
			}
			rep := Validate(rec)
			if verbose {
				t.Logf("%s seed %d: %d events, gaps %v, backtracks %d, elr %+v: %s", r.file, seed, len(rec.Events), rep.Gaps, rep.Backtracks, rep.Elr, firstLineOf(rep.Err))
			}
			if r.mutant == "" && rep.Err != nil {
				path := filepath.Join(os.TempDir(), fmt.Sprintf("hwepoch-rejected-%s-seed%d.json", strings.TrimSuffix(r.file, ".json.gz"), seed))
				if err := rec.WriteFile(path); err != nil {
					t.Error(err)
				}
				t.Logf("%s seed %d: the correct implementation's run is rejected (saved to %s): %s", r.file, seed, path, firstLineOf(rep.Err))
				continue
			}
			ok, full := qualifies(rec, rep)
			if !ok {
				continue
			}
			if full {
				found++
			}
			if !have || better(rep, bestRep) {
				if err := writeRecorded(rec, r.file); err != nil {
					t.Fatal(err)
				}
				have, bestRep, best = true, rep, fmt.Sprintf("seed %d's", seed)
			}
		}
		if !have {
			t.Errorf("%s: no run with the wanted verdict", r.file)
			continue
		}
		t.Logf("%s: %s run\n%s", r.file, best, expectation(bestRep))
	}
}

// expectation is a report as recorded's fields.
func expectation(rep Report) string {
	var f *Failure
	if errors.As(rep.Err, &f) {
		return fmt.Sprintf("events: %d, failAt: %d, reason: %q", rep.Events, f.Index, firstLineOf(rep.Err))
	}
	names := map[string]string{GapRecordIDs: "GapRecordIDs", GapIsrCommitEarly: "GapIsrCommitEarly",
		GapIsrNoApply: "GapIsrNoApply", GapLateRequest: "GapLateRequest", GapStaleRequest: "GapStaleRequest",
		GapMaximalIsr: "GapMaximalIsr", GapCrashEarly: "GapCrashEarly", GapIsrBeforeElect: "GapIsrBeforeElect",
		GapIsrSplit: "GapIsrSplit", GapStaleEffect: "GapStaleEffect", GapOtherPartitions: "GapOtherPartitions",
		GapLostUnobserved: "GapLostUnobserved", GapAlterPartitionLost: "GapAlterPartitionLost", GapAlterPartitionRetry: "GapAlterPartitionRetry"}
	var gaps []string
	for k, n := range rep.Gaps {
		gaps = append(gaps, fmt.Sprintf("%s: %d", names[k], n))
	}
	slices.Sort(gaps)
	out := fmt.Sprintf("events: %d, steps: %d, backtracks: %d, gaps: map[string]int{%s}", rep.Events, rep.Steps, rep.Backtracks, strings.Join(gaps, ", "))
	if rep.Elr != (ElrSteps{}) {
		e := rep.Elr
		out += fmt.Sprintf(",\n\telr: ElrSteps{Joined: %d, Emptied: %d, LeaderFenced: %d, LeftOnRestart: %d, ElrElections: %d, LastKnownElections: %d}",
			e.Joined, e.Emptied, e.LeaderFenced, e.LeftOnRestart, e.ElrElections, e.LastKnownElections)
	}
	return out
}

func firstLineOf(err error) string {
	if err == nil {
		return "accepted"
	}
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}
