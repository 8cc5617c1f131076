package cluster

import (
	"slices"
	"testing"

	"github.com/hwepoch/hwepoch/impl/broker"
	"github.com/hwepoch/hwepoch/impl/protocol"
	"github.com/hwepoch/hwepoch/impl/storage"
)

// A leader resends an AlterPartition whose answer was lost (free mode's
// AlterPartitionManager retry). The controller committed the first; the
// resend gets that decision again, and the leader applies it: the spec's
// channel delivers the one answer. (Deciding the resend afresh refuses it
// INVALID_UPDATE_VERSION, the partition epoch having moved, and left the
// leader pending with a stale ISR and partition epoch until the next
// LeaderAndIsr.)
func TestRetriedAlterPartitionGetsTheFirstDecision(t *testing.T) {
	c := newStepped(t, 2, storage.DivergingEpoch, func(c *Config) { c.MinInsyncReplicas = 1 })
	apply(t, c, cat(
		[]Step{S("Elect", A), S("HandleLeaderAndIsr", A)},
		becomeFollower(storage.DivergingEpoch, B, A, 0),
		[]Step{S("Produce", A)},
		fetchRound(B, A),
		[]Step{S("ShrinkIsr", A, B)},
	))
	var req protocol.AlterPartitionRequest
	for _, m := range c.Network().InFlight() {
		if r, ok := m.Payload.(protocol.AlterPartitionRequest); ok {
			req = r
		}
	}
	if req.NewIsr == nil {
		t.Fatal("no AlterPartition in flight")
	}
	apply(t, c, []Step{S("HandleAlterPartition", A)})
	// The answer is lost.
	for _, m := range c.Network().InFlight() {
		if _, ok := m.Payload.(protocol.AlterPartitionResponse); ok {
			if err := c.Network().Drop(m.ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	// The leader resends the same proposal.
	ep, ok := c.Network().Endpoint(broker.Node(A))
	if !ok {
		t.Fatal("no endpoint for broker A")
	}
	if _, err := ep.Send(ControllerNode, req); err != nil {
		t.Fatal(err)
	}
	apply(t, c, []Step{S("HandleAlterPartition", A)})
	s := c.Snapshot()
	if m := s.Network.AlterPartition[A]; m.Type != "AlterPartitionResponse" || m.Error != "NONE" || m.PartitionEpoch != 1 || !slices.Equal(m.Isr, []int32{A}) {
		t.Fatalf("the resend's answer: %+v, want the first decision (NONE, ISR [%d], partition epoch 1)", m, A)
	}
	if s.Controller.PartitionEpoch != 1 {
		t.Fatalf("the controller decided the resend again: partition epoch %d", s.Controller.PartitionEpoch)
	}
	apply(t, c, []Step{S("HandleAlterPartitionResponse", A)})
	if a := brokerOf(c.Snapshot(), A).Partition; !slices.Equal(a.Isr, []int32{A}) || a.PendingIsr != nil || a.PartitionEpoch != 1 {
		t.Fatalf("leader after the resend's answer: ISR %v pending %v partition epoch %d", a.Isr, a.PendingIsr, a.PartitionEpoch)
	}
}
