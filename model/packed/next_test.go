package packed

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/model/tlccfg"
)

// succ is one model successor: its binding and state.
type succ struct {
	a model.Action
	u model.State
}

// differ compares packed.Next with model.NextPtr on states of one
// configuration, reusing its buffers from state to state.
type differ struct {
	cfg  *model.Config
	want []succ
	p, q State
	n    int // successors compared
	errs int // states on which both fail, in the same binding
}

// compare runs both successor relations on s and describes the first
// difference: a binding one yields and the other does not (or in another
// order), a successor t of packed.Next with ToModel(t) unequal to the
// model's u, or one that is not the packed form of u (FromModel(u) != t,
// which == on packed states needs, the explorer's fingerprints), or an
// evaluation failure of one but not the other, or of another binding.
func (d *differ) compare(s *model.State) error {
	cfg := d.cfg
	if err := FromModel(cfg, s, &d.p); err != nil {
		return fmt.Errorf("packing the state: %v", err)
	}
	d.want = d.want[:0]
	modelErr := model.NextPtr(cfg, s, func(a model.Action, u *model.State) bool {
		d.want = append(d.want, succ{a, *u}) // u's slices are never written: keeping the header is safe
		return true
	})
	var bad error
	k := 0
	err := Next(cfg, &d.p, func(kind model.ActionKind, i, j, keep int, t *State) bool {
		a := Action(cfg, kind, i, j, keep)
		if k >= len(d.want) {
			bad = fmt.Errorf("packed.Next yields %s after the model's last binding (model error: %v)", a, modelErr)
			return false
		}
		w := &d.want[k]
		k++
		if a != w.a {
			bad = fmt.Errorf("packed.Next yields %s where the model yields %s", a, w.a)
			return false
		}
		if got := ToModel(cfg, t); !got.Equal(w.u) {
			bad = fmt.Errorf("%s: successors differ (packed / model):\n%s", a, diff(got, w.u))
			return false
		}
		if err := FromModel(cfg, &w.u, &d.q); err != nil {
			bad = fmt.Errorf("%s: packing the model's successor: %v", a, err)
			return false
		}
		if d.q != *t {
			bad = fmt.Errorf("%s: the successor is not in packed form (FromModel of the model's, then packed.Next's):\n%s", a, diff(d.q, *t))
			return false
		}
		d.n++
		return true
	})
	switch {
	case bad != nil:
		return bad
	case modelErr != nil && err == nil:
		return fmt.Errorf("model.NextPtr fails after %d bindings (%v), packed.Next does not", len(d.want), modelErr)
	case modelErr != nil:
		if failed(modelErr) != failed(err) {
			return fmt.Errorf("model.NextPtr fails in %s (%v), packed.Next in %s (%v)", failed(modelErr), modelErr, failed(err), err)
		}
		d.errs++
	case err != nil:
		return fmt.Errorf("packed.Next: %v", err)
	case k < len(d.want):
		return fmt.Errorf("packed.Next stops after %d bindings; the model goes on with %s", k, d.want[k].a)
	}
	return nil
}

// failed is the binding an error of Next names.
func failed(err error) model.Action {
	var ee *model.EvalError
	var be *BoundError
	switch {
	case errors.As(err, &ee):
		return ee.Action
	case errors.As(err, &be):
		return be.Action
	}
	return model.Action{}
}

// diff lists the fields in which a and b (of one struct type) print
// differently, field by field, recursing into structs and arrays.
func diff(a, b any) string {
	var out []string
	var walk func(path string, x, y reflect.Value)
	walk = func(path string, x, y reflect.Value) {
		switch x.Kind() {
		case reflect.Struct:
			for f := range x.NumField() {
				walk(path+"."+x.Type().Field(f).Name, x.Field(f), y.Field(f))
			}
			return
		case reflect.Array:
			for f := range x.Len() {
				walk(fmt.Sprintf("%s[%d]", path, f), x.Index(f), y.Index(f))
			}
			return
		}
		if xs, ys := fmt.Sprint(x), fmt.Sprint(y); xs != ys {
			out = append(out, fmt.Sprintf("  %s: %s / %s", strings.TrimPrefix(path, "."), xs, ys))
		}
	}
	walk("", reflect.ValueOf(a), reflect.ValueOf(b))
	if len(out) == 0 {
		return "  (no field prints differently)"
	}
	return strings.Join(out, "\n")
}

