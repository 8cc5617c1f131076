package freerun

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hwepoch/hwepoch/impl/client"
	"github.com/hwepoch/hwepoch/impl/cluster"
	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/refine"
	"github.com/hwepoch/hwepoch/trace"
)

// The documented gaps between the spec and a free run, which the validator
// bridges explicitly and counts (docs/mapping.md explains each).
const (
	// GapRecordIDs: the spec's nextId numbers records in append order; the
	// implementation's producers number requests when they send them, so
	// ids are skipped (a request refused or lost) or appended out of order
	// (two producers). The validator renames the implementation's ids to
	// the spec's, in append order; counted: the records whose id differs.
	GapRecordIDs = "record ids renamed to append order"
	// GapIsrCommitEarly: under the ZooKeeper releases (all but
	// DivergingEpoch, whose spec has the three steps) the spec's ShrinkIsr
	// / ExpandIsr is one step, the conditional write; the implementation's
	// free-mode AlterPartition is a proposal, the controller's commit, and
	// the leader's apply of the answer. The validator takes the
	// spec step at the commit when the events need it there (an election
	// came between commit and apply, or the leader's HW already counted a
	// pending expansion, Kafka's "maximal ISR"), and then checks the
	// leader's events up to its apply against the ISR it still shows;
	// counted: proposals whose step was taken before their apply.
	GapIsrCommitEarly = "ISR change committed before the leader applied it"
	// GapIsrNoApply: the controller committed a proposal whose answer the
	// leader never applied (it changed role or crashed first, or a lost
	// answer's retry was refused after an election). The spec couples the
	// controller's ISR and the leader's in one step; here only the
	// controller's changed, so the validator changes only ctrlIsr, where
	// the commit must have been (before the election that used it), and
	// the leader keeps its own (see controllerCommit); counted.
	GapIsrNoApply = "ISR change committed, never applied by the leader"
	// GapLateRequest: a leader handled a request after its sender timed
	// out on it or crashed (it waited in the network or in the leader's
	// fetch purgatory), where the spec has no orphan to serve (a timeout;
	// a crash under 3.9). The timeout or crash and the handling are
	// independent (neither reads what the other writes; the handling does
	// not know of the crash), so the behaviour is the spec's where the
	// handling came first and the response was the message lost
	// (LoseMessage) or dropped by the crash: the validator defers the
	// follower's event to just after the handling; counted.
	GapLateRequest = "request handled after its sender timed out or crashed"
	// GapStaleRequest: a leader handled a request that, in the spec, is no
	// longer in flight (its sender timed out and sent a newer one, or the
	// same request's content was already handled: the spec's messages are
	// values, the implementation's are copies). It maps to no spec step
	// (stuttering) when the leader's state did not change, which the
	// validator checks: a stale request refused as fenced, or one carrying
	// what the leader already knew. One that changes the leader's state is
	// unmappable and fails the run. Likewise a follower's timeout of a
	// request the spec already dropped (its destination crashed).
	GapStaleRequest = "stale request handled, or timed out, without effect (a stutter)"
	// GapMaximalIsr: while an expansion is pending, the implementation
	// (as Kafka 3.9) computes the leader's HW over the ISR plus the replica
	// being added; the spec of the ZooKeeper releases, whose ExpandIsr is
	// atomic, over the ISR alone. The validator takes the step with the maximal ISR (see
	// maximalISR); counted: steps where that changed the HW.
	GapMaximalIsr = "HW over the maximal ISR while an expansion is pending"
	// GapCrashEarly: the implementation's crash cuts its peers' connections
	// (and so frees their fetchers' request slots) before the crash event
	// takes its place in the order; a peer that sent a new request in
	// between is only possible in the spec with the crash first. The
	// validator moves the crash there when the events need it and nothing
	// in between involves the crashed broker; counted.
	GapCrashEarly = "crash ordered before its peers noticed it"
	// GapIsrBeforeElect: the controller committed an ISR change, then
	// elected, before the leader applied the change's answer; the spec
	// takes the change at the leader (its CurrentLeader), so the validator
	// puts the election after the apply (see deferElect); counted.
	GapIsrBeforeElect = "ISR change committed before an election, applied after it"
	// GapIsrSplit: the controller committed an ISR change, then an
	// election followed, and only then did the leader (deposed, but not
	// yet told) apply the answer: neither place is a spec step (the commit
	// must precede the election that used it; the leader's HW moved only at
	// the apply). The validator takes the controller's half at the commit
	// and the leader's half (its ISR, and the HW over it) at the apply
	// (see leaderHalf); counted.
	GapIsrSplit = "ISR change split: the controller's half, the deposed leader's half later"
	// GapStaleEffect: a stale request (see GapStaleRequest) that a leader
	// without fencing, or in the request's own epoch, served: it moved the
	// leader's view of the follower (and maybe its HW) back or forth to the
	// stale request's offset. The spec keeps one request per follower and
	// cannot hold the stale one; the validator takes the leader's half of
	// the spec's UpdateFollowerFetchState for it (view and HW as it would
	// set them; the follower's inflight untouched), which the event's
	// post-state must then match exactly; counted. (The read, HandleFetch,
	// changes nothing on the leader: a stale one is a stutter.)
	GapStaleEffect = "stale request served, its effect on the leader taken"
	// GapLostUnobserved: a follower's request (or the response to it) was
	// lost while nobody waited for it, so no timeout reported it: the
	// follower had become leader, or crashed (the spec's orphan, which
	// holds the follower's one slot, while the implementation's restarted
	// broker fetches at once). The validator takes the spec's LoseMessage
	// where the follower's next request needs the slot (see
	// loseUnobserved); counted.
	GapLostUnobserved = "fetcher message lost while nobody waited for it"
	// GapAlterPartitionLost: under DivergingEpoch, an AlterPartition or its
	// answer was lost after a LeaderAndIsr had dropped the proposal, so
	// nobody resent it; the spec's channel loses nothing. The validator
	// takes the controller's refusal and the leader's ignoring it where the
	// leader's next proposal needs the slot (see loseUnobserved); counted.
	GapAlterPartitionLost = "AlterPartition lost after its proposal was dropped"
	// GapAlterPartitionRetry: under DivergingEpoch, a leader resent an
	// AlterPartition whose answer was late (AlterPartitionManager resends
	// until answered), and the controller decided both, or both answers
	// reached the leader; or the controller decided the request of a
	// leader that had crashed since (the spec's crash drops it). The
	// spec's channel holds one message and delivers it once. The duplicate
	// or late decision (a retry of a change made is answered with the
	// current state, anything else refused: neither changes the
	// controller) and the duplicate answer (the proposal is no longer
	// pending) are stutters, the leader's post-state checked; counted.
	GapAlterPartitionRetry = "AlterPartition decided or answered again, or late, without effect"
	// GapOtherPartitions: the spec has one partition; events about other
	// partitions (none in the default runs) are skipped and counted.
	GapOtherPartitions = "events about other partitions"
)

