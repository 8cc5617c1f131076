package model

import "fmt"

// EvalError is a failure to evaluate the spec on a state, where TLC would
// stop with an evaluation error (e.g. CHOOSE over an empty set, a sequence
// index out of its domain). The spec is written so that this never happens on
// reachable states; finding one means model and spec disagree.
type EvalError struct {
	Action Action
	Cause  any
}

func (e *EvalError) Error() string {
	return fmt.Sprintf("evaluating %s: %v", e.Action, e.Cause)
}

// step computes action a's successor of s into t, false (t untouched) when a
// is not enabled. Replica parameters are indices here; the caller has
// range-checked them. t is an out-parameter, not a result, because most
// bindings Next tries are disabled: returning a State by value zeroed and
// copied a few hundred bytes for each of them, a fifth of the explorer's time.
func step(cfg *Config, s *State, k ActionKind, i, j, keep int, t *State) bool {
	switch k {
	case Elect:
		return elect(cfg, s, i, t)
	case HandleLeaderAndIsr:
		return handleLeaderAndIsr(cfg, s, i, t)
	case Produce:
		return produce(cfg, s, i, t)
	case SendOffsetsForLeaderEpoch:
		return sendOffsetsForLeaderEpoch(cfg, s, i, t)
	case HandleOffsetsForLeaderEpoch:
		return handleOffsetsForLeaderEpoch(cfg, s, i, j, t)
	case HandleOffsetsForLeaderEpochResponse:
		return handleOffsetsForLeaderEpochResponse(cfg, s, i, t, keep)
	case SendFetch:
		return sendFetch(cfg, s, i, t)
	case HandleFetch:
		return handleFetch(cfg, s, i, j, t)
	case UpdateFollowerFetchState:
		return updateFollowerFetchState(cfg, s, i, j, t)
	case HandleFetchResponse:
		return handleFetchResponse(cfg, s, i, t, keep)
	case ShrinkIsr:
		return shrinkIsr(cfg, s, i, j, t)
	case ExpandIsr:
		return expandIsr(cfg, s, i, j, t)
	case HandleAlterPartition:
		return handleAlterPartition(cfg, s, i, t)
	case HandleAlterPartitionResponse:
		return handleAlterPartitionResponse(cfg, s, i, t)
	case CheckpointHW:
		return checkpointHW(cfg, s, i, t)
	case Crash:
		return crash(cfg, s, i, keep, t)
	case Restart:
		return restart(cfg, s, i, t)
	case LoseMessage:
		return loseMessage(cfg, s, i, t)
	case MissLeaderAndIsr:
		return missLeaderAndIsr(cfg, s, i, t)
	case CompleteDelayedFetch:
		return completeDelayedFetch(cfg, s, i, j, t)
	}
	return false
}

// twoParams reports whether an action kind is bound over (l, f).
func twoParams(k ActionKind) bool {
	switch k {
	case HandleOffsetsForLeaderEpoch, HandleFetch, UpdateFollowerFetchState, ShrinkIsr, ExpandIsr, CompleteDelayedFetch:
		return true
	}
	return false
}

// makeAction names the binding (i, j, keep) of kind k.
func makeAction(cfg *Config, k ActionKind, i, j, keep int) Action {
	a := Action{Kind: k}
	switch k {
	case Elect, HandleLeaderAndIsr, CheckpointHW, Restart, MissLeaderAndIsr:
		a.R = cfg.Replicas[i]
	case Crash:
		a.R, a.Keep = cfg.Replicas[i], keep
	case Produce, HandleAlterPartition, HandleAlterPartitionResponse:
		a.L = cfg.Replicas[i]
	case SendOffsetsForLeaderEpoch, HandleOffsetsForLeaderEpochResponse, SendFetch, HandleFetchResponse, LoseMessage:
		a.F = cfg.Replicas[i]
		a.Keep = keep // a restored behaviour's choice; 0 otherwise
	default:
		a.L, a.F = cfg.Replicas[i], cfg.Replicas[j]
	}
	return a
}

// Next calls yield with every enabled binding of Next's disjuncts and its
// successor, in Next's order: disjuncts top to bottom, replicas in
// Config.Replicas order, \E l, f with l outermost, Crash's k over Offsets.
// A binding whose successor equals s is still yielded (TLC counts it as
// generated). yield returns false to stop. An evaluation failure is returned
// as an *EvalError.
func Next(cfg *Config, s State, yield func(Action, State) bool) error {
	return NextPtr(cfg, &s, func(a Action, t *State) bool { return yield(a, *t) })
}

