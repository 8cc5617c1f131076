package packed

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/model/tlccfg"
)

// ciCheck is the ci configuration of that name.
func ciCheck(t testing.TB, name string) *tlccfg.Check {
	t.Helper()
	for _, c := range ciChecks(t) {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no ci configuration %s", name)
	return nil
}

func mustLayout(t testing.TB, cfg *model.Config) *Layout {
	t.Helper()
	l, err := NewLayout(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// wordsKey is a copy of the words, as a map key.
func wordsKey(w []uint64) string {
	return string(unsafe.Slice((*byte)(unsafe.Pointer(&w[0])), 8*len(w)))
}

// On every state of every ci configuration, Pack writes exactly Words()
// words, the bits beyond Bits() zero, and Unpack gives the state back; two
// different states never pack alike.
func TestLayoutRoundTrip(t *testing.T) {
	total := 0
	for _, co := range ciCorpora(t) {
		cfg := &co.check.Config
		l := mustLayout(t, cfg)
		nw := l.Words()
		buf := make([]uint64, nw+1)
		seen := make(map[string]int, co.len())
		var p, q State
		for k := range co.len() {
			co.state(k, &p)
			for x := range buf {
				buf[x] = ^uint64(0)
			}
			l.Pack(&p, buf)
			if buf[nw] != ^uint64(0) {
				t.Fatalf("%s: state %d: Pack wrote beyond Words() = %d", co.check.Name, k, nw)
			}
			if used := l.Bits() - 64*(nw-1); used < 64 && buf[nw-1]>>uint(used) != 0 {
				t.Fatalf("%s: state %d: bits beyond Bits() = %d are set", co.check.Name, k, l.Bits())
			}
			l.Unpack(buf[:nw], &q)
			if q != p {
				t.Fatalf("%s: state %d: Unpack(Pack(p)) != p\n got %+v\nwant %+v", co.check.Name, k,
					ToModel(cfg, &q), ToModel(cfg, &p))
			}
			key := wordsKey(buf[:nw])
			if other, ok := seen[key]; ok {
				var o State
				co.state(other, &o)
				if a, b := ToModel(cfg, &o), ToModel(cfg, &p); !a.Equal(b) {
					t.Fatalf("%s: states %d and %d differ and pack alike:\n%+v\n%+v", co.check.Name, other, k, a, b)
				}
			}
			seen[key] = k
		}
		if len(seen) != co.len() {
			t.Errorf("%s: %d states, %d packs", co.check.Name, co.len(), len(seen))
		}
		total += co.len()
		t.Logf("%-28s %d replicas: %d words (%3d bits), %d states", co.check.Name, cfg.N(), nw, l.Bits(), co.len())
	}
	t.Logf("%d states", total)
}

// threeReplicaBounds is the configuration the explorer's three-replica
// searches aim at.
func threeReplicaBounds(policy string) model.Config {
	r := model.Releases[policy]
	return model.Config{Replicas: []model.Replica{"r1", "r2", "r3"}, Truncation: policy, Fencing: r.Fencing,
		Acks: "all", MinInsyncReplicas: 2, MinIsrGatesHW: r.MinIsrGatesHW,
		MaxRecords: 2, MaxEpoch: 2, MaxCrashes: 1, MaxPartitionEpoch: 3}
}

func TestLayoutWords(t *testing.T) {
	for _, policy := range model.Policies {
		cfg := threeReplicaBounds(policy)
		l := mustLayout(t, &cfg)
		t.Logf("3 replicas, MaxRecords 2, MaxEpoch 2, MaxCrashes 1, MaxPartitionEpoch 3, %s: %d words (%d bits, %d bytes)",
			policy, l.Words(), l.Bits(), 8*l.Words())
		if l.Words() > 7 {
			t.Errorf("%s: %d words for three replicas", policy, l.Words())
		}
	}
}

func TestNewLayoutRefusesWhatDoesNotFit(t *testing.T) {
	base := threeReplicaBounds(model.DivergingEpoch)
	for _, c := range []struct {
		name string
		edit func(*model.Config)
	}{
		{"5 replicas", func(c *model.Config) { c.Replicas = append(c.Replicas, "r4", "r5") }},
		{"MaxRecords 5", func(c *model.Config) { c.MaxRecords = MaxLog + 1 }},
		{"MaxEpoch 6", func(c *model.Config) { c.MaxEpoch = MaxCache }},
		{"queues of 7", func(c *model.Config) { c.MaxEpoch, c.MaxCrashes = 4, 2 }},
		{"MaxPartitionEpoch 200", func(c *model.Config) { c.MaxPartitionEpoch = 200 }},
		{"invalid", func(c *model.Config) { c.Truncation = "Nope" }},
		// With ELR a restart that leaves the ELR sends a LeaderAndIsr too
		// and bumps the partition epoch: 2+1+2*2 requests, 119+0+2*1 epochs.
		{"ELR queues of 7", func(c *model.Config) { c.Truncation, c.MaxEpoch, c.MaxCrashes = model.EligibleLeader, 2, 2 }},
		{"ELR partition epochs 121", func(c *model.Config) {
			c.Truncation, c.MaxEpoch, c.MaxCrashes, c.MaxPartitionEpoch = model.EligibleLeader, 0, 1, 119
		}},
	} {
		cfg := base
		cfg.Replicas = append([]model.Replica(nil), base.Replicas...)
		c.edit(&cfg)
		if _, err := NewLayout(&cfg); err == nil {
			t.Errorf("%s: NewLayout accepted it", c.name)
		} else {
			t.Logf("%s: %v", c.name, err)
		}
	}
	for _, policy := range model.Policies { // the largest that fit
		cfg := base
		cfg.Truncation, cfg.Replicas = policy, []model.Replica{"r1", "r2", "r3", "r4"}
		cfg.MaxRecords, cfg.MaxEpoch, cfg.MaxCrashes = MaxLog, 4, 1
		if model.Releases[policy].Elr {
			cfg.MaxEpoch = 3 // queues of MaxEpoch+1+2*MaxCrashes
		}
		if l, err := NewLayout(&cfg); err != nil {
			t.Errorf("%s: %v", policy, err)
		} else {
			t.Logf("4 replicas, MaxRecords %d, MaxEpoch %d, %s: %d words", MaxLog, cfg.MaxEpoch, policy, l.Words())
		}
	}
	// The ELR bounds fit exactly at the maxima: queues of MaxQueue, and
	// partition epochs of 120.
	for _, edit := range []func(*model.Config){
		func(c *model.Config) { c.MaxEpoch, c.MaxCrashes = 1, 2 },
		func(c *model.Config) { c.MaxEpoch, c.MaxCrashes, c.MaxPartitionEpoch = 0, 1, 118 },
	} {
		cfg := base
		cfg.Truncation = model.EligibleLeader
		edit(&cfg)
		if _, err := NewLayout(&cfg); err != nil {
			t.Errorf("%s: %v", &cfg, err)
		}
	}
}

// Random walks on configurations beyond the ci ones (one replica and no
// record; four replicas at packed's maxima, with every fault): every state
// met fits its layout and round-trips.
func TestLayoutRandomWalks(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, policy := range model.Policies {
		r := model.Releases[policy]
		for _, cfg := range []model.Config{
			{Replicas: []model.Replica{"r1"}, Truncation: policy, Fencing: r.Fencing, Acks: "1", MinInsyncReplicas: 1},
			threeReplicaBounds(policy),
			{Replicas: []model.Replica{"r1", "r2", "r3", "r4"}, Truncation: policy, Fencing: r.Fencing, Acks: "all",
				MinInsyncReplicas: 2, MinIsrGatesHW: r.MinIsrGatesHW, UncleanLeaderElectionEnable: true,
				UnflushedLoss: true, LossyNetwork: true, MissedLeaderAndIsr: true,
				MaxRecords: MaxLog, MaxEpoch: maxEpochWith2Crashes(r), MaxCrashes: 2, MaxPartitionEpoch: 3},
		} {
			l := mustLayout(t, &cfg)
			words := make([]uint64, l.Words())
			var p, q State
			states := 0
			for range 200 {
				s := model.Init(&cfg)
				for range 60 {
					if err := FromModel(&cfg, &s, &p); err != nil {
						t.Fatalf("%s: %v", &cfg, err)
					}
					l.Pack(&p, words)
					if l.Unpack(words, &q); q != p {
						t.Fatalf("%s: Unpack(Pack(p)) != p for %+v", &cfg, s)
					}
					states++
					var succ []model.State
					if err := model.Next(&cfg, s, func(_ model.Action, u model.State) bool {
						succ = append(succ, u)
						return true
					}); err != nil {
						t.Fatal(err)
					}
					if len(succ) == 0 {
						break
					}
					s = succ[rng.IntN(len(succ))]
				}
			}
			t.Logf("%d replicas, MaxRecords %d, %s: %d words, %d states round-tripped", cfg.N(), cfg.MaxRecords, policy, l.Words(), states)
		}
	}
}

// maxEpochWith2Crashes is the greatest MaxEpoch (up to 3) whose controller
// queues fit MaxQueue with MaxCrashes = 2: with ELR a queue holds up to
// MaxEpoch+1+2*MaxCrashes requests.
func maxEpochWith2Crashes(r model.Release) int {
	if r.Elr {
		return MaxQueue - 1 - 2*2
	}
	return 3
}

// Pack refuses a value outside its field's range, and each fact of the
// spec the layout relies on, with a *RangeError naming the field.
func TestPackDetectsOutOfRange(t *testing.T) {
	var base State
	var cfg *model.Config
	for _, co := range threeReplicaCorpora(t) {
		if co.check.Name == "w3-two-records" { // MaxRecords 2, MaxEpoch 1, LeaderEpoch
			co.state(co.visited-1, &base)
			cfg = &co.check.Config
		}
	}
	if cfg == nil {
		t.Fatal("no w3-two-records")
	}
	l := mustLayout(t, cfg)
	words := make([]uint64, l.Words())
	l.Pack(&base, words) // fits
	if err := l.Check(&base); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		field string
		edit  func(p *State)
	}{
		{"hw", func(p *State) { p.R[0].Hw = 3 }},
		{"leaderEpoch", func(p *State) { p.R[1].LeaderEpoch = 2 }},
		{"leader", func(p *State) { p.R[1].Leader = 3 }},
		{"view of itself (followerLeo)", func(p *State) { p.R[2].FollowerLeo[2] = 0 }},
		{"ctrlPartitionEpoch", func(p *State) { p.CtrlPartitionEpoch = 2 }},
		{"isr", func(p *State) { p.R[0].Isr = 1 << 3 }},
		{"pendingIsr", func(p *State) { p.R[0].PendingIsr = 1 }},
		{"controller queue length", func(p *State) { p.R[0].QueueLen = 3 }},
		{"LeaderAndIsr leader in its ISR", func(p *State) {
			p.R[0].QueueLen = 1
			p.R[0].Queue[0] = Msg{Type: model.MsgLeaderAndIsr, Leader: 1, Epoch: 1, Isr: 1}
		}},
		{"epoch cache entry's epoch (not above the previous entry's)", func(p *State) {
			p.R[0].CacheLen = 2
			p.R[0].Cache[0], p.R[0].Cache[1] = Entry{1, 0}, Entry{0, 1}
		}},
		{"fetcher message's own end (a request's src, a response's dst)", func(p *State) {
			p.R[0].Inflight = Msg{Type: model.MsgFetch, Src: 1, Dst: 2}
		}},
		{"inflight message type code (-1: not a type this release puts in a fetcher's slot)", func(p *State) {
			p.R[0].Inflight = Msg{Type: model.MsgAlterPartition}
		}},
		{"alterPartition message type code (-1: not a type this configuration sends)", func(p *State) {
			p.R[0].AlterPartition = Msg{Type: model.MsgAlterPartition}
		}},
		{"acked or committed [offset, id]'s offset (or its id is outside 1..MaxRecords)", func(p *State) { p.Acked |= OffsetIDBit(2, 1) }},
		// Without KIP-903 and ELR (Kafka 2.1) their fields are constant.
		{"brokerEpoch", func(p *State) { p.R[1].BrokerEpoch = 1 }},
		{"followerBrokerEpoch", func(p *State) { p.R[0].FollowerBrokerEpoch[1] = 0 }},
		{"view of its own broker epoch (followerBrokerEpoch)", func(p *State) { p.R[2].FollowerBrokerEpoch[2] = 0 }},
		{"ctrlElr", func(p *State) { p.CtrlElr = 1 }},
		{"ctrlLastKnownElr", func(p *State) { p.CtrlLastKnownElr = 2 }},
	} {
		p := base
		c.edit(&p)
		err := func() (err error) {
			defer func() {
				if r := recover(); r != nil {
					e, ok := r.(*RangeError)
					if !ok {
						err = fmt.Errorf("panic %v, not a *RangeError", r)
						return
					}
					err = e
				}
			}()
			l.Pack(&p, words)
			return nil
		}()
		var re *RangeError
		switch {
		case err == nil:
			t.Errorf("%s: packed without complaint", c.field)
		case !errors.As(err, &re):
			t.Errorf("%s: %v", c.field, err)
		case re.Field != c.field:
			t.Errorf("%s: the error names %q: %v", c.field, re.Field, err)
		case l.Check(&p) == nil || l.Check(&p).Error() != err.Error():
			t.Errorf("%s: Pack panics with %v, Check returns %v", c.field, err, l.Check(&p))
		default:
			t.Logf("%v", err)
		}
	}
}

// Hash is XXH64 of the words' bytes, as model.Hash64 computes it.
func TestHashIsXXH64(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := range 20 {
		for range 50 {
			w := make([]uint64, n)
			for i := range w {
				w[i] = rng.Uint64()
			}
			b := make([]byte, 0, 8*n)
			for _, x := range w {
				b = binary.LittleEndian.AppendUint64(b, x)
			}
			if got, want := (&Layout{}).Hash(w), model.Hash64(b); got != want {
				t.Fatalf("%d words: Hash %#x, model.Hash64 %#x", n, got, want)
			}
		}
	}
}

// Hash avalanches: from packed states of a three-replica configuration,
// flipping any one bit of the words flips each bit of the hash with
// probability 1/2 (within 0.42..0.58 over 2,000 states: eight standard
// deviations).
func TestHashAvalanche(t *testing.T) {
	co := threeReplicaCorpora(t)[0]
	l := mustLayout(t, &co.check.Config)
	const samples = 2000
	step := max(1, co.visited/samples)
	words := make([]uint64, l.Words())
	var p State
	worst := 0.5
	for bit := range l.Bits() {
		var flips [64]int
		count := 0
		for k := 0; k < co.visited && count < samples; k += step {
			co.state(k, &p)
			l.Pack(&p, words)
			h := l.Hash(words)
			words[bit/64] ^= 1 << uint(bit%64)
			d := h ^ l.Hash(words)
			for ; d != 0; d &= d - 1 {
				flips[bits.TrailingZeros64(d)]++
			}
			count++
		}
		for o, f := range flips {
			r := float64(f) / float64(count)
			if r < 0.42 || r > 0.58 {
				t.Fatalf("flipping input bit %d flips output bit %d in %.3f of %d states", bit, o, r, count)
			}
			if absf(r-0.5) > absf(worst-0.5) {
				worst = r
			}
		}
	}
	t.Logf("%d input bits x 64 output bits: every flip rate within %.3f of 1/2", l.Bits(), absf(worst-0.5))
}

func absf(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func TestPackHashDoNotAllocate(t *testing.T) {
	co := threeReplicaCorpora(t)[0]
	l := mustLayout(t, &co.check.Config)
	var p, q State
	co.state(co.visited-1, &p)
	words := make([]uint64, l.Words())
	if a := testing.AllocsPerRun(100, func() { l.Pack(&p, words); l.Hash(words) }); a != 0 {
		t.Errorf("Pack+Hash: %v allocations", a)
	}
	if a := testing.AllocsPerRun(100, func() { l.Unpack(words, &q) }); a != 0 {
		t.Errorf("Unpack: %v allocations", a)
	}
}

// benchStates are some states of w3-two-records (three replicas), its own
// search: a benchmark does not wait for every ci configuration's.
func benchStates(b *testing.B) (*model.Config, []State) {
	co := buildCorpus(b, ciCheck(b, "w3-two-records"))
	cfg := &co.check.Config
	var out []State
	for k := 0; k < co.visited; k += max(1, co.visited/1000) {
		var p State
		co.state(k, &p)
		out = append(out, p)
	}
	return cfg, out
}

func BenchmarkPackHash(b *testing.B) {
	cfg, states := benchStates(b)
	l := mustLayout(b, cfg)
	words := make([]uint64, l.Words())
	var sink uint64
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		l.Pack(&states[i%len(states)], words)
		sink ^= l.Hash(words)
	}
	_ = sink
}

func BenchmarkUnpack(b *testing.B) {
	cfg, states := benchStates(b)
	l := mustLayout(b, cfg)
	packs := make([][]uint64, len(states))
	for k := range states {
		packs[k] = make([]uint64, l.Words())
		l.Pack(&states[k], packs[k])
	}
	var p State
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		l.Unpack(packs[i%len(packs)], &p)
	}
}

// BenchmarkCanonicalFingerprint is the explorer's fingerprint of a
// successor under symmetry: keys, the key-sorted renamings, Pack and Hash.
func BenchmarkCanonicalFingerprint(b *testing.B) {
	cfg, states := benchStates(b)
	l := mustLayout(b, cfg)
	perms := model.Permutations(cfg.N())
	invs := make([][]int, len(perms))
	for k, perm := range perms {
		invs[k] = model.Inverse(perm)
	}
	words := make([]uint64, l.Words())
	var q State
	var sink uint64
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		sink ^= canonicalFingerprint(cfg, l, &states[i%len(states)], perms, invs, words, &q)
	}
	_ = sink
}