// Report is the outcome of validating one recording.
type Report struct {
	Events     int            // events of the focus partition
	Steps      int            // spec steps taken (one per event, plus early ISR commits)
	Gaps       map[string]int // documented gaps bridged, with their counts
	Backtracks int            // where an ISR commit's place had to be searched for
	Acked      int            // producer acknowledgements held to the spec's acked
	// Elr counts the steps of the accepted order that exercised the
	// controller's Eligible Leader Replicas (EligibleLeader only).
	Elr ElrSteps
	// Err is nil when every event mapped onto a step the model enables
	// whose post-state equals the event's. Otherwise it names the event
	// that could not be mapped (the furthest the search got) and why.
	Err error
}

// ElrSteps counts the steps that exercised the controller's Eligible Leader
// Replicas (KIP-966), judged on the model's states around each step: what
// a run under EligibleLeader covered of it. None is a bridge: the
// implementation's controller takes these steps as the spec does, inside
// the events the validator maps anyway (an election; a crash, whose
// fencing the controller announces before any election; a restart, whose
// unclean shutdown it announces to the live brokers), and the brokers'
// later events hold them to the model's (the partition epoch a
// LeaderAndIsr carries, the ISR a leader applies).
type ElrSteps struct {
	// Joined: steps after which the ELR holds a replica it did not (an ISR
	// shrink or a fencing below min.insync.replicas).
	Joined int
	// Emptied: crashes whose fencing emptied the ISR (the crashed broker
	// becomes the last known leader); LeaderFenced: crashes of the
	// controller's leader that took it out of the ISR (ELR fencing: the
	// partition is left without a leader).
	Emptied, LeaderFenced int
	// LeftOnRestart: restarts that took the broker out of the ELR (an
	// unclean shutdown: a partition change, the partition epoch bumped and
	// the current LeaderAndIsr sent to the live brokers).
	LeftOnRestart int
	// ElrElections: clean elections from the ELR (the ISR empty);
	// LastKnownElections: the last known leader's (unclean).
	ElrElections, LastKnownElections int
}

// count adds step a, from s to t, to c.
func (c *ElrSteps) count(cfg *model.Config, a model.Action, s, t *model.State) {
	if !cfg.Rel().Elr {
		return
	}
	for _, x := range t.CtrlElr {
		if !slices.Contains(s.CtrlElr, x) {
			c.Joined++
			break
		}
	}
	switch a.Kind {
	case model.Crash:
		if len(s.CtrlIsr) > 0 && len(t.CtrlIsr) == 0 {
			c.Emptied++
		}
		if s.CtrlLeader == a.R && slices.Contains(s.CtrlIsr, a.R) && !slices.Contains(t.CtrlIsr, a.R) {
			c.LeaderFenced++
		}
	case model.Restart:
		if slices.Contains(s.CtrlElr, a.R) && !slices.Contains(t.CtrlElr, a.R) {
			c.LeftOnRestart++
		}
	case model.Elect:
		switch {
		case model.ElrElectable(cfg, s, a.R):
			c.ElrElections++
		case model.LastKnownElectable(cfg, s, a.R):
			c.LastKnownElections++
		}
	}
}

// Kinds is how many of the behaviours c counts occurred.
func (c ElrSteps) Kinds() int {
	n := 0
	for _, x := range []int{c.Joined, c.Emptied, c.LeaderFenced, c.LeftOnRestart, c.ElrElections, c.LastKnownElections} {
		if x > 0 {
			n++
		}
	}
	return n
}

// Failure is why an event could not be mapped.
type Failure struct {
	Index int // in the linearized events
	Event cluster.Event
	What  string
	Diff  string
	Trail string // the events before it, one line each
	// Path lists the bridges the search had taken on the way (docs/mapping.md).
	Path []string
}

func (f *Failure) Error() string {
	s := fmt.Sprintf("event %d %s: %s", f.Index, describe(f.Event), f.What)
	if f.Diff != "" {
		s += "\ndiff (-model +implementation):\n" + f.Diff
	}
	s += "\n" + f.Trail
	if len(f.Path) > 0 {
		s += "bridges taken on the way: " + strings.Join(last(f.Path, 8), "; ") + "\n"
	}
	return s
}

