package model

import "slices"

// elect mirrors Elect(r): the controller elects r and bumps the leader epoch.
func elect(cfg *Config, s *State, r int) (State, bool) {
	name := cfg.Replicas[r]
	if !s.Up(r) || s.CtrlEpoch >= cfg.MaxEpoch {
		return State{}, false
	}
	inIsr := Contains(s.CtrlIsr, name)
	if !inIsr {
		if !cfg.UncleanLeaderElectionEnable {
			return State{}, false
		}
		for _, x := range s.CtrlIsr {
			if s.Up(cfg.Index(x)) {
				return State{}, false
			}
		}
	}
	var newIsr []Replica
	if inIsr {
		newIsr = make([]Replica, 0, len(s.CtrlIsr))
		for _, x := range s.CtrlIsr {
			if s.Up(cfg.Index(x)) {
				newIsr = append(newIsr, x)
			}
		}
	} else {
		newIsr = []Replica{name}
	}
	e := s.CtrlEpoch + 1
	t := *s
	t.CtrlLeader = name
	t.CtrlEpoch = e
	t.CtrlIsr = newIsr
	m := LeaderAndIsrMsg(name, e, newIsr)
	t.ControllerQueue = slices.Clone(s.ControllerQueue)
	for x := range t.ControllerQueue {
		if s.Up(x) {
			t.ControllerQueue[x] = append(slices.Clip(s.ControllerQueue[x]), m)
		}
	}
	return t, true
}

// handleLeaderAndIsr mirrors HandleLeaderAndIsr(r): r consumes the head of
// its controller queue, and applies it only if its epoch is newer.
func handleLeaderAndIsr(cfg *Config, s *State, r int) (State, bool) {
	q := s.ControllerQueue[r]
	if len(q) == 0 {
		return State{}, false
	}
	m := q[0]
	t := *s
	t.ControllerQueue = with(s.ControllerQueue, r, q[1:len(q):len(q)])
	if m.Epoch > s.LeaderEpoch[r] {
		if m.Leader == cfg.Replicas[r] {
			BecomeLeader(cfg, s, &t, r, m)
		} else {
			BecomeFollower(cfg, s, &t, r, m)
		}
	}
	return t, true
}

// BecomeLeader mirrors BecomeLeader(r, m), writing the primed variables into t.
func BecomeLeader(cfg *Config, s, t *State, r int, m Msg) {
	t.EpochCache = with(s.EpochCache, r, Assign(s.EpochCache[r], m.Epoch, s.LEO(r)))
	t.Role = with(s.Role, r, Leader)
	t.LeaderEpoch = with(s.LeaderEpoch, r, m.Epoch)
	t.Leader = with(s.Leader, r, cfg.Replicas[r])
	t.Isr = with(s.Isr, r, m.Isr)
	views := NoViews(cfg)
	t.FollowerLeo = with(s.FollowerLeo, r, views)
	t.FetchState = with(s.FetchState, r, FetchNone)
	AdvanceHW(cfg, s, t, r, s.Log[r], m.Isr, views, -1)
}

// BecomeFollower mirrors BecomeFollower(r, m), writing the primed variables into t.
func BecomeFollower(cfg *Config, s, t *State, r int, m Msg) {
	t.Role = with(s.Role, r, Follower)
	t.LeaderEpoch = with(s.LeaderEpoch, r, m.Epoch)
	t.Leader = with(s.Leader, r, m.Leader)
	t.Isr = with(s.Isr, r, nil)
	t.FollowerLeo = with(s.FollowerLeo, r, NoViews(cfg))
	if cfg.Truncation == HighWatermark {
		// Kafka <= 0.10.2: truncate to the local HW, then fetch from there.
		t.Log = with(s.Log, r, TruncLog(s, r, s.Hw[r]))
		t.EpochCache = with(s.EpochCache, r, TruncCache(s, r, s.Hw[r]))
		t.FetchState = with(s.FetchState, r, Fetching)
	} else {
		t.FetchState = with(s.FetchState, r, Truncating)
	}
}
