package client_test

import (
	"slices"
	"testing"
	"time"

	"github.com/hwepoch/hwepoch/impl/client"
	"github.com/hwepoch/hwepoch/impl/cluster"
	"github.com/hwepoch/hwepoch/impl/netsim"
	"github.com/hwepoch/hwepoch/impl/protocol"
)

// consume runs the stepped cluster's consumer: a Fetch whose request and
// answer the test delivers (the stepped network moves nothing by itself).
func consume(t *testing.T, c *cluster.Cluster, offset int64) ([]protocol.Record, int64) {
	t.Helper()
	type out struct {
		recs []protocol.Record
		hw   int64
		err  error
	}
	done := make(chan out, 1)
	ctx := testCtx(t)
	go func() {
		recs, hw, err := c.Consumer().Fetch(ctx, c.Focus(), offset)
		done <- out{recs, hw, err}
	}()
	net := c.Network()
	deliver := func(what string, match func(netsim.Message) bool) {
		var id netsim.MsgID
		waitFor(t, what, func() bool {
			for _, m := range net.InFlight() {
				if match(m) {
					id = m.ID
					return true
				}
			}
			return false
		})
		if err := net.Deliver(id); err != nil {
			t.Fatal(err)
		}
	}
	deliver("the consumer's fetch", func(m netsim.Message) bool { return m.From == cluster.ConsumerNode })
	deliver("the answer to the consumer", func(m netsim.Message) bool { return m.To == cluster.ConsumerNode })
	o := <-done
	if o.err != nil {
		t.Fatalf("Fetch(%d): %v", offset, o.err)
	}
	return o.recs, o.hw
}

// End to end on a stepped cluster with acks=1: records the producer has
// had acknowledged stay invisible to the consumer until the follower's
// fetches move the leader's HW past them.
func TestConsumerSeesAcknowledgedRecordsOnlyOnceCommitted(t *testing.T) {
	cfg := cluster.DefaultConfig(t.TempDir())
	cfg.Acks = protocol.AcksLeader
	cfg.Timing.RequestTimeout = 5 * time.Second // the consumer's; the test delivers promptly
	c, err := cluster.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	fetchRound := []cluster.Step{cluster.S("SendFetch", 2), cluster.S("HandleFetch", 1, 2),
		cluster.S("UpdateFollowerFetchState", 1, 2), cluster.S("HandleFetchResponse", 2)}
	run := func(steps ...cluster.Step) {
		t.Helper()
		if err := c.ApplyAll(steps); err != nil {
			t.Fatal(err)
		}
	}
	run(cluster.S("Elect", 1), cluster.S("HandleLeaderAndIsr", 1), cluster.S("HandleLeaderAndIsr", 2),
		cluster.S("SendOffsetsForLeaderEpoch", 2), cluster.S("HandleOffsetsForLeaderEpoch", 1, 2),
		cluster.S("HandleOffsetsForLeaderEpochResponse", 2),
		cluster.S("Produce", 1), cluster.S("Produce", 1))
	acked := c.Producer().Acked()
	if want := []client.OffsetID{{Offset: 0, ID: 1}, {Offset: 1, ID: 2}}; !slices.Equal(acked, want) {
		t.Fatalf("acked %v, want %v", acked, want)
	}
	if recs, hw := consume(t, c, 0); len(recs) != 0 || hw != 0 {
		t.Fatalf("before replication: Fetch = %v, HW %d; want nothing, HW 0", recs, hw)
	}
	run(fetchRound...) // the follower copies both records; the leader learns it next time
	if recs, hw := consume(t, c, 0); len(recs) != 0 || hw != 0 {
		t.Fatalf("after one fetch: Fetch = %v, HW %d; want nothing, HW 0", recs, hw)
	}
	run(fetchRound...)
	recs, hw := consume(t, c, 0)
	if hw != 2 || len(recs) != 2 {
		t.Fatalf("committed: Fetch = %v, HW %d; want two records, HW 2", recs, hw)
	}
	for i, r := range recs {
		if (client.OffsetID{Offset: r.Offset, ID: r.ID}) != acked[i] {
			t.Errorf("record %d is %+v, acknowledged as %+v", i, r, acked[i])
		}
	}
	if recs, hw := consume(t, c, 1); hw != 2 || len(recs) != 1 || recs[0].Offset != 1 {
		t.Errorf("from offset 1: Fetch = %v, HW %d", recs, hw)
	}
	if err := c.Err(); err != nil {
		t.Fatal(err)
	}
}
