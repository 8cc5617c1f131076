package packed

import (
	"fmt"
	"math/bits"

	"github.com/hwepoch/hwepoch/model"
)

// The spec's invariants and action properties on the packed state, one for
// each of model.Invariants and model.Properties under the same name, giving
// the same verdicts (TestInvariantsEqualModel) without allocating. Where the
// model would index a log out of range (and TLC would stop with an
// evaluation error) these panic too, and the explorer reports it as one.

// Invariants maps the spec's invariant names to their packed twins; its
// keys are exactly model.Invariants'.
var Invariants = map[string]func(cfg *model.Config, p *State) bool{
	"TypeOK":                             TypeOK,
	"HWBelowLEO":                         HWBelowLEO,
	"LeaderInIsr":                        LeaderInIsr,
	"EpochCacheWellFormed":               EpochCacheWellFormed,
	"EpochCacheMatchesLog":               EpochCacheMatchesLog,
	"RecordIdentity":                     RecordIdentity,
	"CommittedPrefixesAgree":             CommittedPrefixesAgree,
	"NoDivergence":                       NoDivergence,
	"NoAckedLoss":                        NoAckedLoss,
	"NoVisibleLoss":                      NoVisibleLoss,
	"StrongIsr":                          StrongIsr,
	"NoCommittedLossAnywhere":            NoCommittedLossAnywhere,
	"ElrWellFormed":                      ElrWellFormed,
	"ElrComplete":                        ElrComplete,
	"ElrInMaximalIsr":                    ElrInMaximalIsr,
	"NeverLeaderChange":                  NeverLeaderChange,
	"NeverCommitted":                     NeverCommitted,
	"NeverAcked":                         NeverAcked,
	"NeverEpochRoundTrip":                NeverEpochRoundTrip,
	"NeverRecoveredFromCrash":            NeverRecoveredFromCrash,
	"NeverCommittedSurvivesLeaderChange": NeverCommittedSurvivesLeaderChange,
	"NeverTwoRecordsAtOneOffset":         NeverTwoRecordsAtOneOffset,
	"NeverStalePartitionEpoch":           NeverStalePartitionEpoch,
}

// Properties maps the spec's action properties ([][A]_vars) to the packed
// twin of the action A, p the state before the step and q after; its keys
// are exactly model.Properties'. As with the model's, a checker tests A only
// on steps that change the state.
var Properties = map[string]func(cfg *model.Config, p, q *State) bool{
	"NeverTruncates":               NoTruncation,
	"NeverHWAdvancesWhilePending":  HWStaysWhilePending,
	"NeverDivergingTruncation":     NoDivergingTruncation,
	"NeverTruncatesCommitted":      NoCommittedTruncation,
	"NeverElrElection":             NoElrElection,
	"NeverLastKnownLeaderElection": NoLastKnownLeaderElection,
}

// inRange is lo <= x <= hi.
func typeInRange(x int8, lo, hi int) bool { return lo <= int(x) && int(x) <= hi }

// isReplica reports whether i is the index of one of cfg's replicas.
func typeIsReplica(cfg *model.Config, i int8) bool { return 0 <= i && int(i) < cfg.N() }

// subsetOf reports whether s names only cfg's replicas.
func typeSubset(cfg *model.Config, s Set) bool { return s>>uint(cfg.N()) == 0 }

// up mirrors Up(r).
func replicaUp(r *Replica) bool { return r.Role != model.Offline }

// holds mirrors HasRecord(r, [offset, id]).
func replicaHolds(r *Replica, offset, id int) bool {
	return int(r.LogLen) > offset && int(r.Log[offset].ID) == id
}

// offsetIDAt is the [offset, id] pair of bit k of State.Acked or
// State.Committed.
func pairAt(k int) (offset, id int) { return k / (MaxLog + 1), k % (MaxLog + 1) }

