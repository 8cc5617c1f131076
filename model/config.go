package model

import (
	"fmt"
	"slices"
)

// Truncation policies, the values of the spec's Truncation constant.
const (
	HighWatermark = "HighWatermark"
	Kip101        = "Kip101"
	LeaderEpoch   = "LeaderEpoch"
)

// Config holds the spec's CONSTANTS. Replicas is sorted by name; per-replica
// State fields are indexed by position in it.
type Config struct {
	Replicas                    []Replica
	Truncation                  string // "HighWatermark" | "Kip101" | "LeaderEpoch"
	Fencing                     bool
	Acks                        string // "0" | "1" | "all"
	MinInsyncReplicas           int
	MinIsrGatesHW               bool
	UncleanLeaderElectionEnable bool
	UnflushedLoss               bool
	LossyNetwork                bool
	MaxRecords                  int
	MaxEpoch                    int
	MaxCrashes                  int
}

// Validate mirrors the spec's ASSUMEs, plus what the Go representation needs
// (replica names are distinct, sorted, and none is named like the None sentinel).
func (c *Config) Validate() error {
	switch c.Truncation {
	case HighWatermark, Kip101, LeaderEpoch:
	default:
		return fmt.Errorf("constant Truncation = %q: want \"HighWatermark\", \"Kip101\" or \"LeaderEpoch\"", c.Truncation)
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
	}{{"MaxRecords", c.MaxRecords}, {"MaxEpoch", c.MaxEpoch}, {"MaxCrashes", c.MaxCrashes}} {
		if b.v < 0 {
			return fmt.Errorf("constant %s = %d: want a natural number", b.name, b.v)
		}
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
	return fmt.Sprintf("Replicas=%v Truncation=%s Fencing=%t Acks=%s MinInsyncReplicas=%d MinIsrGatesHW=%t Unclean=%t UnflushedLoss=%t LossyNetwork=%t MaxRecords=%d MaxEpoch=%d MaxCrashes=%d",
		c.Replicas, c.Truncation, c.Fencing, c.Acks, c.MinInsyncReplicas, c.MinIsrGatesHW,
		c.UncleanLeaderElectionEnable, c.UnflushedLoss, c.LossyNetwork, c.MaxRecords, c.MaxEpoch, c.MaxCrashes)
}
