package cluster

import (
	"cmp"
	"slices"
	"sync"

	"github.com/hwepoch/hwepoch/impl/protocol"
)

// OffsetID is a record at an offset (the spec's [offset, id]).
type OffsetID struct {
	Offset int64
	ID     int64
}

// history is the ghost set committed: every record that went below a
// leader's HW, per partition. Brokers report to it (broker.History); it
// outlives their crashes.
type history struct {
	mu   sync.Mutex
	sets map[protocol.TopicPartition]map[OffsetID]bool
}

func newHistory() *history {
	return &history{sets: map[protocol.TopicPartition]map[OffsetID]bool{}}
}

// Committed implements broker.History.
func (h *history) Committed(tp protocol.TopicPartition, offset, id int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.sets[tp]
	if s == nil {
		s = map[OffsetID]bool{}
		h.sets[tp] = s
	}
	s[OffsetID{offset, id}] = true
}

// list returns tp's set sorted by offset, then id.
func (h *history) list(tp protocol.TopicPartition) []OffsetID {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]OffsetID, 0, len(h.sets[tp]))
	for x := range h.sets[tp] {
		out = append(out, x)
	}
	sortOffsetIDs(out)
	return out
}

func sortOffsetIDs(xs []OffsetID) {
	slices.SortFunc(xs, func(a, b OffsetID) int {
		if c := cmp.Compare(a.Offset, b.Offset); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
}
