package model

// The leader epoch cache (LeaderEpochFileCache), as the spec writes it.

// LatestEpoch mirrors LatestEpoch(c).
func LatestEpoch(c []Entry) int {
	if len(c) == 0 {
		return -1
	}
	return c[len(c)-1].Epoch
}

// Assign mirrors Assign(c, e, s), per release. TruncateAndAppend (2.1+): a
// no-op when e is the latest epoch and s is not below its start; otherwise
// keep the entries with epoch < e and start < s, then append (e, s).
// GreaterOnly (0.11.0-2.0): append only when e is above the latest epoch and
// s not below the latest start. None (0.10.2): no cache. The result is fresh
// unless it is c itself.
func Assign(cfg *Config, c []Entry, e, s int) []Entry {
	switch cfg.Rel().CacheAssign {
	case "TruncateAndAppend":
	case "GreaterOnly":
		if len(c) == 0 || (e > c[len(c)-1].Epoch && s >= c[len(c)-1].Start) {
			out := make([]Entry, len(c), len(c)+1)
			copy(out, c)
			return append(out, Entry{Epoch: e, Start: s})
		}
		return c
	default:
		return c
	}
	if len(c) > 0 && e == c[len(c)-1].Epoch && s >= c[len(c)-1].Start {
		return c
	}
	out := make([]Entry, 0, len(c)+1)
	for _, x := range c {
		if x.Epoch < e && x.Start < s {
			out = append(out, x)
		}
	}
	return append(out, Entry{Epoch: e, Start: s})
}

// TruncateFromEnd mirrors TruncateFromEnd(c, o): keep entries with start < o.
// It returns c itself when nothing is dropped. A negative o (Kafka's
// UNDEFINED_EPOCH_OFFSET, -1) changes nothing, as in Kafka's
// LeaderEpochFileCache.truncateFromEnd ("if (endOffset >= 0 && ...)");
// the spec only ever passes an LEO or an offset below one, never -1.
func TruncateFromEnd(c []Entry, o int) []Entry {
	if o < 0 {
		return c
	}
	keep := 0
	for _, x := range c {
		if x.Start < o {
			keep++
		}
	}
	if keep == len(c) {
		return c
	}
	out := make([]Entry, 0, keep)
	for _, x := range c {
		if x.Start < o {
			out = append(out, x)
		}
	}
	return out
}

// EpochOffset mirrors the [epoch, offset] records EndOffsetFor answers.
type EpochOffset struct {
	Epoch  int
	Offset int
}

// EndOffsetFor mirrors EndOffsetFor(c, leo, e). The CHOOSEs are over sets of
// indices: "the least index with epoch > e" and "the greatest with epoch <= e".
func EndOffsetFor(c []Entry, leo, e int) EpochOffset {
	if e == -1 {
		return EpochOffset{-1, -1}
	}
	if e == LatestEpoch(c) {
		return EpochOffset{e, leo}
	}
	next, fl := -1, -1
	for i, x := range c {
		if x.Epoch > e {
			if next == -1 {
				next = i
			}
		} else {
			fl = i // the last one wins: the greatest index
		}
	}
	if next == -1 { // higher = {}
		return EpochOffset{-1, -1}
	}
	if fl == -1 { // floor = {}
		return EpochOffset{e, c[next].Start}
	}
	return EpochOffset{c[fl].Epoch, c[next].Start}
}

// Kip101EndOffset mirrors Kip101EndOffset(c, leo, e): Kafka 0.11.0's answer
// (LeaderEpochFileCache.endOffsetFor, which tests for epoch -1 first).
func Kip101EndOffset(c []Entry, leo, e int) int {
	if e == -1 {
		return -1
	}
	if e == LatestEpoch(c) {
		return leo
	}
	next := -1
	for i, x := range c {
		if x.Epoch > e {
			next = i
			break
		}
	}
	if next == -1 || len(c) == 0 || e < c[0].Epoch {
		return -1
	}
	return c[next].Start
}

// AppendToCache mirrors the RECURSIVE AppendToCache(c, recs, base): assign
// (record epoch, record offset) for each fetched record in turn.
func AppendToCache(cfg *Config, c []Entry, recs []Record, base int) []Entry {
	for i, r := range recs {
		c = Assign(cfg, c, r.Epoch, base+i)
	}
	return c
}
