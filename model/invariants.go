package model

import (
	"fmt"
	"slices"
	"sort"
)

// Each invariant mirrors the spec operator of the same name. Invariants that
// index logs the spec would index out of range panic, as TLC would stop with
// an evaluation error; the explorer reports it as one.

// TypeOK mirrors TypeOK.
func TypeOK(cfg *Config, s State) bool {
	inR := func(x, lo, hi int) bool { return lo <= x && x <= hi }
	isReplica := func(r Replica) bool { return cfg.Index(r) >= 0 }
	subset := func(set []Replica) bool {
		for _, r := range set {
			if !isReplica(r) {
				return false
			}
		}
		return true
	}
	for r := range cfg.Replicas {
		for _, x := range s.Log[r] {
			if !inR(x.ID, 1, cfg.MaxRecords) || !inR(x.Epoch, 0, cfg.MaxEpoch) {
				return false
			}
		}
		for _, x := range s.EpochCache[r] {
			if !inR(x.Epoch, 0, cfg.MaxEpoch) || !inR(x.Start, 0, cfg.MaxRecords) {
				return false
			}
		}
		if !inR(s.HwCheckpoint[r], 0, cfg.MaxRecords) || s.Role[r] > Follower ||
			!inR(s.LeaderEpoch[r], -1, cfg.MaxEpoch) ||
			(s.Leader[r] != None && !isReplica(s.Leader[r])) ||
			!inR(s.Hw[r], 0, cfg.MaxRecords) || !subset(s.Isr[r]) || s.FetchState[r] > Fetching ||
			!inR(s.ProduceEpoch[r], -1, cfg.MaxEpoch) || s.PartitionEpoch[r] < -1 || !subset(s.PendingIsr[r]) {
			return false
		}
		for _, v := range s.FollowerLeo[r] {
			if !inR(v, -1, cfg.MaxRecords) {
				return false
			}
		}
		for _, v := range s.FollowerBrokerEpoch[r] {
			if !inR(v, -1, cfg.MaxCrashes) {
				return false
			}
		}
		if !inR(s.BrokerEpoch[r], 0, cfg.MaxCrashes) {
			return false
		}
		for _, m := range s.ControllerQueue[r] {
			if m.Type != MsgLeaderAndIsr || !isReplica(m.Leader) || !inR(m.Epoch, 0, cfg.MaxEpoch) || !subset(m.Isr) {
				return false
			}
		}
		m := s.Inflight[r]
		switch m.Type {
		case MsgNone, MsgLeaderAndIsr:
			if m.Type == MsgLeaderAndIsr {
				return false
			}
		case MsgFetch, MsgOffsetsForLeaderEpoch:
			if m.Src != cfg.Replicas[r] || !isReplica(m.Dst) {
				return false
			}
		case MsgFetchRead:
			if m.Dst != cfg.Replicas[r] || !isReplica(m.Src) {
				return false
			}
		case MsgFetchResponse, MsgOffsetsForLeaderEpochResponse:
			if m.Dst != cfg.Replicas[r] || !isReplica(m.Src) || m.Error > ErrOffsetOutOfRange {
				return false
			}
		default:
			return false
		}
		switch a := s.AlterPartition[r]; a.Type {
		case MsgNone, MsgAlterPartition:
		case MsgAlterPartitionResponse:
			switch a.Error {
			case ErrNone, ErrFencedLeaderEpoch, ErrInvalidUpdateVersion, ErrIneligibleReplica:
			default:
				return false
			}
		default:
			return false
		}
	}
	if (s.CtrlLeader != None && !isReplica(s.CtrlLeader)) || !inR(s.CtrlEpoch, -1, cfg.MaxEpoch) ||
		!subset(s.CtrlIsr) || s.CtrlPartitionEpoch < -1 || !subset(s.CtrlElr) || !subset(s.CtrlLastKnownElr) ||
		len(s.CtrlLastKnownElr) > 1 || !inR(s.NextId, 1, cfg.MaxRecords+1) || !inR(s.Crashes, 0, cfg.MaxCrashes) {
		return false
	}
	for _, set := range [][]OffsetID{s.Acked, s.Committed} {
		for _, x := range set {
			if !inR(x.Offset, 0, cfg.MaxRecords) || !inR(x.ID, 1, cfg.MaxRecords) {
				return false
			}
		}
	}
	return true
}

