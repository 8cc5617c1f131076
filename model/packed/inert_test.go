package packed

import (
	"testing"

	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/model/tlccfg"
)

// collapseDiff compares Succ.Collapse with model.Collapse on every reachable
// state of c and on the successors of every sixty-fourth one (where requests made
// stale and responses to drop are met in numbers). It returns the states
// compared, how many had an inert message, and the first difference.
func collapseDiff(t *testing.T, c *tlccfg.Check) (states, collapsed int, bad string) {
	t.Helper()
	cfg := &c.Config
	s, err := NewSucc(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var p, q State
	compare := func(u *model.State) {
		states++
		if err := FromModel(cfg, u, &p); err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		v := *u
		if model.Collapse(cfg, &v) {
			collapsed++
		}
		if err := FromModel(cfg, &v, &q); err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		s.Collapse(&p)
		if p != q && bad == "" {
			bad = "packed and model collapse differ (packed / model):\n" + diff(p, q)
		}
	}
	r := reachable(t, c)
	r.each(t, 0, r.len(), func(k int, u *model.State) bool {
		compare(u)
		if k%64 != 0 {
			return true
		}
		err := model.NextPtr(cfg, u, func(_ model.Action, v *model.State) bool {
			compare(v)
			return true
		})
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		return bad == ""
	})
	return states, collapsed, bad
}

// TestCollapseEqualsModel holds Succ.Collapse to model.Collapse on the
// states of every ci configuration: the packed engine's reduced search is
// the readable one's.
func TestCollapseEqualsModel(t *testing.T) {
	var states, collapsed int
	for _, c := range ciChecks(t) {
		n, k, bad := collapseDiff(t, c)
		if bad != "" {
			t.Errorf("%s: %s", c.Name, bad)
		}
		states, collapsed = states+n, collapsed+k
	}
	if collapsed == 0 {
		t.Fatal("no state had an inert message: the comparison compared nothing")
	}
	t.Logf("%d states, %d with an inert message", states, collapsed)
}

// The comparison bites: with Succ.Inert taking a request its addressee can
// still serve as inert, it finds a difference.
func TestCollapseCatchesSeededBug(t *testing.T) {
	seededBug = bugInertAtSameEpoch
	defer func() { seededBug = noBug }()
	for _, name := range []string{"w-leader-change", "w-de-hw-pending"} {
		if _, _, bad := collapseDiff(t, check(t, name)); bad == "" {
			t.Errorf("%s: the seeded bug went unnoticed", name)
		} else {
			t.Logf("%s: %.120s", name, bad)
		}
	}
}
