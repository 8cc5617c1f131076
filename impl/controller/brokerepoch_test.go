package controller

import (
	"errors"
	"testing"
)

// KIP-903: every registration gets a new broker epoch under
// IsrBrokerEpochs (0 for ever otherwise), and an AlterPartition that adds a
// broker with a broker epoch that is neither -1 nor its current one is
// refused INELIGIBLE_REPLICA (ReplicationControlManager's
// ineligibleReplicasForIsr); members already in the ISR are not checked
// (the spec's HandleAlterPartition).
func TestAlterPartitionBrokerEpochs(t *testing.T) {
	for _, tc := range []struct {
		name    string
		kip903  bool
		isr     []BrokerID
		newIsr  []BrokerID
		epochs  []int64
		wantErr ErrorCode // 0: committed
	}{
		{"the added broker's current epoch", true, ids(1), ids(1, 2), []int64{-1, 2}, 0},
		{"a stale epoch of the added broker", true, ids(1), ids(1, 2), []int64{-1, 1}, ErrIneligibleReplica},
		{"-1 skips the check", true, ids(1), ids(1, 2), []int64{-1, -1}, 0},
		{"no epochs at all", true, ids(1), ids(1, 2), nil, 0},
		{"a member already in the ISR is not checked", true, ids(1, 2), ids(1, 2, 3), []int64{-1, 0, 0}, 0},
		{"epochs not matching the ISR", true, ids(1), ids(1, 2), []int64{-1}, ErrInvalidRequest},
		{"without KIP-903 every epoch stays 0", false, ids(1), ids(1, 2), []int64{-1, 1}, ErrIneligibleReplica},
		{"without KIP-903, epoch 0", false, ids(1), ids(1, 2), []int64{-1, 0}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.FenceFailedReplicas, cfg.RejectIneligibleReplicas, cfg.IsrBrokerEpochs = true, true, tc.kip903
			c := mustNew(t, cfg, 1, 2, 3)
			if err := c.CreateTopic(tp0.Topic, [][]BrokerID{{1, 2, 3}}); err != nil {
				t.Fatal(err)
			}
			for range 2 {
				c.RegisterBroker(2) // broker 2 restarted twice
			}
			want := map[bool]int64{true: 2, false: 0}[tc.kip903]
			if got := c.BrokerEpoch(2); got != want || c.BrokerEpoch(1) != 0 || c.Snapshot().BrokerEpochs[2] != want {
				t.Fatalf("broker epochs 1: %d, 2: %d, want 0, %d", c.BrokerEpoch(1), got, want)
			}
			p := c.partitions[tp0]
			p.LeaderAndIsr = LeaderAndIsr{Leader: 1, LeaderEpoch: 0, Isr: tc.isr, PartitionEpoch: 0}
			_, err := c.AlterPartition(AlterPartitionRequest{BrokerID: 1, Partition: tp0, LeaderEpoch: 0, PartitionEpoch: 0,
				NewIsr: tc.newIsr, NewIsrBrokerEpochs: tc.epochs})
			if tc.wantErr == 0 && err != nil {
				t.Fatalf("refused: %v", err)
			}
			if tc.wantErr != 0 && !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
		})
	}
}