func last(xs []string, n int) []string {
	if len(xs) > n {
		return xs[len(xs)-n:]
	}
	return xs
}

// validator holds what the search shares.
type validator struct {
	cfg    *model.Config
	evs    []cluster.Event
	props  []*proposal
	ids    map[int64]int        // implementation record id -> spec id
	reqs   map[uint64]model.Msg // fetcher request message id -> its content
	sender map[uint64]int32     // message id -> the broker whose event sent it
	sentAt map[uint64]int       // message id -> the index of the event that sent it
	// handlings lists, per message id, the indices of the events that
	// handled it: a fetch's HandleFetch and UpdateFollowerFetchState.
	handlings map[uint64][]int
	gapAt     map[int]bool // indices where the run-wide Seq skips a number
	nodes     int
	budget    int
	best      *Failure
	fatal     *Failure // an event no order can map (see stepAs)
}

// node is the search's state before event i: the model's state, which
// proposals have taken their spec step, and how many did so early.
type node struct {
	i           int
	s           model.State
	committed   []bool
	early       int
	noApply     int
	stale       int
	maximal     int
	crashes     int
	late        int
	elects      int
	splits      int
	staleEffect int
	lost        int
	apLost      int
	apRetry     int
	gapsLost    []int    // events before which a lost message was taken
	split       []int    // proposals whose controller's half was taken alone
	staleReads  []uint64 // requests whose HandleFetch was taken as stale
	elr         ElrSteps
	gapsUsed    []int      // Seq gaps (by index) spent on unobserved commits
	skip        []int      // later events already taken (crashes moved earlier)
	deferred    []deferral // events put off until after a later one
	steps       int
	// path notes where the search took a bridge, for reports.
	path []string
}

// commit returns n with proposal k's commit taken, leading to state t.
func (n node) commit(k int, t model.State) node {
	m := n
	m.s = t
	m.committed = slices.Clone(n.committed)
	m.committed[k] = true
	m.steps++
	return m
}

// note returns n with a bridge noted in its path.
func (n node) note(format string, args ...any) node {
	n.path = append(slices.Clone(n.path), fmt.Sprintf(format, args...))
	return n
}

// deferral is event ev, to be taken right after event after.
type deferral struct{ ev, after int }

// Validate checks a recording against the model: Linearize the events,
// then replay them in order on the model from Init. Every event must be a
// step the model enables (its action and parameters as it names them) whose
// post-state equals the event's broker's projection of the model's state.
// ISR changes may take their spec step at their commit rather than at the
// leader's apply (see proposal); the validator searches for where, trying
// "at the apply" first.
func Validate(rec Recording) Report {
	rep := Report{Gaps: map[string]int{}}
	for _, e := range rec.Events {
		if e.Partition.String() != rec.Focus {
			rep.Gaps[GapOtherPartitions]++
		}
	}
	evs, err := Linearize(rec)
	rep.Events = len(evs)
	if err != nil {
		rep.Err = fmt.Errorf("linearizing: %w", err)
		return rep
	}
	v := &validator{cfg: rec.Config, evs: evs, budget: 40*len(evs) + 10000}
	renamed, err := v.renameIDs()
	if err != nil {
		rep.Err = err
		return rep
	}
	rep.Gaps[GapRecordIDs] = renamed
	if !v.cfg.Rel().AsyncIsr {
		// Under DivergingEpoch the spec has the proposal, the decision and
		// the apply as steps of their own: nothing to bridge.
		v.props = proposals(v.cfg, evs)
		v.gapAt = seqGaps(rec.Events, evs)
	}
	v.reqs = requests(v.cfg, evs)
	v.sender, v.sentAt, v.handlings = map[uint64]int32{}, map[uint64]int{}, map[uint64][]int{}
	for i, e := range evs {
		for _, id := range e.Sent {
			v.sender[id] = e.Broker
			v.sentAt[id] = i
		}
		if e.Received != 0 {
			v.handlings[e.Received] = append(v.handlings[e.Received], i)
		}
	}
	end, ok := v.search(node{s: model.Init(v.cfg), committed: make([]bool, len(v.props))})
	rep.Backtracks = v.nodes - len(evs)
	if !ok {
		switch {
		case v.fatal != nil:
			rep.Err = v.fatal
		case v.best != nil:
			rep.Err = v.best
		default:
			rep.Err = fmt.Errorf("the search budget (%d nodes) ran out", v.budget)
		}
		return rep
	}
	rep.Steps = end.steps
	if err := v.checkAcked(rec.Acked, end.s); err != nil {
		rep.Err = err
		return rep
	}
	rep.Acked = len(rec.Acked)
	rep.Elr = end.elr
	rep.Gaps[GapIsrCommitEarly] = end.early
	rep.Gaps[GapIsrNoApply] = end.noApply
	rep.Gaps[GapStaleRequest] = end.stale
	rep.Gaps[GapMaximalIsr] = end.maximal
	rep.Gaps[GapCrashEarly] = end.crashes
	rep.Gaps[GapLateRequest] = end.late
	rep.Gaps[GapIsrBeforeElect] = end.elects
	rep.Gaps[GapIsrSplit] = end.splits
	rep.Gaps[GapStaleEffect] = end.staleEffect
	rep.Gaps[GapLostUnobserved] = end.lost
	rep.Gaps[GapAlterPartitionLost] = end.apLost
	rep.Gaps[GapAlterPartitionRetry] = end.apRetry
	for k, n := range rep.Gaps {
		if n == 0 {
			delete(rep.Gaps, k)
		}
	}
	return rep
}

