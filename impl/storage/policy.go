package storage

import "fmt"

// Policy is the follower truncation policy, the spec's Truncation constant.
// It lives in storage (not fetcher) because both sides of the protocol need
// it: the leader picks its OffsetsForLeaderEpoch answer by policy
// (Log.OffsetsForLeaderEpoch) and the follower its truncation rule
// (fetcher.TruncationTarget). The string values are the spec's, so a
// configuration or trace can name a policy verbatim.
type Policy string

const (
	// HighWatermark is Kafka <= 0.10.2: truncate to the local HW on becoming
	// follower and on restart.
	HighWatermark Policy = "HighWatermark"
	// Kip101 is Kafka 0.11.0: OffsetsForLeaderEpoch v0, the leader answers the
	// start offset of the next higher epoch (Kip101EndOffset).
	Kip101 Policy = "Kip101"
	// LeaderEpoch is KIP-101 + KIP-279: the leader answers (epoch, end offset)
	// and the follower loops until it finds an epoch both know.
	LeaderEpoch Policy = "LeaderEpoch"
)

// Policies lists every policy, in the order Kafka shipped them.
var Policies = []Policy{HighWatermark, Kip101, LeaderEpoch}

// Valid reports whether p is one of the three policies. The zero value is
// not valid, so a configuration that forgot to choose is caught.
func (p Policy) Valid() bool {
	switch p {
	case HighWatermark, Kip101, LeaderEpoch:
		return true
	}
	return false
}

// ParsePolicy returns the policy named s (the spec's spelling).
func ParsePolicy(s string) (Policy, error) {
	if p := Policy(s); p.Valid() {
		return p, nil
	}
	return "", fmt.Errorf("storage: unknown truncation policy %q (want HighWatermark, Kip101 or LeaderEpoch)", s)
}

// String returns the spec's spelling.
func (p Policy) String() string { return string(p) }
