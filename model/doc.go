// Package model is the executable twin of spec/Replication.tla: one Go type
// per TLA+ value, one field per TLA+ variable, one function per TLA+ operator,
// with the same names. The explorer (model/explore) must find exactly the
// distinct states TLC finds on the same configuration; that equality is how we
// know the two say the same thing, so this package mirrors the spec literally,
// including its CHOOSEs and its order of disjuncts, rather than "improving" it.
//
// The package is pure: no goroutines, I/O, clocks or randomness. States are
// values: every function here returns a new State and never mutates one it was
// given, so a State can be shared freely between goroutines.
//
// Conventions. Per-replica TLA+ functions ([Replicas -> X]) are slices indexed
// by the replica's position in Config.Replicas (sorted by name). Sets are
// sorted, duplicate-free slices, so that equal TLA+ sets are equal Go slices
// and encode to the same bytes.
package model
