package model

import (
	"fmt"
	"slices"
)

// Truncation policies, the values of the spec's Truncation constant: each one
// Kafka release (Releases).
const (
	HighWatermark  = "HighWatermark"
	Kip101         = "Kip101"
	LeaderEpoch    = "LeaderEpoch"
	DivergingEpoch = "DivergingEpoch"
	EligibleLeader = "EligibleLeader"
)

// Policies lists the policies in the order of the spec's Releases table.
var Policies = []string{HighWatermark, Kip101, LeaderEpoch, DivergingEpoch, EligibleLeader}

// Release mirrors a row of the spec's Releases table: what one Kafka release
// does, for every behaviour the actions vary by release. docs/spec.md names
// the Kafka file and function behind each cell.
type Release struct {
	Release               string // the Kafka release tag the row follows
	RestartFetcherOn      string // "LeaderChange" | "EpochChange"
	Reconcile             string // "TruncateToHW" | "OffsetsForLeaderEpochV0" | "OffsetsForLeaderEpoch" | "DivergingEpoch"
	CacheAssign           string // "None" | "GreaterOnly" | "TruncateAndAppend"
	LeaderEntry           string // "None" | "FirstAppend" | "BecomeLeader"
	UndefinedTo           string // "HW" | "FetchOffset"
	AsyncIsr              bool
	ExpandLiveOnly        bool
	ExpandNeedsEpochStart bool
	StaleFetchServed      bool
	MinIsrGatesHW         bool
	Fencing               bool
	// IsrBrokerEpochs: KIP-903, a replica joins the ISR only with the
	// broker epoch of its current registration (leader and controller).
	IsrBrokerEpochs bool
	// Elr: Eligible Leader Replicas (KIP-966): the controller's ELR and
	// last known leader, fencing that may empty the ISR, the election order
	// ISR, ELR, last known leader, a restart leaving the ELR.
	Elr bool
}

var (
	release0102 = Release{Release: "0.10.2.2", RestartFetcherOn: "LeaderChange", Reconcile: "TruncateToHW",
		CacheAssign: "None", LeaderEntry: "None", UndefinedTo: "HW", StaleFetchServed: true}
	release0110 = Release{Release: "0.11.0.3", RestartFetcherOn: "LeaderChange", Reconcile: "OffsetsForLeaderEpochV0",
		CacheAssign: "GreaterOnly", LeaderEntry: "FirstAppend", UndefinedTo: "HW", StaleFetchServed: true}
	release210 = Release{Release: "2.1.0", RestartFetcherOn: "EpochChange", Reconcile: "OffsetsForLeaderEpoch",
		CacheAssign: "TruncateAndAppend", LeaderEntry: "BecomeLeader", UndefinedTo: "FetchOffset",
		ExpandNeedsEpochStart: true, StaleFetchServed: true, Fencing: true}
	release390 = Release{Release: "3.9.0", RestartFetcherOn: "EpochChange", Reconcile: "DivergingEpoch",
		CacheAssign: "TruncateAndAppend", LeaderEntry: "BecomeLeader", UndefinedTo: "FetchOffset",
		AsyncIsr: true, ExpandLiveOnly: true, ExpandNeedsEpochStart: true, MinIsrGatesHW: true, Fencing: true,
		IsrBrokerEpochs: true}
	// release410 is 3.9's brokers with ELR's controller
	// (eligible.leader.replicas.version=1; docs/kafka-releases.md).
	release410 = Release{Release: "4.1.0", RestartFetcherOn: "EpochChange", Reconcile: "DivergingEpoch",
		CacheAssign: "TruncateAndAppend", LeaderEntry: "BecomeLeader", UndefinedTo: "FetchOffset",
		AsyncIsr: true, ExpandLiveOnly: true, ExpandNeedsEpochStart: true, MinIsrGatesHW: true, Fencing: true,
		IsrBrokerEpochs: true, Elr: true}
)

// Releases mirrors the spec's Releases.
var Releases = map[string]Release{
	HighWatermark: release0102, Kip101: release0110, LeaderEpoch: release210, DivergingEpoch: release390,
	EligibleLeader: release410,
}

// Rel mirrors Rel == Releases[Truncation] (the zero Release for a policy
// Validate refuses). It is on every action's path, hence no map lookup.
func (c *Config) Rel() *Release {
	switch c.Truncation {
	case HighWatermark:
		return &release0102
	case Kip101:
		return &release0110
	case LeaderEpoch:
		return &release210
	case DivergingEpoch:
		return &release390
	case EligibleLeader:
		return &release410
	}
	return &Release{}
}

// IsAblation mirrors IsAblation: the configuration changes its release's
// behaviour (a what-if that never shipped).
func (c *Config) IsAblation() bool {
	r := Releases[c.Truncation]
	return c.Fencing != r.Fencing || (c.MinIsrGatesHW != r.MinIsrGatesHW && c.MinInsyncReplicas > 1)
}

