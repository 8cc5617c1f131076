package explore

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"slices"
	"sort"
)

// Fingerprints beyond memory. When the in-memory set (fpSet) outgrows its
// share of the budget it is written out, at the end of a level, as a run: a
// file of its fingerprints sorted, 8 bytes each, little endian, with a
// sparse index in memory (the first fingerprint of every block of
// runBlock). The set then starts empty. A level's successors are deduplicated
// against the in-memory set as they are generated (so the first of each
// fingerprint in BFS order wins, as without runs), and at the end of the
// level, in one pass over their sorted fingerprints, against the runs: a
// successor found there was reached in an earlier level and is dropped
// (level.seal). Reading a run block by block skips the blocks no successor
// falls in. Past maxRuns runs they are merged into one, as an LSM tree (or
// TLC's DiskFPSet) compacts, so that a level reads few files.
const (
	runBlock = 4096 // fingerprints a block: 32 KiB, the unit read and indexed
	maxRuns  = 4
)

type fpRun struct {
	ref   fileRef
	count int64
	index []uint64 // the first fingerprint of each block
}

type fpRuns struct {
	d      *spillDir
	runs   []*fpRun
	merges int
}

// count is the fingerprints in the runs (duplicates across runs counted twice).
func (r *fpRuns) count() int64 {
	var n int64
	for _, run := range r.runs {
		n += run.count
	}
	return n
}

// runWriter writes a run from fingerprints given in ascending order,
// dropping repeats.
type runWriter struct {
	f    *spillFile
	run  *fpRun
	last uint64
}

func (r *fpRuns) newRun() (*runWriter, error) {
	f, err := r.d.create(runPrefix)
	if err != nil {
		return nil, err
	}
	return &runWriter{f: f, run: &fpRun{}}, nil
}

func (w *runWriter) add(fp uint64) error {
	n := w.run.count
	if n > 0 && w.last >= fp {
		if w.last == fp {
			return nil
		}
		return fmt.Errorf("fingerprint run %s: %#x after %#x: not sorted", w.f.name, fp, w.last)
	}
	if n%runBlock == 0 {
		w.run.index = append(w.run.index, fp)
	}
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], fp)
	w.run.count++
	w.last = fp
	_, err := w.f.Write(b[:])
	return err
}

func (w *runWriter) finish() (*fpRun, error) {
	if err := w.f.close(); err != nil {
		return nil, err
	}
	w.run.ref = w.f.ref()
	return w.run, nil
}

// flush writes the set's fingerprints as a new run and empties the set.
// Shards hold the fingerprints of one range of top bits each, so sorting
// each in place, in shard order, sorts the whole with no copy.
func (r *fpRuns) flush(s *fpSet) error {
	w, err := r.newRun()
	if err != nil {
		return err
	}
	for i := range s.shards {
		sh := &s.shards[i]
		slices.Sort(sh.slots)
		for _, fp := range sh.slots {
			if fp == 0 {
				continue
			}
			if err := w.add(fp); err != nil {
				return err
			}
		}
		sh.slots = nil
	}
	run, err := w.finish()
	if err != nil {
		return err
	}
	r.runs = append(r.runs, run)
	*s = *newFPSet()
	if len(r.runs) > maxRuns {
		return r.merge()
	}
	return nil
}