// NextPtr is Next for hot loops: it passes states by pointer (a State is a
// few hundred bytes). yield must not keep t past its return, nor modify it.
func NextPtr(cfg *Config, s *State, yield func(Action, *State) bool) (err error) {
	var cur Action
	var ci, cj, ck int
	var kind ActionKind
	defer func() {
		if p := recover(); p != nil {
			cur = makeAction(cfg, kind, ci, cj, ck)
			err = &EvalError{Action: cur, Cause: p}
		}
	}()
	n := cfg.N()
	// One successor variable for the whole call: &t escapes into yield, and
	// a State per successor on the heap would dominate the explorer's cost.
	var t State
	for kind = Elect; kind < numKinds; kind++ {
		switch {
		case twoParams(kind):
			for ci = range n {
				for cj = range n {
					if step(cfg, s, kind, ci, cj, 0, &t) {
						if !yield(makeAction(cfg, kind, ci, cj, 0), &t) {
							return nil
						}
					}
				}
			}
		case kind == Crash:
			for ci = range n {
				for ck = 0; ck <= cfg.MaxRecords; ck++ {
					if step(cfg, s, kind, ci, 0, ck, &t) {
						if !yield(makeAction(cfg, kind, ci, 0, ck), &t) {
							return nil
						}
					}
				}
				ck = 0
			}
		case restoreChoices(cfg, kind) > 0:
			// a restored behaviour's choice (model/restore.go), as Crash's k
			for ci = range n {
				for ck = range restoreChoices(cfg, kind) {
					if step(cfg, s, kind, ci, 0, ck, &t) {
						if !yield(makeAction(cfg, kind, ci, 0, ck), &t) {
							return nil
						}
					}
				}
				ck = 0
			}
		default:
			for ci = range n {
				if step(cfg, s, kind, ci, 0, 0, &t) {
					if !yield(makeAction(cfg, kind, ci, 0, 0), &t) {
						return nil
					}
				}
			}
		}
		ci, cj = 0, 0
	}
	if cfg.Restore == RestoreDelayedFetchHW { // the patched spec's last disjunct
		kind = CompleteDelayedFetch
		for ci = range n {
			for cj = range n {
				if step(cfg, s, kind, ci, cj, 0, &t) {
					if !yield(makeAction(cfg, kind, ci, cj, 0), &t) {
						return nil
					}
				}
			}
		}
	}
	return nil
}

// Enabled lists the actions enabled in s, in Next's order.
func Enabled(cfg *Config, s State) []Action {
	var out []Action
	// An evaluation error leaves the list short; Apply reports it.
	_ = Next(cfg, s, func(a Action, _ State) bool {
		out = append(out, a)
		return true
	})
	return out
}

// Apply returns a's successor of s, or an error when a is not an action of
// Next or is not enabled in s. It never panics.
func Apply(cfg *Config, s State, a Action) (t State, err error) {
	i, j, keep, err := bind(cfg, a)
	if err != nil {
		return State{}, err
	}
	defer func() {
		if p := recover(); p != nil {
			t, err = State{}, &EvalError{Action: a, Cause: p}
		}
	}()
	if err := s.checkShape(cfg); err != nil {
		return State{}, err
	}
	if !step(cfg, &s, a.Kind, i, j, keep, &t) {
		return State{}, fmt.Errorf("%s is not enabled", a)
	}
	return t, nil
}

// bind checks a's parameters against its kind and the configuration and
// returns them as indices.
func bind(cfg *Config, a Action) (i, j, keep int, err error) {
	idx := func(name string, r Replica) (int, error) {
		x := cfg.Index(r)
		if x < 0 {
			return 0, fmt.Errorf("%s: parameter %s = %q is not in Replicas %v", a.Kind, name, r, cfg.Replicas)
		}
		return x, nil
	}
	switch a.Kind {
	case Elect, HandleLeaderAndIsr, CheckpointHW, Restart, MissLeaderAndIsr:
		i, err = idx("r", a.R)
	case Crash:
		i, err = idx("r", a.R)
		if err == nil && (a.Keep < 0 || a.Keep > cfg.MaxRecords) {
			err = fmt.Errorf("action Crash: parameter keep = %d is not in Offsets 0..%d", a.Keep, cfg.MaxRecords)
		}
		keep = a.Keep
	case Produce, HandleAlterPartition, HandleAlterPartitionResponse:
		i, err = idx("l", a.L)
	case SendOffsetsForLeaderEpoch, HandleOffsetsForLeaderEpochResponse, SendFetch, HandleFetchResponse, LoseMessage:
		i, err = idx("f", a.F)
		if err == nil && a.Keep != 0 && (a.Keep < 0 || a.Keep >= restoreChoices(cfg, a.Kind)) {
			err = fmt.Errorf("action %s: choice %d: the configuration restores no behaviour with it", a.Kind, a.Keep)
		}
		keep = a.Keep
	case HandleOffsetsForLeaderEpoch, HandleFetch, UpdateFollowerFetchState, ShrinkIsr, ExpandIsr:
		if i, err = idx("l", a.L); err == nil {
			j, err = idx("f", a.F)
		}
	case CompleteDelayedFetch:
		if cfg.Restore != RestoreDelayedFetchHW {
			err = fmt.Errorf("action %s: only a configuration that restores %s has it", a.Kind, RestoreDelayedFetchHW)
		} else if i, err = idx("l", a.L); err == nil {
			j, err = idx("f", a.F)
		}
	default:
		err = fmt.Errorf("unknown action kind %d", a.Kind)
	}
	return i, j, keep, err
}

// checkShape rejects a state whose per-replica fields do not match cfg, so
// that Apply on a foreign state is an error rather than an index panic.
func (s *State) checkShape(cfg *Config) error {
	n := cfg.N()
	lens := []int{len(s.Log), len(s.EpochCache), len(s.HwCheckpoint), len(s.Role), len(s.LeaderEpoch),
		len(s.Leader), len(s.Hw), len(s.Isr), len(s.FollowerLeo), len(s.FollowerBrokerEpoch), len(s.FetchState),
		len(s.ProduceEpoch), len(s.PartitionEpoch), len(s.PendingIsr), len(s.BrokerEpoch),
		len(s.ControllerQueue), len(s.Inflight), len(s.AlterPartition)}
	for k, l := range lens {
		if l != n {
			return fmt.Errorf("state has %d entries in a per-replica field (#%d), configuration has %d replicas", l, k, n)
		}
	}
	for _, v := range s.FollowerLeo {
		if len(v) != n {
			return fmt.Errorf("state has a followerLeo view of %d entries, configuration has %d replicas", len(v), n)
		}
	}
	return nil
}
