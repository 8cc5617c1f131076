package packed

import (
	"testing"

	"github.com/hwepoch/hwepoch/model"
)

// BenchmarkNext: one op is the successor relation of one state, over the
// reachable states of w-de-hw-pending in turn; packed.Next (and a held
// Succ) against model.NextPtr.
func BenchmarkNext(b *testing.B) {
	c := check(b, "w-de-hw-pending")
	cfg := &c.Config
	r := reachable(b, c)
	ms := make([]model.State, r.len())
	ps := make([]State, r.len())
	for k := range ms {
		var err error
		if ms[k], err = model.Decode(r.encoding(k)); err != nil {
			b.Fatal(err)
		}
		if err := FromModel(cfg, &ms[k], &ps[k]); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("packed", func(b *testing.B) {
		b.ReportAllocs()
		n := 0
		yield := func(model.ActionKind, int, int, int, *State) bool { n++; return true }
		for k := 0; b.Loop(); k++ {
			if err := Next(cfg, &ps[k%len(ps)], yield); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(n)/float64(b.N), "succs/op")
	})
	b.Run("packed-succ", func(b *testing.B) {
		s, err := NewSucc(cfg)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		n := 0
		yield := func(model.ActionKind, int, int, int, *State) bool { n++; return true }
		for k := 0; b.Loop(); k++ {
			if err := s.Next(&ps[k%len(ps)], yield); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(n)/float64(b.N), "succs/op")
	})
	b.Run("model", func(b *testing.B) {
		b.ReportAllocs()
		n := 0
		yield := func(model.Action, *model.State) bool { n++; return true }
		for k := 0; b.Loop(); k++ {
			if err := model.NextPtr(cfg, &ms[k%len(ms)], yield); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(n)/float64(b.N), "succs/op")
	})
}

// Next allocates nothing, with its pool warm or with a held Succ.
func TestNextAllocatesNothing(t *testing.T) {
	c := check(t, "w-de-hw-pending")
	cfg := &c.Config
	r := reachable(t, c)
	var ps []State
	r.each(t, 0, r.len(), func(_ int, s *model.State) bool {
		var p State
		if err := FromModel(cfg, s, &p); err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
		return true
	})
	yield := func(model.ActionKind, int, int, int, *State) bool { return true }
	s, err := NewSucc(cfg)
	if err != nil {
		t.Fatal(err)
	}
	k := 0
	if a := testing.AllocsPerRun(len(ps), func() {
		if err := s.Next(&ps[k%len(ps)], yield); err != nil {
			t.Fatal(err)
		}
		k++
	}); a != 0 {
		t.Errorf("Succ.Next: %v allocations per call", a)
	}
	if a := testing.AllocsPerRun(len(ps), func() {
		if err := Next(cfg, &ps[k%len(ps)], yield); err != nil {
			t.Fatal(err)
		}
		k++
	}); a != 0 {
		t.Errorf("Next: %v allocations per call", a)
	}
}