// checkAcked holds the producers' acknowledgements to the spec's ghost
// acked: every record a producer saw acknowledged must be one the model,
// having taken every event, acknowledged too (at the offset the producer
// was told). The events carry no acknowledgements, so this is checked once
// at the end: an acknowledgement the protocol did not earn (acks=all
// answered before the HW passed the record in its epoch) shows when the
// record never earns it in the model — because it was lost, or its epoch
// ended first.
func (v *validator) checkAcked(acked []client.OffsetID, end model.State) error {
	for _, a := range acked {
		id, ok := v.ids[a.ID]
		if !ok {
			return fmt.Errorf("acknowledgements: the producer saw record %d acknowledged at offset %d, and no event ever appended it", a.ID, a.Offset)
		}
		want := model.OffsetID{Offset: int(a.Offset), ID: id}
		if !slices.Contains(end.Acked, want) {
			return fmt.Errorf("acknowledgements: the producer saw record %d (spec id %d) acknowledged at offset %d, which the model, after every event, never acknowledged (its acked: %v)", a.ID, id, a.Offset, end.Acked)
		}
	}
	return nil
}

// renameIDs maps each implementation record id to the spec's, in the order
// the Produce events appended them; it returns how many differ.
func (v *validator) renameIDs() (int, error) {
	v.ids = map[int64]int{}
	renamed := 0
	for i, e := range v.evs {
		if e.Action != model.Produce.String() {
			continue
		}
		if len(e.Post.Log) == 0 {
			return 0, &Failure{Index: i, Event: e, What: "a Produce event whose post-state has an empty log", Trail: v.trail(i)}
		}
		id := e.Post.Log[len(e.Post.Log)-1].ID
		if _, dup := v.ids[id]; dup {
			return 0, &Failure{Index: i, Event: e, What: fmt.Sprintf("record id %d appended twice: the spec's records are unique", id), Trail: v.trail(i)}
		}
		v.ids[id] = len(v.ids) + 1
		if int(id) != v.ids[id] {
			renamed++
		}
	}
	return renamed, nil
}

// search is a depth-first search over where the ISR commits go. At each
// event it first takes the event's own step; only if that (or anything
// after it) fails does it try putting a pending proposal's commit first.
func (v *validator) search(n node) (node, bool) {
	for n.i < len(v.evs) {
		if v.fatal != nil {
			return n, false
		}
		if slices.Contains(n.skip, n.i) {
			n.i++
			continue
		}
		v.nodes++
		if v.nodes > v.budget {
			return n, false
		}
		// A handling of a request the follower has since replaced by one of
		// the same content (it timed out and asked again) is either the
		// spec's step or a stutter: try the stutter first, since the
		// follower will apply only the answer to its newer request.
		if v.replaced(n) {
			if next, f := v.stepAs(n, true); f == nil {
				if next, f = v.takeDeferred(next, n.i); f == nil {
					if end, ok := v.search(next); ok {
						return end, true
					}
				}
			}
		}
		next, f := v.step(n)
		if f == nil {
			next, f = v.takeDeferred(next, n.i)
		}
		if f == nil {
			// Try the rest first without an early commit here; on failure,
			// come back and try each pending proposal's commit now.
			if end, ok := v.search(next); ok {
				return end, true
			}
		} else {
			v.record(f)
			if end, ok := v.pullCrash(n); ok {
				return end, true
			}
			if end, ok := v.deferPastCrash(n); ok {
				return end, true
			}
			if !slices.Contains(n.gapsLost, n.i) {
				if end, ok := v.loseUnobserved(n); ok {
					return end, true
				}
			}
			if end, ok := v.duplicateAnswer(n); ok {
				return end, true
			}
		}
		if end, ok := v.deferLate(n); ok {
			return end, true
		}
		if end, ok := v.pullLate(n); ok {
			return end, true
		}
		if end, ok := v.deferElect(n); ok {
			return end, true
		}
		if end, ok := v.unobservedCommit(n); ok {
			return end, true
		}
		for k, p := range v.props {
			if n.committed[k] || n.i < p.from || n.i > p.until {
				continue
			}
			if p.apply < 0 {
				// The leader never applies it: only the controller's half.
				t, ok := v.controllerCommit(n.s, p)
				if !ok {
					continue
				}
				m := n.commit(k, t)
				m.noApply++
				m = m.note("event %d: the controller's half of %s", n.i, p.action)
				if end, ok := v.search(m); ok {
					return end, true
				}
				continue
			}
			// The whole spec step here, the leader's events up to its apply
			// seeing the ISR it still shows; or, failing that, only the
			// controller's half here and the leader's at its apply.
			if t, err := model.Apply(v.cfg, n.s, p.action); err == nil {
				m := n.commit(k, t)
				m.early++
				m = m.note("event %d: %s committed first", n.i, p.action)
				if end, ok := v.search(m); ok {
					return end, true
				}
			}
			if t, ok := v.controllerCommit(n.s, p); ok {
				m := n.commit(k, t)
				m.split = append(slices.Clone(n.split), k)
				m.splits++
				m = m.note("event %d: the controller's half of %s (the leader's at %d)", n.i, p.action, p.apply)
				if end, ok := v.search(m); ok {
					return end, true
				}
			}
		}
		return n, false
	}
	return n, true
}

