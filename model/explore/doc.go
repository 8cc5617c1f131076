// Package explore checks the model exhaustively, breadth first, like TLC:
// it counts distinct states, states generated and the depth of the state
// graph the same way TLC does, checks the configured invariants in every
// state and action properties on every step, and returns the shortest
// counterexample as a trace. It also has a random-walk (simulation) mode.
//
// The search is level-synchronous and deterministic: whatever the number of
// workers, states are numbered, deduplicated and reported in the order a
// single-threaded BFS over model.Next would visit them, so counterexamples do
// not depend on scheduling.
//
// Memory: a state costs its 64-bit fingerprint in an open-addressing set
// (at most 75% full) and 8 bytes of parent pointer and action for the whole
// search; only the frontier (two levels) is kept as encoded states.
// Symmetry: a state's fingerprint is the least hash over the renamings that
// sort its replicas by model.ReplicaKey, which picks the same classes as
// TLC's least over every renaming at a fraction of the encodings.
package explore
