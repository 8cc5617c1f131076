package packed

import (
	"math/bits"

	"github.com/hwepoch/hwepoch/model"
)

// State-dependent helpers of the spec (model/helpers.go) and the in-place
// edits of a replica's fixed arrays the actions are written with. Every edit
// keeps the entries beyond a length zero, so that == on States stays the
// spec's equality.

// bit is the Set of replica index i alone.
func bit(i int) Set { return 1 << uint(i) }

// size is |s|.
func (s Set) size() int { return bits.OnesCount8(uint8(s)) }

// up mirrors Up(r) == role[r] # "Offline".
func (p *State) up(i int) bool { return p.R[i].Role != model.Offline }

// live is the set of p's live replicas, {r \in Replicas : Up(r)}.
func (s *Succ) live(p *State) Set {
	var l Set
	for i := range s.n {
		if p.up(i) {
			l |= bit(i)
		}
	}
	return l
}

// noViews mirrors NoViews == [r \in Replicas |-> -1] (entries beyond the
// configuration's replicas stay 0).
func (s *Succ) noViews(v *[MaxReplicas]int8) {
	*v = [MaxReplicas]int8{}
	for i := range s.n {
		v[i] = -1
	}
}

// truncLog cuts r's log to its first n records (n <= LogLen).
func (r *Replica) truncLog(n int8) {
	if n < 0 {
		panic("SubSeq to a negative length")
	}
	for k := n; k < r.LogLen; k++ {
		r.Log[k] = Record{}
	}
	r.LogLen = min(n, r.LogLen)
}

// appendLog appends x to r's log.
func (r *Replica) appendLog(x Record) {
	if r.LogLen >= MaxLog {
		overflow("MaxLog", "a log")
	}
	r.Log[r.LogLen] = x
	r.LogLen++
}

// pushQueue appends m to r's controller queue.
func (r *Replica) pushQueue(m *Msg) {
	if r.QueueLen >= MaxQueue {
		overflow("MaxQueue", "a controller queue")
	}
	r.Queue[r.QueueLen] = *m
	r.QueueLen++
}

// popQueue drops the head of r's controller queue (Tail), which is not empty.
func (r *Replica) popQueue() {
	copy(r.Queue[:], r.Queue[1:r.QueueLen])
	r.QueueLen--
	r.Queue[r.QueueLen] = Msg{}
}

// clearQueue empties r's controller queue.
func (r *Replica) clearQueue() {
	for k := range r.QueueLen {
		r.Queue[k] = Msg{}
	}
	r.QueueLen = 0
}

// truncate applies TruncLog(r, o), TruncCache(r, o) and, when hw, TruncHW(r,
// o) of p's replica r to t's: log and cache cut at Min(o, LEO(r)), and the HW
// lowered to it.
func truncate(p, t *State, r int, o int8, hw bool) {
	to := min(o, p.R[r].LogLen)
	tr := &t.R[r]
	tr.truncLog(to)
	tr.truncateFromEnd(to)
	if hw {
		tr.Hw = min(p.R[r].Hw, to)
	}
}

// requestAt mirrors RequestAt(f, l, type): follower f's slot holds a request
// of that type addressed to l.
func requestAt(p *State, f, l int, typ model.MsgType) bool {
	m := &p.R[f].Inflight
	return m.Type == typ && m.Dst == int8(l)
}

// requestError mirrors RequestError(l, m) (model.RequestError): the error
// leader l answers m with.
func (s *Succ) requestError(p *State, l int, m *Msg) model.ErrorCode {
	rl := &p.R[l]
	switch {
	case rl.Role != model.Leader:
		return model.ErrNotLeaderOrFollower
	case s.fencing && m.CurrentEpoch < rl.LeaderEpoch:
		return model.ErrFencedLeaderEpoch
	case s.fencing && m.CurrentEpoch > rl.LeaderEpoch:
		return model.ErrUnknownLeaderEpoch
	}
	return model.ErrNone
}

// truncationTarget mirrors TruncationTarget(f, a, fo) (model.TruncationTarget):
// where follower f truncates on the leader's answer [aEpoch, aOffset] when it
// would fetch from fo, and whether truncation is complete.
func (s *Succ) truncationTarget(p *State, f int, aEpoch, aOffset, fo int8) (to int8, done bool) {
	rf := &p.R[f]
	leo := rf.LogLen
	if aOffset == -1 {
		if s.undefinedToHW {
			return rf.Hw, true
		}
		return fo, true
	}
	if s.reconcile == offsetsForLeaderEpochV0 {
		return min(aOffset, leo), true
	}
	ownEpoch, ownOffset := rf.endOffsetFor(leo, aEpoch)
	switch {
	case ownOffset == -1:
		return min(aOffset, leo), true
	case ownEpoch != aEpoch: // KIP-279: ask again
		return min(ownOffset, leo), false
	}
	return min(ownOffset, aOffset, leo), true
}

// acceptsResponse mirrors AcceptsResponse(f, m): f is a follower, m comes
// from its leader and echoes its current leader epoch.
func acceptsResponse(p *State, f int, m *Msg) bool {
	rf := &p.R[f]
	return rf.Role == model.Follower && m.Src == rf.Leader && m.CurrentEpoch == rf.LeaderEpoch
}

// currentLeader mirrors CurrentLeader(l): l leads in the controller's epoch.
func currentLeader(p *State, l int) bool {
	rl := &p.R[l]
	return rl.Role == model.Leader && p.CtrlLeader == int8(l) && rl.LeaderEpoch == p.CtrlEpoch
}

// mayChangeIsr mirrors MayChangeIsr(l): whether leader l may propose (or,
// synchronously, make) an ISR change.
func (s *Succ) mayChangeIsr(p *State, l int) bool {
	if s.asyncIsr {
		rl := &p.R[l]
		return rl.Role == model.Leader && rl.PendingIsr == 0 &&
			rl.AlterPartition.Type == model.MsgNone && int(rl.PartEpoch) < s.maxPartEpoch
	}
	return currentLeader(p, l)
}

// epochStart mirrors EpochStart(l): the start offset of l's epoch in its
// cache (the least, as TLC's CHOOSE), else its LEO.
func epochStart(p *State, l int) int8 {
	rl := &p.R[l]
	for k := range rl.CacheLen {
		if rl.Cache[k].Epoch == rl.LeaderEpoch {
			return rl.Cache[k].Start
		}
	}
	return rl.LogLen
}

// fetchesIn mirrors FetchesIn: the fetch states in which a follower fetches
// (under 3.9 also before its first fetch answered without divergence).
func (s *Succ) fetchesIn(fs model.FetchState) bool {
	return fs == model.Fetching || (fs == model.Truncating && s.reconcile == divergingEpoch)
}
