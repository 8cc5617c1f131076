package cluster

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hwepoch/hwepoch/impl/broker"
	"github.com/hwepoch/hwepoch/impl/release"
	"github.com/hwepoch/hwepoch/impl/storage"
)

// Broker ids of the two-replica scenarios.
const (
	A = 1
	B = 2
)

func newStepped(t *testing.T, brokers int, policy storage.Policy, mod func(*Config)) *Cluster {
	t.Helper()
	cfg := DefaultConfig(t.TempDir())
	cfg.Brokers = brokers
	cfg.Policy = policy
	if mod != nil {
		mod(&cfg)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return c
}

// apply runs steps, failing the test (with the cluster's state) at the
// first refused one.
func apply(t *testing.T, c *Cluster, steps []Step) {
	t.Helper()
	for i, s := range steps {
		if err := c.Apply(s); err != nil {
			t.Fatalf("step %d %s: %v\n%s", i+1, s, err, dump(c.Snapshot()))
		}
	}
}

// dump renders a snapshot as one line per broker.
func dump(s Snapshot) string {
	var b strings.Builder
	for _, br := range s.Brokers {
		p := br.Partition
		fmt.Fprintf(&b, "  broker %d %-8s epoch %2d leader %2d LEO %d HW %d ckpt %d isr %v fetch %-10s log %s cache %v\n",
			br.ID, br.Role, p.LeaderEpoch, p.Leader, p.LEO, p.HW, p.HWCheckpoint, p.Isr, p.FetchState, logString(p.Log), p.EpochCache)
	}
	fmt.Fprintf(&b, "  controller leader %d epoch %d isr %v; acked %v; committed %v\n",
		s.Controller.Leader, s.Controller.Epoch, s.Controller.Isr, s.Producer.Acked, s.Committed)
	return b.String()
}

func logString(recs []Record) string {
	parts := make([]string, len(recs))
	for i, r := range recs {
		parts[i] = fmt.Sprintf("m%d@e%d", r.ID, r.Epoch)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// ids returns a replica's log as record ids.
func ids(s Snapshot, r int32) []int64 {
	for _, b := range s.Brokers {
		if b.ID == r {
			out := []int64{}
			for _, x := range b.Partition.Log {
				out = append(out, x.ID)
			}
			return out
		}
	}
	return nil
}

func brokerOf(s Snapshot, r int32) BrokerSnapshot {
	for _, b := range s.Brokers {
		if b.ID == r {
			return b
		}
	}
	return BrokerSnapshot{}
}

// lostAcked lists the acknowledged records the controller's leader does not
// hold at their offset (the spec's NoAckedLoss, violated).
func lostAcked(s Snapshot) []OffsetID {
	return missing(s, s.Producer.Acked)
}

func missing(s Snapshot, xs []OffsetID) []OffsetID {
	var out []OffsetID
	log := brokerOf(s, s.Controller.Leader).Partition.Log
	for _, a := range xs {
		if a.Offset >= int64(len(log)) || log[a.Offset].ID != a.ID {
			out = append(out, a)
		}
	}
	return out
}

// diverged reports the first offset below both HWs where two replicas that
// are reconciled in the same epoch differ (the spec's NoDivergence,
// violated), or -1.
func diverged(s Snapshot, r1, r2 int32) int64 {
	a, b := brokerOf(s, r1).Partition, brokerOf(s, r2).Partition
	for o := int64(0); o < min(a.HW, b.HW); o++ {
		if a.Log[o] != b.Log[o] {
			return o
		}
	}
	return -1
}

func reconciled(p PartitionSnapshot) bool {
	return p.Role == string(broker.Leader) || (p.Role == string(broker.Follower) && p.FetchState == string(broker.Fetching))
}

// becomeFollower is HandleLeaderAndIsr(f) followed, under the epoch
// policies, by the truncation phase against leader l: rounds
// OffsetsForLeaderEpoch round trips.
func becomeFollower(policy storage.Policy, f, l int64, rounds int) []Step {
	steps := []Step{S("HandleLeaderAndIsr", f)}
	if rel, _ := release.Of(policy); !rel.UsesOffsetsForLeaderEpoch() {
		return steps // 0.10.2 truncated to its HW, 3.9+ reconciles by fetching
	}
	for range rounds {
		steps = append(steps, S("SendOffsetsForLeaderEpoch", f), S("HandleOffsetsForLeaderEpoch", l, f),
			S("HandleOffsetsForLeaderEpochResponse", f))
	}
	return steps
}

// fetchRound is one Fetch round trip of f from l that l counts: the read,
// the update of l's view of f, the response (which carries l's HW from
// before the update).
func fetchRound(f, l int64) []Step {
	return []Step{S("SendFetch", f), S("HandleFetch", l, f), S("UpdateFollowerFetchState", l, f), S("HandleFetchResponse", f)}
}

// divergingRound is, under truncation on fetch (3.9+), one Fetch of f that
// leader l answers with divergingEpoch at once (no update to wait for), and
// on which f truncates; nothing under the other policies.
func divergingRound(policy storage.Policy, f, l int64) []Step {
	if rel, _ := release.Of(policy); rel.Reconcile != release.ReconcileDivergingEpoch {
		return nil
	}
	return []Step{S("SendFetch", f), S("HandleFetch", l, f), S("HandleFetchResponse", f)}
}

func cat(parts ...[]Step) []Step {
	var out []Step
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}
