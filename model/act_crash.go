package model

// Durability, crash and restart, and the lossy network.

// checkpointHW mirrors CheckpointHW(r): the periodic replication-offset-checkpoint write.
func checkpointHW(cfg *Config, s *State, r int) (State, bool) {
	if (s.Role[r] != Leader && s.Role[r] != Follower) || s.HwCheckpoint[r] == s.Hw[r] {
		return State{}, false
	}
	t := *s
	t.HwCheckpoint = with(s.HwCheckpoint, r, s.Hw[r])
	return t, true
}

// crash mirrors Crash(r, keep): r loses its volatile state, every message to
// or from it, and (with UnflushedLoss) all but keep records of its log.
func crash(cfg *Config, s *State, r, keep int) (State, bool) {
	if !s.Up(r) || s.Crashes >= cfg.MaxCrashes {
		return State{}, false
	}
	leo := s.LEO(r)
	if cfg.UnflushedLoss {
		if keep < 0 || keep > leo {
			return State{}, false
		}
	} else if keep != leo {
		return State{}, false
	}
	name := cfg.Replicas[r]
	t := *s
	if keep != leo {
		t.Log = with(s.Log, r, s.Log[r][:keep:keep])
	}
	t.Role = with(s.Role, r, Offline)
	t.LeaderEpoch = with(s.LeaderEpoch, r, -1)
	t.Leader = with(s.Leader, r, None)
	t.Hw = with(s.Hw, r, 0)
	t.Isr = with(s.Isr, r, nil)
	t.FollowerLeo = with(s.FollowerLeo, r, NoViews(cfg))
	t.FetchState = with(s.FetchState, r, FetchNone)
	t.ControllerQueue = with(s.ControllerQueue, r, nil)
	t.Inflight = make([]Msg, len(s.Inflight))
	for f, m := range s.Inflight {
		if f == r || (m.Type != MsgNone && (m.Src == name || m.Dst == name)) {
			t.Inflight[f] = NoMsg
		} else {
			t.Inflight[f] = m
		}
	}
	t.Crashes = s.Crashes + 1
	return t, true
}

// restart mirrors Restart(r): HW = min(checkpoint, LEO), the epoch cache is
// truncated to the LEO, and the controller re-sends the current LeaderAndIsr
// unless r was the leader it elected last.
func restart(cfg *Config, s *State, r int) (State, bool) {
	if s.Role[r] != Offline {
		return State{}, false
	}
	t := *s
	t.Hw = with(s.Hw, r, min(s.HwCheckpoint[r], s.LEO(r)))
	t.EpochCache = with(s.EpochCache, r, TruncateFromEnd(s.EpochCache[r], s.LEO(r)))
	t.Role = with(s.Role, r, Starting)
	var q []Msg
	if s.CtrlLeader != cfg.Replicas[r] && s.CtrlLeader != None {
		q = []Msg{LeaderAndIsrMsg(s.CtrlLeader, s.CtrlEpoch, s.CtrlIsr)}
	}
	t.ControllerQueue = with(s.ControllerQueue, r, q)
	return t, true
}

// loseMessage mirrors LoseMessage(f): a lossy network drops f's request or response.
func loseMessage(cfg *Config, s *State, f int) (State, bool) {
	if !cfg.LossyNetwork || s.Inflight[f].Type == MsgNone {
		return State{}, false
	}
	t := *s
	t.Inflight = with(s.Inflight, f, NoMsg)
	return t, true
}