// leaderHalf is the leader's half of proposal p's ISR change (see
// GapIsrSplit): its isr becomes the proposed one and its HW moves over it,
// as the spec's AdvanceHW does (records of its epoch acknowledged).
func (v *validator) leaderHalf(s model.State, p *proposal) model.State {
	l := int(p.leader) - 1
	var ids []model.Replica
	for _, id := range p.isr {
		if r, err := refine.ReplicaOf(v.cfg, id); err == nil {
			ids = append(ids, r)
		}
	}
	isr := model.SetOf(ids...)
	t := s
	t.Isr = slices.Clone(s.Isr)
	t.Isr[l] = isr
	lg := s.Log[l]
	nw := model.NewHW(v.cfg, l, lg, isr, isr, s.FollowerLeo[l], s.Hw[l])
	t.Hw = slices.Clone(s.Hw)
	t.Hw[l] = nw
	t.Committed = model.Union(s.Committed, model.NewlyCommitted(lg, s.Hw[l], nw))
	t.Acked = model.Union(s.Acked, model.NewlyAcked(v.cfg, lg, s.Hw[l], nw, s.ProduceEpoch[l], s.LeaderEpoch[l], isr))
	return t
}

// seqGaps marks the indices of the linearized events before which the
// run-wide Seq skips a number. Every event of the run draws a Seq; the
// numbers nobody reports are the controller's commits of AlterPartitions
// (it draws one for the leader's ISR event, which then reports that Seq
// instead of its own) and the leader's own draws for such events. A gap is
// where an unobserved commit can have been (see unobservedCommit).
func seqGaps(all, evs []cluster.Event) map[int]bool {
	seen := map[uint64]bool{}
	var top uint64
	for _, e := range all {
		seen[e.Seq] = true
		top = max(top, e.Seq)
	}
	out := map[int]bool{}
	for g := uint64(1); g < top; g++ {
		if seen[g] {
			continue
		}
		for i, e := range evs {
			if e.Seq > g && !isISR(e.Action) {
				out[i] = true
				break
			}
		}
	}
	return out
}

// unobservedCommit tries, where the Seq skips a number, the controller's
// half of an ISR change nobody reported: the leader's proposal went out
// after its last event and it crashed or moved on before the answer came
// (GapIsrNoApply). The candidates are every one-replica change the
// model's current leader could propose.
func (v *validator) unobservedCommit(n node) (node, bool) {
	if !v.gapAt[n.i] || slices.Contains(n.gapsUsed, n.i) || n.s.CtrlLeader == model.None {
		return n, false
	}
	l := v.cfg.Index(n.s.CtrlLeader)
	for _, kind := range []model.ActionKind{model.ShrinkIsr, model.ExpandIsr} {
		for _, f := range v.cfg.Replicas {
			a := model.Action{Kind: kind, L: n.s.CtrlLeader, F: f}
			t, err := model.Apply(v.cfg, n.s, a)
			if err != nil {
				continue
			}
			m := n
			m.s = n.s
			m.s.CtrlIsr = t.Isr[l]
			m.gapsUsed = append(slices.Clone(n.gapsUsed), n.i)
			m.noApply++
			m.steps++
			m = m.note("event %d: the controller's half of an unreported %s", n.i, a)
			if end, ok := v.search(m); ok {
				return end, true
			}
		}
	}
	return n, false
}

// controllerCommit is the controller's half of proposal p's ISR change:
// ctrlIsr becomes the proposed ISR while the leader's own isr stays as it
// is, because the leader never applies the answer (GapIsrNoApply). The
// spec's ShrinkIsr and ExpandIsr change both at once; this is the one place
// the validator takes a step that is not the spec's, under the spec's own
// enabling condition (the proposer is the controller's current leader and
// its ISR is the controller's).
func (v *validator) controllerCommit(s model.State, p *proposal) (model.State, bool) {
	if _, err := model.Apply(v.cfg, s, p.action); err != nil {
		return s, false
	}
	l := int(p.leader) - 1
	if !slices.Equal(s.Isr[l], s.CtrlIsr) {
		return s, false
	}
	var isr []model.Replica
	for _, id := range p.isr {
		r, err := refine.ReplicaOf(v.cfg, id)
		if err != nil {
			return s, false
		}
		isr = append(isr, r)
	}
	t := s
	t.CtrlIsr = model.SetOf(isr...)
	return t, true
}

// deferLate tries putting off event n.i, a follower's timeout or crash,
// until after the leader's late handling of the request the follower had
// in flight (GapLateRequest): its HandleFetch and, when it read records,
// its UpdateFollowerFetchState (the spec's LoseMessage is not enabled on
// the read between them). The follower's own events in between move with
// it, in order, if they are only new requests (handled after the late
// one, or never) and checkpoint writes: the follower neither heard of the
// late handling nor depends on anything in between. A crash does not move
// past an election, which may rest on the broker's being down.
func (v *validator) deferLate(n node) (node, bool) {
	e := v.evs[n.i]
	if e.Action != model.LoseMessage.String() && e.Action != cluster.ActCrash {
		return n, false
	}
	f := e.Broker
	sent := v.lastRequest(n.i, f)
	if sent == 0 {
		return n, false
	}
	hs := v.handledAfter(sent, n.i)
	if len(hs) == 0 {
		return n, false
	}
	target := hs[len(hs)-1]
	moving := []int{n.i}
	for h := n.i + 1; h < target; h++ {
		x := v.evs[h]
		if x.Action == cluster.ActElect && e.Action == cluster.ActCrash {
			return n, false // the election may rest on the crash (the broker's liveness)
		}
		if x.Broker == f {
			if !v.movable(x, h) {
				return n, false
			}
			moving = append(moving, h)
		}
	}
	m := n
	m.skip = append(slices.Clone(n.skip), moving...)
	m.deferred = slices.Clone(n.deferred)
	for _, ev := range moving {
		m.deferred = append(m.deferred, deferral{ev: ev, after: target})
	}
	m.late++
	m = m.note("event %d: deferred past the late handling at %v (with %v)", n.i, hs, moving)
	m.i++
	return v.search(m)
}

