package model

import (
	"fmt"
	"slices"
	"sort"
)

// This file mirrors spec/ReplicationLiveness.tla: the fairness Kafka
// provides (Fairness), the faults that stop (Fault) and the liveness
// properties. The explorer (model/explore's liveness check) decides them on
// the explored graph; the deterministic simulation evaluates their state
// predicates on the model state a run has reached after its faults heal.

// FairClass numbers one weak-fairness conjunct of Fairness, for a
// configuration: WF_vars(A) for one action A and one binding of its
// replicas. FairClasses lists them; FairClassOf says which one a step is.
type FairClass struct {
	Kind ActionKind // the action; Elect stands for ElectLeaderless, ShrinkIsr for ShrinkDead
	L, F int        // replica indices the conjunct binds (-1: none)
}

func (c FairClass) String(cfg *Config) string {
	name := func(i int) Replica { return cfg.Replicas[i] }
	switch c.Kind {
	case Elect:
		return "ElectLeaderless"
	case ShrinkIsr:
		return fmt.Sprintf("ShrinkDead(%s,%s)", name(c.L), name(c.F))
	}
	if c.F >= 0 && c.L >= 0 {
		return fmt.Sprintf("%s(%s,%s)", c.Kind, name(c.L), name(c.F))
	}
	if c.L >= 0 {
		return fmt.Sprintf("%s(%s)", c.Kind, name(c.L))
	}
	return fmt.Sprintf("%s(%s)", c.Kind, name(c.F))
}

// The fair actions of Fairness, by how they bind replicas.
var (
	fairPerReplica = []ActionKind{HandleLeaderAndIsr, SendOffsetsForLeaderEpoch, HandleOffsetsForLeaderEpochResponse,
		SendFetch, HandleFetchResponse, HandleAlterPartition, HandleAlterPartitionResponse}
	fairPerPair = []ActionKind{HandleOffsetsForLeaderEpoch, HandleFetch, UpdateFollowerFetchState, ExpandIsr, ShrinkIsr}
)

// FairClasses lists Fairness's conjuncts for cfg, in a fixed order: the
// per-replica ones, the per-pair ones, ElectLeaderless last.
func FairClasses(cfg *Config) []FairClass {
	n := cfg.N()
	var cs []FairClass
	for _, k := range fairPerReplica {
		for i := range n {
			c := FairClass{Kind: k, L: -1, F: i}
			if k == HandleLeaderAndIsr || k == HandleAlterPartition || k == HandleAlterPartitionResponse {
				c = FairClass{Kind: k, L: i, F: -1}
			}
			cs = append(cs, c)
		}
	}
	for _, k := range fairPerPair {
		for l := range n {
			for f := range n {
				cs = append(cs, FairClass{Kind: k, L: l, F: f})
			}
		}
	}
	return append(cs, FairClass{Kind: Elect, L: -1, F: -1})
}

// FairClassOf is the index in FairClasses(cfg) of the conjunct whose action
// the step a from s is, or -1 when the step is of no fair action. Two
// conjuncts depend on the state: Elect is ElectLeaderless only from a state
// without a leader, ShrinkIsr(l, f) is ShrinkDead(l, f) only of a dead f.
func FairClassOf(cfg *Config, s *State, a Action) int {
	n := cfg.N()
	perReplica := func(k ActionKind, r Replica) int {
		i := slices.Index(fairPerReplica, k)
		return i*n + cfg.Index(r)
	}
	pair := func(k ActionKind) int {
		i := slices.Index(fairPerPair, k)
		return len(fairPerReplica)*n + i*n*n + cfg.Index(a.L)*n + cfg.Index(a.F)
	}
	switch a.Kind {
	case HandleLeaderAndIsr:
		return perReplica(a.Kind, a.R)
	case HandleAlterPartition, HandleAlterPartitionResponse:
		return perReplica(a.Kind, a.L)
	case SendOffsetsForLeaderEpoch, HandleOffsetsForLeaderEpochResponse, SendFetch, HandleFetchResponse:
		return perReplica(a.Kind, a.F)
	case HandleOffsetsForLeaderEpoch, HandleFetch, UpdateFollowerFetchState, ExpandIsr:
		return pair(a.Kind)
	case ShrinkIsr:
		if !s.Up(cfg.Index(a.F)) {
			return pair(a.Kind)
		}
	case Elect:
		if s.CtrlLeader == None {
			return len(fairPerReplica)*n + len(fairPerPair)*n*n
		}
	}
	return -1
}