// TypeOK mirrors model.TypeOK.
func TypeOK(cfg *model.Config, p *State) bool {
	n := cfg.N()
	for i := range n {
		r := &p.R[i]
		for k := range int(r.LogLen) {
			if x := r.Log[k]; !typeInRange(x.ID, 1, cfg.MaxRecords) || !typeInRange(x.Epoch, 0, cfg.MaxEpoch) {
				return false
			}
		}
		for k := range int(r.CacheLen) {
			if x := r.Cache[k]; !typeInRange(x.Epoch, 0, cfg.MaxEpoch) || !typeInRange(x.Start, 0, cfg.MaxRecords) {
				return false
			}
		}
		if !typeInRange(r.HwCheckpoint, 0, cfg.MaxRecords) || r.Role > model.Follower ||
			!typeInRange(r.LeaderEpoch, -1, cfg.MaxEpoch) ||
			(r.Leader != None && !typeIsReplica(cfg, r.Leader)) ||
			!typeInRange(r.Hw, 0, cfg.MaxRecords) || !typeSubset(cfg, r.Isr) || r.FetchState > model.Fetching ||
			!typeInRange(r.ProduceEpoch, -1, cfg.MaxEpoch) || r.PartEpoch < -1 || !typeSubset(cfg, r.PendingIsr) {
			return false
		}
		for k := range n {
			if !typeInRange(r.FollowerLeo[k], -1, cfg.MaxRecords) || !typeInRange(r.FollowerBrokerEpoch[k], -1, cfg.MaxCrashes) {
				return false
			}
		}
		if !typeInRange(r.BrokerEpoch, 0, cfg.MaxCrashes) {
			return false
		}
		for k := range int(r.QueueLen) {
			m := &r.Queue[k]
			if m.Type != model.MsgLeaderAndIsr || !typeIsReplica(cfg, m.Leader) || !typeInRange(m.Epoch, 0, cfg.MaxEpoch) || !typeSubset(cfg, m.Isr) {
				return false
			}
		}
		m := &r.Inflight
		switch m.Type {
		case model.MsgNone:
		case model.MsgFetch, model.MsgOffsetsForLeaderEpoch:
			if int(m.Src) != i || !typeIsReplica(cfg, m.Dst) {
				return false
			}
		case model.MsgFetchRead:
			if int(m.Dst) != i || !typeIsReplica(cfg, m.Src) {
				return false
			}
		case model.MsgFetchResponse, model.MsgOffsetsForLeaderEpochResponse:
			if int(m.Dst) != i || !typeIsReplica(cfg, m.Src) || m.Error > model.ErrOffsetOutOfRange {
				return false
			}
		default: // a LeaderAndIsr or an ISR change in a fetcher's slot
			return false
		}
		switch a := &r.AlterPartition; a.Type {
		case model.MsgNone, model.MsgAlterPartition:
		case model.MsgAlterPartitionResponse:
			switch a.Error {
			case model.ErrNone, model.ErrFencedLeaderEpoch, model.ErrInvalidUpdateVersion, model.ErrIneligibleReplica:
			default:
				return false
			}
		default:
			return false
		}
	}
	if (p.CtrlLeader != None && !typeIsReplica(cfg, p.CtrlLeader)) || !typeInRange(p.CtrlEpoch, -1, cfg.MaxEpoch) ||
		!typeSubset(cfg, p.CtrlIsr) || p.CtrlPartitionEpoch < -1 || !typeSubset(cfg, p.CtrlElr) ||
		!typeSubset(cfg, p.CtrlLastKnownElr) || p.CtrlLastKnownElr.size() > 1 || !typeInRange(p.NextID, 1, cfg.MaxRecords+1) ||
		!typeInRange(p.Crashes, 0, cfg.MaxCrashes) {
		return false
	}
	for _, set := range [2]uint32{p.Acked, p.Committed} {
		for ; set != 0; set &= set - 1 {
			o, id := pairAt(bits.TrailingZeros32(set))
			if o > cfg.MaxRecords || id < 1 || id > cfg.MaxRecords {
				return false
			}
		}
	}
	return true
}

// HWBelowLEO mirrors model.HWBelowLEO.
func HWBelowLEO(cfg *model.Config, p *State) bool {
	for i := range cfg.N() {
		if r := &p.R[i]; replicaUp(r) && r.Hw > r.LogLen {
			return false
		}
	}
	return true
}

