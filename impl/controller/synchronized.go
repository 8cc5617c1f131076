package controller

import "sync"

// Synchronized is a Controller behind a mutex, for the concurrent
// implementation, where the controller's request handlers and timers run
// on several goroutines. Each method is one atomic step; Do runs several
// as one.
type Synchronized struct {
	mu sync.Mutex
	c  *Controller
}

// NewSynchronized returns a goroutine-safe controller.
func NewSynchronized(cfg Config) (*Synchronized, error) {
	c, err := New(cfg)
	if err != nil {
		return nil, err
	}
	return &Synchronized{c: c}, nil
}

// Do runs f with exclusive access to the controller. f must not keep c.
func (s *Synchronized) Do(f func(c *Controller)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(s.c)
}

// SetBrokerState is Controller.SetBrokerState under the lock.
func (s *Synchronized) SetBrokerState(id BrokerID, st BrokerState) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.c.SetBrokerState(id, st)
}

// CreateTopic is Controller.CreateTopic under the lock.
func (s *Synchronized) CreateTopic(topic string, assignment [][]BrokerID) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.c.CreateTopic(topic, assignment)
}

// Partition is Controller.Partition under the lock.
func (s *Synchronized) Partition(tp TopicPartition) (PartitionState, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.c.Partition(tp)
}

// Elect is Controller.Elect under the lock.
func (s *Synchronized) Elect(tp TopicPartition, strategy ElectionStrategy) (ElectionResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.c.Elect(tp, strategy)
}

// ElectLeaders is Controller.ElectLeaders under the lock.
func (s *Synchronized) ElectLeaders(tps []TopicPartition, strategy ElectionStrategy) ([]ElectionResult, map[TopicPartition]error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.c.ElectLeaders(tps, strategy)
}

// ElectReplica is Controller.ElectReplica under the lock.
func (s *Synchronized) ElectReplica(tp TopicPartition, r BrokerID) (ElectionResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.c.ElectReplica(tp, r)
}

// AlterPartition is Controller.AlterPartition under the lock.
func (s *Synchronized) AlterPartition(req AlterPartitionRequest) (LeaderAndIsr, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.c.AlterPartition(req)
}

// OnBrokerStartup is Controller.OnBrokerStartup under the lock.
func (s *Synchronized) OnBrokerStartup(id BrokerID) ([]ElectionResult, map[TopicPartition]error, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.c.OnBrokerStartup(id)
}

// OnBrokerFailure is Controller.OnBrokerFailure under the lock.
func (s *Synchronized) OnBrokerFailure(id BrokerID) ([]ElectionResult, map[TopicPartition]error, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.c.OnBrokerFailure(id)
}

// ControlledShutdown is Controller.ControlledShutdown under the lock.
func (s *Synchronized) ControlledShutdown(id BrokerID) ([]ElectionResult, []TopicPartition, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.c.ControlledShutdown(id)
}

// CheckImbalance is Controller.CheckImbalance under the lock.
func (s *Synchronized) CheckImbalance() ([]ElectionResult, map[TopicPartition]error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.c.CheckImbalance()
}

// Snapshot is Controller.Snapshot under the lock.
func (s *Synchronized) Snapshot() Snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.c.Snapshot()
}