// differential compares packed.Next with model.NextPtr on every state
// reachable in c, and returns the first difference, naming the
// configuration, the state and the binding.
func differential(t testing.TB, c *tlccfg.Check) (states, succs int, err error) {
	t.Helper()
	r := reachable(t, c)
	d := &differ{cfg: &c.Config}
	r.each(t, 0, r.len(), func(k int, s *model.State) bool {
		if e := d.compare(s); e != nil {
			err = fmt.Errorf("configuration %s (%s), state %d of %d:\n%+v\n%v", c.Name, c.Config.String(), k, r.len(), *s, e)
			return false
		}
		states++
		return true
	})
	return states, d.n, err
}

// On every state the explorer visits in every ci configuration (and the
// liveness mutants', which are all ci ones), packed.Next yields the same
// bindings as model.NextPtr, in its order, and each successor is the packed
// form of the model's.
func TestNextEqualsModel(t *testing.T) {
	cs := append(ciChecks(t), mutantChecks(t)...)
	for _, m := range model.Mutants {
		if !slices.ContainsFunc(cs, func(c *tlccfg.Check) bool { return c.Config.Mutant == m }) {
			t.Errorf("no configuration runs mutant %s: its hook goes untested", m)
		}
	}
	var states, succs int
	for _, c := range cs {
		n, m, err := differential(t, c)
		if err != nil {
			t.Error(err)
			continue
		}
		states += n
		succs += m
	}
	t.Logf("%d configurations, %d states, %d successors", len(cs), states, succs)
}

// The differential test bites: with a bug seeded into one action of
// packed.Next, it reports a difference in each configuration named: a
// successor that differs, or for a bug in an action's enabling condition a
// binding the model does not yield.
func TestNextCatchesSeededBugs(t *testing.T) {
	const differs, enables = "successors differ", "packed.Next yields"
	for _, tc := range []struct {
		bug     bug
		name    string
		tell    string
		configs []string
	}{
		{bugFetchReadHWPlusOne, "HandleFetch reads the HW plus one", differs, []string{"live-le", "w-de-hw-pending"}},
		{bugShrinkIsrStaleCtrl, "ShrinkIsr leaves the controller's ISR (pendingIsr under 3.9)", differs, []string{"w3-truncation", "w-de-stale-partition-epoch"}},
		{bugElectKeepsPartitionEpoch, "Elect keeps the partition epoch", differs, []string{"hw-divergence", "live-de"}},
		{bugCrashKeepsHW, "Crash keeps the HW", differs, []string{"w-recovered-from-crash", "live-kip101"}},
		{bugRestartKeepsElr, "Restart leaves the broker in the ELR", differs, []string{"w-elr-election", "elr-unflushed-2crash"}},
		{bugElrElectionKeepsElr, "an ELR election leaves the new leader in the ELR", differs, []string{"w-elr-election", "w-elr-last-known-leader"}},
		{bugExpandIgnoresBrokerEpoch, "ExpandIsr skips KIP-903's broker epoch check", enables, []string{"de-unflushed-min2", "elr-unflushed-2crash"}},
	} {
		for _, name := range tc.configs {
			c := check(t, name)
			func() {
				seededBug = tc.bug
				defer func() { seededBug = noBug }()
				_, _, err := differential(t, c)
				if err == nil || !strings.Contains(err.Error(), tc.tell) {
					t.Errorf("seeded bug %q: nothing tells in %s (want %q: %v)", tc.name, name, tc.tell, err)
					return
				}
				first, _, _ := strings.Cut(err.Error(), "\n")
				t.Logf("seeded bug %q: %s ... %s", tc.name, first, lastLine(err.Error()))
			}()
		}
	}
}

func lastLine(s string) string {
	s = strings.TrimRight(s, "\n")
	return s[strings.LastIndex(s, "\n")+1:]
}

