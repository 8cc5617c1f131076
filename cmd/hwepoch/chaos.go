package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hwepoch/hwepoch/impl/cluster"
	"github.com/hwepoch/hwepoch/impl/protocol"
	"github.com/hwepoch/hwepoch/impl/release"
	"github.com/hwepoch/hwepoch/impl/storage"
)

func init() {
	register("chaos", "run the implementation free under seeded chaos and check for lost or divergent records", runChaos)
}

// settingsFlag collects repeated -set key=value flags.
type settingsFlag []string

func (s *settingsFlag) String() string     { return strings.Join(*s, ",") }
func (s *settingsFlag) Set(v string) error { *s = append(*s, v); return nil }

func runChaos(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("chaos", flag.ContinueOnError)
	fs.SetOutput(stderr)
	seeds := fs.Int("seeds", 20, "number of seeds to run")
	first := fs.Uint64("seed", 1, "first seed")
	policy := fs.String("policy", "LeaderEpoch", "truncation policy (a Kafka release): HighWatermark (0.10.2), Kip101 (0.11.0), LeaderEpoch (2.1.0) or DivergingEpoch (3.9.0)")
	brokers := fs.Int("brokers", 3, "brokers (= replication factor)")
	acks := fs.String("acks", "all", "producer acks: 0, 1 or all")
	minIsr := fs.Int("min-insync", 2, "min.insync.replicas")
	unclean := fs.Bool("unclean", false, "unclean.leader.election.enable")
	unflushed := fs.Bool("unflushed", false, "a crash loses the log's unflushed tail")
	fencing := fs.Bool("fencing", true, "KIP-320 leader epoch fencing")
	duration := fs.Duration("duration", time.Second, "chaos phase of each seed")
	interval := fs.Duration("interval", 10*time.Millisecond, "mean time between chaos actions")
	drop := fs.Float64("drop", 0.01, "network drop rate")
	delay := fs.Float64("delay", 0.3, "network delay rate")
	maxDelay := fs.Duration("max-delay", 2*time.Millisecond, "largest network delay (keep well below request.timeout.ms)")
	expect := fs.String("expect", "auto", "holds | violated | auto (holds for LeaderEpoch and DivergingEpoch with fencing, clean elections and no unflushed loss)")
	out := fs.String("out", "chaos-failures", "directory for the replayable event lists of failing seeds")
	replay := fs.String("replay", "", "instead of running chaos, replay an event list written by a failing seed, in stepped mode")
	verbose := fs.Bool("v", false, "print every seed's chaos actions")
	var settings settingsFlag
	fs.Var(&settings, "set", "extra setting key=value (Kafka names, e.g. replica.lag.time.max.ms=60); repeatable")
	fs.Usage = func() {
		fmt.Fprintln(stderr, `usage: hwepoch chaos [flags]

Runs the concurrent implementation free (goroutines, timers, a simulated
network with drops and delays) for each seed: producers write with the given
acks while a seeded driver crashes and restarts brokers, partitions the
network, and elects leaders (including fast double elections). Then the
network heals, every broker restarts, and once the cluster has converged the
run is checked: no acknowledged or consumer-visible record may be missing
from the leader's log, and no replica may differ from it.

Each seed prints one line as it finishes. A failing seed prints its chaos
schedule and writes its events, as spec steps in the order they happened, to
-out; replay them deterministically with -replay FILE.

Exit status 0 when the verdicts are as -expect says: no failure at all
(holds), or at least one loss or divergence (violated).

flags:`)
		fs.PrintDefaults()
	}
	if code, done := parseFlags(fs, args); done {
		return code
	}
	if *replay != "" {
		return replayFile(*replay, stdout, stderr)
	}
	p, err := storage.ParsePolicy(*policy)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	a, err := protocol.ParseAcks(*acks)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	base := cluster.DefaultChaos("", 0)
	base.Brokers, base.Policy, base.Acks, base.MinInsyncReplicas = *brokers, p, a, *minIsr
	base.UncleanLeaderElectionEnable, base.UnflushedLoss, base.Fencing = *unclean, *unflushed, *fencing
	rel, _ := release.Of(p)                // ParsePolicy checked it
	base.MinIsrGatesHW = rel.MinIsrGatesHW // the release's own (3.7+: KAFKA-15583)
	base.Duration, base.Interval = *duration, *interval
	base.Faults.DropRate, base.Faults.DelayRate, base.Faults.MaxDelay = *drop, *delay, *maxDelay
	base.Settings = append(base.Settings, settings...)
	want := *expect
	if want == "auto" {
		want = "violated"
		if (p == storage.LeaderEpoch || p == storage.DivergingEpoch) && *fencing && !*unclean && !*unflushed {
			want = "holds"
		}
	}
	if want != "holds" && want != "violated" {
		fmt.Fprintf(stderr, "hwepoch chaos: -expect must be holds, violated or auto\n")
		return 2
	}
	fmt.Fprintf(stdout, "chaos: %d seeds from %d, %s, %d brokers, acks=%s, min.insync.replicas=%d, unclean=%t, unflushed=%t, fencing=%t, %v each; expect %s\n",
		*seeds, *first, p, *brokers, a, *minIsr, *unclean, *unflushed, *fencing, *duration, want)
	start := time.Now()
	var failed, broken, acked int
	done := 0
	cluster.RunChaosSeeds(base, *first, *seeds, func(r cluster.ChaosResult) {
		done++
		acked += r.Acked
		eta := time.Duration(float64(time.Since(start)) / float64(done) * float64(*seeds-done))
		fmt.Fprintf(stdout, "[%d/%d, eta %v] %s\n", done, *seeds, eta.Round(time.Second), r)
		if *verbose {
			fmt.Fprintf(stdout, "    %s\n", strings.Join(r.Actions, "\n    "))
		}
		if !r.Failed() {
			return
		}
		failed++
		if r.Err != nil || !r.Converged {
			broken++
		}
		if !*verbose {
			fmt.Fprintf(stdout, "    chaos schedule:\n      %s\n", strings.Join(r.Actions, "\n      "))
		}
		if path, err := writeFailure(*out, r, base); err != nil {
			fmt.Fprintf(stderr, "    could not write the event list: %v\n", err)
		} else {
			fmt.Fprintf(stdout, "    %d events written to %s; replay: hwepoch chaos -replay %s\n", len(r.Steps), path, path)
		}
	})
	fmt.Fprintf(stdout, "chaos: %d seeds, %d with loss or divergence, %d errors or no convergence, %d records acknowledged in all, %v\n",
		*seeds, failed-broken, broken, acked, time.Since(start).Round(time.Millisecond))
	switch {
	case broken > 0:
		return 1
	case want == "holds" && failed > 0:
		return 1
	case want == "violated" && failed == 0:
		fmt.Fprintln(stdout, "chaos: expected at least one loss or divergence, found none")
		return 1
	}
	return 0
}