// IsFault mirrors Fault: the steps FaultsStop says end.
func IsFault(a Action) bool {
	switch a.Kind {
	case Crash, Restart, MissLeaderAndIsr, LoseMessage, ShrinkIsr:
		return true
	}
	return false
}

// LiveKind is the shape of a liveness property.
type LiveKind int

const (
	// LeadsTo: FaultsStop => \A i : P(i) ~> Q(i), over the property's
	// instances i (its bound variables).
	LeadsTo LiveKind = iota
	// EventuallyAlways: FaultsStop => <>[]P.
	EventuallyAlways
)

// LiveProperty mirrors one property of ReplicationLiveness.tla.
type LiveProperty struct {
	Name string
	Kind LiveKind
	// Instances is the number of bindings of the property's bound variables
	// (1 when it has none); InstanceName shows one.
	Instances    func(cfg *Config) int
	InstanceName func(cfg *Config, i int) string
	// P and Q: for LeadsTo, the two sides of ~> for instance i; for
	// EventuallyAlways, P is the predicate that must hold for good (Q unused).
	P, Q func(cfg *Config, s *State, i int) bool
}

// LeadsEpoch mirrors LeadsEpoch(f, e): f's leader leads f's epoch e.
func LeadsEpoch(cfg *Config, s *State, f, e int) bool {
	l := cfg.Index(s.Leader[f])
	return l >= 0 && s.Role[l] == Leader && s.LeaderEpoch[l] == e
}

// HWGated mirrors HWGated(l).
func HWGated(cfg *Config, s *State, l int) bool {
	return cfg.MinIsrGatesHW && len(s.Isr[l]) < cfg.MinInsyncReplicas
}

// FollowsIn mirrors FollowsIn(r, l): r follows leader l in l's epoch.
func FollowsIn(s *State, r, l int) bool {
	return s.Role[r] == Follower && s.Leader[r] == s.Leader[l] && s.LeaderEpoch[r] == s.LeaderEpoch[l]
}

// Replicated mirrors Replicated.
func Replicated(cfg *Config, s *State) bool {
	l := cfg.Index(s.CtrlLeader)
	if l < 0 || s.Role[l] != Leader || s.LeaderEpoch[l] != s.CtrlEpoch {
		return true
	}
	if s.Hw[l] != s.LEO(l) && !HWGated(cfg, s, l) {
		return false
	}
	for i := range cfg.Replicas {
		inIsr := s.Up(i) && slices.Contains(s.Isr[l], cfg.Replicas[i])
		if !inIsr && !FollowsIn(s, i, l) {
			continue
		}
		for _, c := range s.Committed {
			if !HasRecord(s, i, c) {
				return false
			}
		}
	}
	return true
}

// Waiting mirrors Waiting(l, o): the acks=all record at offset o of leader
// l waits in a DelayedProduce.
func Waiting(cfg *Config, s *State, l, o int) bool {
	return cfg.Acks == "all" && s.Role[l] == Leader && s.Hw[l] <= o && o < s.LEO(l) &&
		s.Log[l][o].Epoch >= s.ProduceEpoch[l]
}

// Eligible mirrors Eligible.
func Eligible(cfg *Config, s *State) bool {
	if s.CtrlLeader != None || s.CtrlEpoch >= cfg.MaxEpoch {
		return false
	}
	anyIsrUp := false
	for _, x := range s.CtrlIsr {
		anyIsrUp = anyIsrUp || s.Up(cfg.Index(x))
	}
	for r := range cfg.Replicas {
		if s.Up(r) && (slices.Contains(s.CtrlIsr, cfg.Replicas[r]) || cfg.UncleanLeaderElectionEnable && !anyIsrUp) {
			return true
		}
	}
	return false
}