// A successor beyond a fixed-size array is an error naming the bound, not
// a panic or a truncated state: Elect with a full controller queue.
func TestNextBoundError(t *testing.T) {
	c := check(t, "w-leader-change")
	cfg := c.Config
	cfg.MaxEpoch = 20
	s := model.Init(&cfg)
	var p State
	if err := FromModel(&cfg, &s, &p); err != nil {
		t.Fatal(err)
	}
	m := leaderAndIsr(0, 0, p.CtrlIsr, 0)
	for range MaxQueue {
		p.R[1].pushQueue(&m)
	}
	var yielded []model.Action
	err := Next(&cfg, &p, func(k model.ActionKind, i, j, keep int, _ *State) bool {
		yielded = append(yielded, Action(&cfg, k, i, j, keep))
		return true
	})
	var be *BoundError
	if !errors.As(err, &be) {
		t.Fatalf("Next on a full controller queue: %v (yielded %v), want a *BoundError", err, yielded)
	}
	if be.Bound != "MaxQueue" || be.Action != (model.Action{Kind: model.Elect, R: cfg.Replicas[0]}) ||
		!strings.Contains(err.Error(), "MaxQueue") {
		t.Errorf("error %q (%+v): want Elect(%s) exceeding MaxQueue", err, *be, cfg.Replicas[0])
	}
	if len(yielded) != 0 {
		t.Errorf("yielded %v before the error", yielded)
	}
	// The packed form itself refuses to make such a state from the model's.
	back := ToModel(&cfg, &p)
	back.ControllerQueue[1] = append(back.ControllerQueue[1], back.ControllerQueue[1][0])
	var q State
	if err := FromModel(&cfg, &back, &q); err == nil {
		t.Error("FromModel packed a queue longer than MaxQueue")
	}
}

// walk compares packed.Next with model.NextPtr along random walks from Init
// (the states of one walk are model-made, so successors may be kept).
func walk(t testing.TB, name string, cfg *model.Config, walks, depth int, seed uint64) (states int, err error) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	d := &differ{cfg: cfg}
	for w := range walks {
		s := model.Init(cfg)
		for step := range depth {
			if e := d.compare(&s); e != nil {
				return states, fmt.Errorf("configuration %s (%s), walk %d, step %d:\n%+v\n%v", name, cfg.String(), w, step, s, e)
			}
			states++
			if len(d.want) == 0 {
				break
			}
			s = d.want[rng.IntN(len(d.want))].u
		}
	}
	return states, nil
}

// Random walks beyond the ci configurations' reach: every configuration of
// the manifest (the non-ci ones are too large to search in a test but walk
// deeper: the KIP-279 loop's second round, missed LeaderAndIsr requests),
// and variants with the constants no configuration sets: acks=1 and acks=0,
// a lossy network and missed requests together with unflushed loss.
func TestNextEqualsModelOnWalks(t *testing.T) {
	type variant struct {
		name string
		cfg  model.Config
	}
	var vs []variant
	for _, c := range checks(t, func(tlccfg.Entry) bool { return true }) {
		vs = append(vs, variant{c.Name, c.Config})
	}
	for _, base := range []string{"le-fenced-3", "de-unflushed", "elr-unflushed", "kip101-divergence", "hw-acked-loss"} {
		c := check(t, base)
		for _, acks := range []string{"0", "1"} {
			cfg := c.Config
			cfg.Acks = acks
			vs = append(vs, variant{base + " acks=" + acks, cfg})
		}
		cfg := c.Config
		cfg.LossyNetwork, cfg.MissedLeaderAndIsr, cfg.UnflushedLoss, cfg.UncleanLeaderElectionEnable = true, true, true, true
		vs = append(vs, variant{base + " lossy,missed,unflushed,unclean", cfg})
	}
	total := 0
	for k, v := range vs {
		n, err := walk(t, v.name, &v.cfg, 40, 80, uint64(k+1))
		if err != nil {
			t.Error(err)
		}
		total += n
	}
	t.Logf("%d configurations, %d states", len(vs), total)
}

