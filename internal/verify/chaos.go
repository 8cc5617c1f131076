package verify

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/hwepoch/hwepoch/impl/cluster"
	"github.com/hwepoch/hwepoch/impl/storage"
)

// ChaosPlan sizes the chaos campaign: the implementation run free
// (goroutines, timers, a lossy network) under seeded crashes, restarts,
// partitions and elections (impl/cluster RunChaosSeeds), then healed and
// checked for lost and divergent records.
type ChaosPlan struct {
	LeaderEpochSeeds int           // LeaderEpoch seeds, every one of which must hold
	HWMaxSeeds       int           // HighWatermark seeds to try until one is caught
	Duration         time.Duration // the chaos phase of each seed
}

// ChaosRows runs the campaign: under LeaderEpoch (fencing, acks=all,
// min.insync.replicas=2, clean elections) no seed may lose or diverge;
// under HighWatermark, with the same chaos, some seed must be caught.
func ChaosRows(plan ChaosPlan, progress io.Writer) []Row {
	dir, err := os.MkdirTemp("", "hwepoch-verify-chaos-")
	if err != nil {
		return []Row{{Stage: "chaos", Item: "campaign", Expected: "runs", Found: "error: " + err.Error(), Status: Fail}}
	}
	defer os.RemoveAll(dir)
	base := cluster.DefaultChaos(dir, 0)
	base.Duration = plan.Duration
	item := fmt.Sprintf("%d brokers acks=%s minISR=%d fencing", base.Brokers, base.Acks, base.MinInsyncReplicas)
	say := func(r cluster.ChaosResult) {
		if progress != nil {
			fmt.Fprintf(progress, "hwepoch verify: [chaos] %s\n", r)
		}
	}

	// LeaderEpoch must hold on every seed.
	le := Row{Stage: "chaos", Item: item, Policy: string(storage.LeaderEpoch),
		Expected: "no loss, no divergence", Status: Pass}
	start := time.Now()
	results := cluster.RunChaosSeeds(base, 1, plan.LeaderEpochSeeds, say)
	le.Time = time.Since(start)
	le.Size = seeds(len(results), plan.Duration)
	acked, events := 0, 0
	for _, r := range results {
		acked += r.Acked
		events += len(r.Steps)
		if r.Failed() && le.Status == Pass {
			le.Status = Fail
			le.Found = fmt.Sprintf("seed %d: %s", r.Seed, firstLine(failure(r)))
			le.Counterexample = chaosCounterexample(r)
		}
	}
	if le.Status == Pass {
		le.Found = fmt.Sprintf("holds in %d of %d (%d acked, %d events)", len(results), len(results), acked, events)
	}

	// HighWatermark, under the same chaos, must be caught.
	hw := Row{Stage: "chaos", Item: item, Policy: string(storage.HighWatermark),
		Expected: fmt.Sprintf("loss or divergence within %d seeds", plan.HWMaxSeeds), Status: Fail}
	base.Policy = storage.HighWatermark
	start = time.Now()
	tried := 0
	for seed := uint64(1); seed <= uint64(plan.HWMaxSeeds); seed++ {
		r := cluster.RunChaosSeeds(base, seed, 1, say)[0]
		tried++
		if r.Err != nil {
			hw.Found = fmt.Sprintf("seed %d: error: %v", r.Seed, r.Err)
			break
		}
		if !r.Verdict.OK() {
			hw.Status = Pass
			hw.Found = fmt.Sprintf("caught at seed %d: %s", r.Seed, shortVerdict(r.Verdict))
			hw.Counterexample = chaosCounterexample(r)
			break
		}
	}
	hw.Time = time.Since(start)
	hw.Size = seeds(tried, plan.Duration)
	if hw.Found == "" {
		hw.Found = fmt.Sprintf("nothing caught in %d seeds", tried)
	}
	return []Row{le, hw}
}

func seeds(n int, d time.Duration) string {
	if n == 1 {
		return fmt.Sprintf("1 seed × %v", d)
	}
	return fmt.Sprintf("%d seeds × %v", n, d)
}

// shortVerdict is a failed chaos verdict in a table cell.
func shortVerdict(v cluster.Verdict) string {
	return fmt.Sprintf("%d acked lost, %d visible lost, %d replicas diverged", len(v.LostAcked), len(v.LostVisible), len(v.Divergent))
}

func failure(r cluster.ChaosResult) string {
	switch {
	case r.Err != nil:
		return "error: " + r.Err.Error()
	case !r.Converged:
		return "did not converge"
	}
	return r.Verdict.String()
}

// chaosCounterexample is a failing seed's evidence: the final state of
// every broker, one line each in the dense format of trace.Render, the
// verdict, and the chaos schedule that led there.
func chaosCounterexample(r cluster.ChaosResult) *Counterexample {
	var b strings.Builder
	s := r.Final
	fmt.Fprintf(&b, "final state: ctrl leader %d e%d isr%v acked %d committed %d\n", s.Controller.Leader, s.Controller.Epoch,
		s.Controller.Isr, len(s.Producer.Acked), len(s.Committed))
	for _, br := range s.Brokers {
		fmt.Fprintf(&b, "    %-4d %s\n", br.ID, PartitionLine(br.Partition))
	}
	fmt.Fprintf(&b, "verdict: %s\n", r.Verdict)
	fmt.Fprintf(&b, "chaos schedule (%d actions; %d events recorded, replayable with hwepoch chaos -replay):\n", len(r.Actions), len(r.Steps))
	for _, a := range r.Actions {
		fmt.Fprintf(&b, "    %s\n", a)
	}
	return &Counterexample{Title: fmt.Sprintf("chaos %s seed %d: %s", r.Policy, r.Seed, failure(r)), Text: b.String()}
}

// PartitionLine is one replica of the implementation in the format of
// trace.ReplicaLine: role, leader epoch, LEO, HW, checkpointed HW, the log
// as offset:epoch/id cells, the epoch cache as epoch@start.
func PartitionLine(p cluster.PartitionSnapshot) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-8s e%-2d leo %d hw %d ckpt %d |", p.Role, p.LeaderEpoch, p.LEO, p.HW, p.HWCheckpoint)
	for _, rec := range p.Log {
		fmt.Fprintf(&b, " %d:%d/%d", rec.Offset, rec.Epoch, rec.ID)
	}
	b.WriteString(" | cache")
	for _, e := range p.EpochCache {
		fmt.Fprintf(&b, " %d@%d", e.Epoch, e.Start)
	}
	switch p.Role {
	case "Leader":
		fmt.Fprintf(&b, " | isr%v", p.Isr)
	case "Follower":
		fmt.Fprintf(&b, " | of %d %s", p.Leader, p.FetchState)
	}
	return b.String()
}