// LeaderInIsr mirrors model.LeaderInIsr.
func LeaderInIsr(cfg *model.Config, p *State) bool {
	if p.CtrlLeader != None && !p.CtrlIsr.Has(int(p.CtrlLeader)) {
		return false
	}
	for i := range cfg.N() {
		if r := &p.R[i]; r.Role == model.Leader && !r.Isr.Has(i) {
			return false
		}
	}
	return true
}

// EpochCacheWellFormed mirrors model.EpochCacheWellFormed.
func EpochCacheWellFormed(cfg *model.Config, p *State) bool {
	for i := range cfg.N() {
		r := &p.R[i]
		c := r.Cache[:r.CacheLen]
		for k := 0; k+1 < len(c); k++ {
			if c[k].Epoch >= c[k+1].Epoch || c[k].Start >= c[k+1].Start {
				return false
			}
		}
		if replicaUp(r) {
			for _, x := range c {
				if x.Start > r.LogLen {
					return false
				}
			}
		}
	}
	return true
}

// EpochCacheMatchesLog mirrors model.EpochCacheMatchesLog.
func EpochCacheMatchesLog(cfg *model.Config, p *State) bool {
	if cfg.Rel().CacheAssign == "None" {
		return true
	}
	for i := range cfg.N() {
		r := &p.R[i]
		if !replicaUp(r) {
			continue
		}
		c := r.Cache[:r.CacheLen]
		for o := int8(0); o < r.LogLen; o++ {
			cover := -1 // the greatest index with start <= o
			for k, x := range c {
				if x.Start <= o {
					cover = k
				}
			}
			if cover == -1 || c[cover].Epoch != r.Log[o].Epoch {
				return false
			}
		}
	}
	return true
}

// RecordIdentity mirrors model.RecordIdentity.
func RecordIdentity(cfg *model.Config, p *State) bool {
	n := cfg.N()
	for i := range n {
		for j := range n {
			a, b := &p.R[i], &p.R[j]
			for o := range min(a.LogLen, b.LogLen) {
				if x, y := a.Log[o], b.Log[o]; x.Epoch == y.Epoch && x != y {
					return false
				}
			}
		}
	}
	return true
}

// prefixesAgreeAt mirrors \A o \in 0..(Min(hw[r], hw[q]) - 1) :
// log[r][o + 1] = log[q][o + 1], panicking where the spec's index would be
// out of its log's domain (as model's slice index does).
func prefixesAgreeAt(p *State, i, j int) bool {
	a, b := &p.R[i], &p.R[j]
	for o := range min(a.Hw, b.Hw) {
		if o >= a.LogLen || o >= b.LogLen {
			panic(fmt.Sprintf("index %d out of the logs of replicas %d (%d records) and %d (%d records)",
				o, i, a.LogLen, j, b.LogLen))
		}
		if a.Log[o] != b.Log[o] {
			return false
		}
	}
	return true
}

// CommittedPrefixesAgree mirrors model.CommittedPrefixesAgree.
func CommittedPrefixesAgree(cfg *model.Config, p *State) bool {
	n := cfg.N()
	for i := range n {
		for j := range n {
			if replicaUp(&p.R[i]) && replicaUp(&p.R[j]) && !prefixesAgreeAt(p, i, j) {
				return false
			}
		}
	}
	return true
}

// reconciled mirrors Reconciled(r): a leader, or a follower done truncating.
func replicaReconciled(r *Replica) bool {
	return r.Role == model.Leader || (r.Role == model.Follower && r.FetchState == model.Fetching)
}

// NoDivergence mirrors model.NoDivergence.
func NoDivergence(cfg *model.Config, p *State) bool {
	n := cfg.N()
	for i := range n {
		for j := range n {
			a, b := &p.R[i], &p.R[j]
			if replicaReconciled(a) && replicaReconciled(b) && a.LeaderEpoch == b.LeaderEpoch && !prefixesAgreeAt(p, i, j) {
				return false
			}
		}
	}
	return true
}

// leaderHoldsAll mirrors the controller's leader holding every [offset, id]
// of set (true when there is no leader).
func leaderHoldsAll(p *State, set uint32) bool {
	if p.CtrlLeader == None {
		return true
	}
	l := &p.R[p.CtrlLeader]
	for ; set != 0; set &= set - 1 {
		if o, id := pairAt(bits.TrailingZeros32(set)); !replicaHolds(l, o, id) {
			return false
		}
	}
	return true
}

