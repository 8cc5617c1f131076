package model

import "slices"

// Durability, crash and restart, and the lossy network.

// checkpointHW mirrors CheckpointHW(r): the periodic replication-offset-checkpoint write.
func checkpointHW(cfg *Config, s *State, r int, t *State) bool {
	if (s.Role[r] != Leader && s.Role[r] != Follower) || s.HwCheckpoint[r] == s.Hw[r] {
		return false
	}
	*t = *s
	t.HwCheckpoint = with(s.HwCheckpoint, r, s.Hw[r])
	return true
}

// afterCrash mirrors AfterCrash(r, f): what a crash of r leaves in f's slot.
// Where the release serves stale fetches, r's own fetch request (or the
// leader's read of it) lives on as an orphan; everything else to or from r is
// lost.
func afterCrash(cfg *Config, s *State, r, f int) Msg {
	m := s.Inflight[f]
	name := cfg.Replicas[r]
	if f == r && cfg.Rel().StaleFetchServed &&
		((m.Type == MsgFetch && m.Dst != name && s.Up(cfg.Index(m.Dst))) || (m.Type == MsgFetchRead && m.Src != name)) {
		m.Orphan = true
		return m
	}
	if f == r || (m.Type != MsgNone && (m.Src == name || m.Dst == name)) {
		return NoMsg
	}
	return m
}

// crash mirrors Crash(r, keep): r loses its volatile state, every message to
// or from it but an orphaned fetch, and (with UnflushedLoss) all but keep
// records of its log. The controller unsets a dead leader; under asynchronous
// ISR changes it fences a dead ISR follower out of the ISR, and with ELR any
// dead ISR member, into the ELR below min.insync.replicas, recording the last
// known leader when the ISR empties.
func crash(cfg *Config, s *State, r, keep int, t *State) bool {
	if !s.Up(r) || s.Crashes >= cfg.MaxCrashes {
		return false
	}
	leo := s.LEO(r)
	if cfg.UnflushedLoss {
		if keep < 0 || keep > leo {
			return false
		}
	} else if keep != leo {
		return false
	}
	name := cfg.Replicas[r]
	*t = *s
	if keep != leo {
		t.Log = with(s.Log, r, s.Log[r][:keep:keep])
	}
	t.Role = with(s.Role, r, Offline)
	t.LeaderEpoch = with(s.LeaderEpoch, r, -1)
	t.Leader = with(s.Leader, r, None)
	t.Hw = with(s.Hw, r, 0)
	t.Isr = with(s.Isr, r, nil)
	t.FollowerLeo = with(s.FollowerLeo, r, NoViews(cfg))
	t.FollowerBrokerEpoch = with(s.FollowerBrokerEpoch, r, NoViews(cfg))
	t.FetchState = with(s.FetchState, r, FetchNone)
	t.ProduceEpoch = with(s.ProduceEpoch, r, -1)
	t.PartitionEpoch = with(s.PartitionEpoch, r, -1)
	t.PendingIsr = with(s.PendingIsr, r, nil)
	t.Inflight = make([]Msg, len(s.Inflight))
	for f := range s.Inflight {
		t.Inflight[f] = afterCrash(cfg, s, r, f)
	}
	t.AlterPartition = with(s.AlterPartition, r, NoMsg)
	t.Crashes = s.Crashes + 1
	rel := cfg.Rel()
	var fence bool
	if rel.Elr {
		fence = Contains(s.CtrlIsr, name)
	} else {
		fence = rel.AsyncIsr && s.CtrlLeader != name && s.CtrlLeader != None && Contains(s.CtrlIsr, name)
		if cfg.Restore == RestoreKRaftIsrRules { // restore hook: 3.9 fences any ISR member but the last
			fence = rel.AsyncIsr && Contains(s.CtrlIsr, name) && len(s.CtrlIsr) > 1
		}
	}
	l := s.CtrlLeader
	if l == name {
		l = None
	}
	t.CtrlLeader = l
	if cfg.Restore != RestoreStaleControllerRequests { // restore hook: the queue survives the crash
		t.ControllerQueue = with(s.ControllerQueue, r, nil)
	}
	if fence {
		isr := Remove(s.CtrlIsr, name)
		pe := s.CtrlPartitionEpoch + 1
		t.CtrlIsr = isr
		t.CtrlPartitionEpoch = pe
		t.CtrlElr = ElrAfter(cfg, s.CtrlIsr, isr, s.CtrlElr)
		if len(isr) == 0 {
			t.CtrlLastKnownElr = []Replica{name}
		}
		if l != None {
			// Up(x) is read in the unprimed state, where r is still up: skip it.
			q := sendToLive(s, LeaderAndIsrMsg(l, s.CtrlEpoch, isr, pe), r)
			q[r] = nil
			t.ControllerQueue = q
		}
	}
	return true
}

