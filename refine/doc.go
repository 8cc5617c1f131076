// Package refine is the refinement checker: it holds the implementation
// (impl/cluster in stepped mode) to the model (model/, the executable twin
// of spec/Replication.tla) step by step.
//
// The pieces, one file each:
//
//   - ids.go: replica name <-> broker id (the i-th replica of the
//     configuration is broker i+1).
//   - config.go: a stepped cluster configured from a model.Config.
//   - abstract.go: Abstract, the abstraction function from a cluster
//     Snapshot to a model.State, field by field.
//   - step.go: one model.Action performed through the stepped API.
//   - replay.go: a trace.Trace replayed on the model and the implementation,
//     with cmp.Diff(model, Abstract(snapshot)) after every step.
//   - load.go: every trace format in one place (TLC -dumpTrace json, ITF,
//     scenario files, regressions) and the configuration each belongs to.
//
// Random traces (gopter) live in refine/random, the validation of free runs
// in refine/freerun and the mutation check in refine/mutants.
//
// refine never reaches into unexported implementation state: everything it
// reads is cluster.Snapshot, and everything it does goes through the
// cluster's exported stepped API.
package refine