// HWBelowLEO mirrors HWBelowLEO: HW <= LEO on every live replica.
func HWBelowLEO(cfg *Config, s State) bool {
	for r := range cfg.Replicas {
		if s.Up(r) && s.Hw[r] > s.LEO(r) {
			return false
		}
	}
	return true
}

// LeaderInIsr mirrors LeaderInIsr.
func LeaderInIsr(cfg *Config, s State) bool {
	if s.CtrlLeader != None && !Contains(s.CtrlIsr, s.CtrlLeader) {
		return false
	}
	for r, name := range cfg.Replicas {
		if s.Role[r] == Leader && !Contains(s.Isr[r], name) {
			return false
		}
	}
	return true
}

// EpochCacheWellFormed mirrors EpochCacheWellFormed.
func EpochCacheWellFormed(cfg *Config, s State) bool {
	for r := range cfg.Replicas {
		c := s.EpochCache[r]
		for i := 0; i+1 < len(c); i++ {
			if c[i].Epoch >= c[i+1].Epoch || c[i].Start >= c[i+1].Start {
				return false
			}
		}
		if s.Up(r) {
			for _, x := range c {
				if x.Start > s.LEO(r) {
					return false
				}
			}
		}
	}
	return true
}

// EpochCacheMatchesLog mirrors EpochCacheMatchesLog: the entry covering
// offset o (the greatest index with start <= o) names the epoch of the record at o.
func EpochCacheMatchesLog(cfg *Config, s State) bool {
	if cfg.Rel().CacheAssign == "None" {
		return true // a release without a cache has nothing to check
	}
	for r := range cfg.Replicas {
		if !s.Up(r) {
			continue
		}
		c := s.EpochCache[r]
		for o := 0; o < s.LEO(r); o++ {
			cover := -1
			for i, x := range c {
				if x.Start <= o {
					cover = i
				}
			}
			if cover == -1 || c[cover].Epoch != s.Log[r][o].Epoch {
				return false
			}
		}
	}
	return true
}

// RecordIdentity mirrors RecordIdentity: (offset, epoch) names a record.
func RecordIdentity(cfg *Config, s State) bool {
	for r := range cfg.Replicas {
		for q := range cfg.Replicas {
			for o := 0; o < min(s.LEO(r), s.LEO(q)); o++ {
				a, b := s.Log[r][o], s.Log[q][o]
				if a.Epoch == b.Epoch && a != b {
					return false
				}
			}
		}
	}
	return true
}

// prefixesAgree is \A o \in 0..(Min(hw[r], hw[q]) - 1) : log[r][o + 1] = log[q][o + 1]
// (under RestoreHWAboveLEO below min(HW, LEO): model/restore.go).
func prefixesAgree(cfg *Config, s *State, r, q int) bool {
	restored := cfg.Restore == RestoreHWAboveLEO
	for o := 0; o < min(visibleHW(s, r, restored), visibleHW(s, q, restored)); o++ {
		if s.Log[r][o] != s.Log[q][o] {
			return false
		}
	}
	return true
}

// CommittedPrefixesAgree mirrors CommittedPrefixesAgree.
func CommittedPrefixesAgree(cfg *Config, s State) bool {
	for r := range cfg.Replicas {
		for q := range cfg.Replicas {
			if s.Up(r) && s.Up(q) && !prefixesAgree(cfg, &s, r, q) {
				return false
			}
		}
	}
	return true
}

// Reconciled mirrors Reconciled(r): a leader, or a follower done truncating.
func Reconciled(s *State, r int) bool {
	return s.Role[r] == Leader || (s.Role[r] == Follower && s.FetchState[r] == Fetching)
}

