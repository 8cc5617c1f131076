package model

import "slices"

// Symmetry: the spec's Symmetry == Permutations(Replicas). The spec treats
// replicas alike, so a configuration may ask for one state per permutation
// class; TLC then fingerprints a state as the least fingerprint over its
// permutations, and so does the explorer (SymmetricFingerprint).

// Permutations lists every permutation of the replica indices 0..n-1, the
// identity first.
func Permutations(n int) [][]int {
	var out [][]int
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	var gen func(k int)
	gen = func(k int) {
		if k == n {
			out = append(out, slices.Clone(p))
			return
		}
		for i := k; i < n; i++ {
			p[k], p[i] = p[i], p[k]
			gen(k + 1)
			p[k], p[i] = p[i], p[k]
		}
	}
	gen(0)
	return out
}

// Permute renames the replicas of s: replica i becomes replica perm[i],
// everywhere a replica appears (per-replica fields, names in fields and
// messages, sets, which are re-sorted).
func Permute(cfg *Config, s *State, perm []int) State {
	n := cfg.N()
	rename := func(r Replica) Replica {
		if i := cfg.Index(r); i >= 0 {
			return cfg.Replicas[perm[i]]
		}
		return r // None
	}
	renameSet := func(rs []Replica) []Replica {
		if len(rs) == 0 {
			return rs
		}
		out := make([]Replica, len(rs))
		for i, r := range rs {
			out[i] = rename(r)
		}
		slices.Sort(out)
		return out
	}
	renameMsg := func(m Msg) Msg {
		if m.Type == MsgNone {
			return m
		}
		m.Leader, m.Src, m.Dst = rename(m.Leader), rename(m.Src), rename(m.Dst)
		m.Isr = renameSet(m.Isr)
		if m.BrokerEpochs != nil {
			be := make([]int, n)
			for k, v := range m.BrokerEpochs {
				be[perm[k]] = v
			}
			m.BrokerEpochs = be
		}
		return m
	}
	u := State{
		Log: make([][]Record, n), EpochCache: make([][]Entry, n), HwCheckpoint: make([]int, n),
		Role: make([]Role, n), LeaderEpoch: make([]int, n), Leader: make([]Replica, n), Hw: make([]int, n),
		Isr: make([][]Replica, n), FollowerLeo: make([][]int, n), FollowerBrokerEpoch: make([][]int, n),
		FetchState:   make([]FetchState, n),
		ProduceEpoch: make([]int, n), PartitionEpoch: make([]int, n), PendingIsr: make([][]Replica, n),
		CtrlLeader: rename(s.CtrlLeader), CtrlEpoch: s.CtrlEpoch, CtrlIsr: renameSet(s.CtrlIsr),
		CtrlPartitionEpoch: s.CtrlPartitionEpoch,
		CtrlElr:            renameSet(s.CtrlElr), BrokerEpoch: make([]int, n),
		CtrlLastKnownElr: renameSet(s.CtrlLastKnownElr),
		ControllerQueue:  make([][]Msg, n), Inflight: make([]Msg, n), AlterPartition: make([]Msg, n),
		NextId: s.NextId, Crashes: s.Crashes, Acked: s.Acked, Committed: s.Committed,
	}
	for i := range n {
		j := perm[i]
		u.Log[j] = s.Log[i]
		u.EpochCache[j] = s.EpochCache[i]
		u.HwCheckpoint[j] = s.HwCheckpoint[i]
		u.Role[j] = s.Role[i]
		u.LeaderEpoch[j] = s.LeaderEpoch[i]
		u.Leader[j] = rename(s.Leader[i])
		u.Hw[j] = s.Hw[i]
		u.Isr[j] = renameSet(s.Isr[i])
		views := make([]int, n)
		for k, v := range s.FollowerLeo[i] {
			views[perm[k]] = v
		}
		u.FollowerLeo[j] = views
		bviews := make([]int, n)
		for k, v := range s.FollowerBrokerEpoch[i] {
			bviews[perm[k]] = v
		}
		u.FollowerBrokerEpoch[j] = bviews
		u.BrokerEpoch[j] = s.BrokerEpoch[i]
		u.FetchState[j] = s.FetchState[i]
		u.ProduceEpoch[j] = s.ProduceEpoch[i]
		u.PartitionEpoch[j] = s.PartitionEpoch[i]
		u.PendingIsr[j] = renameSet(s.PendingIsr[i])
		u.AlterPartition[j] = renameMsg(s.AlterPartition[i])
		if q := s.ControllerQueue[i]; len(q) > 0 {
			nq := make([]Msg, len(q))
			for k, m := range q {
				nq[k] = renameMsg(m)
			}
			u.ControllerQueue[j] = nq
		}
		u.Inflight[j] = renameMsg(s.Inflight[i])
	}
	return u
}

