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
		return m
	}
	u := State{
		Log: make([][]Record, n), EpochCache: make([][]Entry, n), HwCheckpoint: make([]int, n),
		Role: make([]Role, n), LeaderEpoch: make([]int, n), Leader: make([]Replica, n), Hw: make([]int, n),
		Isr: make([][]Replica, n), FollowerLeo: make([][]int, n), FetchState: make([]FetchState, n),
		CtrlLeader: rename(s.CtrlLeader), CtrlEpoch: s.CtrlEpoch, CtrlIsr: renameSet(s.CtrlIsr),
		ControllerQueue: make([][]Msg, n), Inflight: make([]Msg, n),
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
		u.FetchState[j] = s.FetchState[i]
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
		var fp uint64
		if k == 0 { // the identity
			buf = AppendEncoding(buf[:0], s)
		} else {
			u := Permute(cfg, s, p)
			buf = AppendEncoding(buf[:0], &u)
		}
		fp = Hash64(buf)
		if k == 0 || fp < best {
			best = fp
		}
	}
	return best, buf
}
