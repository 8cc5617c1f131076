package explore

// fpSet is a set of 64-bit fingerprints, split into shards by the top bits
// so that each shard can be written by one goroutine while the others read
// nothing of it. It stores fingerprints only (8 bytes a state at 50-75%
// load), which keeps memory lean; states themselves live only in the BFS
// frontier.
type fpSet struct {
	shards []fpShard
	shift  uint
}

type fpShard struct {
	slots []uint64 // open addressing, linear probing; 0 marks an empty slot
	n     int
}

const shardBits = 6

func newFPSet() *fpSet {
	s := &fpSet{shards: make([]fpShard, 1<<shardBits), shift: 64 - shardBits}
	for i := range s.shards {
		s.shards[i].slots = make([]uint64, 1024)
	}
	return s
}

// norm maps the fingerprint 0 (our empty marker) to another value; two
// states whose fingerprints are 0 and 1 then collide, which is as likely as
// any other 64-bit collision.
func norm(fp uint64) uint64 {
	if fp == 0 {
		return 1
	}
	return fp
}

func (s *fpSet) shardOf(fp uint64) int { return int(fp >> s.shift) }

// contains may run concurrently with other contains calls, never with add.
func (s *fpSet) contains(fp uint64) bool {
	fp = norm(fp)
	sh := &s.shards[s.shardOf(fp)]
	mask := uint64(len(sh.slots) - 1)
	for i := fp & mask; ; i = (i + 1) & mask {
		switch sh.slots[i] {
		case fp:
			return true
		case 0:
			return false
		}
	}
}

// add inserts fp and reports whether it was new. Calls for different shards
// may run concurrently.
func (s *fpSet) add(fp uint64) bool {
	fp = norm(fp)
	sh := &s.shards[s.shardOf(fp)]
	if (sh.n+1)*4 > len(sh.slots)*3 {
		sh.grow()
	}
	mask := uint64(len(sh.slots) - 1)
	for i := fp & mask; ; i = (i + 1) & mask {
		switch sh.slots[i] {
		case fp:
			return false
		case 0:
			sh.slots[i] = fp
			sh.n++
			return true
		}
	}
}

func (sh *fpShard) grow() {
	old := sh.slots
	sh.slots = make([]uint64, 2*len(old))
	mask := uint64(len(sh.slots) - 1)
	for _, fp := range old {
		if fp == 0 {
			continue
		}
		i := fp & mask
		for sh.slots[i] != 0 {
			i = (i + 1) & mask
		}
		sh.slots[i] = fp
	}
}

// bytes is the memory the set holds.
func (s *fpSet) bytes() int {
	n := 0
	for i := range s.shards {
		n += 8 * len(s.shards[i].slots)
	}
	return n
}
