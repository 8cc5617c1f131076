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
package explore
