package controller

import (
	"fmt"
	"math"
	"slices"
)

// Controller holds the partitions and broker liveness and makes the
// controller's decisions. It is not safe for concurrent use; see
// Synchronized. Every method either changes the state completely or not at
// all, and returns deep copies, so callers can never alias its state.
type Controller struct {
	cfg        Config
	brokers    map[BrokerID]BrokerState
	partitions map[TopicPartition]*PartitionState
	// leaderLost marks partitions whose leader went offline since their
	// last election: Kafka's OfflinePartition state. The leader field keeps
	// naming the lost leader (as the spec's ctrlLeader and ZooKeeper's
	// leader znode do), so without this mark a partition whose leader
	// restarted would look led again; the restarted broker has lost its
	// leadership and the partition needs an election first (the spec's
	// Restart sends no LeaderAndIsr in that case).
	leaderLost map[TopicPartition]bool
	// brokerEpochs is each broker's registration epoch (the spec's
	// brokerEpoch): 0 until it registers again, bumped by RegisterBroker
	// under IsrBrokerEpochs.
	brokerEpochs map[BrokerID]int64
}

// New returns a controller with no brokers and no partitions.
func New(cfg Config) (*Controller, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Controller{
		cfg:          cfg,
		brokers:      make(map[BrokerID]BrokerState),
		partitions:   make(map[TopicPartition]*PartitionState),
		leaderLost:   make(map[TopicPartition]bool),
		brokerEpochs: make(map[BrokerID]int64),
	}, nil
}

// Config returns the current configuration.
func (c *Controller) Config() Config { return c.cfg }

// SetConfig replaces the configuration; Kafka changes these dynamically too.
func (c *Controller) SetConfig(cfg Config) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	c.cfg = cfg
	return nil
}

// ---------------------------------------------------------------------------
// Brokers.

// SetBrokerState records a broker's liveness. It only records: elections
// are separate calls (OnBrokerStartup, OnBrokerFailure and ControlledShutdown
// combine the two the way Kafka's controller does), because the spec's
// Crash and Restart do not elect either.
func (c *Controller) SetBrokerState(id BrokerID, s BrokerState) error {
	if id < 0 {
		return &Error{Code: ErrInvalidRequest, Candidate: id, Message: fmt.Sprintf("broker id %d is negative", id)}
	}
	if s != BrokerOffline && s != BrokerOnline && s != BrokerShuttingDown {
		return &Error{Code: ErrInvalidRequest, Candidate: id, Message: fmt.Sprintf("unknown broker state %d", s)}
	}
	c.brokers[id] = s
	if s == BrokerOffline {
		for tp, p := range c.partitions {
			if p.Leader == id {
				// The partition has no leader until an election (Kafka's
				// OfflinePartition; KRaft's NO_LEADER): a broker that
				// starts is not told to follow the dead one.
				c.leaderLost[tp] = true
				p.Leader = NoLeader
			}
		}
	}
	return nil
}

// FenceReplica takes a failed broker out of the ISR of every partition it
// follows, with a leader, under FenceFailedReplicas (KRaft's
// ReplicationControlManager.handleBrokerFenced; spec Crash under
// asynchronous ISR changes): the partition epoch is bumped, the leader
// epoch is not, and the leader keeps its place. It returns the partitions
// changed, sorted; the caller tells the replicas of those that have a
// leader.
//
// With EligibleLeaderReplicas the broker leaves the ISR of every partition
// it is in, whether it leads it or not and whether or not the partition has
// a leader, and the ISR may become empty (PartitionChangeBuilder.build:
// "If ELR is enabled, the ISR is allowed to be empty"); the partition of a
// broker that led it has no leader (the spec elects later). Below the
// effective min.insync.replicas the broker joins the ELR
// (PartitionChangeBuilder.maybePopulateTargetElr), and when the ISR empties
// it becomes the last known leader (maybeUpdateLastKnownLeader records the
// partition's leader then: Kafka elects inside the fencing record, so the
// ISR's last member is the leader when the ISR empties). A failed broker
// that is only in the ELR stays there (handleBrokerFenced visits
// partitionsWithBrokerInIsr alone).
func (c *Controller) FenceReplica(id BrokerID) []TopicPartition {
	if !c.cfg.FenceFailedReplicas {
		return nil
	}
	elr := c.cfg.EligibleLeaderReplicas
	var out []TopicPartition
	for _, tp := range c.Partitions() {
		p := c.partitions[tp]
		if !slices.Contains(p.Isr, id) || p.PartitionEpoch == math.MaxInt32 {
			continue
		}
		if !elr && (p.Leader == NoLeader || p.Leader == id) {
			continue
		}
		old := p.Isr
		p.Isr = slices.DeleteFunc(slices.Clone(old), func(x BrokerID) bool { return x == id })
		p.PartitionEpoch++
		if elr {
			p.Elr = c.elrAfter(p, old, p.Isr)
			if len(p.Isr) == 0 {
				p.LastKnownElr = []BrokerID{id}
			}
			if p.Leader == id {
				c.leaderLost[tp] = true
				p.Leader = NoLeader
			}
		}
		out = append(out, tp)
	}
	return out
}

