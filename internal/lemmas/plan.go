package lemmas

// Plan is one configuration of spec/manifest.json explored for lemmas,
// with what each lemma must give there. The configurations' own bounds
// are used, so the state graph is the one TLC and the explorer check.
type Plan struct {
	Config string   // a configuration of spec/manifest.json
	Hold   []string // lemmas that must hold in every reachable state / step
	// Violate lists lemmas that must be violated, each with the reason: the
	// checks bite where the protocol is known to be broken.
	Violate map[string]string
	// Big marks plans that take about a minute or more (hwepoch verify
	// --all, hwepoch lemmas -all and go test -lemmas.all run them).
	Big bool
}

// everyLemma is every lemma's name.
func everyLemma() []string {
	out := make([]string, len(All))
	for i, l := range All {
		out[i] = l.Name
	}
	return out
}

// Plans are the lemma checks of docs/correctness.md.
var Plans = []Plan{
	// LeaderEpoch + KIP-320 fencing, clean elections, acks=all: every lemma.
	{Config: "le-fenced-2", Hold: everyLemma()},
	// HighWatermark truncation, no fencing: the lemmas that LeaderEpoch
	// truncation and fencing provide fail, so the checks are not vacuous.
	// L4a and L4b are about how views change, which no release varies
	// (a fetch of an older epoch is L3's, at the read).
	{Config: "hw-acked-loss", Hold: []string{"L4a", "L4b"}, Violate: map[string]string{
		"L2a": "truncating to the HW keeps records the leader does not have",
		"L2b": "without fencing a follower appends a response its leader served in an older epoch, then truncated away",
		"L3":  "without fencing a replica serves requests of epochs it does not lead",
		"L4c": "the leader counts a fetch sent before the follower truncated to its HW",
		"L4d": "a follower becoming follower again truncates to its HW with a fetch outstanding",
		"L4e": "the leader reads for a fetch from beyond what the follower still holds of its log",
	}},
	// Unclean elections under LeaderEpoch: records may be lost, logs never
	// diverge; every lemma holds.
	// Big since the per-release spec tripled its states (3.2 million);
	// traces/lemmas.json keeps its results, which TestRecordedLemmasAreCurrent
	// holds to the spec and the plan's verdicts.
	{Config: "le-unclean-nodiv", Hold: everyLemma(), Big: true},
	// A crash that loses the unflushed tail: the follower comes back into
	// the same epoch without records its leader counted (L4c), which is how
	// such a crash can lose committed records; the other lemmas hold.
	{Config: "le-unflushed", Hold: []string{"L1", "L2a", "L2b", "L2c", "L3", "L4a", "L4b", "L4d", "L4e"}, Violate: map[string]string{
		"L4c": "a follower that lost its unflushed tail rejoins the epoch while the leader still counts the lost records",
	}},
	// Kafka 3.9: divergingEpoch in Fetch, asynchronous AlterPartition. A
	// follower fetches from its LEO before it is validated, so L4d's
	// argument (it truncates only with no fetch outstanding) is not what
	// keeps the HW honest there; L4e is.
	{Config: "de-fenced-2", Hold: everyLemma(), Big: true},
	// Three replicas, min.insync.replicas=2, with symmetry.
	{Config: "le-fenced-3", Hold: everyLemma(), Big: true},
}