func writeFailure(dir string, r cluster.ChaosResult, base cluster.ChaosConfig) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, fmt.Sprintf("seed-%d-%s.steps", r.Seed, r.Policy))
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	fmt.Fprintf(f, "# hwepoch chaos seed %d: %s\n", r.Seed, r.Verdict)
	for _, a := range r.Actions {
		fmt.Fprintf(f, "# chaos %s\n", a)
	}
	if err := cluster.WriteSteps(f, base.ReplaySettings(), r.Steps); err != nil {
		f.Close()
		return "", err
	}
	return path, f.Close()
}

func replayFile(path string, stdout, stderr io.Writer) int {
	f, err := os.Open(path)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	defer f.Close()
	settings, steps, err := cluster.ReadSteps(f)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", path, err)
		return 1
	}
	dir, err := os.MkdirTemp("", "hwepoch-replay-")
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	cfg := cluster.DefaultConfig(dir)
	if err := cfg.SetAll(settings); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	s, n, err := cluster.Replay(cfg, steps)
	if err != nil {
		fmt.Fprintf(stdout, "replay stopped after %d of %d steps: %v\n", n, len(steps), err)
	} else {
		fmt.Fprintf(stdout, "replayed all %d steps\n", n)
	}
	for _, b := range s.Brokers {
		p := b.Partition
		fmt.Fprintf(stdout, "  broker %d %-8s epoch %d LEO %d HW %d\n", b.ID, b.Role, p.LeaderEpoch, p.LEO, p.HW)
	}
	fmt.Fprintf(stdout, "verdict: %s\n", cluster.Check(s))
	return 0
}