// UncleanShutdown is a broker registering again after an unclean shutdown
// (ClusterControlManager.registerBroker with a new incarnation whose
// previous broker epoch is not the stored one: a crash writes no
// clean-shutdown file), under EligibleLeaderReplicas
// (ReplicationControlManager.handleBrokerUncleanShutdown, which returns at
// once without ELR): the broker leaves the ELR of every partition, each a
// partition change that bumps the partition epoch. Its record may have
// lost what made it eligible. It stays the last known leader (the
// uncleanShutdownReplicas filter of maybePopulateTargetElr applies to the
// ELR alone). Kafka also takes it out of the ISRs it is in; the fencing at
// its failure already did. It returns the partitions changed, sorted; the
// caller tells the live replicas of those that have a leader (spec
// Restart). Call it before the broker is marked online, as Kafka registers
// a broker before it unfences it.
func (c *Controller) UncleanShutdown(id BrokerID) []TopicPartition {
	if !c.cfg.EligibleLeaderReplicas || c.cfg.mutant(MutantElrKeepsRestarted) { // mutant hook: no unclean-shutdown removal
		return nil
	}
	var out []TopicPartition
	for _, tp := range c.Partitions() {
		p := c.partitions[tp]
		if !slices.Contains(p.Elr, id) || p.PartitionEpoch == math.MaxInt32 {
			continue
		}
		p.Elr = nonEmpty(slices.DeleteFunc(slices.Clone(p.Elr), func(x BrokerID) bool { return x == id }))
		p.PartitionEpoch++
		out = append(out, tp)
	}
	return out
}

// effectiveMinIsr is ReplicationControlManager.getTopicEffectiveMinIsr:
// min(min.insync.replicas, replication factor) (the spec's EffMinIsr).
func (c *Controller) effectiveMinIsr(p *PartitionState) int {
	return min(c.cfg.MinInsyncReplicas, len(p.Replicas()))
}