// NoAckedLoss mirrors model.NoAckedLoss.
func NoAckedLoss(cfg *model.Config, p *State) bool { return leaderHoldsAll(p, p.Acked) }

// NoVisibleLoss mirrors model.NoVisibleLoss.
func NoVisibleLoss(cfg *model.Config, p *State) bool { return leaderHoldsAll(p, p.Committed) }

// StrongIsr mirrors model.StrongIsr.
func StrongIsr(cfg *model.Config, p *State) bool {
	for set := p.Committed; set != 0; set &= set - 1 {
		o, id := pairAt(bits.TrailingZeros32(set))
		for i := range cfg.N() {
			if p.CtrlIsr.Has(i) && !replicaHolds(&p.R[i], o, id) {
				return false
			}
		}
	}
	return true
}

// NoCommittedLossAnywhere mirrors model.NoCommittedLossAnywhere.
func NoCommittedLossAnywhere(cfg *model.Config, p *State) bool {
outer:
	for set := p.Committed; set != 0; set &= set - 1 {
		o, id := pairAt(bits.TrailingZeros32(set))
		for i := range cfg.N() {
			if replicaHolds(&p.R[i], o, id) {
				continue outer
			}
		}
		return false
	}
	return true
}

// ElrWellFormed mirrors model.ElrWellFormed.
func ElrWellFormed(cfg *model.Config, p *State) bool {
	switch {
	case p.CtrlElr&p.CtrlIsr != 0:
		return false
	case p.CtrlIsr.size() >= model.EffMinIsr(cfg) && p.CtrlElr != 0:
		return false
	case (p.CtrlLastKnownElr != 0) != (p.CtrlIsr == 0):
		return false
	}
	return cfg.Rel().Elr || (p.CtrlElr == 0 && p.CtrlLastKnownElr == 0)
}

// ElrComplete mirrors model.ElrComplete.
func ElrComplete(cfg *model.Config, p *State) bool {
	for set := p.Committed; set != 0; set &= set - 1 {
		o, id := pairAt(bits.TrailingZeros32(set))
		for i := range cfg.N() {
			if r := &p.R[i]; p.CtrlElr.Has(i) && replicaUp(r) && !replicaHolds(r, o, id) {
				return false
			}
		}
	}
	return true
}

// ElrInMaximalIsr mirrors model.ElrInMaximalIsr.
func ElrInMaximalIsr(cfg *model.Config, p *State) bool {
	for l := range cfg.N() {
		r := &p.R[l]
		if r.Role != model.Leader || r.LeaderEpoch != p.CtrlEpoch || r.Isr.size() < model.EffMinIsr(cfg) {
			continue
		}
		if (p.CtrlIsr|p.CtrlElr)&^maximalIsr(p, l) != 0 {
			return false
		}
	}
	return true
}

// NeverCommittedSurvivesLeaderChange mirrors model.NeverCommittedSurvivesLeaderChange.
func NeverCommittedSurvivesLeaderChange(cfg *model.Config, p *State) bool {
	for i := range cfg.N() {
		r := &p.R[i]
		if r.Role != model.Leader {
			continue
		}
		for set := p.Committed; set != 0; set &= set - 1 {
			o, id := pairAt(bits.TrailingZeros32(set))
			if replicaHolds(r, o, id) && r.Log[o].Epoch < r.ProduceEpoch {
				return false
			}
		}
	}
	return true
}

// NeverTwoRecordsAtOneOffset mirrors model.NeverTwoRecordsAtOneOffset.
func NeverTwoRecordsAtOneOffset(cfg *model.Config, p *State) bool {
	n := cfg.N()
	for i := range n {
		for j := range n {
			a, b := &p.R[i], &p.R[j]
			if !replicaUp(a) || !replicaUp(b) {
				continue
			}
			for o := 0; o < cfg.MaxRecords && o < int(min(a.LogLen, b.LogLen)); o++ {
				if a.Log[o] != b.Log[o] {
					return false
				}
			}
		}
	}
	return true
}

