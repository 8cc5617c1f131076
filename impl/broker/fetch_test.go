package broker

import (
	"slices"
	"testing"

	"github.com/hwepoch/hwepoch/impl/protocol"
	"github.com/hwepoch/hwepoch/impl/storage"
)

// The two steps of serving a fetch can be separated: what happens between
// them is not in the response, and the update is skipped by a broker that
// stopped leading.
func TestSplitFetch(t *testing.T) {
	h := newHarness(t, nil)
	h.leaderAndIsr(me, 0, 1, 2)
	h.produce(protocol.AcksLeader, 1)
	if got := h.read(2, 1, 0, -1); len(got) != 0 {
		t.Fatalf("answered before UpdateFollowerFetchState: %v", got)
	}
	if reads := h.b.FetchReads(tp); len(reads) != 1 || reads[0].Follower != 2 || reads[0].Partition.HighWatermark != 0 {
		t.Fatalf("parked reads %+v", reads)
	}
	if st := h.state(); st.FollowerLEO[2] != -1 || st.HW != 0 {
		t.Fatalf("the read updated the leader: %+v", st)
	}
	h.produce(protocol.AcksLeader, 2) // between the two steps
	if err := h.b.UpdateFollowerFetchState(tp, 2); err != nil {
		t.Fatal(err)
	}
	h.idle()
	got := h.take(FetcherNode(2, me))
	if len(got) != 1 {
		t.Fatalf("responses %v", got)
	}
	r := got[0].(protocol.FetchResponse).Partitions[0]
	if r.HighWatermark != 0 || r.LogEndOffset != 1 || len(r.Records) != 0 {
		t.Fatalf("response %+v: want the read's HW 0, LEO 1, no records", r)
	}
	if st := h.state(); st.FollowerLEO[2] != 1 || st.HW != 1 {
		t.Fatalf("after the update: view %d HW %d, want 1, 1", st.FollowerLEO[2], st.HW)
	}
	if err := h.b.UpdateFollowerFetchState(tp, 2); err == nil {
		t.Fatal("a second update of the same fetch")
	}
	if n := countEvents(h.events, ActHandleFetch); n != 1 {
		t.Errorf("%d HandleFetch events, want 1", n)
	}
	if n := countEvents(h.events, ActUpdateFollowerFetchState); n != 1 {
		t.Errorf("%d UpdateFollowerFetchState events, want 1", n)
	}

	// Leadership lost between the steps: the answer goes out, nothing is
	// counted.
	h.read(2, 2, 0, -1)
	h.leaderAndIsr(2, 1, 2, 1)
	if err := h.b.UpdateFollowerFetchState(tp, 2); err != nil {
		t.Fatal(err)
	}
	h.idle()
	if got := h.take(FetcherNode(2, me)); len(got) != 1 {
		t.Fatalf("responses %v", got)
	}
	if st := h.state(); st.Role != Follower || st.HW != 1 {
		t.Fatalf("after an update as follower: %+v", st)
	}
}

func countEvents(evs []Event, action string) int {
	n := 0
	for _, e := range evs {
		if e.Action == action {
			n++
		}
	}
	return n
}

// DivergingEpoch, the leader's half: a fetch whose lastFetchedEpoch the
// leader's log does not continue is answered divergingEpoch with no
// records, and the follower's fetch state is not updated (3.9, KAFKA-13141);
// the mutant updates it.
func TestDivergingFetchLeader(t *testing.T) {
	for _, mutant := range []bool{false, true} {
		h := newMutantHarness(t, storage.DivergingEpoch, MutantUpdateDivergingFetchState, mutant)
		h.leaderAndIsr(me, 0, 1, 2)
		h.produce(protocol.AcksLeader, 1)
		h.produce(protocol.AcksLeader, 2)
		h.leaderAndIsr(me, 2, 1, 2) // re-elected: epoch 2 starts at 2
		h.produce(protocol.AcksLeader, 3)
		// Follower 2 holds [e0 e0 e1 e1]: epoch 1 is not the leader's.
		r := h.fetchLast(2, 4, 2, 1)
		if !r.Diverging || r.DivergingEpoch != 0 || r.DivergingEndOffset != 2 || len(r.Records) != 0 || r.Error != protocol.None {
			t.Fatalf("mutant=%t: response %+v, want divergingEpoch (0, 2) and no records", mutant, r)
		}
		view := h.state().FollowerLEO[2]
		if want := int64(-1); !mutant && view != want {
			t.Errorf("the leader counted a diverging fetch: view %d", view)
		}
		if mutant && view != 4 {
			t.Errorf("mutant: view %d, want the diverging fetch offset 4", view)
		}
		// A fetch the log continues is served: records from 2, counted.
		r = h.fetchLast(2, 2, 2, 0)
		if r.Diverging || len(r.Records) != 1 || h.state().FollowerLEO[2] != 2 {
			t.Fatalf("mutant=%t: continuing fetch %+v, view %d", mutant, r, h.state().FollowerLEO[2])
		}
	}
	// Older releases do not check: the same fetch is served and counted.
	h := newHarness(t, nil)
	h.leaderAndIsr(me, 0, 1, 2)
	h.produce(protocol.AcksLeader, 1)
	if r := h.fetchLast(2, 1, 0, 7); r.Diverging || r.Error != protocol.None {
		t.Fatalf("2.1 checked lastFetchedEpoch: %+v", r)
	}
}

