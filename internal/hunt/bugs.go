// Package hunt measures how long each search takes to find each of the
// historical replication bugs at three replicas (hwepoch hunt, the "Time
// to bug" table of docs/benchmarks.md): the explorer's breadth-first
// search, a swarm of the explorer's random walks, TLC's breadth-first
// search and TLC's -simulate, each to the first counterexample that
// carries the bug's signature (signature.go).
package hunt

import (
	"fmt"
	"strings"

	"github.com/hwepoch/hwepoch/model"
)

// Bug is one historical bug: the Kafka release (or ablation) that has it,
// bounds at three replicas under which it shows, the invariant it breaks
// and its signature.
type Bug struct {
	Name    string // short name, for -bugs
	Title   string // what it is, in a few words
	Release string // "Kafka 0.10.2.2" or "ablation: ..."
	Config  model.Config
	// Invariant is the one searched for: every search stops at its first
	// violation (swarm walks and TLC -simulate go on until one carries the
	// signature; a breadth-first search cannot).
	Invariant     string
	Signature     Signature
	SignatureText string // the signature in a sentence, for the table's notes
	// WalkSteps is the swarm's range of step bounds per walk; SimDepth the
	// depth of TLC's -simulate behaviours.
	WalkSteps [2]int
	SimDepth  int
}

var r3 = []model.Replica{"r1", "r2", "r3"}

// Bugs are the historical bugs, in the order of the table. The bounds are
// the "three replicas, 2 records, 2 leader changes, 1 crash" where
// that is enough, and what the bug needs where it is not (said per bug).
var Bugs = []Bug{
	{
		Name:  "kip101-1",
		Title: "KIP-101 scenario 1: acked record lost to HW truncation",
		// acks=all with min.insync.replicas=2, the usual production setting.
		Release: "Kafka 0.10.2.2",
		Config: model.Config{Replicas: r3, Truncation: model.HighWatermark, Acks: "all", MinInsyncReplicas: 2,
			MaxRecords: 2, MaxEpoch: 2, MaxCrashes: 1},
		Invariant: "NoAckedLoss", Signature: HWTruncationLoss,
		SignatureText: "the new leader lacks an acked record it held and lost by truncating (not in a crash)",
		WalkSteps:     [2]int{10, 50}, SimDepth: 50,
	},
	{
		Name:  "kip101-2",
		Title: "KIP-101 scenario 2: divergence after an unflushed-tail loss",
		// Two crashes: the scenario is a power loss of both replicas.
		Release: "Kafka 0.10.2.2",
		Config: model.Config{Replicas: r3, Truncation: model.HighWatermark, Acks: "all", MinInsyncReplicas: 2,
			UnflushedLoss: true, MaxRecords: 2, MaxEpoch: 2, MaxCrashes: 2},
		Invariant: "NoDivergence", Signature: UnflushedTailDivergence,
		SignatureText: "a crash lost a replica's unflushed tail, it was then elected, and it diverges",
		WalkSteps:     [2]int{10, 60}, SimDepth: 60,
	},
	{
		Name:  "kip279",
		Title: "KIP-279: divergence after fast leader changes",
		// acks=1 and four leader changes without a crash, as
		// spec/kip101-divergence.cfg at two replicas.
		Release: "Kafka 0.11.0.3",
		Config: model.Config{Replicas: r3, Truncation: model.Kip101, Acks: "1", MinInsyncReplicas: 1,
			MaxRecords: 3, MaxEpoch: 4, MaxCrashes: 0},
		Invariant: "NoDivergence", Signature: EpochAnswerDivergence,
		SignatureText: "a follower truncated by an OffsetsForLeaderEpoch answer about an epoch its leader lacked (0.11's endOffsetFor), and diverges",
		WalkSteps:     [2]int{20, 80}, SimDepth: 80,
	},
	{
		Name:  "kip320",
		Title: "KIP-320: zombie follower appends on a newer leader's log",
		// Three records: the zombie's m1 at offset 0 under the leader's m2,
		// and m3 served on top (traces/scenarios/kip320-zombie-follower).
		Release: "ablation: 2.1.0 without KIP-320 fencing",
		Config: model.Config{Replicas: r3, Truncation: model.LeaderEpoch, Fencing: false, Acks: "all", MinInsyncReplicas: 1,
			MaxRecords: 3, MaxEpoch: 2, MaxCrashes: 0},
		Invariant: "NoDivergence", Signature: ZombieFetch,
		SignatureText: "a leader served a fetch sent in an older epoch than its own, the follower appended it, and diverges",
		WalkSteps:     [2]int{20, 80}, SimDepth: 80,
	},
	{
		Name:    "kafka-7128",
		Title:   "KAFKA-7128: follower joins the ISR below the leader's epoch start",
		Release: "Kafka 0.11.0.3",
		Config: model.Config{Replicas: r3, Truncation: model.Kip101, Acks: "all", MinInsyncReplicas: 2,
			MaxRecords: 2, MaxEpoch: 2, MaxCrashes: 1},
		Invariant: "NoAckedLoss", Signature: ExpandBelowEpochStart,
		SignatureText: "a leader added a follower to the ISR whose LEO was below its epoch start, and that follower is in the violation",
		WalkSteps:     [2]int{10, 50}, SimDepth: 50,
	},
}

// Lookup returns the bugs named in a comma-separated list ("" or "all":
// every bug), or an error naming the unknown ones.
func Lookup(list string) ([]Bug, error) {
	if list == "" || list == "all" {
		return Bugs, nil
	}
	var out []Bug
	for _, n := range strings.Split(list, ",") {
		n = strings.TrimSpace(n)
		found := false
		for _, b := range Bugs {
			if b.Name == n {
				out = append(out, b)
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("unknown bug %q (the bugs: %s)", n, strings.Join(Names(), ", "))
		}
	}
	return out, nil
}

// Names are the bugs' names.
func Names() []string {
	n := make([]string, len(Bugs))
	for i, b := range Bugs {
		n[i] = b.Name
	}
	return n
}

// Bounds says a bug's constants in one short line.
func (b *Bug) Bounds() string {
	c := &b.Config
	s := fmt.Sprintf("%d replicas acks=%s minISR=%d records=%d epochs=%d crashes=%d", c.N(), c.Acks, c.MinInsyncReplicas, c.MaxRecords, c.MaxEpoch, c.MaxCrashes)
	if c.UnflushedLoss {
		s += " unflushed"
	}
	return s
}