// NoDivergence mirrors NoDivergence.
func NoDivergence(cfg *Config, s State) bool {
	for r := range cfg.Replicas {
		for q := range cfg.Replicas {
			if Reconciled(&s, r) && Reconciled(&s, q) && s.LeaderEpoch[r] == s.LeaderEpoch[q] &&
				!prefixesAgree(cfg, &s, r, q) {
				return false
			}
		}
	}
	return true
}

// HasRecord mirrors HasRecord(r, x).
func HasRecord(s *State, r int, x OffsetID) bool {
	return s.LEO(r) > x.Offset && s.Log[r][x.Offset].ID == x.ID
}

func leaderHasAll(cfg *Config, s *State, set []OffsetID) bool {
	if s.CtrlLeader == None {
		return true
	}
	l := cfg.Index(s.CtrlLeader)
	for _, x := range set {
		if !HasRecord(s, l, x) {
			return false
		}
	}
	return true
}

// NoAckedLoss mirrors NoAckedLoss.
func NoAckedLoss(cfg *Config, s State) bool { return leaderHasAll(cfg, &s, s.Acked) }

// NoVisibleLoss mirrors NoVisibleLoss.
func NoVisibleLoss(cfg *Config, s State) bool { return leaderHasAll(cfg, &s, s.Committed) }

// StrongIsr mirrors StrongIsr: every committed record is in the log of
// every member of the controller's ISR.
func StrongIsr(cfg *Config, s State) bool {
	for _, c := range s.Committed {
		for _, r := range s.CtrlIsr {
			if !HasRecord(&s, cfg.Index(r), c) {
				return false
			}
		}
	}
	return true
}

// ElrWellFormed mirrors ElrWellFormed (Vanlightly's ValidControllerIsrAndElr,
// and the last known leader): the ELR is outside the ISR and empty while the
// ISR is at or above min.insync.replicas; the last known leader is recorded
// exactly while the ISR is empty; without ELR both stay empty.
func ElrWellFormed(cfg *Config, s State) bool {
	for _, r := range s.CtrlElr {
		if Contains(s.CtrlIsr, r) {
			return false
		}
	}
	if len(s.CtrlIsr) >= EffMinIsr(cfg) && len(s.CtrlElr) > 0 {
		return false
	}
	if (len(s.CtrlLastKnownElr) > 0) != (len(s.CtrlIsr) == 0) {
		return false
	}
	return cfg.Rel().Elr || (len(s.CtrlElr) == 0 && len(s.CtrlLastKnownElr) == 0)
}

// ElrComplete mirrors ElrComplete: every live ELR member holds every
// committed record.
func ElrComplete(cfg *Config, s State) bool {
	for _, c := range s.Committed {
		for _, r := range s.CtrlElr {
			if i := cfg.Index(r); s.Up(i) && !HasRecord(&s, i, c) {
				return false
			}
		}
	}
	return true
}

// ElrInMaximalIsr mirrors ElrInMaximalIsr (Vanlightly's
// ReplicationQuorumSupersetProperty): the controller's current leader, while
// its ISR is at or above min.insync.replicas, has every ISR and ELR member
// in its maximal ISR.
func ElrInMaximalIsr(cfg *Config, s State) bool {
	for l := range cfg.Replicas {
		if s.Role[l] != Leader || s.LeaderEpoch[l] != s.CtrlEpoch || len(s.Isr[l]) < EffMinIsr(cfg) {
			continue
		}
		m := MaximalIsr(&s, l)
		for _, set := range [][]Replica{s.CtrlIsr, s.CtrlElr} {
			for _, r := range set {
				if !Contains(m, r) {
					return false
				}
			}
		}
	}
	return true
}