// SymmetricFingerprint is the least fingerprint over the permutations of
// s (perms from Permutations), as TLC computes fingerprints under SYMMETRY.
// buf is scratch space; the (possibly grown) buffer is returned.
func SymmetricFingerprint(cfg *Config, s *State, perms [][]int, buf []byte) (uint64, []byte) {
	var best uint64
	for k, p := range perms {
		buf = AppendPermutedEncoding(buf[:0], cfg, s, p, Inverse(p))
		fp := Hash64(buf)
		if k == 0 || fp < best {
			best = fp
		}
	}
	return best, buf
}

// AppendPermutedEncoding appends the encoding of Permute(cfg, s, perm)
// without building the permuted state: the symmetric fingerprint encodes
// every successor once per permutation, and building States for that
// dominated the cost of symmetric searches. inv is perm's inverse.
func AppendPermutedEncoding(buf []byte, cfg *Config, s *State, perm, inv []int) []byte {
	e := encoder{buf}
	n := len(inv)
	rename := func(r Replica) Replica {
		if i := cfg.Index(r); i >= 0 {
			return cfg.Replicas[perm[i]]
		}
		return r
	}
	var tmp [8]Replica
	set := func(rs []Replica) {
		var out []Replica
		if len(rs) <= len(tmp) {
			out = tmp[:len(rs)]
		} else {
			out = make([]Replica, len(rs))
		}
		for i, r := range rs {
			out[i] = rename(r)
		}
		slices.Sort(out)
		e.replicas(out)
	}
	msg := func(m Msg) {
		if m.Type != MsgNone {
			m.Leader, m.Src, m.Dst = rename(m.Leader), rename(m.Src), rename(m.Dst)
		}
		switch m.Type {
		case MsgLeaderAndIsr:
			e.b = append(e.b, byte(m.Type))
			e.replica(m.Leader)
			e.int(m.Epoch)
			set(m.Isr)
			e.int(m.PartitionEpoch)
			return
		case MsgAlterPartition:
			e.b = append(e.b, byte(m.Type))
			e.int(m.LeaderEpoch)
			e.int(m.PartitionEpoch)
			set(m.Isr)
			e.len(len(m.BrokerEpochs))
			for j := range m.BrokerEpochs {
				e.int(m.BrokerEpochs[inv[j]])
			}
			return
		case MsgAlterPartitionResponse:
			e.b = append(e.b, byte(m.Type), byte(m.Error))
			e.int(m.LeaderEpoch)
			e.int(m.PartitionEpoch)
			set(m.Isr)
			return
		}
		e.msg(&m)
	}
	e.len(n)
	for j := range n {
		lg := s.Log[inv[j]]
		e.len(len(lg))
		for _, r := range lg {
			e.int(r.ID)
			e.int(r.Epoch)
		}
	}
	e.len(n)
	for j := range n {
		c := s.EpochCache[inv[j]]
		e.len(len(c))
		for _, x := range c {
			e.int(x.Epoch)
			e.int(x.Start)
		}
	}
	ints := func(xs []int) {
		e.len(n)
		for j := range n {
			e.int(xs[inv[j]])
		}
	}
	ints(s.HwCheckpoint)
	e.len(n)
	for j := range n {
		e.b = append(e.b, byte(s.Role[inv[j]]))
	}
	ints(s.LeaderEpoch)
	e.len(n)
	for j := range n {
		e.replica(rename(s.Leader[inv[j]]))
	}
	ints(s.Hw)
	e.len(n)
	for j := range n {
		set(s.Isr[inv[j]])
	}
	e.len(n)
	for j := range n {
		ints(s.FollowerLeo[inv[j]])
	}
	e.len(n)
	for j := range n {
		ints(s.FollowerBrokerEpoch[inv[j]])
	}
	e.len(n)
	for j := range n {
		e.b = append(e.b, byte(s.FetchState[inv[j]]))
	}
	ints(s.ProduceEpoch)
	ints(s.PartitionEpoch)
	e.len(n)
	for j := range n {
		set(s.PendingIsr[inv[j]])
	}
	e.replica(rename(s.CtrlLeader))
	e.int(s.CtrlEpoch)
	set(s.CtrlIsr)
	e.int(s.CtrlPartitionEpoch)
	set(s.CtrlElr)
	ints(s.BrokerEpoch)
	set(s.CtrlLastKnownElr)
	e.len(n)
	for j := range n {
		q := s.ControllerQueue[inv[j]]
		e.len(len(q))
		for _, m := range q {
			msg(m)
		}
	}
	e.len(n)
	for j := range n {
		msg(s.Inflight[inv[j]])
	}
	e.len(n)
	for j := range n {
		msg(s.AlterPartition[inv[j]])
	}
	e.int(s.NextId)
	e.int(s.Crashes)
	e.offsetIDs(s.Acked)
	e.offsetIDs(s.Committed)
	return e.b
}

