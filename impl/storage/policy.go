package storage

import "github.com/hwepoch/hwepoch/impl/release"

// Policy is the truncation policy, the spec's Truncation: one shipped Kafka
// release (package release holds the table of what each does). It is
// re-exported here because both sides of the protocol name it through
// storage: the leader picks its OffsetsForLeaderEpoch answer by release
// (Log.OffsetsForLeaderEpoch) and the log its epoch cache rule.
type Policy = release.Policy

// The policies, as in package release.
const (
	HighWatermark  = release.HighWatermark
	Kip101         = release.Kip101
	LeaderEpoch    = release.LeaderEpoch
	DivergingEpoch = release.DivergingEpoch
	EligibleLeader = release.EligibleLeader
)

// Policies lists every policy, in the order Kafka shipped them.
var Policies = release.Policies

// ParsePolicy returns the policy named s (the spec's spelling).
func ParsePolicy(s string) (Policy, error) { return release.ParsePolicy(s) }