// elrAfter is the ELR once p's ISR goes from oldIsr to newIsr
// (PartitionChangeBuilder.maybePopulateTargetElr; the spec's ElrAfter): nil
// without EligibleLeaderReplicas or when the new ISR is at or above the
// effective min.insync.replicas; otherwise the ELR and the old ISR, but
// the members of the new ISR, sorted.
func (c *Controller) elrAfter(p *PartitionState, oldIsr, newIsr []BrokerID) []BrokerID {
	if !c.cfg.EligibleLeaderReplicas || len(newIsr) >= c.effectiveMinIsr(p) {
		return nil
	}
	leaving := oldIsr
	if c.cfg.mutant(MutantElrNotFilled) { // mutant hook: the replicas leaving the ISR do not join the ELR
		leaving = nil
	}
	var out []BrokerID
	for _, id := range slices.Concat(p.Elr, leaving) {
		if !slices.Contains(newIsr, id) && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

// nonEmpty is s, or nil when s is empty: the ELR's empty value.
func nonEmpty(s []BrokerID) []BrokerID {
	if len(s) == 0 {
		return nil
	}
	return s
}

// RegisterBroker is a broker registering again after a restart
// (ClusterControlManager.registerBroker, which gives every incarnation a
// new broker epoch): under IsrBrokerEpochs (KIP-903) the broker's epoch is
// bumped (the spec's Restart); otherwise it stays 0. It returns the
// broker's epoch, which the new incarnation's fetches carry. Liveness and
// elections are OnBrokerStartup's (Kafka unfences a registered broker
// once it has caught up with the metadata).
func (c *Controller) RegisterBroker(id BrokerID) int64 {
	if c.cfg.IsrBrokerEpochs {
		c.brokerEpochs[id]++
	}
	return c.brokerEpochs[id]
}

// BrokerEpoch is the broker epoch of id's current registration (0 before
// it registers again).
func (c *Controller) BrokerEpoch(id BrokerID) int64 { return c.brokerEpochs[id] }

// BrokerState returns what the controller knows of a broker (BrokerOffline
// if nothing).
func (c *Controller) BrokerState(id BrokerID) BrokerState { return c.brokers[id] }

// IsLive reports whether a broker is online and not shutting down: Kafka's
// ControllerContext.isReplicaOnline with includeShuttingDownBrokers = false.
func (c *Controller) IsLive(id BrokerID) bool { return c.brokers[id] == BrokerOnline }

func (c *Controller) isLiveOrShuttingDown(id BrokerID) bool {
	s := c.brokers[id]
	return s == BrokerOnline || s == BrokerShuttingDown
}

// LiveBrokers lists the live brokers in ascending order.
func (c *Controller) LiveBrokers() []BrokerID {
	var out []BrokerID
	for id, s := range c.brokers {
		if s == BrokerOnline {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

func (c *Controller) shuttingDownBrokers() []BrokerID {
	var out []BrokerID
	for id, s := range c.brokers {
		if s == BrokerShuttingDown {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

func (c *Controller) filterLive(ids []BrokerID) []BrokerID {
	out := make([]BrokerID, 0, len(ids))
	for _, id := range ids {
		if c.IsLive(id) {
			out = append(out, id)
		}
	}
	return out
}

// ---------------------------------------------------------------------------
// Partitions.

// CreateTopic adds partitions 0..len(assignment)-1 of a topic with the given
// replica assignments. Each starts unelected (NoLeader, epochs -1, ISR = its
// assignment); call ElectLeaders(OfflinePartitions(), Offline...) or
// ElectReplica to give it a leader. As in Kafka, every partition must have
// the same replication factor and no replica twice.
func (c *Controller) CreateTopic(topic string, assignment [][]BrokerID) error {
	if topic == "" {
		return &Error{Code: ErrInvalidTopic, Candidate: NoLeader, Message: "empty topic name"}
	}
	if len(assignment) == 0 {
		return &Error{Code: ErrInvalidPartitions, Candidate: NoLeader, Message: fmt.Sprintf("topic %q: no partitions", topic)}
	}
	if len(assignment) > math.MaxInt32 {
		return &Error{Code: ErrInvalidPartitions, Candidate: NoLeader, Message: fmt.Sprintf("topic %q: too many partitions", topic)}
	}
	for tp := range c.partitions {
		if tp.Topic == topic {
			return &Error{Code: ErrTopicAlreadyExists, Candidate: NoLeader, Message: fmt.Sprintf("topic %q already exists", topic)}
		}
	}
	rf := len(assignment[0])
	for i, replicas := range assignment {
		tp := TopicPartition{Topic: topic, Partition: int32(i)}
		if err := validateReplicas(tp, replicas); err != nil {
			return err
		}
		if len(replicas) != rf {
			return partitionError(ErrInvalidReplicaAssignment, tp, ReasonUnspecified,
				"replication factor %d differs from partition 0's %d", len(replicas), rf)
		}
	}
	for i, replicas := range assignment {
		tp := TopicPartition{Topic: topic, Partition: int32(i)}
		c.partitions[tp] = &PartitionState{
			Assignment: slices.Clone(replicas),
			LeaderAndIsr: LeaderAndIsr{
				Leader:         NoLeader,
				LeaderEpoch:    -1,
				Isr:            slices.Clone(replicas),
				PartitionEpoch: -1,
			},
		}
	}
	return nil
}

func validateReplicas(tp TopicPartition, replicas []BrokerID) error {
	if len(replicas) == 0 {
		return partitionError(ErrInvalidReplicaAssignment, tp, ReasonUnspecified, "empty replica list")
	}
	for i, id := range replicas {
		if id < 0 {
			return partitionError(ErrInvalidReplicaAssignment, tp, ReasonUnspecified, "negative broker id %d", id)
		}
		if slices.Contains(replicas[:i], id) {
			return partitionError(ErrInvalidReplicaAssignment, tp, ReasonUnspecified, "broker %d appears twice in %v", id, replicas)
		}
	}
	return nil
}

// Partition returns a copy of one partition's state.
func (c *Controller) Partition(tp TopicPartition) (PartitionState, bool) {
	p, ok := c.partitions[tp]
	if !ok {
		return PartitionState{}, false
	}
	return p.Clone(), true
}

// Partitions lists every partition, sorted by topic then partition.
func (c *Controller) Partitions() []TopicPartition {
	out := make([]TopicPartition, 0, len(c.partitions))
	for tp := range c.partitions {
		out = append(out, tp)
	}
	slices.SortFunc(out, compareTopicPartition)
	return out
}

// OfflinePartitions lists the partitions that need an offline election:
// never elected, or whose leader went offline after their last election
// (even if it has restarted since). A leader in controlled shutdown still
// serves; ControlledShutdown moves it. Sorted.
func (c *Controller) OfflinePartitions() []TopicPartition {
	var out []TopicPartition
	for tp, p := range c.partitions {
		if c.needsOfflineElection(tp, p) {
			out = append(out, tp)
		}
	}
	slices.SortFunc(out, compareTopicPartition)
	return out
}

func (c *Controller) needsOfflineElection(tp TopicPartition, p *PartitionState) bool {
	return p.Leader == NoLeader || c.brokers[p.Leader] == BrokerOffline || c.leaderLost[tp]
}

func (c *Controller) lookup(tp TopicPartition) (*PartitionState, error) {
	p, ok := c.partitions[tp]
	if !ok {
		return nil, partitionError(ErrUnknownTopicOrPartition, tp, ReasonUnspecified, "no such partition")
	}
	return p, nil
}

// ---------------------------------------------------------------------------
// Elections.

// Elect runs one election with the given strategy. On success the leader
// epoch and the partition epoch are bumped; on failure nothing changes.
//
// ISR after the election, as Kafka's PartitionStateMachine:
//   - offline, clean: the ISR filtered to live brokers (leaderForOffline;
//     the spec's Elect does the same); unclean: [leader];
//   - reassignment and preferred: unchanged (LeaderAndIsr.newLeader);
//   - controlled shutdown: the ISR minus the shutting-down brokers.
//
// Errors: UNKNOWN_TOPIC_OR_PARTITION; ELECTION_NOT_NEEDED when the strategy
// does not apply (offline with a live leader, preferred already leading,
// controlled shutdown with a leader not shutting down);
// NO_REASSIGNMENT_IN_PROGRESS; PREFERRED_LEADER_NOT_AVAILABLE; and
// ELIGIBLE_LEADERS_NOT_AVAILABLE when the algorithm finds nobody.
func (c *Controller) Elect(tp TopicPartition, strategy ElectionStrategy) (ElectionResult, error) {
	p, err := c.lookup(tp)
	if err != nil {
		return ElectionResult{}, err
	}
	isr := p.Isr
	switch strategy {
	case OfflinePartitionLeaderElectionStrategy:
		if !c.needsOfflineElection(tp, p) {
			return ElectionResult{}, partitionError(ErrElectionNotNeeded, tp, ReasonLeaderLive, "leader %d is %s", p.Leader, c.brokers[p.Leader])
		}
		replicas := p.Replicas()
		var leader BrokerID
		var ok, unclean bool
		if c.cfg.EligibleLeaderReplicas {
			leader, unclean, ok = eligibleLeaderElection(replicas, isr, p.Elr, p.LastKnownElr, c.filterLive(replicas), c.cfg.UncleanLeaderElectionEnable, c.elrBugs())
		} else {
			leader, ok = OfflinePartitionLeaderElection(replicas, isr, c.filterLive(replicas), c.cfg.UncleanLeaderElectionEnable)
			unclean = !slices.Contains(isr, leader)
		}
		if c.cfg.mutant(MutantOfflineElectionIgnoresIsr) { // mutant hook: the first live replica, in the ISR or not
			leader, ok = OfflinePartitionLeaderElection(replicas, replicas, c.filterLive(replicas), false)
			if !slices.Contains(isr, leader) {
				isr = append(slices.Clone(isr), leader)
			}
			unclean = false
		}
		if c.cfg.UncleanLeaderElectionEnable && c.cfg.mutant(MutantUncleanPrefersOutOfIsr) { // mutant hook: out-of-ISR replicas first
			for _, id := range c.filterLive(replicas) {
				if !slices.Contains(isr, id) {
					leader, ok, unclean = id, true, true
					break
				}
			}
		}
		if !ok {
			if c.cfg.EligibleLeaderReplicas {
				return ElectionResult{}, partitionError(ErrEligibleLeadersNotAvailable, tp, ReasonNoEligibleReplica,
					"no live replica of %v in ISR %v, ELR %v or last known leader %v (unclean.leader.election.enable=%t)",
					replicas, isr, p.Elr, p.LastKnownElr, c.cfg.UncleanLeaderElectionEnable)
			}
			return ElectionResult{}, partitionError(ErrEligibleLeadersNotAvailable, tp, ReasonNoEligibleReplica,
				"no live replica of %v in ISR %v (unclean.leader.election.enable=%t)", replicas, isr, c.cfg.UncleanLeaderElectionEnable)
		}
		if slices.Contains(isr, leader) {
			return c.apply(tp, p, strategy, leader, c.filterLive(isr), false)
		}
		// An election from the ELR is clean, one of the last known leader
		// or of any live replica unclean; either way the ISR is the leader
		// alone (PartitionChangeBuilder.tryElection).
		return c.apply(tp, p, strategy, leader, []BrokerID{leader}, unclean)

	case ReassignPartitionLeaderElectionStrategy:
		if !p.ReassignmentInProgress() {
			return ElectionResult{}, partitionError(ErrNoReassignmentInProgress, tp, ReasonUnspecified, "no target replicas")
		}
		leader, ok := ReassignPartitionLeaderElection(p.TargetReplicas, isr, c.filterLive(p.TargetReplicas))
		if !ok {
			return ElectionResult{}, partitionError(ErrEligibleLeadersNotAvailable, tp, ReasonNoEligibleReplica,
				"no live target replica of %v in ISR %v", p.TargetReplicas, isr)
		}
		return c.apply(tp, p, strategy, leader, slices.Clone(isr), false)

	case PreferredReplicaPartitionLeaderElectionStrategy:
		replicas := p.Replicas()
		if p.Leader == replicas[0] {
			return ElectionResult{}, partitionError(ErrElectionNotNeeded, tp, ReasonAlreadyLeader, "preferred replica %d already leads", p.Leader)
		}
		leader, ok := PreferredReplicaPartitionLeaderElection(replicas, isr, c.filterLive(replicas))
		if !ok {
			return ElectionResult{}, partitionError(ErrPreferredLeaderNotAvailable, tp, ReasonNoEligibleReplica,
				"preferred replica %d is %s, ISR %v", replicas[0], c.brokers[replicas[0]], isr)
		}
		return c.apply(tp, p, strategy, leader, slices.Clone(isr), false)

	case ControlledShutdownPartitionLeaderElectionStrategy:
		if p.Leader == NoLeader || c.brokers[p.Leader] != BrokerShuttingDown {
			return ElectionResult{}, partitionError(ErrElectionNotNeeded, tp, ReasonLeaderNotShuttingDown, "leader %d is %s", p.Leader, c.brokers[p.Leader])
		}
		replicas := p.Replicas()
		var liveOrShuttingDown []BrokerID
		for _, id := range replicas {
			if c.isLiveOrShuttingDown(id) {
				liveOrShuttingDown = append(liveOrShuttingDown, id)
			}
		}
		shuttingDown := c.shuttingDownBrokers()
		leader, ok := ControlledShutdownPartitionLeaderElection(replicas, isr, liveOrShuttingDown, shuttingDown)
		if !ok {
			return ElectionResult{}, partitionError(ErrEligibleLeadersNotAvailable, tp, ReasonNoEligibleReplica,
				"no live replica of %v in ISR %v outside shutting-down brokers %v", replicas, isr, shuttingDown)
		}
		newIsr := make([]BrokerID, 0, len(isr))
		for _, id := range isr {
			if !slices.Contains(shuttingDown, id) {
				newIsr = append(newIsr, id)
			}
		}
		return c.apply(tp, p, strategy, leader, newIsr, false)
	}
	return ElectionResult{}, partitionError(ErrInvalidRequest, tp, ReasonUnspecified, "unknown election strategy %d", strategy)
}

// apply installs a new leader and ISR, bumping both epochs (Kafka's
// LeaderAndIsr.newLeaderAndIsr), and under EligibleLeaderReplicas the ELR
// with them (the spec's Elect): a leader from the ISR leaves the ELR to
// follow the ISR (maybePopulateTargetElr); a clean election from the ELR,
// the ISR being empty, takes the leader out of it (tryElection); any other
// election (the last known leader, unclean) empties it
// (maybeUpdateRecordElr). The last known leader is forgotten once the
// partition has a leader (maybeUpdateLastKnownLeader).
func (c *Controller) apply(tp TopicPartition, p *PartitionState, strategy ElectionStrategy, leader BrokerID, isr []BrokerID, unclean bool) (ElectionResult, error) {
	if p.LeaderEpoch == math.MaxInt32 || p.PartitionEpoch == math.MaxInt32 {
		return ElectionResult{}, partitionError(ErrUnknownServerError, tp, ReasonEpochOverflow, "leader epoch %d, partition epoch %d", p.LeaderEpoch, p.PartitionEpoch)
	}
	var elr []BrokerID
	switch {
	case slices.Contains(p.Isr, leader):
		elr = c.elrAfter(p, p.Isr, isr)
	case !unclean && len(p.Isr) == 0 && slices.Contains(p.Elr, leader):
		elr = nonEmpty(slices.DeleteFunc(slices.Clone(p.Elr), func(x BrokerID) bool { return x == leader }))
	}
	prev := p.LeaderAndIsr.Clone()
	delete(c.leaderLost, tp)
	p.LeaderAndIsr = LeaderAndIsr{
		Leader:         leader,
		LeaderEpoch:    p.LeaderEpoch + 1,
		Isr:            isr,
		PartitionEpoch: p.PartitionEpoch + 1,
	}
	p.Elr, p.LastKnownElr = elr, nil
	return ElectionResult{Partition: tp, Strategy: strategy, Previous: prev, Elected: p.LeaderAndIsr.Clone(), Unclean: unclean}, nil
}

// ElectLeaders runs Elect on each partition, in order, and returns the
// successes in that order and the failures by partition (nil if none), as
// Kafka's ElectLeaders answers per partition.
func (c *Controller) ElectLeaders(tps []TopicPartition, strategy ElectionStrategy) ([]ElectionResult, map[TopicPartition]error) {
	var results []ElectionResult
	var errs map[TopicPartition]error
	for _, tp := range tps {
		r, err := c.Elect(tp, strategy)
		if err != nil {
			if errs == nil {
				errs = make(map[TopicPartition]error)
			}
			errs[tp] = err
			continue
		}
		results = append(results, r)
	}
	return results, errs
}

// ElectReplica elects the given replica: the refinement checker's handle on
// the spec's nondeterministic Elect(r), which may choose any eligible r
// where Kafka's algorithms choose by assignment order.
//
// It is a real Kafka election: a reassignment whose target order is
// r followed by the other replicas in assignment order (a same-set
// reordering, which Kafka accepts). Then:
//
//   - clean, when r is live and in the ISR: Kafka's
//     ReassignPartitionLeaderElection over that target order, which picks
//     r. If r already leads, this is Kafka's reassignment path that keeps
//     the leader and only bumps its epoch
//     (moveReassignedPartitionLeaderIfRequired), which the spec also allows.
//     The new ISR is the ISR filtered to live brokers, as the spec's Elect:
//     Kafka's reassignment election keeps the ISR as it is, but Kafka's
//     controller has by then already removed failed brokers from it (the
//     OfflineReplica transition, or KRaft's handleBrokerFenced); the spec,
//     and this controller, fold that removal into the election;
//   - unclean, when r is live but no ISR member is live and
//     unclean.leader.election.enable: Kafka's OfflinePartitionLeaderElection
//     over the reassigning partition's replica set (target ++ origin), whose
//     unclean branch picks the first live replica, r; the ISR becomes [r].
//     Under EligibleLeaderReplicas KRaft's electAnyLeader over the same
//     order (EligibleLeaderElection) picks it, and the ELR is emptied.
//
// The reassignment is only the vehicle: ElectReplica leaves Assignment and
// TargetReplicas untouched (completing the reordering would make r the
// preferred replica, a notion the spec does not have).
//
// Under EligibleLeaderReplicas (KIP-966) two more cases elect r from
// outside the ISR, before any unclean election (the spec's ElrElectable and
// LastKnownElectable; EligibleLeaderElection):
//
//   - from the ELR, when the ISR is empty and r is in the ELR: clean; the
//     ISR becomes [r] and r leaves the ELR;
//   - as the last known leader, when the ISR and the ELR are empty and r
//     is the last known leader: unclean (Kafka's canElectLastKnownLeader
//     result), taken whatever unclean.leader.election.enable says; the ISR
//     becomes [r] and the ELR empty;
//
// and an unclean election also needs that no live replica is eligible
// this way. Every election forgets the last known leader.
//
// Refusals, with Reason: ReasonNotAReplica (INVALID_REPLICA_ASSIGNMENT),
// ReasonNotLive, ReasonNotInIsr (unclean disabled), ReasonLiveIsrMember
// (unclean enabled but an ISR member is live), ReasonLiveEligibleLeader
// (unclean enabled but a live ELR member or the live last known leader may
// lead) — the last four ELIGIBLE_LEADERS_NOT_AVAILABLE. These are exactly
// the cases where the spec's Elect(r) is disabled (its MaxEpoch bound
// aside).
func (c *Controller) ElectReplica(tp TopicPartition, r BrokerID) (ElectionResult, error) {
	p, err := c.lookup(tp)
	if err != nil {
		return ElectionResult{}, err
	}
	refuse := func(code ErrorCode, reason Reason, format string, args ...any) (ElectionResult, error) {
		e := partitionError(code, tp, reason, format, args...)
		e.Candidate = r
		return ElectionResult{}, e
	}
	replicas := p.Replicas()
	if !slices.Contains(replicas, r) {
		return refuse(ErrInvalidReplicaAssignment, ReasonNotAReplica, "broker %d is not a replica of %v", r, replicas)
	}
	if !c.IsLive(r) {
		return refuse(ErrEligibleLeadersNotAvailable, ReasonNotLive, "broker %d is %s", r, c.brokers[r])
	}
	target := make([]BrokerID, 0, len(replicas))
	target = append(target, r)
	for _, id := range replicas {
		if id != r {
			target = append(target, id)
		}
	}
	live := c.filterLive(target)
	if slices.Contains(p.Isr, r) {
		leader, ok := ReassignPartitionLeaderElection(target, p.Isr, live)
		if !ok || leader != r {
			return refuse(ErrUnknownServerError, ReasonUnspecified, "reassignment election over %v chose %d", target, leader)
		}
		return c.apply(tp, p, ReassignPartitionLeaderElectionStrategy, r, c.filterLive(p.Isr), false)
	}
	elr := c.cfg.EligibleLeaderReplicas
	if elr && c.eligibleOutsideIsr(p, r) {
		// The ISR is empty and r is an ELR member (a clean election), or
		// the ISR and the ELR are empty and r is the last known leader (an
		// unclean one, unclean.leader.election.enable or not): KRaft's
		// electAnyLeader over the target order picks r.
		leader, unclean, ok := eligibleLeaderElection(target, p.Isr, p.Elr, p.LastKnownElr, live, false, c.elrBugs())
		if !ok || leader != r {
			return refuse(ErrUnknownServerError, ReasonUnspecified, "eligible leader election over %v chose %d", target, leader)
		}
		return c.apply(tp, p, OfflinePartitionLeaderElectionStrategy, r, []BrokerID{r}, unclean)
	}
	if !c.cfg.UncleanLeaderElectionEnable {
		if elr {
			return refuse(ErrEligibleLeadersNotAvailable, ReasonNotInIsr, "broker %d is not in ISR %v (ELR %v, last known leader %v)", r, p.Isr, p.Elr, p.LastKnownElr)
		}
		return refuse(ErrEligibleLeadersNotAvailable, ReasonNotInIsr, "broker %d is not in ISR %v", r, p.Isr)
	}
	if liveIsr := c.filterLive(p.Isr); len(liveIsr) > 0 {
		return refuse(ErrEligibleLeadersNotAvailable, ReasonLiveIsrMember, "broker %d is not in ISR %v and ISR members %v are live", r, p.Isr, liveIsr)
	}
	if elr {
		for _, x := range live {
			if c.eligibleOutsideIsr(p, x) {
				return refuse(ErrEligibleLeadersNotAvailable, ReasonLiveEligibleLeader,
					"broker %d is not in ISR %v and broker %d is live and eligible (ELR %v, last known leader %v)", r, p.Isr, x, p.Elr, p.LastKnownElr)
			}
		}
	}
	var leader BrokerID
	var ok bool
	if elr {
		leader, _, ok = eligibleLeaderElection(target, p.Isr, p.Elr, p.LastKnownElr, live, true, c.elrBugs())
	} else {
		leader, ok = OfflinePartitionLeaderElection(target, p.Isr, live, true)
	}
	if !ok || leader != r {
		return refuse(ErrUnknownServerError, ReasonUnspecified, "unclean election over %v chose %d", target, leader)
	}
	return c.apply(tp, p, OfflinePartitionLeaderElectionStrategy, r, []BrokerID{r}, true)
}

// eligibleOutsideIsr reports whether broker x may lead p from outside its
// ISR without an unclean election being enabled (the spec's ElrElectable
// or LastKnownElectable; PartitionChangeBuilder.isValidNewLeader's ELR half
// and canElectLastKnownLeader): the ISR is empty and x is in the ELR, or
// the ISR and the ELR are empty and x is the last known leader. Liveness
// is the caller's.
func (c *Controller) eligibleOutsideIsr(p *PartitionState, x BrokerID) bool {
	bugs := c.elrBugs()
	return bugs.elrValid(p.Isr, p.Elr, x) || bugs.lastKnownValid(p.Isr, p.Elr, p.LastKnownElr, x)
}

// elrBugs are the enabled seeded bugs of the ELR's election rules.
func (c *Controller) elrBugs() elrBugs {
	return elrBugs{ignoreElr: c.cfg.mutant(MutantElrIgnoredInElection), elrWithIsr: c.cfg.mutant(MutantElrLeaderWithIsr),
		noLastKnown: c.cfg.mutant(MutantNoLastKnownLeader)}
}

// ---------------------------------------------------------------------------
// Broker lifecycle, as Kafka's controller reacts to it.

// OnBrokerStartup marks the broker online and runs offline elections for
// every partition that needs one (KafkaController.onBrokerStartup ->
// triggerOnlinePartitionStateChange). Partitions that still have no
// eligible leader are in the error map.
func (c *Controller) OnBrokerStartup(id BrokerID) ([]ElectionResult, map[TopicPartition]error, error) {
	if err := c.SetBrokerState(id, BrokerOnline); err != nil {
		return nil, nil, err
	}
	results, errs := c.ElectLeaders(c.OfflinePartitions(), OfflinePartitionLeaderElectionStrategy)
	return results, errs, nil
}

// OnBrokerFailure marks the broker offline and runs offline elections for
// every partition that needs one (KafkaController.onBrokerFailure). Under
// FenceFailedReplicas (KRaft) the broker also leaves the ISR of the
// partitions it follows (FenceReplica; they are returned in fenced), and
// under EligibleLeaderReplicas of those it leads too, before the election,
// which may then pick an ELR member (KRaft elects in the fencing record
// itself, after maybePopulateTargetElr).
// Deviation for the ZooKeeper releases: Kafka also removes the broker from
// the ISR of every partition it follows (OfflineReplica); here it stays in
// the ISR until the leader shrinks it with AlterPartition, as in the spec,
// and elections filter the ISR to live brokers instead.
func (c *Controller) OnBrokerFailure(id BrokerID) ([]ElectionResult, map[TopicPartition]error, error) {
	results, errs, _, err := c.OnBrokerFailureFencing(id)
	return results, errs, err
}

// OnBrokerFailureFencing is OnBrokerFailure that also returns the
// partitions FenceReplica changed.
func (c *Controller) OnBrokerFailureFencing(id BrokerID) ([]ElectionResult, map[TopicPartition]error, []TopicPartition, error) {
	if err := c.SetBrokerState(id, BrokerOffline); err != nil {
		return nil, nil, nil, err
	}
	fenced := c.FenceReplica(id)
	results, errs := c.ElectLeaders(c.OfflinePartitions(), OfflinePartitionLeaderElectionStrategy)
	return results, errs, fenced, nil
}

// ControlledShutdown handles a broker's ControlledShutdown request
// (KafkaController.doControlledShutdown): the broker is marked shutting
// down and every partition it leads with more than one replica gets a
// controlled-shutdown election. It returns the elections made and the
// replicated partitions the broker still leads (Kafka's
// partitionsRemaining; the broker retries while that is non-empty).
// Deviation: Kafka also takes the broker out of the ISRs of the partitions
// it follows; here the leaders' AlterPartition does that.
func (c *Controller) ControlledShutdown(id BrokerID) ([]ElectionResult, []TopicPartition, error) {
	if !c.isLiveOrShuttingDown(id) {
		return nil, nil, &Error{Code: ErrBrokerNotAvailable, Candidate: id, Message: fmt.Sprintf("broker %d is %s", id, c.brokers[id])}
	}
	c.brokers[id] = BrokerShuttingDown
	var results []ElectionResult
	for _, tp := range c.Partitions() {
		p := c.partitions[tp]
		if p.Leader != id || len(p.Replicas()) <= 1 {
			continue
		}
		if r, err := c.Elect(tp, ControlledShutdownPartitionLeaderElectionStrategy); err == nil {
			results = append(results, r)
		}
	}
	var remaining []TopicPartition
	for _, tp := range c.Partitions() {
		p := c.partitions[tp]
		if p.Leader == id && len(p.Replicas()) > 1 {
			remaining = append(remaining, tp)
		}
	}
	return results, remaining, nil
}

// ---------------------------------------------------------------------------
// Snapshot.

// Snapshot is a deep copy of the controller's state, for the abstraction
// function and for event recording.
type Snapshot struct {
	Config     Config
	Brokers    map[BrokerID]BrokerState
	Partitions map[TopicPartition]PartitionState
	// BrokerEpochs are the brokers' registration epochs (RegisterBroker),
	// those never registered again absent (epoch 0).
	BrokerEpochs map[BrokerID]int64
	// OfflinePartitions is OfflinePartitions(): Kafka's OfflinePartition
	// and NewPartition states, which the records above cannot show.
	OfflinePartitions []TopicPartition
}

// Snapshot returns a deep copy of the state.
func (c *Controller) Snapshot() Snapshot {
	s := Snapshot{
		Config:       c.cfg,
		Brokers:      make(map[BrokerID]BrokerState, len(c.brokers)),
		Partitions:   make(map[TopicPartition]PartitionState, len(c.partitions)),
		BrokerEpochs: make(map[BrokerID]int64, len(c.brokerEpochs)),
	}
	for id, e := range c.brokerEpochs {
		s.BrokerEpochs[id] = e
	}
	for id, st := range c.brokers {
		s.Brokers[id] = st
	}
	for tp, p := range c.partitions {
		s.Partitions[tp] = p.Clone()
	}
	s.OfflinePartitions = c.OfflinePartitions()
	return s
}
