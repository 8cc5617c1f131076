package packed

// The leader epoch cache (model/cache.go), on a replica's fixed array.

// latestEpoch mirrors LatestEpoch(c) of r's cache.
func (r *Replica) latestEpoch() int8 {
	if r.CacheLen == 0 {
		return -1
	}
	return r.Cache[r.CacheLen-1].Epoch
}

// pushCache appends (e, st) to r's cache.
func (r *Replica) pushCache(e, st int8) {
	if r.CacheLen >= MaxCache {
		overflow("MaxCache", "an epoch cache")
	}
	r.Cache[r.CacheLen] = Entry{e, st}
	r.CacheLen++
}

// assign mirrors Assign(c, e, s) (model.Assign) on r's cache in place, per
// release: TruncateAndAppend (2.1+) is a no-op when e is the latest epoch and
// st not below its start, else keeps the entries with epoch < e and start <
// st and appends (e, st); GreaterOnly (0.11.0-2.0) appends only above the
// latest epoch and not below the latest start; None (0.10.2) has no cache.
func (s *Succ) assign(r *Replica, e, st int8) {
	switch s.cacheAssign {
	case assignTruncateAndAppend:
	case assignGreaterOnly:
		if r.CacheLen == 0 || (e > r.Cache[r.CacheLen-1].Epoch && st >= r.Cache[r.CacheLen-1].Start) {
			r.pushCache(e, st)
		}
		return
	default:
		return
	}
	if r.CacheLen > 0 && e == r.Cache[r.CacheLen-1].Epoch && st >= r.Cache[r.CacheLen-1].Start {
		return
	}
	w := int8(0)
	for k := range r.CacheLen {
		if x := r.Cache[k]; x.Epoch < e && x.Start < st {
			r.Cache[w] = x
			w++
		}
	}
	for k := w; k < r.CacheLen; k++ {
		r.Cache[k] = Entry{}
	}
	r.CacheLen = w
	r.pushCache(e, st)
}

// appendToCache mirrors AppendToCache(c, recs, base): Assign (record epoch,
// record offset) for each fetched record in turn.
func (s *Succ) appendToCache(r *Replica, recs []Record, base int8) {
	for k, x := range recs {
		s.assign(r, x.Epoch, base+int8(k))
	}
}

// truncateFromEnd mirrors TruncateFromEnd(c, o) (model.TruncateFromEnd) on
// r's cache: keep the entries with start < o; a negative o changes nothing.
func (r *Replica) truncateFromEnd(o int8) {
	if o < 0 {
		return
	}
	w := int8(0)
	for k := range r.CacheLen {
		if x := r.Cache[k]; x.Start < o {
			r.Cache[w] = x
			w++
		}
	}
	for k := w; k < r.CacheLen; k++ {
		r.Cache[k] = Entry{}
	}
	r.CacheLen = w
}

// endOffsetFor mirrors EndOffsetFor(c, leo, e) (model.EndOffsetFor) of r's
// cache: the [epoch, offset] an OffsetsForLeaderEpoch for e is answered with.
func (r *Replica) endOffsetFor(leo, e int8) (epoch, offset int8) {
	if e == -1 {
		return -1, -1
	}
	if e == r.latestEpoch() {
		return e, leo
	}
	next, fl := int8(-1), int8(-1)
	for k := range r.CacheLen {
		if r.Cache[k].Epoch > e {
			if next == -1 {
				next = k
			}
		} else {
			fl = k // the last one wins: the greatest index
		}
	}
	if next == -1 { // higher = {}
		return -1, -1
	}
	if fl == -1 { // floor = {}
		return e, r.Cache[next].Start
	}
	return r.Cache[fl].Epoch, r.Cache[next].Start
}

// kip101EndOffset mirrors Kip101EndOffset(c, leo, e) (model.Kip101EndOffset)
// of r's cache: Kafka 0.11.0's answer.
func (r *Replica) kip101EndOffset(leo, e int8) int8 {
	if e == -1 {
		return -1
	}
	if e == r.latestEpoch() {
		return leo
	}
	next := int8(-1)
	for k := range r.CacheLen {
		if r.Cache[k].Epoch > e {
			next = k
			break
		}
	}
	if next == -1 || r.CacheLen == 0 || e < r.Cache[0].Epoch {
		return -1
	}
	return r.Cache[next].Start
}