// NeverStalePartitionEpoch mirrors model.NeverStalePartitionEpoch.
func NeverStalePartitionEpoch(cfg *model.Config, p *State) bool {
	for i := range cfg.N() {
		if m := &p.R[i].AlterPartition; m.Type == model.MsgAlterPartitionResponse && m.Error == model.ErrInvalidUpdateVersion {
			return false
		}
	}
	return true
}

// NeverLeaderChange mirrors model.NeverLeaderChange.
func NeverLeaderChange(cfg *model.Config, p *State) bool {
	for i := range cfg.N() {
		if r := &p.R[i]; r.Role == model.Leader && r.LeaderEpoch >= 1 {
			return false
		}
	}
	return true
}

// NeverCommitted mirrors model.NeverCommitted.
func NeverCommitted(cfg *model.Config, p *State) bool { return p.Committed == 0 }

// NeverAcked mirrors model.NeverAcked.
func NeverAcked(cfg *model.Config, p *State) bool { return p.Acked == 0 }

// NeverEpochRoundTrip mirrors model.NeverEpochRoundTrip.
func NeverEpochRoundTrip(cfg *model.Config, p *State) bool {
	for i := range cfg.N() {
		if r := &p.R[i]; r.Role == model.Follower && r.FetchState == model.Fetching {
			return false
		}
	}
	return true
}

// NeverRecoveredFromCrash mirrors model.NeverRecoveredFromCrash.
func NeverRecoveredFromCrash(cfg *model.Config, p *State) bool {
	if p.Crashes < 1 {
		return true
	}
	for i := range cfg.N() {
		if r := &p.R[i]; r.Role != model.Leader && r.Role != model.Follower {
			return true
		}
	}
	return false
}

// NoTruncation mirrors model.NoTruncation: no live replica's log gets shorter.
func NoTruncation(cfg *model.Config, p, q *State) bool {
	for i := range cfg.N() {
		if q.R[i].Role != model.Offline && q.R[i].LogLen < p.R[i].LogLen {
			return false
		}
	}
	return true
}

// HWStaysWhilePending mirrors model.HWStaysWhilePending.
func HWStaysWhilePending(cfg *model.Config, p, q *State) bool {
	for i := range cfg.N() {
		a, b := &p.R[i], &q.R[i]
		if a.PendingIsr != 0 && b.PendingIsr == a.PendingIsr && b.Role == model.Leader && b.Hw > a.Hw {
			return false
		}
	}
	return true
}

// NoDivergingTruncation mirrors model.NoDivergingTruncation.
func NoDivergingTruncation(cfg *model.Config, p, q *State) bool {
	for i := range cfg.N() {
		a, b := &p.R[i], &q.R[i]
		if m := &a.Inflight; m.Type == model.MsgFetchResponse && m.Diverging && b.Role != model.Offline && b.LogLen < a.LogLen {
			return false
		}
	}
	return true
}

// NoElrElection mirrors model.NoElrElection: no step elects a replica
// ElrElectable before it.
func NoElrElection(cfg *model.Config, p, q *State) bool {
	return !(q.CtrlEpoch > p.CtrlEpoch && q.CtrlLeader != None &&
		cfg.Rel().Elr && p.CtrlIsr == 0 && p.CtrlElr.Has(int(q.CtrlLeader)))
}

// NoLastKnownLeaderElection mirrors model.NoLastKnownLeaderElection: no
// step elects the replica LastKnownElectable before it.
func NoLastKnownLeaderElection(cfg *model.Config, p, q *State) bool {
	return !(q.CtrlEpoch > p.CtrlEpoch && q.CtrlLeader != None &&
		cfg.Rel().Elr && p.CtrlIsr == 0 && p.CtrlElr == 0 && p.CtrlLastKnownElr == bit(int(q.CtrlLeader)))
}

// NoCommittedTruncation mirrors model.NoCommittedTruncation.
func NoCommittedTruncation(cfg *model.Config, p, q *State) bool {
	for i := range cfg.N() {
		a, b := &p.R[i], &q.R[i]
		if b.Role != model.Follower {
			continue
		}
		for set := p.Committed; set != 0; set &= set - 1 {
			o, id := pairAt(bits.TrailingZeros32(set))
			if replicaHolds(a, o, id) && !replicaHolds(b, o, id) {
				return false
			}
		}
	}
	return true
}
