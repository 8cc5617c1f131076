package model

// Eligible Leader Replicas (KIP-966), the controller's side: the spec's
// EffMinIsr, ElrAfter and the electability operators Elect is built from.

// EffMinIsr mirrors EffMinIsr == Min(MinInsyncReplicas, Cardinality(Replicas))
// (ReplicationControlManager.getTopicEffectiveMinIsr).
func EffMinIsr(cfg *Config) int { return min(cfg.MinInsyncReplicas, cfg.N()) }

// ElrAfter mirrors ElrAfter(oldIsr, newIsr, elr)
// (PartitionChangeBuilder.maybePopulateTargetElr): below the effective
// min.insync.replicas the replicas leaving the ISR join the ELR, which keeps
// its members but those now in the ISR; at or above it, and without ELR, the
// ELR is empty (nil).
func ElrAfter(cfg *Config, oldIsr, newIsr, elr []Replica) []Replica {
	if !cfg.Rel().Elr || len(newIsr) >= EffMinIsr(cfg) {
		return nil
	}
	var out []Replica
	for _, x := range UnionReplicas(elr, oldIsr) {
		if !Contains(newIsr, x) {
			out = append(out, x)
		}
	}
	return out
}

// ElrElectable mirrors ElrElectable(r): with ELR and an empty ISR, a member
// of the ELR (PartitionChangeBuilder.isValidNewLeader).
func ElrElectable(cfg *Config, s *State, name Replica) bool {
	return cfg.Rel().Elr && len(s.CtrlIsr) == 0 && Contains(s.CtrlElr, name)
}

// LastKnownElectable mirrors LastKnownElectable(r): with ELR, the ISR and
// the ELR empty, the last known leader (canElectLastKnownLeader).
func LastKnownElectable(cfg *Config, s *State, name Replica) bool {
	return cfg.Rel().Elr && len(s.CtrlIsr) == 0 && len(s.CtrlElr) == 0 &&
		len(s.CtrlLastKnownElr) == 1 && s.CtrlLastKnownElr[0] == name
}

// Electable mirrors Electable(r): r is in the ISR, or electable from the ELR
// or as the last known leader.
func Electable(cfg *Config, s *State, name Replica) bool {
	return Contains(s.CtrlIsr, name) || ElrElectable(cfg, s, name) || LastKnownElectable(cfg, s, name)
}

// UncleanElectable mirrors UncleanElectable(r): unclean.leader.election.enable
// and no live replica is electable otherwise.
func UncleanElectable(cfg *Config, s *State) bool {
	if !cfg.UncleanLeaderElectionEnable {
		return false
	}
	for x, name := range cfg.Replicas {
		if s.Up(x) && Electable(cfg, s, name) {
			return false
		}
	}
	return true
}