func one(*Config) int                       { return 1 }
func noName(*Config, int) string            { return "" }
func replicaName(cfg *Config, i int) string { return string(cfg.Replicas[i]) }
func replicas(cfg *Config) int              { return cfg.N() }

// LiveProperties are the spec's liveness properties, by name.
var LiveProperties = map[string]*LiveProperty{
	"TruncationEnds": {
		Name: "TruncationEnds", Kind: LeadsTo,
		// instance i = f*(MaxEpoch+1) + e
		Instances: func(cfg *Config) int { return cfg.N() * (cfg.MaxEpoch + 1) },
		InstanceName: func(cfg *Config, i int) string {
			return fmt.Sprintf("f=%s, e=%d", cfg.Replicas[i/(cfg.MaxEpoch+1)], i%(cfg.MaxEpoch+1))
		},
		P: func(cfg *Config, s *State, i int) bool {
			f, e := i/(cfg.MaxEpoch+1), i%(cfg.MaxEpoch+1)
			return s.Role[f] == Follower && s.FetchState[f] == Truncating && s.LeaderEpoch[f] == e && LeadsEpoch(cfg, s, f, e)
		},
		Q: func(cfg *Config, s *State, i int) bool {
			f, e := i/(cfg.MaxEpoch+1), i%(cfg.MaxEpoch+1)
			return s.Role[f] != Follower || s.FetchState[f] != Truncating || s.LeaderEpoch[f] != e || !LeadsEpoch(cfg, s, f, e)
		},
	},
	"ReplicasCatchUp": {
		Name: "ReplicasCatchUp", Kind: EventuallyAlways, Instances: one, InstanceName: noName,
		P: func(cfg *Config, s *State, _ int) bool { return Replicated(cfg, s) },
	},
	"ProduceCompletes": {
		Name: "ProduceCompletes", Kind: LeadsTo,
		// instance i = l*(MaxRecords+1) + o
		Instances: func(cfg *Config) int { return cfg.N() * (cfg.MaxRecords + 1) },
		InstanceName: func(cfg *Config, i int) string {
			return fmt.Sprintf("l=%s, o=%d", cfg.Replicas[i/(cfg.MaxRecords+1)], i%(cfg.MaxRecords+1))
		},
		P: func(cfg *Config, s *State, i int) bool {
			return Waiting(cfg, s, i/(cfg.MaxRecords+1), i%(cfg.MaxRecords+1))
		},
		Q: func(cfg *Config, s *State, i int) bool {
			l, o := i/(cfg.MaxRecords+1), i%(cfg.MaxRecords+1)
			return !Waiting(cfg, s, l, o) || HWGated(cfg, s, l)
		},
	},
	"AlterPartitionResolves": {
		Name: "AlterPartitionResolves", Kind: LeadsTo, Instances: replicas,
		InstanceName: func(cfg *Config, i int) string { return "l=" + replicaName(cfg, i) },
		P:            func(cfg *Config, s *State, l int) bool { return s.Role[l] == Leader && len(s.PendingIsr[l]) > 0 },
		Q:            func(cfg *Config, s *State, l int) bool { return s.Role[l] != Leader || len(s.PendingIsr[l]) == 0 },
	},
	"LeaderElected": {
		Name: "LeaderElected", Kind: LeadsTo, Instances: one, InstanceName: noName,
		P: func(cfg *Config, s *State, _ int) bool { return Eligible(cfg, s) },
		Q: func(cfg *Config, s *State, _ int) bool { return s.CtrlLeader != None || !Eligible(cfg, s) },
	},
}

// LivePropertyNames lists LiveProperties' names, sorted.
func LivePropertyNames() []string {
	names := make([]string, 0, len(LiveProperties))
	for n := range LiveProperties {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// CheckLiveNames reports the first name that is no liveness property.
func CheckLiveNames(names []string) error {
	for _, n := range names {
		if _, ok := LiveProperties[n]; !ok {
			return fmt.Errorf("unknown liveness property %q (known: %v)", n, LivePropertyNames())
		}
	}
	return nil
}
