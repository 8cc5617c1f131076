package packed

// Eligible Leader Replicas (KIP-966), the controller's side (model/elr.go):
// ElrAfter and the electability operators Elect is built from.

// elrAfter mirrors ElrAfter(oldIsr, newIsr, elr) (model.ElrAfter): below
// the effective min.insync.replicas the replicas leaving the ISR join the
// ELR, which keeps its members but those now in the ISR; at or above it,
// and without ELR, the ELR is empty.
func (s *Succ) elrAfter(oldIsr, newIsr, elr Set) Set {
	if !s.elr || newIsr.size() >= s.effMinIsr {
		return 0
	}
	return (elr | oldIsr) &^ newIsr
}

// elrElectable mirrors ElrElectable(r): with ELR and an empty ISR, a member
// of the ELR.
func (s *Succ) elrElectable(p *State, r int) bool {
	return s.elr && p.CtrlIsr == 0 && p.CtrlElr.Has(r)
}

// electable is {r \in Replicas : Electable(r)}: the ISR; with ELR and the
// ISR empty, the ELR; with the ELR empty too, the last known leader.
func (s *Succ) electable(p *State) Set {
	e := p.CtrlIsr
	if s.elr && e == 0 {
		e = p.CtrlElr
		if e == 0 && p.CtrlLastKnownElr.size() == 1 {
			e = p.CtrlLastKnownElr
		}
	}
	return e
}

// uncleanElectable mirrors UncleanElectable(r):
// unclean.leader.election.enable and no live replica is electable
// otherwise.
func (s *Succ) uncleanElectable(p *State) bool {
	return s.unclean && s.electable(p)&s.live(p) == 0
}