// Inverse returns the inverse of a permutation.
func Inverse(perm []int) []int {
	inv := make([]int, len(perm))
	for i, j := range perm {
		inv[j] = i
	}
	return inv
}

// ReplicaKey is a hash of what replica i holds that does not name another
// replica: its log, epoch cache, HW checkpoint, role, epoch, HW, fetch
// state, produce and partition epochs, and whether it names itself leader.
// Renaming replicas carries each key along with its replica:
// ReplicaKey(Permute(s, p), p[i]) == ReplicaKey(s, i). So sorting the
// replicas by key picks, up to replicas with equal keys, one member of s's
// permutation class without trying every permutation (CanonicalPerms).
func ReplicaKey(cfg *Config, s *State, i int) uint64 {
	const m = 0x9e3779b97f4a7c15
	h := uint64(1)
	mix := func(x int) { h = (h ^ uint64(x)) * m; h ^= h >> 29 }
	mix(len(s.Log[i]))
	for _, r := range s.Log[i] {
		mix(r.ID)
		mix(r.Epoch)
	}
	mix(len(s.EpochCache[i]))
	for _, e := range s.EpochCache[i] {
		mix(e.Epoch)
		mix(e.Start)
	}
	mix(s.HwCheckpoint[i])
	mix(int(s.Role[i]))
	mix(s.LeaderEpoch[i])
	mix(s.Hw[i])
	mix(int(s.FetchState[i]))
	mix(s.ProduceEpoch[i])
	mix(s.PartitionEpoch[i])
	if s.Leader[i] == cfg.Replicas[i] {
		mix(1)
	} else {
		mix(0)
	}
	return h
}

// SortsByKey reports whether renaming replica i to perm[i] lists the
// replicas in non-decreasing key order (keys[i] is replica i's ReplicaKey):
// the permutations that do are the candidates for the canonical form.
// Renaming by any of them and taking the least fingerprint is a canonical
// form of the permutation class: two states of one class have the same
// multiset of keys, so the same set of key-sorted renamings, hence the same
// least fingerprint. It is the same partition into classes as the least
// fingerprint over all permutations (TLC's), so distinct-state counts agree,
// at the cost of encoding only the renamings that sort, one when the keys
// differ.
func SortsByKey(keys []uint64, inv []int) bool {
	for j := 1; j < len(inv); j++ {
		if keys[inv[j-1]] > keys[inv[j]] {
			return false
		}
	}
	return true
}
