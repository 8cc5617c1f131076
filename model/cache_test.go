package model

import (
	"slices"
	"testing"
)

func entries(pairs ...int) []Entry {
	var c []Entry
	for i := 0; i < len(pairs); i += 2 {
		c = append(c, Entry{Epoch: pairs[i], Start: pairs[i+1]})
	}
	return c
}

func TestAssign(t *testing.T) {
	cases := []struct {
		c    []Entry
		e, s int
		want []Entry
	}{
		{nil, 0, 0, entries(0, 0)},
		{entries(0, 0), 0, 3, entries(0, 0)},             // same epoch, later start: no-op
		{entries(0, 0, 2, 3), 1, 2, entries(0, 0, 1, 2)}, // drops epoch >= 1 and start >= 2
		{entries(0, 0, 2, 3), 3, 5, entries(0, 0, 2, 3, 3, 5)},
		{entries(0, 0, 2, 3), 2, 1, entries(0, 0, 2, 1)}, // same epoch, earlier start: replaced
	}
	cfg := &Config{Truncation: LeaderEpoch}
	for _, c := range cases {
		if got := Assign(cfg, c.c, c.e, c.s); !equalEntries(got, c.want) {
			t.Errorf("Assign(%v, %d, %d) = %v, want %v", c.c, c.e, c.s, got, c.want)
		}
	}
}

// Kafka 0.11.0-2.0 (LeaderEpochFileCache.assign): append only an epoch above
// the latest at or past its start; never remove. 0.10.2 has no cache.
func TestAssignPerRelease(t *testing.T) {
	k101 := &Config{Truncation: Kip101}
	cases := []struct {
		c    []Entry
		e, s int
		want []Entry
	}{
		{nil, 0, 0, entries(0, 0)},
		{entries(0, 0), 0, 3, entries(0, 0)},
		{entries(0, 0, 2, 3), 1, 2, entries(0, 0, 2, 3)}, // an older epoch: a no-op (2.1 would drop 2@3)
		{entries(0, 0, 2, 3), 3, 5, entries(0, 0, 2, 3, 3, 5)},
		{entries(0, 0, 2, 3), 3, 2, entries(0, 0, 2, 3)}, // start below the latest: a no-op
		{entries(0, 0, 2, 3), 2, 1, entries(0, 0, 2, 3)}, // same epoch: a no-op
	}
	for _, c := range cases {
		if got := Assign(k101, c.c, c.e, c.s); !equalEntries(got, c.want) {
			t.Errorf("0.11 Assign(%v, %d, %d) = %v, want %v", c.c, c.e, c.s, got, c.want)
		}
	}
	if got := Assign(&Config{Truncation: HighWatermark}, nil, 0, 0); len(got) != 0 {
		t.Errorf("0.10.2 has no cache: %v", got)
	}
}