// handledAfter lists the events after index i that handled message id.
func (v *validator) handledAfter(id uint64, i int) []int {
	var out []int
	for _, h := range v.handlings[id] {
		if h > i {
			out = append(out, h)
		}
	}
	return out
}

// deferElect tries putting off event n.i, an election, until after a
// leader applies an ISR change the controller committed before the
// election (its ISR event's Seq, the commit's, is below the election's).
// The spec's ISR change is one step at the leader's CurrentLeader; the
// election must follow it, and what happens in between (the leader's
// local events, the followers' fetches) does not depend on the election
// until some broker applies its LeaderAndIsr, which must not lie between.
func (v *validator) deferElect(n node) (node, bool) {
	e := v.evs[n.i]
	if e.Action != cluster.ActElect {
		return n, false
	}
	for k, p := range v.props {
		if p.apply <= n.i || n.committed[k] || v.evs[p.apply].Seq > e.Seq {
			continue
		}
		ok := true
		for j := n.i + 1; j < p.apply; j++ {
			switch v.evs[j].Action {
			case cluster.ActElect, model.HandleLeaderAndIsr.String(), cluster.ActCrash, cluster.ActRestart:
				ok = false
			}
		}
		if !ok || slices.Contains(n.skip, p.apply) {
			continue
		}
		m := n
		m.skip = append(slices.Clone(n.skip), n.i)
		m.deferred = append(slices.Clone(n.deferred), deferral{ev: n.i, after: p.apply})
		m.elects++
		m = m.note("event %d: election deferred past the ISR apply at %d", n.i, p.apply)
		m.i++
		if end, ok := v.search(m); ok {
			return end, true
		}
	}
	return n, false
}

// pullLate is deferLate's mirror: when event n.i is a follower's timeout
// or crash and the leader handles the request it gave up on only later
// (its HandleFetch and UpdateFollowerFetchState), take the handling first,
// here, if the leader has no other event from n.i until then (the handling
// reads only the leader's own state and the request), then the follower's
// event (which in the spec then loses the response). It is the one that
// applies when the follower itself went on to other things before the
// late handling (GapLateRequest).
func (v *validator) pullLate(n node) (node, bool) {
	e := v.evs[n.i]
	if e.Action != model.LoseMessage.String() && e.Action != cluster.ActCrash {
		return n, false
	}
	sent := v.lastRequest(n.i, e.Broker)
	if sent == 0 {
		return n, false
	}
	hs := v.handledAfter(sent, n.i)
	if len(hs) == 0 {
		return n, false
	}
	leader := v.evs[hs[0]].Broker
	for j := n.i; j < hs[len(hs)-1]; j++ {
		if v.evs[j].Broker == leader && !slices.Contains(hs, j) {
			return n, false // the leader did something in between
		}
	}
	taken := n
	for _, h := range hs {
		if slices.Contains(n.skip, h) {
			return n, false
		}
		taken.i = h
		next, f := v.step(taken)
		if f != nil {
			v.record(f)
			return n, false
		}
		taken = next
	}
	taken.i = n.i
	taken.skip = append(slices.Clone(n.skip), hs...)
	taken.late++
	taken = taken.note("event %d: the late handling at %v taken first", n.i, hs)
	return v.search(taken)
}

// lastRequest is the message id of follower f's last request sent before
// index i, 0 if f's request slot changed since: every event of f in
// between (a checkpoint write, a LeaderAndIsr that kept its fetcher) must
// show the slot held by that request's correlation id.
func (v *validator) lastRequest(i int, f int32) uint64 {
	for j := i - 1; j >= 0; j-- {
		x := v.evs[j]
		if x.Broker != f || !isRequest(x) {
			continue
		}
		slot := x.Post.FetchInFlight
		for k := j + 1; k < i; k++ {
			if y := v.evs[k]; y.Broker == f && (slot == 0 || y.Post.FetchInFlight != slot) {
				return 0
			}
		}
		return x.Sent[0]
	}
	return 0
}

// isRequest reports whether x is a follower's request, sent.
func isRequest(x cluster.Event) bool {
	return (x.Action == model.SendFetch.String() || x.Action == model.SendOffsetsForLeaderEpoch.String()) && len(x.Sent) == 1
}

// movable reports whether a follower's event x (at index at) can be put off
// past later events: a request whose message is handled only after it, or
// a checkpoint write.
func (v *validator) movable(x cluster.Event, at int) bool {
	switch x.Action {
	case model.CheckpointHW.String():
		return true
	case model.SendFetch.String(), model.SendOffsetsForLeaderEpoch.String():
		for j := at + 1; j < len(v.evs); j++ {
			for _, id := range x.Sent {
				if v.evs[j].Received == id {
					return true // handled later: fine, it moves only a little
				}
			}
		}
		return true // never handled
	}
	return false
}

// takeDeferred takes the events deferred until after event i.
func (v *validator) takeDeferred(n node, i int) (node, *Failure) {
	for _, d := range n.deferred {
		if d.after != i {
			continue
		}
		m := n
		m.i = d.ev
		next, f := v.step(m)
		if f != nil {
			return n, f
		}
		next.i = n.i
		n = next
	}
	return n, nil
}

// crashHorizon bounds how far ahead the search looks for a crash to move
// before a failing event.
const crashHorizon = 12