// DivergingEpoch, the follower's half: it fetches from its LEO with its
// latest epoch, truncates on divergingEpoch by getOffsetTruncationState,
// keeps fetching, and does not take the response's HW; the mutant ignores
// the answer.
func TestDivergingFetchFollower(t *testing.T) {
	for _, mutant := range []bool{false, true} {
		h := newMutantHarness(t, storage.DivergingEpoch, MutantIgnoreDivergingEpoch, mutant)
		// Records of epoch 0 then 1 as leader, HW 1 (follower 2 at 1).
		h.leaderAndIsr(me, 0, 1, 2)
		h.produce(protocol.AcksLeader, 1)
		h.produce(protocol.AcksLeader, 2)
		h.fetch(2, 1, 0)
		h.leaderAndIsr(me, 1, 1, 2)
		h.produce(protocol.AcksLeader, 3)
		h.leaderAndIsr(2, 2, 2, 1)
		// Fetching at once, but reported Truncating (the spec's state)
		// until a fetch is answered without divergence.
		if st := h.state(); st.FetchState != Truncating || st.LEO != 3 || st.HW != 1 {
			t.Fatalf("a 3.9 follower: %+v, want (unreconciled) Truncating at LEO 3, HW 1", st)
		}
		if err := h.b.SendFetch(tp); err != nil {
			t.Fatal(err)
		}
		h.idle()
		req := h.take(Node(2))[0].(protocol.FetchRequest)
		if p := req.Partitions[0]; p.FetchOffset != 3 || p.LastFetchedEpoch != 1 || p.CurrentLeaderEpoch != 2 {
			t.Fatalf("fetch %+v, want offset 3, lastFetchedEpoch 1, epoch 2", p)
		}
		// The leader never had epoch 1; its epoch 0 ends at 2.
		h.deliver(Node(2), FetcherNode(me, 2), protocol.FetchResponse{Header: protocol.Header{CorrelationID: req.CorrelationID},
			Partitions: []protocol.FetchResponsePartition{{TopicPartition: tp, FetchOffset: 3, CurrentLeaderEpoch: 2,
				HighWatermark: -1, LogEndOffset: 5, Diverging: true, DivergingEpoch: 0, DivergingEndOffset: 2}}})
		st := h.state()
		if mutant {
			if st.LEO != 3 {
				t.Fatalf("mutant truncated: LEO %d", st.LEO)
			}
			continue
		}
		if st.LEO != 2 || st.HW != 1 || st.FetchState != Truncating || st.FetchInFlight != 0 ||
			!slices.Equal(st.EpochCache, []EpochEntry{{0, 0}}) {
			t.Fatalf("after divergingEpoch: %+v, want LEO 2, HW 1, still unreconciled (Truncating), cache [(0,0)]", st)
		}
		if err := h.b.SendFetch(tp); err != nil {
			t.Fatal(err)
		}
		h.idle()
		req = h.take(Node(2))[0].(protocol.FetchRequest)
		if p := req.Partitions[0]; p.FetchOffset != 2 || p.LastFetchedEpoch != 0 {
			t.Fatalf("next fetch %+v, want offset 2, lastFetchedEpoch 0", p)
		}
	}
}