func equalEntries(a, b []Entry) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// The leader's answers and the follower's truncation points of
// shared/design.md §6, cases c to g.
func TestEndOffsetForDesignCases(t *testing.T) {
	cases := []struct {
		name     string
		leader   []Entry
		leaderLE int
		asked    int
		want     EpochOffset
	}{
		{"c", entries(1, 0, 2, 2), 2, 1, EpochOffset{1, 2}},
		{"d", entries(1, 0, 3, 2), 2, 2, EpochOffset{1, 2}},
		{"e", entries(1, 0, 3, 2, 4, 4), 4, 2, EpochOffset{1, 2}},
		{"f", entries(1, 0, 3, 2), 2, 2, EpochOffset{1, 2}},
		{"g", entries(1, 0, 3, 1, 4, 2), 2, 2, EpochOffset{1, 1}},
		{"latest", entries(1, 0, 3, 2), 5, 3, EpochOffset{3, 5}},
		{"undefined", entries(1, 0), 5, -1, EpochOffset{-1, -1}},
		{"above all", entries(1, 0), 5, 4, EpochOffset{-1, -1}},
		{"below first", entries(2, 1), 5, 1, EpochOffset{1, 1}},
	}
	for _, c := range cases {
		if got := EndOffsetFor(c.leader, c.leaderLE, c.asked); got != c.want {
			t.Errorf("%s: EndOffsetFor(%v, %d, %d) = %v, want %v", c.name, c.leader, c.leaderLE, c.asked, got, c.want)
		}
	}
	// The follower's side of f and g.
	cfg := &Config{Replicas: []Replica{"a", "b"}, Truncation: LeaderEpoch, Acks: "1", MinInsyncReplicas: 1}
	f := Init(cfg)
	f.Log[0] = []Record{{1, 1}, {2, 2}, {3, 2}}
	f.EpochCache[0] = entries(1, 0, 2, 1)
	f.Hw[0] = 0
	if got := TruncationTarget(cfg, &f, 0, EpochOffset{Epoch: 1, Offset: 2}, 0); got != (Target{1, true}) {
		t.Errorf("f: %v, want truncate to 1", got)
	}
	g := Init(cfg)
	g.Log[0] = []Record{{1, 2}}
	g.EpochCache[0] = entries(2, 0)
	if got := TruncationTarget(cfg, &g, 0, EpochOffset{Epoch: 1, Offset: 1}, 0); got != (Target{0, true}) {
		t.Errorf("g: %v, want truncate to 0", got)
	}
	// KIP-279's loop: the follower does not know the leader's epoch and asks again.
	k := Init(cfg)
	k.Log[0] = []Record{{1, 0}, {2, 1}, {3, 3}}
	k.EpochCache[0] = entries(0, 0, 1, 1, 3, 2)
	if got := TruncationTarget(cfg, &k, 0, EpochOffset{Epoch: 2, Offset: 4}, 0); got != (Target{2, false}) {
		t.Errorf("KIP-279: %v, want truncate to 2 and ask again", got)
	}
}

func TestKip101EndOffset(t *testing.T) {
	c := entries(0, 0, 2, 1, 4, 4)
	for _, x := range []struct{ e, want int }{{4, 6}, {3, 4}, {1, 1}, {0, 1}, {-1, -1}, {5, -1}} {
		if got := Kip101EndOffset(c, 6, x.e); got != x.want {
			t.Errorf("Kip101EndOffset(%v, 6, %d) = %d, want %d", c, x.e, got, x.want)
		}
	}
	if got := Kip101EndOffset(nil, 3, -1); got != -1 {
		t.Errorf("empty cache, epoch -1: %d, want -1 (0.11's endOffsetFor tests UNDEFINED_EPOCH first)", got)
	}
}

// An UNDEFINED answer truncates to the HW in 0.11 and to the fetch offset in
// 2.1+ (AbstractFetcherThread.getOffsetTruncationState).
func TestUndefinedAnswerPerRelease(t *testing.T) {
	for _, c := range []struct {
		policy string
		want   int
	}{{Kip101, 1}, {LeaderEpoch, 3}, {DivergingEpoch, 3}} {
		cfg := &Config{Replicas: []Replica{"a", "b"}, Truncation: c.policy, Acks: "1", MinInsyncReplicas: 1}
		s := Init(cfg)
		s.Log[0] = []Record{{1, 0}, {2, 0}, {3, 0}}
		s.EpochCache[0] = entries(0, 0)
		s.Hw[0] = 1
		if got := TruncationTarget(cfg, &s, 0, EpochOffset{-1, -1}, 3); got != (Target{c.want, true}) {
			t.Errorf("%s: %v, want truncate to %d", c.policy, got, c.want)
		}
	}
}

// TruncateFromEnd with Kafka's UNDEFINED_EPOCH_OFFSET (-1), or any negative
// offset, changes nothing, as Kafka's LeaderEpochFileCache.truncateFromEnd
// and impl/storage's cache do (it used to empty the cache).
func TestTruncateFromEndUndefinedOffset(t *testing.T) {
	c := []Entry{{Epoch: 0, Start: 0}, {Epoch: 2, Start: 3}}
	for _, o := range []int{-1, -5} {
		if got := TruncateFromEnd(c, o); !slices.Equal(got, c) {
			t.Errorf("TruncateFromEnd(%v, %d) = %v, want it unchanged", c, o, got)
		}
	}
	if got := TruncateFromEnd(c, 0); len(got) != 0 {
		t.Errorf("TruncateFromEnd(%v, 0) = %v, want empty", c, got)
	}
}