// restart mirrors Restart(r): HW = min(checkpoint, LEO), the epoch cache is
// truncated to the LEO, and the controller sends the current LeaderAndIsr
// when the partition has a leader. With ELR the broker's shutdown was
// unclean: it leaves the ELR, a partition change that bumps the partition
// epoch and reaches the live brokers.
func restart(cfg *Config, s *State, r int, t *State) bool {
	if s.Role[r] != Offline {
		return false
	}
	*t = *s
	t.Hw = with(s.Hw, r, min(s.HwCheckpoint[r], s.LEO(r)))
	t.EpochCache = with(s.EpochCache, r, TruncateFromEnd(s.EpochCache[r], s.LEO(r)))
	t.Role = with(s.Role, r, Starting)
	if cfg.Rel().IsrBrokerEpochs {
		t.BrokerEpoch = with(s.BrokerEpoch, r, s.BrokerEpoch[r]+1)
	}
	name := cfg.Replicas[r]
	leaves := Contains(s.CtrlElr, name)
	pe := s.CtrlPartitionEpoch
	if leaves {
		pe++
		t.CtrlPartitionEpoch = pe
		t.CtrlElr = nil
		if rest := Remove(s.CtrlElr, name); len(rest) > 0 {
			t.CtrlElr = rest
		}
	}
	var q []Msg
	if s.CtrlLeader != None {
		m := LeaderAndIsrMsg(s.CtrlLeader, s.CtrlEpoch, s.CtrlIsr, pe)
		q = []Msg{m}
		if leaves {
			qs := sendToLive(s, m, r)
			qs[r] = q
			t.ControllerQueue = qs
			return true
		}
	}
	if cfg.Restore == RestoreStaleControllerRequests { // restore hook: the stale queue comes first
		q = append(slices.Clip(s.ControllerQueue[r]), q...)
	}
	t.ControllerQueue = with(s.ControllerQueue, r, q)
	return true
}

// loseMessage mirrors LoseMessage(f): a lossy network drops f's request or response.
func loseMessage(cfg *Config, s *State, f int, t *State) bool {
	if !cfg.LossyNetwork || s.Inflight[f].Type == MsgNone || s.Inflight[f].Type == MsgFetchRead {
		return false
	}
	*t = *s
	t.Inflight = with(s.Inflight, f, NoMsg)
	if cfg.Mutant == MutantFetcherStopsAfterLoss && s.Role[f] == Follower { // mutant hook
		t.FetchState = with(s.FetchState, f, FetchNone)
	}
	return true
}

// missLeaderAndIsr mirrors MissLeaderAndIsr(r): r never sees the head of
// its LeaderAndIsr queue, which a later request follows.
func missLeaderAndIsr(cfg *Config, s *State, r int, t *State) bool {
	q := s.ControllerQueue[r]
	if !cfg.MissedLeaderAndIsr || len(q) < 2 {
		return false
	}
	*t = *s
	t.ControllerQueue = with(s.ControllerQueue, r, q[1:len(q):len(q)])
	return true
}