// pullCrash tries, when event n.i fails, taking a later crash first (see
// GapCrashEarly): one of the next crashHorizon events, crashing broker r.
// The implementation's crash reaches its peers one at a time, so a peer
// may still handle a message r sent after another peer has heard of the
// crash; those handlings (of other brokers than n.i's, and not of anything
// n.i sent) are taken first, then the crash, then event n.i again. Nothing
// in between may be r's own or an election.
func (v *validator) pullCrash(n node) (node, bool) {
	for c := n.i + 1; c < len(v.evs) && c <= n.i+crashHorizon; c++ {
		e := v.evs[c]
		if e.Action != cluster.ActCrash || slices.Contains(n.skip, c) {
			continue
		}
		pre, ok := v.beforeCrash(n.i, c, e.Broker)
		if !ok {
			continue
		}
		m := n
		for _, j := range pre {
			m.i = j
			next, f := v.step(m)
			if f != nil {
				ok = false
				break
			}
			m = next
		}
		if !ok {
			continue
		}
		a, err := actionOf(v.cfg, e)
		if err != nil {
			continue
		}
		t, err := model.Apply(v.cfg, m.s, a)
		if err != nil {
			continue
		}
		got, err := postLocal(v.cfg, e.Post)
		if err != nil || v.translate(&got) != nil || diffLocal(refine.LocalOf(&t, int(e.Broker)-1), got) != "" {
			continue
		}
		m.elr.count(v.cfg, a, &m.s, &t)
		m.s = t
		m.i = n.i
		m.skip = append(slices.Clone(n.skip), append(pre, c)...)
		m.crashes++
		m = m.note("event %d: crash at %d taken first (after %v)", n.i, c, pre)
		m.steps++
		if end, ok := v.search(m); ok {
			return end, true
		}
	}
	return n, false
}

// deferPastCrash is pullCrash's other half: event n.i, of a broker that
// heard of a crash before the crash took its place in the order, is put off
// until just after the crash, when nothing between belongs to its broker or
// handles what it sent.
func (v *validator) deferPastCrash(n node) (node, bool) {
	e := v.evs[n.i]
	for c := n.i + 1; c < len(v.evs) && c <= n.i+crashHorizon; c++ {
		x := v.evs[c]
		if x.Broker == e.Broker || x.Action == cluster.ActElect || slices.Contains(e.Sent, x.Received) {
			return n, false
		}
		if x.Action != cluster.ActCrash || slices.Contains(n.skip, c) {
			continue
		}
		m := n
		m.skip = append(slices.Clone(n.skip), n.i)
		m.deferred = append(slices.Clone(n.deferred), deferral{ev: n.i, after: c})
		m.crashes++
		m = m.note("event %d: deferred past the crash at %d", n.i, c)
		m.i++
		if end, ok := v.search(m); ok {
			return end, true
		}
	}
	return n, false
}

// beforeCrash checks the events [from, to) for moving the crash of r at to
// before from: none is r's or an election; those that handle a message r
// sent must go before the crash, which they can if they are not of
// from's broker nor handle what from sent. It returns them.
func (v *validator) beforeCrash(from, to int, r int32) ([]int, bool) {
	var pre []int
	first := v.evs[from]
	for j := from; j < to; j++ {
		e := v.evs[j]
		if e.Broker == r || e.Action == cluster.ActElect {
			return nil, false
		}
		if s, ok := v.sender[e.Received]; ok && s == r {
			if j == from || e.Broker == first.Broker || slices.Contains(first.Sent, e.Received) {
				return nil, false
			}
			pre = append(pre, j)
		}
	}
	return pre, true
}

// record keeps the failure that got furthest, the one worth reporting.
func (v *validator) record(f *Failure) {
	if v.best == nil || f.Index >= v.best.Index {
		v.best = f
	}
}

// step maps event n.i onto its spec step and checks the post-state.
func (v *validator) step(n node) (node, *Failure) { return v.stepAs(n, false) }

