package sim

import (
	"slices"
	"testing"

	"github.com/hwepoch/hwepoch/model"
)

// The validator counts exactly the spec's unclean elections: an election
// from the ISR or from the ELR (KIP-966, the ISR empty) is clean, the last
// known leader's and any other election from outside the ISR unclean. The
// old rule (outside the ISR is unclean) counted the ELR election too.
func TestValidatorCountsTheSpecsUncleanElections(t *testing.T) {
	cfg := &model.Config{Replicas: []model.Replica{"r1", "r2"}, Truncation: model.EligibleLeader, Fencing: true,
		Acks: "all", MinInsyncReplicas: 2, MinIsrGatesHW: true, UncleanLeaderElectionEnable: true,
		MaxRecords: 0, MaxEpoch: 3, MaxCrashes: 2, MaxPartitionEpoch: 6}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		is      func(s *model.State, r model.Replica) bool
		unclean bool
	}{
		{"from the ISR", func(s *model.State, r model.Replica) bool {
			return s.CtrlEpoch >= 0 && slices.Contains(s.CtrlIsr, r)
		}, false},
		{"from the ELR", func(s *model.State, r model.Replica) bool { return model.ElrElectable(cfg, s, r) }, false},
		{"the last known leader", func(s *model.State, r model.Replica) bool { return model.LastKnownElectable(cfg, s, r) }, true},
		{"unclean.leader.election.enable", func(s *model.State, r model.Replica) bool {
			return !model.Electable(cfg, s, r) && model.UncleanElectable(cfg, s)
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, a, path, ok := findElection(t, cfg, tc.is)
			if !ok {
				t.Fatalf("no such election reachable")
			}
			v := NewValidator(cfg)
			v.s = s
			v.countElection(a)
			if got := v.Unclean == 1; got != tc.unclean {
				t.Errorf("%s after %v (isr %v, elr %v, last known %v): counted unclean %t, want %t",
					a, path, s.CtrlIsr, s.CtrlElr, s.CtrlLastKnownElr, got, tc.unclean)
			}
		})
	}
}

// findElection searches breadth-first for a state in which an Elect(r)
// with is(s, r) is enabled, and returns the state, the action and the
// path to it.
func findElection(t *testing.T, cfg *model.Config, is func(*model.State, model.Replica) bool) (model.State, model.Action, []model.Action, bool) {
	t.Helper()
	type node struct {
		s    model.State
		path []model.Action
	}
	init := model.Init(cfg)
	seen := map[string]bool{string(model.Encode(init)): true}
	queue := []node{{s: init}}
	for len(queue) > 0 && len(seen) < 200000 {
		n := queue[0]
		queue = queue[1:]
		var found *model.Action
		err := model.Next(cfg, n.s, func(a model.Action, next model.State) bool {
			if a.Kind == model.Elect && is(&n.s, a.R) {
				found = &a
				return false
			}
			if k := string(model.Encode(next)); !seen[k] {
				seen[k] = true
				queue = append(queue, node{next, append(slices.Clone(n.path), a)})
			}
			return true
		})
		if err != nil {
			t.Fatal(err)
		}
		if found != nil {
			return n.s, *found, n.path, true
		}
	}
	return model.State{}, model.Action{}, nil, false
}