// NoCommittedLossAnywhere mirrors NoCommittedLossAnywhere: every committed
// record is still in some replica's log, at its offset.
func NoCommittedLossAnywhere(cfg *Config, s State) bool {
	for _, c := range s.Committed {
		found := false
		for r := range cfg.Replicas {
			if HasRecord(&s, r, c) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// NeverCommittedSurvivesLeaderChange mirrors NeverCommittedSurvivesLeaderChange.
func NeverCommittedSurvivesLeaderChange(cfg *Config, s State) bool {
	for r := range cfg.Replicas {
		if s.Role[r] != Leader {
			continue
		}
		for _, c := range s.Committed {
			if HasRecord(&s, r, c) && s.Log[r][c.Offset].Epoch < s.ProduceEpoch[r] {
				return false
			}
		}
	}
	return true
}

// NeverTwoRecordsAtOneOffset mirrors NeverTwoRecordsAtOneOffset.
func NeverTwoRecordsAtOneOffset(cfg *Config, s State) bool {
	for r := range cfg.Replicas {
		for q := range cfg.Replicas {
			if !s.Up(r) || !s.Up(q) {
				continue
			}
			for o := 0; o < cfg.MaxRecords && o < min(s.LEO(r), s.LEO(q)); o++ {
				if s.Log[r][o] != s.Log[q][o] {
					return false
				}
			}
		}
	}
	return true
}

// NeverStalePartitionEpoch mirrors NeverStalePartitionEpoch.
func NeverStalePartitionEpoch(cfg *Config, s State) bool {
	for _, m := range s.AlterPartition {
		if m.Type == MsgAlterPartitionResponse && m.Error == ErrInvalidUpdateVersion {
			return false
		}
	}
	return true
}

// HWStaysWhilePending is the action of NeverHWAdvancesWhilePending: no
// leader's HW advances across a step in which its AlterPartition stays
// pending.
func HWStaysWhilePending(cfg *Config, s, t State) bool {
	for l := range cfg.Replicas {
		if len(s.PendingIsr[l]) > 0 && slicesEqual(t.PendingIsr[l], s.PendingIsr[l]) &&
			t.Role[l] == Leader && t.Hw[l] > s.Hw[l] {
			return false
		}
	}
	return true
}

// NoDivergingTruncation is the action of NeverDivergingTruncation: no live
// follower's log gets shorter while a divergingEpoch answer is in its slot.
func NoDivergingTruncation(cfg *Config, s, t State) bool {
	for f := range cfg.Replicas {
		m := s.Inflight[f]
		if m.Type == MsgFetchResponse && m.Diverging && t.Role[f] != Offline && len(t.Log[f]) < len(s.Log[f]) {
			return false
		}
	}
	return true
}

// NoElrElection is the action of NeverElrElection: the controller elects no
// ELR member (ElrElectable before the step).
func NoElrElection(cfg *Config, s, t State) bool {
	return !(t.CtrlEpoch > s.CtrlEpoch && t.CtrlLeader != None && ElrElectable(cfg, &s, t.CtrlLeader))
}

// NoLastKnownLeaderElection is the action of NeverLastKnownLeaderElection:
// the controller never elects the last known leader.
func NoLastKnownLeaderElection(cfg *Config, s, t State) bool {
	return !(t.CtrlEpoch > s.CtrlEpoch && t.CtrlLeader != None && LastKnownElectable(cfg, &s, t.CtrlLeader))
}

// NoCommittedTruncation mirrors the action NoCommittedTruncation: no replica
// that is a follower after the step lost a committed record it held before.
func NoCommittedTruncation(cfg *Config, s, t State) bool {
	for f := range cfg.Replicas {
		if t.Role[f] != Follower {
			continue
		}
		for _, c := range s.Committed {
			if HasRecord(&s, f, c) && !HasRecord(&t, f, c) {
				return false
			}
		}
	}
	return true
}

// NeverLeaderChange mirrors NeverLeaderChange.
func NeverLeaderChange(cfg *Config, s State) bool {
	for r := range cfg.Replicas {
		if s.Role[r] == Leader && s.LeaderEpoch[r] >= 1 {
			return false
		}
	}
	return true
}

// NeverCommitted mirrors NeverCommitted.
func NeverCommitted(cfg *Config, s State) bool { return len(s.Committed) == 0 }

// NeverAcked mirrors NeverAcked.
func NeverAcked(cfg *Config, s State) bool { return len(s.Acked) == 0 }

// NeverEpochRoundTrip mirrors NeverEpochRoundTrip.
func NeverEpochRoundTrip(cfg *Config, s State) bool {
	for r := range cfg.Replicas {
		if s.Role[r] == Follower && s.FetchState[r] == Fetching {
			return false
		}
	}
	return true
}

// NeverRecoveredFromCrash mirrors NeverRecoveredFromCrash.
func NeverRecoveredFromCrash(cfg *Config, s State) bool {
	if s.Crashes < 1 {
		return true
	}
	for r := range cfg.Replicas {
		if s.Role[r] != Leader && s.Role[r] != Follower {
			return true
		}
	}
	return false
}

// NoTruncation mirrors the action NoTruncation: no live replica's log gets shorter.
func NoTruncation(cfg *Config, s, t State) bool {
	for r := range cfg.Replicas {
		if t.Role[r] != Offline && len(t.Log[r]) < len(s.Log[r]) {
			return false
		}
	}
	return true
}

// Invariant is a state predicate of the spec.
type Invariant func(cfg *Config, s State) bool

// ActionProperty is a predicate on a step (s, s').
type ActionProperty func(cfg *Config, s, t State) bool

// Invariants maps the spec's invariant names to their Go twins.
var Invariants = map[string]Invariant{
	"TypeOK":                  TypeOK,
	"HWBelowLEO":              HWBelowLEO,
	"LeaderInIsr":             LeaderInIsr,
	"EpochCacheWellFormed":    EpochCacheWellFormed,
	"EpochCacheMatchesLog":    EpochCacheMatchesLog,
	"RecordIdentity":          RecordIdentity,
	"CommittedPrefixesAgree":  CommittedPrefixesAgree,
	"NoDivergence":            NoDivergence,
	"NoAckedLoss":             NoAckedLoss,
	"NoVisibleLoss":           NoVisibleLoss,
	"StrongIsr":               StrongIsr,
	"NoCommittedLossAnywhere": NoCommittedLossAnywhere,
	"ElrWellFormed":           ElrWellFormed,
	"ElrComplete":             ElrComplete,
	"ElrInMaximalIsr":         ElrInMaximalIsr,
	"NeverLeaderChange":       NeverLeaderChange,
	"NeverCommitted":          NeverCommitted,
	"NeverAcked":              NeverAcked,
	"NeverEpochRoundTrip":     NeverEpochRoundTrip,
	"NeverRecoveredFromCrash": NeverRecoveredFromCrash,

	"NeverCommittedSurvivesLeaderChange": NeverCommittedSurvivesLeaderChange,
	"NeverTwoRecordsAtOneOffset":         NeverTwoRecordsAtOneOffset,
	"NeverStalePartitionEpoch":           NeverStalePartitionEpoch,
}

// Properties maps the spec's temporal properties of the form [][A]_vars to
// the action A they constrain. A stuttering step satisfies [][A]_vars
// whatever A says, so checkers test A only on steps that change the state.
var Properties = map[string]ActionProperty{
	"NeverTruncates":               NoTruncation,
	"NeverHWAdvancesWhilePending":  HWStaysWhilePending,
	"NeverDivergingTruncation":     NoDivergingTruncation,
	"NeverTruncatesCommitted":      NoCommittedTruncation,
	"NeverElrElection":             NoElrElection,
	"NeverLastKnownLeaderElection": NoLastKnownLeaderElection,
}

func slicesEqual(a, b []Replica) bool { return slices.Equal(a, b) }

// InvariantNames and PropertyNames list the known names, sorted.
func InvariantNames() []string { return sortedKeys(Invariants) }

// PropertyNames lists the known action properties, sorted.
func PropertyNames() []string { return sortedKeys(Properties) }

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// CheckNames returns an error naming the first unknown invariant or property.
func CheckNames(invariants, properties []string) error {
	for _, n := range invariants {
		if _, ok := Invariants[n]; !ok {
			return fmt.Errorf("unknown invariant %q (known: %v)", n, InvariantNames())
		}
	}
	for _, n := range properties {
		if _, ok := Properties[n]; !ok {
			return fmt.Errorf("unknown property %q (known: %v)", n, PropertyNames())
		}
	}
	return nil
}
