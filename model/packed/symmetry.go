package packed

import (
	"math/bits"

	"github.com/hwepoch/hwepoch/model"
)

// Symmetry on the packed state, as model/symmetry.go has it on model.State:
// the explorer fingerprints a state as the least hash over the renamings
// that list the replicas in ReplicaKey order (model.SortsByKey explains why
// that is canonical), renaming with Permute.

// ReplicaKey is model.ReplicaKey on the packed state: a hash of what replica
// i holds that does not name another replica (its log, epoch cache, HW
// checkpoint, role, epoch, HW, fetch state, produce and partition epochs,
// and whether it names itself leader), mixed in the same order, so that it
// equals model.ReplicaKey(cfg, ToModel(p), i). Renaming carries it along:
// ReplicaKey(Permute(p, perm), perm[i]) == ReplicaKey(p, i).
func ReplicaKey(cfg *model.Config, p *State, i int) uint64 {
	const m = 0x9e3779b97f4a7c15
	r := &p.R[i]
	h := uint64(1)
	mix := func(x int8) { h = (h ^ uint64(int64(x))) * m; h ^= h >> 29 }
	mix(r.LogLen)
	for _, x := range r.Log[:r.LogLen] {
		mix(x.ID)
		mix(x.Epoch)
	}
	mix(r.CacheLen)
	for _, x := range r.Cache[:r.CacheLen] {
		mix(x.Epoch)
		mix(x.Start)
	}
	mix(r.HwCheckpoint)
	mix(int8(r.Role))
	mix(r.LeaderEpoch)
	mix(r.Hw)
	mix(int8(r.FetchState))
	mix(r.ProduceEpoch)
	mix(r.PartEpoch)
	if int(r.Leader) == i {
		mix(1)
	} else {
		mix(0)
	}
	return h
}

// Permute writes into out the state p with its replicas renamed: replica i
// becomes replica perm[i] (inv is perm's inverse, as model.Inverse gives),
// in every field that holds or names a replica: the per-replica fields
// (the broker epochs among them), leaders, ISRs and pending ISRs, the
// followers' views (of LEOs and of broker epochs), the controller's leader,
// ISR, ELR and last known leader, and the messages (a LeaderAndIsr's leader
// and ISR, a fetcher message's source and destination, an ISR change's ISR
// and an AlterPartition's broker epochs). It is
// model.Permute on the packed state: ToModel(Permute(p)) equals
// model.Permute(ToModel(p)). out must not be p.
func Permute(cfg *model.Config, p *State, perm, inv []int, out *State) {
	if out == p {
		panic("packed.Permute: out is p")
	}
	n := cfg.N()
	for j := range n {
		src := &p.R[inv[j]]
		r := &out.R[j]
		*r = *src
		r.Leader = permIndex(perm, r.Leader)
		r.Isr = permSet(perm, r.Isr)
		r.PendingIsr = permSet(perm, r.PendingIsr)
		for k := range n {
			r.FollowerLeo[perm[k]] = src.FollowerLeo[k]
			r.FollowerBrokerEpoch[perm[k]] = src.FollowerBrokerEpoch[k]
		}
		if seededBug == bugPermuteKeepsBrokerViews {
			r.FollowerBrokerEpoch = src.FollowerBrokerEpoch
		}
		for k := range r.QueueLen {
			permMsg(perm, &r.Queue[k])
		}
		permMsg(perm, &r.Inflight)
		permMsg(perm, &r.AlterPartition)
	}
	for j := n; j < MaxReplicas; j++ {
		out.R[j] = p.R[j]
	}
	out.CtrlLeader = permIndex(perm, p.CtrlLeader)
	out.CtrlEpoch = p.CtrlEpoch
	out.CtrlIsr = permSet(perm, p.CtrlIsr)
	out.CtrlPartitionEpoch = p.CtrlPartitionEpoch
	out.CtrlElr = permSet(perm, p.CtrlElr)
	out.CtrlLastKnownElr = permSet(perm, p.CtrlLastKnownElr)
	out.NextID = p.NextID
	out.Crashes = p.Crashes
	out.Acked = p.Acked
	out.Committed = p.Committed
}

// permIndex renames replica index i (None stays None).
func permIndex(perm []int, i int8) int8 {
	if i < 0 {
		return i
	}
	return int8(perm[i])
}

// permSet renames the members of s.
func permSet(perm []int, s Set) Set {
	var t Set
	for ; s != 0; s &= s - 1 {
		t |= 1 << uint(perm[bits.TrailingZeros8(uint8(s))])
	}
	return t
}

// permMsg renames the replicas m names, in the fields its type has (the
// others stay zero).
func permMsg(perm []int, m *Msg) {
	switch m.Type {
	case model.MsgNone:
	case model.MsgLeaderAndIsr:
		m.Leader = permIndex(perm, m.Leader)
		m.Isr = permSet(perm, m.Isr)
	case model.MsgAlterPartition:
		m.Isr = permSet(perm, m.Isr)
		be := m.BrokerEpochs
		for k := range perm {
			m.BrokerEpochs[perm[k]] = be[k]
		}
	case model.MsgAlterPartitionResponse:
		m.Isr = permSet(perm, m.Isr)
	default:
		if hasSrcDst(m.Type) {
			m.Src = permIndex(perm, m.Src)
			m.Dst = permIndex(perm, m.Dst)
		}
	}
}
