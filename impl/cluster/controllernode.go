package cluster

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/hwepoch/hwepoch/impl/broker"
	"github.com/hwepoch/hwepoch/impl/controller"
	"github.com/hwepoch/hwepoch/impl/netsim"
	"github.com/hwepoch/hwepoch/impl/protocol"
	"github.com/hwepoch/hwepoch/impl/release"
)

// controllerNode is the controller process: Kafka's KafkaController event
// loop around impl/controller's decisions, with a ControllerChannelManager
// (one queue of LeaderAndIsr requests per broker, one in flight at a time,
// resent until answered or the broker fails — the spec's reliable, ordered
// controllerQueue) and the AlterPartition handler.
//
// Everything runs on one goroutine: commands from the cluster (broker
// failure and startup, elections) come through cmds and are waited for, and
// messages through the network, so quiescence covers the controller too.
type controllerNode struct {
	cl    *Cluster
	ctrl  *controller.Controller
	rel   release.Release
	ep    *netsim.Endpoint
	clock *protocol.LamportClock
	cmds  chan func()

	mu       sync.Mutex // guards channels for snapshots
	channels map[int32]*brokerChannel
	corr     uint64
	// crashed is each broker's last crash stamp: what it sent before is
	// discarded, its connection being gone (see broker.ConnectionLost).
	crashed map[int32]uint64
	// answered is each broker's last AlterPartition and the controller's
	// answer to it (asynchronous ISR changes; the controller goroutine's).
	answered map[int32]alterAnswer

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// alterAnswer is an AlterPartition request, by what it proposes, and the
// controller's answer.
type alterAnswer struct {
	proposal                    uint64 // the proposal's first correlation id (resends keep it)
	partition                   protocol.TopicPartition
	leaderEpoch, partitionEpoch int32
	isr                         []int32
	resp                        protocol.AlterPartitionResponse
}

// brokerChannel is one broker's RequestSendThread queue.
type brokerChannel struct {
	queue    []protocol.LeaderAndIsrRequest // head is in flight when sent
	sent     bool
	deadline time.Time
}

func newControllerNode(cl *Cluster) (*controllerNode, error) {
	cfg := controller.DefaultConfig()
	cfg.UncleanLeaderElectionEnable = cl.cfg.UncleanLeaderElectionEnable
	cfg.AutoLeaderRebalanceEnable = cl.cfg.AutoLeaderRebalanceEnable
	rel, _ := release.Of(cl.cfg.Policy) // validated
	cfg.RejectIneligibleReplicas = rel.ExpandLiveOnly
	cfg.IsrWriteKeepsPartitionEpoch = !rel.AsyncIsr
	cfg.FenceFailedReplicas = rel.AsyncIsr
	cfg.IsrBrokerEpochs = rel.IsrBrokerEpochs
	cfg.EligibleLeaderReplicas = rel.Elr
	cfg.MinInsyncReplicas = cl.cfg.MinInsyncReplicas
	cfg.AcceptStalePartitionEpoch = slices.Contains(cl.cfg.Mutants, broker.MutantStalePartitionEpoch)
	cfg.Mutants = slices.Clone(cl.cfg.ControllerMutants)
	for _, m := range cl.cfg.Mutants {
		// The mutation check's controller bugs come as broker mutants of the
		// same name (broker.Mutants).
		if slices.Contains(controller.CheckMutants, controller.Mutant(m)) {
			cfg.Mutants = append(cfg.Mutants, controller.Mutant(m))
		}
	}
	ctrl, err := controller.New(cfg)
	if err != nil {
		return nil, err
	}
	ep, err := cl.net.AddNode(ControllerNode)
	if err != nil {
		return nil, err
	}
	n := &controllerNode{cl: cl, ctrl: ctrl, rel: rel, ep: ep, clock: &protocol.LamportClock{}, cmds: make(chan func()),
		channels: map[int32]*brokerChannel{}, crashed: map[int32]uint64{}}
	n.ctx, n.cancel = context.WithCancel(context.Background())
	return n, nil
}

func (n *controllerNode) start() {
	n.wg.Add(1)
	go n.run()
}

func (n *controllerNode) stop() {
	n.cancel()
	n.wg.Wait()
}

func (n *controllerNode) run() {
	defer n.wg.Done()
	defer n.ep.Done()
	var tick <-chan time.Time
	var rebalance <-chan time.Time
	if n.cl.cfg.Mode == Free {
		t := time.NewTicker(max(n.cl.cfg.Timing.ControllerRetry/2, time.Millisecond))
		defer t.Stop()
		tick = t.C
		if n.cl.cfg.AutoLeaderRebalanceEnable && n.cl.cfg.Timing.LeaderImbalanceCheckInterval > 0 {
			r := time.NewTicker(n.cl.cfg.Timing.LeaderImbalanceCheckInterval)
			defer r.Stop()
			rebalance = r.C
		}
	}
	for {
		select {
		case <-n.ctx.Done():
			return
		case f := <-n.cmds:
			f()
		case <-n.ep.Ready():
			for {
				m, ok := n.ep.TryRecv()
				if !ok {
					break
				}
				n.handle(m)
			}
		case <-tick:
			n.resendOverdue()
		case <-rebalance:
			rs, _ := n.ctrl.CheckImbalance()
			n.announce(rs)
		}
	}
}

// do runs f on the controller goroutine and waits for it.
func (n *controllerNode) do(f func()) error {
	done := make(chan struct{})
	select {
	case n.cmds <- func() { defer close(done); f() }:
	case <-n.ctx.Done():
		return fmt.Errorf("cluster: controller stopped")
	}
	<-done
	return nil
}

func (n *controllerNode) handle(m netsim.Message) {
	if id, ok := brokerOfNode(m.From); ok {
		if h, ok := protocol.HeaderOf(m.Payload); ok && h.Lamport < n.crashed[id] {
			return
		}
	}
	switch r := m.Payload.(type) {
	case protocol.LeaderAndIsrResponse:
		n.clock.Witness(r.Lamport)
		id, ok := brokerOfNode(m.From)
		if !ok {
			return
		}
		n.mu.Lock()
		ch := n.channels[id]
		if ch != nil && ch.sent && len(ch.queue) > 0 && ch.queue[0].CorrelationID == r.CorrelationID {
			ch.queue = ch.queue[1:]
			ch.sent = false
		}
		n.mu.Unlock()
		n.pump(id)
	case protocol.AlterPartitionRequest:
		n.clock.Witness(r.Lamport)
		n.handleAlterPartition(m, r)
	}
}

// handleAlterPartition applies an ISR change (the controller's
// AlterPartition handler) and answers it.
func (n *controllerNode) handleAlterPartition(m netsim.Message, r protocol.AlterPartitionRequest) {
	if n.rel.AsyncIsr && slices.Contains(n.cl.cfg.Mutants, broker.MutantControllerDropsAlterPartition) {
		return // mutant hook: dropped, neither decided nor answered
	}
	if n.rel.AsyncIsr {
		// A leader resends a proposal whose answer is late
		// (AlterPartitionManager). The first was decided already: the
		// retry gets that decision again, as the spec's channel delivers
		// the one answer. KRaft would refuse the retry of a commit
		// (INVALID_UPDATE_VERSION) and the leader learn of the commit from
		// the metadata log, which this controller does not publish; without
		// this, a lost answer would leave the leader pending, its ISR and
		// partition epoch stale, until the next LeaderAndIsr.
		//
		// Only a resend of the same proposal: after INELIGIBLE_REPLICA the
		// leader returns to its committed state and may propose the same
		// ISR at the same epochs again (3.9.0-rc3
		// Partition.handleAlterPartitionError), a new request that KRaft's
		// ReplicationControlManager.alterPartition decides afresh; its
		// follower may be eligible by then. Matching by content alone once
		// gave it the old refusal (chaos -policy DivergingEpoch, seed 44;
		// traces/regressions/kip841-repropose-after-ineligible.itf.json).
		if a, ok := n.answered[r.BrokerID]; ok && a.proposal == r.Proposal && a.partition == r.Partition &&
			a.leaderEpoch == r.LeaderEpoch && a.partitionEpoch == r.PartitionEpoch && slices.Equal(a.isr, sortedIDs(r.NewIsr)) {
			resp := a.resp
			resp.Header = protocol.Header{CorrelationID: r.CorrelationID, Lamport: n.clock.Tick()}
			n.ep.Send(m.From, resp)
			return
		}
	}
	resp := protocol.AlterPartitionResponse{Partition: r.Partition}
	tp := controller.TopicPartition{Topic: r.Partition.Topic, Partition: r.Partition.Partition}
	before, _ := n.ctrl.Partition(tp)
	lai, err := n.ctrl.AlterPartition(controller.AlterPartitionRequest{
		BrokerID:           controller.BrokerID(r.BrokerID),
		Partition:          tp,
		LeaderEpoch:        r.LeaderEpoch,
		PartitionEpoch:     r.PartitionEpoch,
		NewIsr:             toBrokerIDs(r.NewIsr),
		NewIsrBrokerEpochs: r.NewIsrBrokerEpochs,
	})
	if err != nil {
		resp.Error, resp.ErrorMessage = kafkaError(err), err.Error()
	} else {
		// A request on an older version that succeeds is a retry of a
		// change already made (the controller answers it with the current
		// state): that change took its place in the trace order when it
		// was made.
		if r.PartitionEpoch == before.PartitionEpoch {
			resp.TraceSeq = n.cl.seq.Add(1)
		}
		resp.Leader, resp.LeaderEpoch, resp.PartitionEpoch = int32(lai.Leader), lai.LeaderEpoch, lai.PartitionEpoch
		resp.Isr = toInt32(lai.Isr)
	}
	resp.Header = protocol.Header{CorrelationID: r.CorrelationID, Lamport: n.clock.Tick()}
	if !n.rel.AsyncIsr {
		n.ep.Send(m.From, resp)
		return
	}
	if n.answered == nil {
		n.answered = map[int32]alterAnswer{}
	}
	n.answered[r.BrokerID] = alterAnswer{proposal: r.Proposal, partition: r.Partition, leaderEpoch: r.LeaderEpoch,
		partitionEpoch: r.PartitionEpoch, isr: sortedIDs(r.NewIsr), resp: resp}
	// The controller's decision is a step of its own (spec
	// HandleAlterPartition(l)); the ISR change announced by a commit is the
	// leader's to apply, from the response. The event draws its Seq before
	// the answer is sent: the leader may handle it at once, and its event
	// must come after this one.
	ev := Event{
		Broker:    int32(ControllerNode),
		Action:    ActHandleAlterPartition,
		Params:    map[string]int64{"l": int64(r.BrokerID)},
		Partition: r.Partition,
		Lamport:   n.clock.Tick(),
		Seq:       n.cl.seq.Add(1),
		Received:  uint64(m.ID),
	}
	if id, _ := n.ep.Send(m.From, resp); id != 0 {
		ev.Sent = []uint64{uint64(id)}
	}
	n.cl.emit(ev)
}

// kafkaError maps the controller's error codes onto the wire's.
func kafkaError(err error) protocol.Error {
	var e *controller.Error
	if errors.As(err, &e) {
		return e.Code // the controller's codes are Kafka's
	}
	return protocol.UnknownServerError
}

// announce queues the LeaderAndIsr of each election to every live replica
// of its partition (PartitionStateMachine -> ControllerBrokerRequestBatch)
// and records an Elect event per election.
func (n *controllerNode) announce(results []controller.ElectionResult) {
	if len(results) == 0 {
		return
	}
	per := map[int32][]protocol.LeaderAndIsrPartition{}
	for _, r := range results {
		st, _ := n.ctrl.Partition(r.Partition)
		lp := leaderAndIsrPartition(r.Partition, st)
		for _, b := range st.Replicas() {
			if n.ctrl.IsLive(b) {
				per[int32(b)] = append(per[int32(b)], lp)
			}
		}
		n.cl.emit(Event{
			Broker: int32(ControllerNode),
			Action: ActElect,
			Params: map[string]int64{"r": int64(r.Elected.Leader), "epoch": int64(r.Elected.LeaderEpoch),
				"strategy": int64(r.Strategy)},
			Partition: protocol.TopicPartition{Topic: r.Partition.Topic, Partition: r.Partition.Partition},
			Lamport:   n.clock.Tick(),
			Seq:       n.cl.seq.Add(1),
		})
	}
	for _, b := range sortedKeys(per) {
		n.enqueue(b, per[b])
	}
}

func leaderAndIsrPartition(tp controller.TopicPartition, st controller.PartitionState) protocol.LeaderAndIsrPartition {
	return protocol.LeaderAndIsrPartition{
		TopicPartition: protocol.TopicPartition{Topic: tp.Topic, Partition: tp.Partition},
		Leader:         int32(st.Leader),
		LeaderEpoch:    st.LeaderEpoch,
		Isr:            toInt32(st.Isr),
		PartitionEpoch: st.PartitionEpoch,
		Replicas:       toInt32(st.Replicas()),
	}
}

// enqueue adds a LeaderAndIsr request to a broker's channel.
func (n *controllerNode) enqueue(b int32, parts []protocol.LeaderAndIsrPartition) {
	n.mu.Lock()
	ch := n.channels[b]
	if ch == nil {
		ch = &brokerChannel{}
		n.channels[b] = ch
	}
	n.corr++
	ch.queue = append(ch.queue, protocol.LeaderAndIsrRequest{
		Header:       protocol.Header{CorrelationID: n.corr},
		ControllerID: int32(ControllerNode),
		Partitions:   parts,
	})
	n.mu.Unlock()
	n.pump(b)
}

// missHead drops the head of broker b's queue when a later request
// follows it (MissLeaderAndIsr), and the request from the network if it
// was sent, then sends the next. The event is emitted for trace
// validation as the broker's.
func (n *controllerNode) missHead(b int32) error {
	var err error
	derr := n.do(func() {
		n.mu.Lock()
		ch := n.channels[b]
		if ch == nil || len(ch.queue) < 2 {
			n.mu.Unlock()
			err = fmt.Errorf("cluster: broker %d has fewer than two LeaderAndIsr queued", b)
			return
		}
		head, sent := ch.queue[0], ch.sent
		ch.queue = ch.queue[1:]
		ch.sent = false
		n.mu.Unlock()
		if sent {
			for _, m := range n.cl.net.InFlightOn(ControllerNode, broker.Node(b)) {
				if r, ok := m.Payload.(protocol.LeaderAndIsrRequest); ok && r.CorrelationID == head.CorrelationID {
					if e := n.cl.net.Drop(m.ID); e != nil {
						err = e
						return
					}
				}
			}
		}
		n.cl.emit(Event{Broker: b, Action: ActMissLeaderAndIsr, Params: map[string]int64{"r": int64(b)},
			Partition: n.cl.focus, Lamport: n.clock.Tick(), Seq: n.cl.seq.Add(1)})
		n.pump(b)
	})
	return errors.Join(derr, err)
}

// pump sends the head of a broker's queue if nothing is in flight.
func (n *controllerNode) pump(b int32) {
	n.mu.Lock()
	ch := n.channels[b]
	if ch == nil || ch.sent || len(ch.queue) == 0 {
		n.mu.Unlock()
		return
	}
	ch.sent = true
	ch.deadline = time.Now().Add(n.cl.cfg.Timing.ControllerRetry)
	ch.queue[0].Lamport = n.clock.Tick()
	req := ch.queue[0]
	n.mu.Unlock()
	n.ep.Send(broker.Node(b), req)
}

// resendOverdue resends heads whose answer is late (free mode: the request
// or its answer was lost).
func (n *controllerNode) resendOverdue() {
	now := time.Now()
	var due []int32
	n.mu.Lock()
	for b, ch := range n.channels {
		if ch.sent && now.After(ch.deadline) {
			ch.sent = false
			due = append(due, b)
		}
	}
	n.mu.Unlock()
	slices.Sort(due)
	for _, b := range due {
		n.pump(b)
	}
}

// markCrashed makes the controller discard what broker b sent before its
// crash at Lamport time stamp (its connection is gone).
func (n *controllerNode) markCrashed(b int32, stamp uint64) error {
	return n.do(func() { n.crashed[b] = max(n.crashed[b], stamp) })
}

// brokerFailed is the controller noticing a broker is gone
// (KafkaController.onBrokerFailure): its channel is dropped (spec Crash
// empties controllerQueue[r]) and, in free mode, offline partitions get an
// election.
func (n *controllerNode) brokerFailed(b int32, lamport uint64) error {
	return n.do(func() {
		n.clock.Witness(lamport)
		n.crashed[b] = max(n.crashed[b], lamport)
		n.mu.Lock()
		delete(n.channels, b)
		n.mu.Unlock()
		// Controller.OnBrokerFailureFencing's steps, the fencing announced
		// before the elections: a partition whose leader the fencing took
		// out (eligible leader replicas) is announced by its election alone
		// (spec Crash, then Elect).
		n.ctrl.SetBrokerState(controller.BrokerID(b), controller.BrokerOffline)
		n.announceIsr(n.ctrl.FenceReplica(controller.BrokerID(b)))
		if n.cl.cfg.Mode == Free || n.cl.cfg.Simulated {
			rs, _ := n.ctrl.ElectLeaders(n.ctrl.OfflinePartitions(), controller.OfflinePartitionLeaderElectionStrategy)
			n.announce(rs)
		}
	})
}

// announceIsr sends the LeaderAndIsr of partitions whose ISR or ELR the
// controller changed itself (FenceReplica, UncleanShutdown: the same leader
// and leader epoch, a new partition epoch) to their live replicas: the
// leader applies it (spec UpdateIsr), a follower ignores it (its epoch is
// not newer). A partition without a leader (under eligible leader replicas
// the fencing of its leader) is announced by its next election instead
// (spec Crash and Restart send nothing then).
func (n *controllerNode) announceIsr(tps []controller.TopicPartition) {
	per := map[int32][]protocol.LeaderAndIsrPartition{}
	for _, tp := range tps {
		st, _ := n.ctrl.Partition(tp)
		if st.Leader == controller.NoLeader {
			continue
		}
		lp := leaderAndIsrPartition(tp, st)
		for _, b := range st.Replicas() {
			if n.ctrl.IsLive(b) {
				per[int32(b)] = append(per[int32(b)], lp)
			}
		}
	}
	for _, b := range sortedKeys(per) {
		n.enqueue(b, per[b])
	}
}

// brokerStarted is KafkaController.onBrokerStartup: the broker is live
// again and is first sent the current LeaderAndIsr of each partition it
// hosts whose leader is another broker (Kafka's OnlineReplica transition;
// spec Restart queues exactly that, and nothing when no one leads: a
// leader that dies is unset at once, and a partition without one needs an
// election first). Only then, in free mode,
// do offline partitions get an election (Kafka's
// triggerOnlinePartitionStateChange, spec Elect), whose LeaderAndIsr
// queues behind the first. Sending only the new one would skip a step the
// spec takes: under HighWatermark the skipped request makes the broker a
// follower that truncates to its HW.
//
// Under eligible leader replicas the broker first registers after an
// unclean shutdown (a crash writes no clean-shutdown file): it leaves the
// ELR of every partition, a change that bumps the partition epoch
// (Controller.UncleanShutdown), and the other live replicas of those with
// a leader are sent the new LeaderAndIsr too (spec Restart); the
// restarting broker's carries the new partition epoch.
func (n *controllerNode) brokerStarted(b int32, lamport uint64) error {
	return n.do(func() {
		n.clock.Witness(lamport)
		unclean := n.ctrl.UncleanShutdown(controller.BrokerID(b))
		var parts []protocol.LeaderAndIsrPartition
		for _, tp := range n.ctrl.Partitions() {
			st, _ := n.ctrl.Partition(tp)
			if !slices.Contains(st.Replicas(), controller.BrokerID(b)) {
				continue
			}
			if st.Leader == controller.NoLeader || st.Leader == controller.BrokerID(b) {
				continue
			}
			parts = append(parts, leaderAndIsrPartition(tp, st))
		}
		if len(parts) > 0 {
			n.enqueue(b, parts)
		}
		// b is not live to the controller yet: the others only.
		n.announceIsr(unclean)
		if n.cl.cfg.Mode == Free || n.cl.cfg.Simulated {
			rs, _, _ := n.ctrl.OnBrokerStartup(controller.BrokerID(b))
			n.announce(rs)
		} else {
			n.ctrl.SetBrokerState(controller.BrokerID(b), controller.BrokerOnline)
		}
	})
}

// registerBroker is a restarting broker's registration
// (Controller.RegisterBroker): its broker epoch.
func (n *controllerNode) registerBroker(b int32) (int64, error) {
	var epoch int64
	err := n.do(func() { epoch = n.ctrl.RegisterBroker(controller.BrokerID(b)) })
	return epoch, err
}

// rebalance is one run of the auto leader rebalance task
// (checkAndTriggerAutoLeaderRebalance): the simulation fires it on its clock.
func (n *controllerNode) rebalance() error {
	return n.do(func() {
		rs, _ := n.ctrl.CheckImbalance()
		n.announce(rs)
	})
}

// electReplica is the stepped driver's Elect(r) (Controller.ElectReplica).
func (n *controllerNode) electReplica(tp protocol.TopicPartition, r int32) error {
	var err error
	if derr := n.do(func() {
		var res controller.ElectionResult
		res, err = n.ctrl.ElectReplica(controller.TopicPartition{Topic: tp.Topic, Partition: tp.Partition}, controller.BrokerID(r))
		if err == nil {
			n.announce([]controller.ElectionResult{res})
		}
	}); derr != nil {
		return derr
	}
	return err
}

// partition returns the controller's state of tp.
func (n *controllerNode) partition(tp protocol.TopicPartition) (controller.PartitionState, bool) {
	var st controller.PartitionState
	var ok bool
	n.do(func() { st, ok = n.ctrl.Partition(controller.TopicPartition{Topic: tp.Topic, Partition: tp.Partition}) })
	return st, ok
}

// queues returns a copy of every broker's pending LeaderAndIsr requests.
func (n *controllerNode) queues() map[int32][]protocol.LeaderAndIsrRequest {
	n.mu.Lock()
	defer n.mu.Unlock()
	out := map[int32][]protocol.LeaderAndIsrRequest{}
	for b, ch := range n.channels {
		out[b] = slices.Clone(ch.queue)
	}
	return out
}

func brokerOfNode(id netsim.NodeID) (int32, bool) {
	if id >= 0 && id <= broker.MaxBrokerID {
		return int32(id), true
	}
	return 0, false
}

func toInt32(ids []controller.BrokerID) []int32 {
	out := make([]int32, len(ids))
	for i, id := range ids {
		out[i] = int32(id)
	}
	slices.Sort(out)
	return out
}

func toBrokerIDs(ids []int32) []controller.BrokerID {
	out := make([]controller.BrokerID, len(ids))
	for i, id := range ids {
		out[i] = controller.BrokerID(id)
	}
	return out
}

func sortedKeys[V any](m map[int32]V) []int32 {
	out := make([]int32, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// sortedIDs is a set of broker ids in order.
func sortedIDs(ids []int32) []int32 {
	out := slices.Clone(ids)
	slices.Sort(out)
	return out
}