// A fetch its sender sent before crashing: served and counted by the
// leader under releases without broker epochs in Fetch, its response going
// nowhere; dropped under 3.9 (KIP-903, KAFKA-15221).
func TestOrphanFetch(t *testing.T) {
	for _, c := range []struct {
		p       storage.Policy
		counted bool
	}{{storage.LeaderEpoch, true}, {storage.HighWatermark, true}, {storage.DivergingEpoch, false}, {storage.EligibleLeader, false}} {
		t.Run(string(c.p), func(t *testing.T) {
			h := newHarness(t, func(cfg *Config) { cfg.Policy = c.p })
			h.leaderAndIsr(me, 0, 1, 2)
			h.produce(protocol.AcksLeader, 1)
			// The fetch is sent (Lamport 5), then its sender crashes (10).
			id, err := h.eps[FetcherNode(2, me)].Send(Node(me), protocol.FetchRequest{
				Header: protocol.Header{CorrelationID: h.next(), Lamport: 5}, ReplicaID: 2,
				Partitions: []protocol.FetchPartition{{TopicPartition: tp, FetchOffset: 1, CurrentLeaderEpoch: 0, LastFetchedEpoch: -1}}})
			if err != nil {
				t.Fatal(err)
			}
			h.b.ConnectionLost(2, 10)
			if err := h.net.Deliver(id); err != nil {
				t.Fatal(err)
			}
			h.idle()
			if c.counted {
				if err := h.b.UpdateFollowerFetchState(tp, 2); err != nil {
					t.Fatal(err)
				}
				h.idle()
			} else if err := h.b.UpdateFollowerFetchState(tp, 2); err == nil {
				t.Fatal("3.9 parked a stale fetch")
			}
			if got := h.take(FetcherNode(2, me)); len(got) != 0 {
				t.Fatalf("an orphan was answered: %v", got)
			}
			if view, want := h.state().FollowerLEO[2], map[bool]int64{true: 1, false: -1}[c.counted]; view != want {
				t.Fatalf("view of the crashed follower %d, want %d", view, want)
			}
		})
	}
	// A read parked before the crash: counted where stale fetches are
	// served, dropped under 3.9.
	for _, c := range []struct {
		p       storage.Policy
		counted bool
	}{{storage.Kip101, true}, {storage.DivergingEpoch, false}, {storage.EligibleLeader, false}} {
		h := newHarness(t, func(cfg *Config) { cfg.Policy = c.p })
		h.leaderAndIsr(me, 0, 1, 2)
		h.produce(protocol.AcksLeader, 1)
		h.read(2, 1, 0, -1)
		h.b.ConnectionLost(2, h.b.clock.Tick()+1)
		err := h.b.UpdateFollowerFetchState(tp, 2)
		if (err == nil) != c.counted {
			t.Fatalf("%s: UpdateFollowerFetchState after the crash: %v", c.p, err)
		}
		h.idle()
		if got := h.take(FetcherNode(2, me)); len(got) != 0 {
			t.Fatalf("%s: an orphan was answered: %v", c.p, got)
		}
	}
}

// KIP-841 (3.3+): only a live broker joins the ISR; older releases add a
// caught-up follower whatever the leader knows of it. KAFKA-7128 (2.1+):
// not below the leader's epoch start.
func TestExpandIsrPerRelease(t *testing.T) {
	for _, c := range []struct {
		p        storage.Policy
		liveOnly bool
	}{{storage.LeaderEpoch, false}, {storage.DivergingEpoch, true}, {storage.EligibleLeader, true}} {
		h := newHarness(t, func(cfg *Config) { cfg.Policy = c.p })
		h.leaderAndIsr(me, 0, 1)
		h.produce(protocol.AcksLeader, 1)
		h.fetch(2, 1, 0)
		h.b.ConnectionLost(2, 100)
		_, err := h.b.ExpandIsr(tp, 2)
		if (err != nil) != c.liveOnly {
			t.Errorf("%s: expanding with dead broker 2: %v", c.p, err)
		}
	}
	// Epoch start: a new leader at LEO 2 with HW 1 (follower 3's view
	// unknown); follower 2 fetches at 1, the HW but below the epoch's
	// start. 0.11 adds it, 2.1 does not (KAFKA-7128).
	for _, c := range []struct {
		p    storage.Policy
		adds bool
	}{{storage.Kip101, true}, {storage.LeaderEpoch, false}} {
		h := newHarness(t, func(cfg *Config) { cfg.Policy = c.p })
		h.leaderAndIsr(me, 0, 1, 2)
		h.produce(protocol.AcksLeader, 1)
		h.produce(protocol.AcksLeader, 2)
		h.fetch(2, 1, 0) // HW 1
		h.leaderAndIsr(2, 1, 2, 1)
		h.leaderAndIsr(me, 2, 1, 3)
		if st := h.state(); st.HW != 1 || st.LEO != 2 {
			t.Fatalf("%s: set-up HW %d LEO %d, want 1, 2", c.p, st.HW, st.LEO)
		}
		h.fetch(2, 1, 2)
		_, err := h.b.ExpandIsr(tp, 2)
		if (err == nil) != c.adds {
			t.Errorf("%s: follower at the HW below the epoch start: %v, want added=%t", c.p, err, c.adds)
		}
	}
}
