package broker

import (
	"slices"
	"testing"

	"github.com/hwepoch/hwepoch/impl/protocol"
	"github.com/hwepoch/hwepoch/impl/storage"
)

func policyOf(t *testing.T, s string) storage.Policy {
	t.Helper()
	p, err := storage.ParsePolicy(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// followerWithLog makes broker 1 hold records of epoch 0 (as leader, ISR
// {1,2} so its HW stays 0, then hw records passed by follower 2's fetch),
// then follower of broker 2 in epoch `epoch`.
func followerWithLog(t *testing.T, policy storage.Policy, records int, hw int64, epoch int32) *harness {
	h := newHarness(t, func(c *Config) { c.Policy = policy })
	h.leaderAndIsr(me, 0, 1, 2)
	for id := int64(1); id <= int64(records); id++ {
		h.produce(protocol.AcksLeader, id)
	}
	if hw > 0 {
		h.fetch(2, hw, 0)
	}
	if got := h.state().HW; got != hw {
		t.Fatalf("set-up HW %d, want %d", got, hw)
	}
	h.leaderAndIsr(2, epoch, 2, 1)
	return h
}

// sendOffsets makes the fetcher send its OffsetsForLeaderEpoch and returns
// the request's partition.
func (h *harness) sendOffsets() protocol.OffsetsForLeaderEpochRequest {
	h.t.Helper()
	if err := h.b.SendOffsetsForLeaderEpoch(tp); err != nil {
		h.t.Fatal(err)
	}
	h.idle()
	got := h.take(Node(2))
	if len(got) != 1 {
		h.t.Fatalf("want one request to the leader, got %v", got)
	}
	return got[0].(protocol.OffsetsForLeaderEpochRequest)
}

// answerOffsets delivers the leader's answer to the fetcher.
func (h *harness) answerOffsets(req protocol.OffsetsForLeaderEpochRequest, epoch int32, offset int64, code protocol.Error) {
	h.t.Helper()
	h.deliver(Node(2), FetcherNode(me, 2), protocol.OffsetsForLeaderEpochResponse{
		Header: protocol.Header{CorrelationID: req.CorrelationID},
		Partitions: []protocol.EpochEndOffset{{TopicPartition: tp, Error: code, LeaderEpoch: epoch, EndOffset: offset,
			CurrentLeaderEpoch: req.Partitions[0].CurrentLeaderEpoch}},
	})
}

// HighWatermark truncates to the HW on becoming follower and fetches at
// once; the epoch policies keep the log and enter the truncation phase.
func TestBecomeFollowerPerPolicy(t *testing.T) {
	hw := followerWithLog(t, storage.HighWatermark, 3, 1, 1)
	if st := hw.state(); st.LEO != 1 || st.FetchState != Fetching || st.Role != Follower || st.Leader != 2 || st.LeaderEpoch != 1 {
		t.Errorf("HighWatermark: %+v, want LEO 1, Fetching, follower of 2 in epoch 1", st)
	}
	if err := hw.b.SendOffsetsForLeaderEpoch(tp); err == nil {
		t.Errorf("HighWatermark follower sent OffsetsForLeaderEpoch")
	}
	for _, p := range []storage.Policy{storage.Kip101, storage.LeaderEpoch} {
		h := followerWithLog(t, p, 3, 1, 1)
		if st := h.state(); st.LEO != 3 || st.FetchState != Truncating {
			t.Errorf("%s: LEO %d, %s; want 3, Truncating", p, st.LEO, st.FetchState)
		}
		if err := h.b.SendFetch(tp); err == nil {
			t.Errorf("%s: a truncating follower sent a Fetch", p)
		}
	}
}

// The truncation phase: the request carries the latest epoch and the
// current one; the answer is applied per fetcher.TruncationTarget, with the
// KIP-279 loop under LeaderEpoch; one request at a time; a stale answer is
// dropped.
func TestTruncationPhase(t *testing.T) {
	t.Run("LeaderEpoch", func(t *testing.T) {
		h := followerWithLog(t, storage.LeaderEpoch, 3, 0, 2)
		req := h.sendOffsets()
		if p := req.Partitions[0]; p.LeaderEpoch != 0 || p.CurrentLeaderEpoch != 2 {
			t.Fatalf("request asks (%d, current %d), want (0, current 2)", p.LeaderEpoch, p.CurrentLeaderEpoch)
		}
		if err := h.b.SendOffsetsForLeaderEpoch(tp); err == nil {
			t.Fatal("a second request went out with one in flight")
		}
		h.answerOffsets(req, 0, 2, protocol.None) // epoch 0 ends at 2 on the leader
		if st := h.state(); st.LEO != 2 || st.FetchState != Fetching || st.FetchInFlight != 0 {
			t.Fatalf("after answer (0, 2): LEO %d, %s, slot %d; want 2, Fetching, free", st.LEO, st.FetchState, st.FetchInFlight)
		}
	})
	t.Run("KIP-279 loop", func(t *testing.T) {
		// We hold epochs 0 (offset 0) and 2 (offsets 1-2), having led
		// twice; the leader answers with epoch 1, which we never had.
		h := newHarness(t, nil)
		h.leaderAndIsr(me, 0, 1, 2)
		h.produce(protocol.AcksLeader, 1)
		h.leaderAndIsr(me, 2, 1, 2)
		h.produce(protocol.AcksLeader, 2)
		h.produce(protocol.AcksLeader, 3)
		h.leaderAndIsr(2, 3, 2, 1)
		req := h.sendOffsets()
		if req.Partitions[0].LeaderEpoch != 2 {
			t.Fatalf("asked about epoch %d, want 2", req.Partitions[0].LeaderEpoch)
		}
		h.answerOffsets(req, 1, 2, protocol.None) // leader: largest epoch <= 2 is 1, ends at 2
		// We never had epoch 1: truncate to our end of epoch 0 (1), ask again.
		if st := h.state(); st.LEO != 1 || st.FetchState != Truncating {
			t.Fatalf("after (1, 2): LEO %d, %s; want 1, Truncating", st.LEO, st.FetchState)
		}
		req = h.sendOffsets()
		if req.Partitions[0].LeaderEpoch != 0 {
			t.Fatalf("second round asks about %d, want 0", req.Partitions[0].LeaderEpoch)
		}
		h.answerOffsets(req, 0, 1, protocol.None)
		if st := h.state(); st.LEO != 1 || st.FetchState != Fetching {
			t.Fatalf("after (0, 1): LEO %d, %s; want 1, Fetching", st.LEO, st.FetchState)
		}
	})
	t.Run("Kip101", func(t *testing.T) {
		h := followerWithLog(t, storage.Kip101, 3, 0, 2)
		req := h.sendOffsets()
		h.answerOffsets(req, -1, 1, protocol.None)
		if st := h.state(); st.LEO != 1 || st.FetchState != Fetching {
			t.Fatalf("Kip101 after answer 1: LEO %d, %s; want 1, Fetching", st.LEO, st.FetchState)
		}
	})
	t.Run("undefined answer falls back to the HW", func(t *testing.T) {
		h := followerWithLog(t, storage.LeaderEpoch, 3, 1, 2)
		req := h.sendOffsets()
		h.answerOffsets(req, -1, -1, protocol.None)
		if st := h.state(); st.LEO != 1 || st.FetchState != Fetching {
			t.Fatalf("after (-1, -1): LEO %d, %s; want HW 1, Fetching", st.LEO, st.FetchState)
		}
	})
	t.Run("errors and stale answers change nothing", func(t *testing.T) {
		h := followerWithLog(t, storage.LeaderEpoch, 3, 0, 2)
		req := h.sendOffsets()
		h.answerOffsets(req, 0, 0, protocol.FencedLeaderEpoch)
		if st := h.state(); st.LEO != 3 || st.FetchState != Truncating || st.FetchInFlight != 0 {
			t.Fatalf("after a fenced answer: %+v", st)
		}
		req = h.sendOffsets()
		h.leaderAndIsr(2, 3, 2, 1) // a newer epoch while the request is out
		h.answerOffsets(req, 0, 0, protocol.None)
		if st := h.state(); st.LEO != 3 || st.FetchState != Truncating || st.LeaderEpoch != 3 {
			t.Fatalf("a stale answer was applied: %+v", st)
		}
	})
}

// A fetch response is applied only for the current fetch: from the leader,
// in the epoch, at the LEO; HW = min(leader HW, LEO); OFFSET_OUT_OF_RANGE
// with a shorter leader truncates to the leader's LEO.
func TestFetchResponse(t *testing.T) {
	h := followerWithLog(t, storage.HighWatermark, 3, 3, 1) // HW 3: nothing truncated
	send := func() protocol.FetchRequest {
		if err := h.b.SendFetch(tp); err != nil {
			t.Fatal(err)
		}
		h.idle()
		got := h.take(Node(2))
		return got[0].(protocol.FetchRequest)
	}
	answer := func(req protocol.FetchRequest, r protocol.FetchResponsePartition) {
		r.TopicPartition, r.FetchOffset, r.CurrentLeaderEpoch = tp, req.Partitions[0].FetchOffset, req.Partitions[0].CurrentLeaderEpoch
		h.deliver(Node(2), FetcherNode(me, 2), protocol.FetchResponse{Header: protocol.Header{CorrelationID: req.CorrelationID},
			Partitions: []protocol.FetchResponsePartition{r}})
	}
	req := send()
	if p := req.Partitions[0]; p.FetchOffset != 3 || p.CurrentLeaderEpoch != 1 {
		t.Fatalf("fetch (%d, %d), want (3, 1)", p.FetchOffset, p.CurrentLeaderEpoch)
	}
	answer(req, protocol.FetchResponsePartition{Records: []protocol.Record{{Offset: 3, LeaderEpoch: 1, ID: 9}}, HighWatermark: 2, LogEndOffset: 4})
	if st := h.state(); st.LEO != 4 || st.HW != 2 || !slices.Equal(h.epochsOfLog(), []int32{0, 0, 0, 1}) {
		t.Fatalf("after the response: LEO %d HW %d epochs %v", st.LEO, st.HW, h.epochsOfLog())
	}
	if c := h.state().EpochCache; len(c) != 0 {
		t.Fatalf("cache %v under 0.10.2, which keeps none", c)
	}
	req = send()
	answer(req, protocol.FetchResponsePartition{Error: protocol.OffsetOutOfRange, HighWatermark: -1, LogEndOffset: 2})
	if st := h.state(); st.LEO != 2 || st.HW != 2 {
		t.Fatalf("out of range with leader LEO 2: LEO %d HW %d, want 2, 2", st.LEO, st.HW)
	}
	// A response for an older epoch is dropped, but frees the slot.
	req = send()
	h.leaderAndIsr(2, 2, 2, 1)
	answer(req, protocol.FetchResponsePartition{Records: []protocol.Record{{Offset: 2, LeaderEpoch: 1, ID: 10}}, HighWatermark: 3, LogEndOffset: 3})
	if st := h.state(); st.LEO != 2 || st.FetchInFlight != 0 {
		t.Fatalf("stale response applied or slot kept: %+v", st)
	}
}

// LeaderAndIsr is ignored unless its epoch is above the replica's; a
// resent request (same correlation id) is answered without an event.
func TestLeaderAndIsrStaleness(t *testing.T) {
	h := newHarness(t, nil)
	h.leaderAndIsr(me, 3, 1, 2)
	h.leaderAndIsr(2, 2, 2, 1) // older epoch
	h.leaderAndIsr(2, 3, 2, 1) // same epoch
	if st := h.state(); st.Role != Leader || st.LeaderEpoch != 3 {
		t.Fatalf("stale LeaderAndIsr applied: %s epoch %d", st.Role, st.LeaderEpoch)
	}
	h.leaderAndIsr(2, 4, 2, 1)
	if st := h.state(); st.Role != Follower || st.LeaderEpoch != 4 || st.Leader != 2 || len(st.Isr) != 0 {
		t.Fatalf("newer LeaderAndIsr not applied: %+v", st)
	}
	n := 0
	for _, e := range h.events {
		if e.Action == ActHandleLeaderAndIsr {
			n++
		}
	}
	if n != 4 {
		t.Fatalf("%d HandleLeaderAndIsr events, want 4 (one per request, applied or not)", n)
	}
	h.deliver(ctrlNode, Node(me), protocol.LeaderAndIsrRequest{Header: protocol.Header{CorrelationID: h.corr},
		Partitions: []protocol.LeaderAndIsrPartition{{TopicPartition: tp, Leader: 2, LeaderEpoch: 9, Isr: []int32{2}}}})
	if st := h.state(); st.LeaderEpoch != 4 {
		t.Fatalf("a resent request was applied again: epoch %d", st.LeaderEpoch)
	}
	if len(h.take(ctrlNode)) != 1 {
		t.Fatalf("a resent request was not answered")
	}
}