// Config holds the spec's CONSTANTS. Replicas is sorted by name; per-replica
// State fields are indexed by position in it.
type Config struct {
	Replicas                    []Replica
	Truncation                  string // a key of Releases
	Fencing                     bool
	Acks                        string // "0" | "1" | "all"
	MinInsyncReplicas           int
	MinIsrGatesHW               bool
	UncleanLeaderElectionEnable bool
	UnflushedLoss               bool
	LossyNetwork                bool
	// MissedLeaderAndIsr: a live broker may miss a LeaderAndIsr that a
	// later one follows (spec MissLeaderAndIsr; issue 25).
	MissedLeaderAndIsr bool
	MaxRecords         int
	MaxEpoch           int
	MaxCrashes         int
	MaxPartitionEpoch  int
	// Mutant is no spec constant: a seeded liveness bug (model/mutants.go)
	// that the explorer and TLC (on MutantSpec's patched copy of the spec)
	// must catch. Empty in every real configuration.
	Mutant Mutant `json:",omitempty"`
	// Restore is no spec constant either: a Kafka behaviour the spec leaves
	// out, put back (model/restore.go) to check that its deviation cannot
	// change a verdict. Empty in every manifest configuration.
	Restore Restore `json:",omitempty"`
}

// Validate mirrors the spec's ASSUMEs, plus what the Go representation needs
// (replica names are distinct, sorted, and none is named like the None sentinel).
func (c *Config) Validate() error {
	if _, ok := Releases[c.Truncation]; !ok {
		return fmt.Errorf("constant Truncation = %q: want \"HighWatermark\", \"Kip101\", \"LeaderEpoch\", \"DivergingEpoch\" or \"EligibleLeader\" (ASSUME Truncation \\in DOMAIN Releases)", c.Truncation)
	}
	switch c.Acks {
	case "0", "1", "all":
	default:
		return fmt.Errorf("constant Acks = %q: want \"0\", \"1\" or \"all\"", c.Acks)
	}
	if c.MinInsyncReplicas < 1 {
		return fmt.Errorf("constant MinInsyncReplicas = %d: want a natural number other than 0 (ASSUME MinInsyncReplicas \\in Nat \\ {0})", c.MinInsyncReplicas)
	}
	for _, b := range []struct {
		name string
		v    int
	}{{"MaxRecords", c.MaxRecords}, {"MaxEpoch", c.MaxEpoch}, {"MaxCrashes", c.MaxCrashes}, {"MaxPartitionEpoch", c.MaxPartitionEpoch}} {
		if b.v < 0 {
			return fmt.Errorf("constant %s = %d: want a natural number", b.name, b.v)
		}
	}
	if c.Mutant != "" && !slices.Contains(Mutants, c.Mutant) {
		return fmt.Errorf("mutant %q: no such seeded bug (known: %v)", c.Mutant, Mutants)
	}
	if err := c.validateRestore(); err != nil {
		return err
	}
	if len(c.Replicas) == 0 {
		return fmt.Errorf("constant Replicas is empty")
	}
	if !slices.IsSorted(c.Replicas) {
		return fmt.Errorf("constant Replicas %v is not sorted by name", c.Replicas)
	}
	for i, r := range c.Replicas {
		if r == None || r == "" {
			return fmt.Errorf("replica %q: ASSUME None \\notin Replicas", r)
		}
		if i > 0 && c.Replicas[i-1] == r {
			return fmt.Errorf("replica %q listed twice", r)
		}
	}
	return nil
}

// Index is the position of replica r in c.Replicas, or -1.
func (c *Config) Index(r Replica) int {
	for i, x := range c.Replicas {
		if x == r {
			return i
		}
	}
	return -1
}

// N is the number of replicas.
func (c *Config) N() int { return len(c.Replicas) }

func (c *Config) String() string {
	s := fmt.Sprintf("Replicas=%v Truncation=%s Fencing=%t Acks=%s MinInsyncReplicas=%d MinIsrGatesHW=%t Unclean=%t UnflushedLoss=%t LossyNetwork=%t MaxRecords=%d MaxEpoch=%d MaxCrashes=%d MaxPartitionEpoch=%d",
		c.Replicas, c.Truncation, c.Fencing, c.Acks, c.MinInsyncReplicas, c.MinIsrGatesHW,
		c.UncleanLeaderElectionEnable, c.UnflushedLoss, c.LossyNetwork, c.MaxRecords, c.MaxEpoch, c.MaxCrashes, c.MaxPartitionEpoch)
	if c.MissedLeaderAndIsr {
		s += " MissedLeaderAndIsr=true"
	}
	return s
}