// stepAs is step; with asStale, a handling of a request the follower no
// longer waits for is taken as a stutter even though the model's inflight
// holds a request of the same content (see staleRequest).
func (v *validator) stepAs(n node, asStale bool) (node, *Failure) {
	e := v.evs[n.i]
	fail := func(what, diff string) *Failure {
		return &Failure{Index: n.i, Event: e, What: what, Diff: diff, Trail: v.modelView(n.s) + v.trail(n.i), Path: n.path}
	}
	// What is wrong with the event whatever the model's state (its action,
	// its parameters, a message no event sent, a post-state with no model
	// counterpart) fails it in every order: the search stops there.
	fatal := func(what string) *Failure {
		v.fatal = fail(what, "")
		return v.fatal
	}
	a, err := actionOf(v.cfg, e)
	if err != nil {
		return n, fatal("unmappable: " + err.Error())
	}
	next := n
	next.i++
	// An ISR event whose commit already took its step applies it locally:
	// no spec step of its own; nor has a stale request's handling.
	k := v.proposalApplied(n.i)
	stale, err := v.staleRequest(n, e, a)
	if err != nil {
		return n, fatal(err.Error())
	}
	stale = stale || asStale
	switch {
	case stale:
		if a.Kind == model.HandleFetch {
			next.staleReads = append(slices.Clone(n.staleReads), e.Received)
		}
		if a.Kind == model.HandleAlterPartition || a.Kind == model.HandleAlterPartitionResponse {
			next.apRetry++
			next = next.note("event %d: a retried AlterPartition's duplicate, a stutter", n.i)
		} else if t, changed := v.staleEffect(n.s, n.i, e, a); changed {
			next.s = t
			next.staleEffect++
			next = next.note("event %d: stale, with its effect on the leader", n.i)
		} else {
			next.stale++
			next = next.note("event %d: stale, a stutter", n.i)
		}
	case k >= 0 && slices.Contains(n.split, k):
		next.s = v.leaderHalf(n.s, v.props[k])
		next.steps++
	case k >= 0 && n.committed[k]:
		next.committed = n.committed
	default:
		t, err := model.Apply(v.cfg, n.s, a)
		if err != nil {
			return n, fail(fmt.Sprintf("not a step of the model: %v", err), "")
		}
		if t2, changed := v.maximalISR(n, e, a, n.s, t); changed {
			t = t2
			next.maximal++
			next = next.note("event %d: HW over the maximal ISR", n.i)
		}
		next.elr.count(v.cfg, a, &n.s, &t)
		next.s = t
		next.steps++
		if k >= 0 {
			next.committed = slices.Clone(n.committed)
			next.committed[k] = true
		}
	}
	if a.Kind == model.Elect {
		if got, want := int(e.Params["epoch"]), next.s.CtrlEpoch; got != want {
			return n, fail(fmt.Sprintf("the controller assigned epoch %d, the model %d", got, want), "")
		}
		return next, nil
	}
	if a.Kind == model.HandleAlterPartition {
		// The controller's: no broker's state changed (the leader's post-
		// state at its HandleAlterPartitionResponse shows the decision).
		return next, nil
	}
	got, err := postLocal(v.cfg, e.Post)
	if err != nil {
		return n, fatal("unmappable post-state: " + err.Error())
	}
	if !v.cfg.Rel().AsyncIsr {
		// The synchronous releases' ISR change is one spec step; the
		// implementation's proposal in flight is the proposals' business
		// (see proposal), not a spec variable.
		got.PendingIsr = nil
	}
	if err := v.translate(&got); err != nil {
		return n, fatal(err.Error())
	}
	idx := int(e.Broker) - 1
	want := refine.LocalOf(&next.s, idx)
	want.Isr = v.unappliedIsr(next, e.Broker, want.Isr)
	if d := diffLocal(want, got); d != "" {
		return n, fail("the event's post-state differs from the model's", d)
	}
	return next, nil
}

// replaced reports whether event n.i handles a request that is not the
// latest its follower sent before it (in the linearized order).
func (v *validator) replaced(n node) bool {
	e := v.evs[n.i]
	if e.Action != model.HandleFetch.String() && e.Action != model.HandleOffsetsForLeaderEpoch.String() {
		return false
	}
	f, ok := e.Params["f"]
	if !ok {
		return false
	}
	for j := n.i - 1; j >= 0; j-- {
		x := v.evs[j]
		if x.Broker == int32(f) && (x.Action == model.SendFetch.String() || x.Action == model.SendOffsetsForLeaderEpoch.String()) {
			return !slices.Contains(x.Sent, e.Received)
		}
	}
	return false
}

// proposalApplied is the proposal whose ISR event is at index i, or -1.
func (v *validator) proposalApplied(i int) int {
	for k, p := range v.props {
		if p.apply == i {
			return k
		}
	}
	return -1
}

// unappliedIsr is the ISR broker b shows while it has not applied a commit
// that already took its spec step: the model's ISR with that change undone.
func (v *validator) unappliedIsr(n node, b int32, isr []model.Replica) []model.Replica {
	for k, p := range v.props {
		if p.leader != b || !n.committed[k] || n.i-1 < p.from {
			continue
		}
		if p.apply >= 0 && n.i-1 >= p.apply {
			continue // applied
		}
		if p.apply < 0 || n.s.Role[b-1] != model.Leader || n.s.LeaderEpoch[b-1] != int(p.epoch) {
			continue // only the controller's half was taken, or it has moved on
		}
		switch p.action.Kind {
		case model.ExpandIsr:
			isr = model.Remove(isr, p.action.F)
		case model.ShrinkIsr:
			isr = model.Insert(isr, p.action.F)
		}
	}
	return isr
}

// translate renames the record ids of a post-state's log to the spec's.
func (v *validator) translate(l *refine.Local) error {
	for i, r := range l.Log {
		id, ok := v.ids[int64(r.ID)]
		if !ok {
			return fmt.Errorf("unmappable: the log holds record id %d at offset %d, which no Produce event appended", r.ID, i)
		}
		l.Log[i].ID = id
	}
	return nil
}

// modelView renders the model's state before the failing event, one line
// per replica, with what is in flight.
func (v *validator) modelView(s model.State) string {
	var b strings.Builder
	fmt.Fprintf(&b, "the model before it: ctrl %s e%d isr%v partition epoch %d\n", s.CtrlLeader, s.CtrlEpoch, s.CtrlIsr, s.CtrlPartitionEpoch)
	for r, name := range v.cfg.Replicas {
		fmt.Fprintf(&b, "  %-4s %s", name, trace.ReplicaLine(v.cfg, &s, r))
		if s.Role[r] == model.Leader && v.cfg.Rel().AsyncIsr {
			fmt.Fprintf(&b, " | partition epoch %d pending{%v}", s.PartitionEpoch[r], s.PendingIsr[r])
		}
		if m := s.AlterPartition[r]; m.Type != model.MsgNone {
			fmt.Fprintf(&b, " | alterPartition %s", m)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// trail renders the events around i, one line each, for reports.
func (v *validator) trail(i int) string {
	var b strings.Builder
	b.WriteString("the events before it:\n")
	for j := max(0, i-10); j <= min(len(v.evs)-1, i+2); j++ {
		mark := " "
		if j == i {
			mark = ">"
		}
		writeEvent(&b, j, v.evs[j], mark)
	}
	return b.String()
}
