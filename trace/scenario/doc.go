// Package scenario reads named scenarios: short, hand-written behaviours of
// the spec that reproduce a known case (the seeds' data loss, KIP-101's
// scenarios, KIP-279, KIP-320, ...), each with the verdict it must give under
// each truncation policy. A scenario is run on the model (model.Apply, step
// by step), so every step it lists must be enabled where it stands; the
// result is an ordinary trace.Trace that the renderer, the dense printer and
// the refinement checker all take.
//
// # Use
//
//	sc, err := scenario.Load("traces/scenarios/kip101-scenario-1.scenario")
//	for _, c := range sc.Cases() {          // e.g. HighWatermark, LeaderEpoch
//		cfg := sc.Config(c)                 // the model.Config of the case
//		acts := sc.Actions(c)               // its steps, to replay elsewhere
//		tr, v, err := sc.Run(c)             // the model's trace and verdict
//		err = v.Meets(sc.Expectation(c))    // nil when the file's expect and final lines hold
//	}
//
// Load has already run every case: a file whose steps are not all enabled
// in the model does not load.
//
// # Format
//
// A scenario file is line based, so that a change to a scenario is a
// readable diff. Blank lines are ignored. A line is one of:
//
//	# prose                 a comment (see below for where it attaches)
//	name NAME               the scenario's name (required; letters, digits, '-')
//	config A=V B=V ...      spec constants (may be repeated; see Constants)
//	policies P ...          the Truncation policies it runs under (required)
//	variants C=V C=V ...    optional: also run each policy once per value of one
//	                        more constant (e.g. Fencing=FALSE Fencing=TRUE)
//	check INV ...           invariants evaluated on every state (required)
//	expect SEL... holds     every checked invariant holds at every state
//	expect SEL... violates INV ...
//	                        exactly these checked invariants fail at some
//	                        state; every other one holds at every state
//	[SEL] Action(a, b)      a step: a spec action, positional arguments in the
//	                        order of the spec operator's parameters
//	refuse SEL... Action(a, b)
//	                        an action the model does not enable after the
//	                        last step; replayed on the implementation, it
//	                        must be refused and change nothing (at most
//	                        one per case)
//	final SEL... FIELD [R] = VALUE
//	                        an assertion on the last state
//
// name, config, policies, variants, check and expect come before the first
// step; refuse and final lines come after the last. A run of the scenario is a Case: one
// policy, and one variant when the scenario declares variants. Every case
// must be covered by exactly one expect line.
//
// # Selectors
//
// SEL is a list of selectors: in brackets before a step ([LeaderEpoch],
// [HighWatermark Kip101], [LeaderEpoch Fencing=TRUE]), as bare words after
// expect, refuse and final (expect LeaderEpoch Fencing=TRUE holds). Each selector is
// a policy of the policies line or a variant of the variants line. A case
// matches when its policy is among the policies named (or none is named)
// and its variant is among the variants named (or none is named); no
// selector at all matches every case. A step with a selector is taken only
// in the cases it matches: that is how one file holds both the run that
// breaks and the run that holds, when the repaired protocol needs extra
// steps (an OffsetsForLeaderEpoch round trip, a retried request).
//
// # Constants
//
// config takes the spec's constant names (docs/spec.md). Defaults:
//
//	Replicas={r1,r2} Acks="all" MinInsyncReplicas=1
//	UncleanLeaderElectionEnable=FALSE UnflushedLoss=FALSE LossyNetwork=FALSE
//	MissedLeaderAndIsr=FALSE
//
// Fencing and MinIsrGatesHW default, per case, to what the case's release
// does (the spec's Releases: Fencing from LeaderEpoch = 2.1.0 on,
// MinIsrGatesHW under DivergingEpoch = 3.9.0); setting one makes the cases
// whose release differs ablations. MaxRecords, MaxEpoch and MaxCrashes
// default, per case, to exactly what the case's steps need (its Produce,
// Elect and Crash steps, and its refuse line's action, so that no bound is
// what refuses it), MaxPartitionEpoch to a bound the partition epoch
// cannot reach (one per Elect, ShrinkIsr, ExpandIsr and Crash step): bounds
// exist to make TLC's state space finite and carry no meaning in a scenario. Truncation is
// not a config constant here: it is set per case by the policies line. Values
// are written as in a TLC .cfg: TRUE, FALSE, 3, "all", {r1, r2, r3}.
//
// # Comments
//
// A block of '#' lines attaches to the line after it. Before the name line it
// is the scenario's title (its first line) and description (the rest; a bare
// '#' separates paragraphs). Before a step it is the note of the phase that
// step begins, shown by the renderers above that step. Elsewhere it is only a
// comment. A '#' after other text on a line is not a comment.
//
// # Final assertions
//
// FIELD is a spec variable; per-replica variables name the replica. VALUE is
// written as the dense renderer writes it, and an empty sequence or set as
// "empty":
//
//	final log r1 = 0:0/1 1:0/2          offset:epoch/id for each record
//	final epochCache r1 = 0@0 2@1       epoch@start for each entry
//	final hw r1 = 2                     also hwCheckpoint, leaderEpoch, LEO
//	final role r1 = Leader              also fetchState, leader (a replica)
//	final ctrlLeader = r2               also ctrlEpoch, ctrlPartitionEpoch,
//	                                    ctrlIsr (= r1 r2)
//	final isr r1 = r1 r2                a leader's ISR; also pendingIsr
//	final followerLeo r1 = -1 2         a leader's views, one per replica in
//	                                    Replicas order (-1: unknown)
//	final produceEpoch r1 = 0           also partitionEpoch
//	final acked = 0:1 1:2               offset:id; also committed
package scenario
