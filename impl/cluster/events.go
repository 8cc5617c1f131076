package cluster

import "github.com/hwepoch/hwepoch/impl/broker"

// Event is one handled event (see broker.Event). Brokers emit theirs; the
// cluster adds Crash and Restart (Broker is the broker, Post its state
// after) and the controller Elect (Broker is ControllerNode, Params r and
// epoch, no Post).
type Event = broker.Event

// The cluster's and the controller's action names (the brokers' are in
// package broker).
const (
	ActElect = "Elect"
	// ActHandleAlterPartition is the controller's decision on an
	// AlterPartition under asynchronous ISR changes (Params l: the leader).
	ActHandleAlterPartition = "HandleAlterPartition"
	ActCrash                = "Crash"
	ActRestart              = "Restart"
	// ActMissLeaderAndIsr is a broker never seeing the head of its
	// LeaderAndIsr queue (Params r), which a later request follows.
	ActMissLeaderAndIsr = "MissLeaderAndIsr"
)

func (c *Cluster) emit(e Event) {
	if c.cfg.Hook != nil {
		c.cfg.Hook(e)
	}
}
