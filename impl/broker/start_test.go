package broker

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hwepoch/hwepoch/impl/netsim"
	"github.com/hwepoch/hwepoch/impl/protocol"
)

// Config.Started runs after recovery and before the broker handles any
// message, even one already waiting for it: a free run's peers keep
// sending to a restarting broker, and its Restart event must precede every
// event of the new incarnation (a free run once recorded a Fetch handled
// before the Restart of the broker that handled it).
func TestStartedComesBeforeAnyEvent(t *testing.T) {
	net, err := netsim.New(netsim.Config{Mode: netsim.ModeStepped})
	if err != nil {
		t.Fatal(err)
	}
	defer net.Close()
	ctrl, err := net.AddNode(ctrlNode)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := net.AddNode(Node(me)); err != nil {
		t.Fatal(err)
	}
	id, err := ctrl.Send(Node(me), protocol.LeaderAndIsrRequest{Header: protocol.Header{CorrelationID: 1},
		Partitions: []protocol.LeaderAndIsrPartition{{TopicPartition: tp, Leader: me, LeaderEpoch: 0,
			Isr: []int32{1, 2, 3}, Replicas: []int32{1, 2, 3}}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := net.Deliver(id); err != nil { // in the inbox before the broker runs
		t.Fatal(err)
	}
	var mu sync.Mutex
	var order []string
	cfg := DefaultConfig()
	cfg.BrokerID = me
	cfg.Dir = t.TempDir()
	cfg.ControllerNode = ctrlNode
	cfg.Partitions = []PartitionAssignment{{TopicPartition: tp, Replicas: []int32{1, 2, 3}}}
	cfg.Stepped = true
	cfg.Hook = func(e Event) { mu.Lock(); order = append(order, e.Action); mu.Unlock() }
	cfg.Started = func(*Broker) { mu.Lock(); order = append(order, "Started"); mu.Unlock() }
	b, err := Start(cfg, net)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Shutdown()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		mu.Lock()
		got := slices.Clone(order)
		mu.Unlock()
		if slices.Contains(got, ActHandleLeaderAndIsr) {
			if got[0] != "Started" {
				t.Fatalf("order %v: the broker handled a message before Started", got)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the waiting LeaderAndIsr was never handled (order %v)", got)
		}
	}
}