// merge replaces the runs by one run of their union.
func (r *fpRuns) merge() error {
	type src struct {
		rd   *bufio.Reader
		f    *os.File
		head uint64
		left int64
	}
	var srcs []*src
	defer func() {
		for _, s := range srcs {
			s.f.Close()
		}
	}()
	next := func(s *src) error {
		if s.left == 0 {
			return nil
		}
		var b [8]byte
		if _, err := io.ReadFull(s.rd, b[:]); err != nil {
			return fmt.Errorf("merging fingerprint runs: %s: %w", s.f.Name(), err)
		}
		s.head = binary.LittleEndian.Uint64(b[:])
		s.left--
		return nil
	}
	for _, run := range r.runs {
		f, err := os.Open(r.d.file(run.ref.Name))
		if err != nil {
			return fmt.Errorf("merging fingerprint runs: %w", err)
		}
		s := &src{rd: bufio.NewReaderSize(f, 1<<20), f: f, left: run.count}
		srcs = append(srcs, s)
	}
	w, err := r.newRun()
	if err != nil {
		return err
	}
	// live: the sources whose head is not yet written.
	var live []*src
	for _, s := range srcs {
		if s.left > 0 {
			if err := next(s); err != nil {
				return err
			}
			live = append(live, s)
		}
	}
	for len(live) > 0 {
		m := 0
		for i := range live {
			if live[i].head < live[m].head {
				m = i
			}
		}
		s := live[m]
		if err := w.add(s.head); err != nil {
			return err
		}
		if s.left == 0 {
			live = slices.Delete(live, m, m+1)
			continue
		}
		if err := next(s); err != nil {
			return err
		}
	}
	run, err := w.finish()
	if err != nil {
		return err
	}
	for _, old := range r.runs {
		r.d.remove(old.ref.Name)
	}
	r.runs = []*fpRun{run}
	r.merges++
	return nil
}

// lookup returns those of fps (ascending, no repeats) that some run holds,
// in ascending order.
func (r *fpRuns) lookup(fps []uint64) ([]uint64, error) {
	var hits []uint64
	raw := make([]byte, 8*runBlock)
	blk := make([]uint64, 0, runBlock)
	for _, run := range r.runs {
		f, err := os.Open(r.d.file(run.ref.Name))
		if err != nil {
			return nil, fmt.Errorf("reading a fingerprint run: %w", err)
		}
		loaded := -1
		for _, fp := range fps {
			b := sort.Search(len(run.index), func(i int) bool { return run.index[i] > fp }) - 1
			if b < 0 {
				continue
			}
			if b != loaded {
				n := min(runBlock, run.count-int64(b)*runBlock)
				if _, err := f.ReadAt(raw[:8*n], int64(b)*runBlock*8); err != nil {
					f.Close()
					return nil, fmt.Errorf("reading fingerprint run %s: %w", f.Name(), err)
				}
				blk = blk[:0]
				for i := range n {
					blk = append(blk, binary.LittleEndian.Uint64(raw[8*i:]))
				}
				loaded = b
			}
			if _, ok := slices.BinarySearch(blk, fp); ok {
				hits = append(hits, fp)
			}
		}
		f.Close()
	}
	slices.Sort(hits)
	return slices.Compact(hits), nil
}

// loadRun reads back a run a checkpoint names: it must be there, whole
// (its size and CRC-32C) and sorted; its index is rebuilt on the way.
func (r *fpRuns) loadRun(ref fileRef, count int64) error {
	if ref.Size != 8*count {
		return fmt.Errorf("fingerprint run %s: %d bytes for %d fingerprints", ref.Name, ref.Size, count)
	}
	f, err := os.Open(r.d.file(ref.Name))
	if err != nil {
		return err
	}
	defer f.Close()
	rd := bufio.NewReaderSize(f, 1<<20)
	run := &fpRun{ref: ref, count: count}
	var crc uint32
	var b [8]byte
	var last uint64
	for i := range count {
		if _, err := io.ReadFull(rd, b[:]); err != nil {
			return fmt.Errorf("fingerprint run %s: %w", ref.Name, err)
		}
		crc = crc32.Update(crc, castagnoli, b[:])
		fp := binary.LittleEndian.Uint64(b[:])
		if i > 0 && fp <= last {
			return fmt.Errorf("fingerprint run %s: not sorted at %d", ref.Name, i)
		}
		if i%runBlock == 0 {
			run.index = append(run.index, fp)
		}
		last = fp
	}
	if _, err := rd.ReadByte(); !errors.Is(err, io.EOF) {
		return fmt.Errorf("fingerprint run %s: longer than the checkpoint says", ref.Name)
	}
	if crc != ref.CRC {
		return fmt.Errorf("fingerprint run %s: CRC %08x, the checkpoint says %08x", ref.Name, crc, ref.CRC)
	}
	r.d.adopt(ref.Name, ref.Size)
	r.runs = append(r.runs, run)
	return nil
}
