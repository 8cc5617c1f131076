// Package freerun validates free runs of the implementation against the
// model: it runs a cluster free (real goroutine scheduling, a seeded lossy
// and delaying network, seeded crashes, restarts, partitions and
// elections), records the events its nodes report (each names its spec
// action and parameters, carries a Lamport stamp, a run-wide Seq and the
// broker's post-state), orders them consistently with causality, and
// checks that every event is a step the model enables whose post-state is
// the model's, projected on that broker.
//
// The spec is coarser than the implementation in a few documented places
// (under the ZooKeeper releases an AlterPartition is a proposal, a commit
// and an apply where the spec has one step; a request may be handled after
// its sender gave up on it, or lost while nobody waited for it; producers
// number records when they send them). The validator bridges
// each explicitly, searching for the order of concurrent events the spec
// needs where there is a choice, and counts every bridge by kind in its
// Report (docs/mapping.md lists them). An event it cannot map fails the
// run, naming the event, why, and the model's state.
package freerun