// perturb changes p at random in ways no reachable state of the ci
// configurations shows but the actions must still agree on: a replica's
// epoch cache, its log's epochs, its leader epoch or HW, the epoch and
// offset answers of its in-flight message (the KIP-279 loop's second round,
// a follower without its leader's epoch, EpochStart without an entry), and
// where the release has them its broker epoch, its views of the others'
// and the controller's ELR and last known leader.
func perturb(cfg *model.Config, rng *rand.Rand, p *State) {
	i := rng.IntN(cfg.N())
	r := &p.R[i] // one replica, so that its cache and its message's answer meet
	for range 1 + rng.IntN(3) {
		epoch := func() int8 { return int8(rng.IntN(cfg.MaxEpoch+2) - 1) } // -1..MaxEpoch
		switch rng.IntN(6) {
		case 0: // a cache of increasing epochs and non-decreasing starts up to the LEO
			r.Cache, r.CacheLen = [MaxCache]Entry{}, 0
			e, st := int8(rng.IntN(2)), int8(0)
			for e <= int8(cfg.MaxEpoch) && r.CacheLen < MaxCache && rng.IntN(3) > 0 {
				st = min(r.LogLen, st+int8(rng.IntN(2)))
				r.Cache[r.CacheLen] = Entry{e, st}
				r.CacheLen++
				e += int8(1 + rng.IntN(2))
			}
		case 1:
			for k := range r.LogLen {
				r.Log[k].Epoch = max(0, epoch())
			}
		case 2:
			r.LeaderEpoch = epoch()
		case 3:
			r.Hw = int8(rng.IntN(int(r.LogLen) + 1))
		case 4:
			m := &r.Inflight
			switch m.Type {
			case model.MsgOffsetsForLeaderEpochResponse:
				m.Epoch, m.Offset = epoch(), int8(rng.IntN(int(MaxLog)+1)-1)
			case model.MsgFetchResponse:
				if m.Diverging {
					m.DivEpoch, m.DivOffset = epoch(), int8(rng.IntN(int(MaxLog)+1)-1)
				}
			case model.MsgFetch:
				m.LastFetchedEpoch = epoch()
			case model.MsgOffsetsForLeaderEpoch:
				m.Epoch = epoch()
			}
		case 5:
			rel := cfg.Rel()
			if rel.IsrBrokerEpochs {
				r.BrokerEpoch = int8(rng.IntN(cfg.MaxCrashes + 1))
				if k := rng.IntN(cfg.N()); k != i {
					r.FollowerBrokerEpoch[k] = int8(rng.IntN(cfg.MaxCrashes+2) - 1)
				}
			}
			if rel.Elr {
				all := 1<<cfg.N() - 1
				p.CtrlElr = Set(rng.IntN(all+1)) &^ p.CtrlIsr
				p.CtrlLastKnownElr = 0
				if p.CtrlIsr == 0 || rng.IntN(4) == 0 {
					p.CtrlLastKnownElr = bit(rng.IntN(cfg.N()))
				}
			}
		}
	}
}

// Random walks through perturbed states: at each step the state is changed
// at random (perturb) before both successor relations run on it, and the
// walk goes on from one of the model's successors. Where the model fails to
// evaluate an action (the spec would), packed.Next must fail in the same
// binding.
func TestNextEqualsModelOnPerturbedStates(t *testing.T) {
	total, failures := 0, 0
	for k, c := range checks(t, func(tlccfg.Entry) bool { return true }) {
		cfg := &c.Config
		rng := rand.New(rand.NewPCG(uint64(k), 7))
		d := &differ{cfg: cfg}
		for w := range 30 {
			s := model.Init(cfg)
			for step := range 40 {
				var p State
				if err := FromModel(cfg, &s, &p); err != nil {
					t.Fatal(err)
				}
				perturb(cfg, rng, &p)
				ps := ToModel(cfg, &p)
				if err := d.compare(&ps); err != nil {
					t.Fatalf("configuration %s, walk %d, step %d, perturbed state:\n%+v\n%v", c.Name, w, step, ps, err)
				}
				total++
				if len(d.want) == 0 {
					break
				}
				s = d.want[rng.IntN(len(d.want))].u
			}
		}
		failures += d.errs
	}
	t.Logf("%d perturbed states, %d on which both fail in the same binding", total, failures)
}
