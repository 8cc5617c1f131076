package packed

import "github.com/hwepoch/hwepoch/model"

// Durability, crash and restart, and the lossy network (model/act_crash.go).

// checkpointHW mirrors CheckpointHW(r): the periodic
// replication-offset-checkpoint write.
func (s *Succ) checkpointHW(p *State, r int, t *State) bool {
	pr := &p.R[r]
	if (pr.Role != model.Leader && pr.Role != model.Follower) || pr.HwCheckpoint == pr.Hw {
		return false
	}
	*t = *p
	t.R[r].HwCheckpoint = pr.Hw
	return true
}

// afterCrash mirrors AfterCrash(r, f) (model's afterCrash): what a crash of
// r leaves in f's slot, written into *out. Where the release serves stale
// fetches, r's own fetch request (or the leader's read of it) lives on as an
// orphan; everything else to or from r is lost.
func (s *Succ) afterCrash(p *State, r, f int, out *Msg) {
	m := &p.R[f].Inflight
	self := int8(r)
	if f == r && s.staleFetchServed &&
		((m.Type == model.MsgFetch && m.Dst != self && p.up(int(m.Dst))) || (m.Type == model.MsgFetchRead && m.Src != self)) {
		*out = *m
		out.Orphan = true
		return
	}
	if f == r || (hasSrcDst(m.Type) && (m.Src == self || m.Dst == self)) {
		out.noMsg()
		return
	}
	*out = *m
}

// crash mirrors Crash(r, keep): r loses its volatile state, every message to
// or from it but an orphaned fetch, and (with UnflushedLoss) all but keep
// records of its log. The controller unsets a dead leader; under
// asynchronous ISR changes it fences a dead ISR follower out of the ISR, and
// with ELR any dead ISR member, into the ELR below min.insync.replicas,
// recording the last known leader when the ISR empties.
func (s *Succ) crash(p *State, r, keep int, t *State) bool {
	if !p.up(r) || int(p.Crashes) >= s.maxCrashes {
		return false
	}
	leo := int(p.R[r].LogLen)
	if s.unflushed {
		if keep < 0 || keep > leo {
			return false
		}
	} else if keep != leo {
		return false
	}
	self := int8(r)
	*t = *p
	tr := &t.R[r]
	tr.truncLog(int8(keep))
	tr.Role = model.Offline
	tr.LeaderEpoch = -1
	tr.Leader = None
	if s.bug != bugCrashKeepsHW {
		tr.Hw = 0
	}
	tr.Isr = 0
	s.noViews(&tr.FollowerLeo)
	s.noViews(&tr.FollowerBrokerEpoch)
	tr.FetchState = model.FetchNone
	tr.ProduceEpoch = -1
	tr.PartEpoch = -1
	tr.PendingIsr = 0
	for f := range s.n {
		s.afterCrash(p, r, f, &t.R[f].Inflight)
	}
	tr.AlterPartition.noMsg()
	t.Crashes = p.Crashes + 1
	var fence bool
	if s.elr {
		fence = p.CtrlIsr.Has(r)
	} else {
		fence = s.asyncIsr && p.CtrlLeader != self && p.CtrlLeader != None && p.CtrlIsr.Has(r)
	}
	l := p.CtrlLeader
	if l == self {
		l = None
	}
	t.CtrlLeader = l
	tr.clearQueue()
	if fence {
		isr := p.CtrlIsr &^ bit(r)
		pe := p.CtrlPartitionEpoch + 1
		t.CtrlIsr = isr
		t.CtrlPartitionEpoch = pe
		t.CtrlElr = s.elrAfter(p.CtrlIsr, isr, p.CtrlElr)
		if isr == 0 {
			t.CtrlLastKnownElr = bit(r)
		}
		if l != None {
			// Up(x) is read in the unprimed state, where r is still up: skip it.
			m := leaderAndIsr(l, p.CtrlEpoch, isr, pe)
			s.sendToLive(p, t, &m, r)
		}
	}
	return true
}

// restart mirrors Restart(r): HW = min(checkpoint, LEO), the epoch cache is
// truncated to the LEO, and the controller sends the current LeaderAndIsr
// when the partition has a leader. With KIP-903 the broker registers with a
// new broker epoch; with ELR its shutdown was unclean: it leaves the ELR, a
// partition change that bumps the partition epoch and reaches the live
// brokers.
func (s *Succ) restart(p *State, r int, t *State) bool {
	pr := &p.R[r]
	if pr.Role != model.Offline {
		return false
	}
	*t = *p
	tr := &t.R[r]
	tr.Hw = min(pr.HwCheckpoint, pr.LogLen)
	tr.truncateFromEnd(pr.LogLen)
	tr.Role = model.Starting
	if s.isrBrokerEpochs {
		tr.BrokerEpoch = pr.BrokerEpoch + 1
	}
	leaves := p.CtrlElr.Has(r)
	pe := p.CtrlPartitionEpoch
	if leaves {
		pe++
		t.CtrlPartitionEpoch = pe
		if s.bug != bugRestartKeepsElr {
			t.CtrlElr = p.CtrlElr &^ bit(r)
		}
	}
	tr.clearQueue()
	if p.CtrlLeader != None {
		m := leaderAndIsr(p.CtrlLeader, p.CtrlEpoch, p.CtrlIsr, pe)
		tr.pushQueue(&m)
		if leaves {
			s.sendToLive(p, t, &m, r) // r is down in p: only the others
		}
	}
	return true
}

// loseMessage mirrors LoseMessage(f): a lossy network drops f's request or
// response.
func (s *Succ) loseMessage(p *State, f int, t *State) bool {
	pf := &p.R[f]
	if !s.lossy || pf.Inflight.Type == model.MsgNone || pf.Inflight.Type == model.MsgFetchRead {
		return false
	}
	*t = *p
	t.R[f].Inflight.noMsg()
	if s.mutFetcherStops && pf.Role == model.Follower { // mutant hook
		t.R[f].FetchState = model.FetchNone
	}
	return true
}

// missLeaderAndIsr mirrors MissLeaderAndIsr(r): r never sees the head of its
// LeaderAndIsr queue, which a later request follows.
func (s *Succ) missLeaderAndIsr(p *State, r int, t *State) bool {
	if !s.missed || p.R[r].QueueLen < 2 {
		return false
	}
	*t = *p
	t.R[r].popQueue()
	return true
}
