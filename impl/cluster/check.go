package cluster

import "fmt"

// Verdict is what the end state of a run says about the two safety
// properties the campaign checks, on the focus partition.
type Verdict struct {
	Leader int32
	// LostAcked: acknowledged records the leader does not hold at their
	// offset (the spec's NoAckedLoss, violated).
	LostAcked []OffsetID
	// LostVisible: records that were once below a leader's HW and are not
	// in the leader's log at their offset (NoVisibleLoss, violated).
	LostVisible []OffsetID
	// Divergent: replicas whose log differs from the leader's below the
	// smaller of their HWs (NoDivergence / CommittedPrefixesAgree,
	// violated), with the first offset that differs.
	Divergent map[int32]int64
}

// OK reports no loss and no divergence.
func (v Verdict) OK() bool {
	return len(v.LostAcked) == 0 && len(v.LostVisible) == 0 && len(v.Divergent) == 0
}

func (v Verdict) String() string {
	if v.OK() {
		return "no loss, no divergence"
	}
	return fmt.Sprintf("leader %d: %d acknowledged records lost %v, %d visible records lost, divergent replicas (first offset) %v",
		v.Leader, len(v.LostAcked), head(v.LostAcked, 5), len(v.LostVisible), v.Divergent)
}

func head(xs []OffsetID, n int) []OffsetID {
	if len(xs) <= n {
		return xs
	}
	return xs[:n]
}

// Check judges a snapshot: the controller's leader's log against the
// acknowledged and visible records and against every live replica's log.
// While the partition has no leader (its leader died and no election has
// succeeded yet) there is nothing to judge, as in the spec's NoAckedLoss
// and NoVisibleLoss.
func Check(s Snapshot) Verdict {
	v := Verdict{Leader: s.Controller.Leader, Divergent: map[int32]int64{}}
	if s.Controller.Leader < 0 {
		return v
	}
	var leader PartitionSnapshot
	found := false
	for _, b := range s.Brokers {
		if b.ID == s.Controller.Leader {
			leader, found = b.Partition, true
		}
	}
	has := func(x OffsetID) bool {
		return found && x.Offset < int64(len(leader.Log)) && leader.Log[x.Offset].ID == x.ID
	}
	for _, a := range s.Producer.Acked {
		if !has(a) {
			v.LostAcked = append(v.LostAcked, a)
		}
	}
	for _, c := range s.Committed {
		if !has(c) {
			v.LostVisible = append(v.LostVisible, c)
		}
	}
	if !found {
		return v
	}
	for _, b := range s.Brokers {
		if !b.Alive || b.ID == s.Controller.Leader {
			continue
		}
		p := b.Partition
		upTo := min(p.HW, leader.HW, int64(len(p.Log)), int64(len(leader.Log)))
		for o := int64(0); o < upTo; o++ {
			if p.Log[o] != leader.Log[o] {
				v.Divergent[b.ID] = o
				break
			}
		}
	}
	return v
}

// Converged reports whether every broker is up, the controller's leader
// leads in the controller's epoch, and every other replica follows it in
// that epoch, fetching, with the leader's LEO and HW = LEO: the state a
// healed, quiet cluster reaches.
func Converged(s Snapshot) bool {
	var leader PartitionSnapshot
	for _, b := range s.Brokers {
		if !b.Alive {
			return false
		}
		if b.ID == s.Controller.Leader {
			leader = b.Partition
		}
	}
	if s.Controller.OfflinePartition || leader.Role != "Leader" || leader.LeaderEpoch != s.Controller.Epoch || leader.HW != leader.LEO {
		return false
	}
	for _, b := range s.Brokers {
		p := b.Partition
		if b.ID == s.Controller.Leader {
			continue
		}
		if p.Role != "Follower" || p.LeaderEpoch != leader.LeaderEpoch || p.FetchState != "Fetching" ||
			p.LEO != leader.LEO || p.HW != leader.HW {
			return false
		}
	}
	return true // ISR membership is not required: a follower may still be catching up to it
}
