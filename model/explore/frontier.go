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
)

// level is one BFS level's states in BFS order: built as the next level
// while the current one is expanded (add), numbered at the level's end
// (seal), then expanded in its turn, a window at a time (windows). States
// are opaque encodings, of any length. A level is held in memory, its
// encodings in blocks of an arena with a node each, until it outgrows its
// share of the budget; from then on in a file (levelPrefix) of encodings,
// each preceded by its length (uvarint), read back sequentially.
type level struct {
	d     *spillDir
	limit int64 // bytes in memory before spilling

	// In memory: the encodings (blocks of an arena that never move, so
	// nodes can point into them), the nodes, and until sealing each
	// state's fingerprint, parent and action.
	blocks [][]byte
	nodes  []node
	meta   []levelMeta
	mem    int64 // bytes held in memory

	// On disk: the encodings, and until sealing the metadata (mf, 16 bytes a
	// state: putRecord's layout).
	f  *spillFile
	mf *spillFile

	n int // states added

	// Once sealed: the states kept are numbered base, base+1, ...; drops
	// marks (a bit per state added) those found in a fingerprint run,
	// which a spilled level still holds and skips when read.
	base  uint32
	count int
	drops []uint64
}

type levelMeta struct {
	fp     uint64
	parent uint32
	act    packed
}

const levelBlock = 1 << 20

// add appends a state: its fingerprint, the state it was reached from, the
// action, and its encoding (copied).
func (l *level) add(fp uint64, parent uint32, act packed, enc []byte) error {
	if l.f == nil && l.mem+int64(len(enc))+16+16 > l.limit {
		if err := l.spill(); err != nil {
			return err
		}
	}
	l.n++
	if l.f != nil {
		return l.write(fp, parent, act, enc)
	}
	k := len(l.blocks) - 1
	if k < 0 || cap(l.blocks[k])-len(l.blocks[k]) < len(enc) {
		l.blocks = append(l.blocks, make([]byte, 0, max(levelBlock, len(enc))))
		k++
	}
	b := l.blocks[k]
	off := len(b)
	b = append(b, enc...)
	l.blocks[k] = b
	l.nodes = append(l.nodes, node{enc: b[off:len(b):len(b)]})
	l.meta = append(l.meta, levelMeta{fp, parent, act})
	l.mem += int64(len(enc)) + 16 + 16
	return nil
}

func (l *level) write(fp uint64, parent uint32, act packed, enc []byte) error {
	var b [binary.MaxVarintLen64 + stateRecord]byte
	n := binary.PutUvarint(b[:], uint64(len(enc)))
	if _, err := l.f.Write(b[:n]); err != nil {
		return err
	}
	if _, err := l.f.Write(enc); err != nil {
		return err
	}
	putRecord(b[:], parent, act, fp)
	_, err := l.mf.Write(b[:stateRecord])
	return err
}

// spill moves the level to files, where every later state goes too.
func (l *level) spill() error {
	var err error
	if l.f, err = l.d.create(levelPrefix); err != nil {
		return err
	}
	if l.mf, err = l.d.create(levelPrefix + "meta-"); err != nil {
		return err
	}
	for i := range l.nodes {
		m := &l.meta[i]
		if err := l.write(m.fp, m.parent, m.act, l.nodes[i].enc); err != nil {
			return err
		}
	}
	l.blocks, l.nodes, l.meta, l.mem = nil, nil, nil, 0
	return nil
}

// eachMeta calls do with each state's metadata, in order.
func (l *level) eachMeta(do func(k int, m levelMeta) error) error {
	if l.mf == nil {
		for k, m := range l.meta {
			if err := do(k, m); err != nil {
				return err
			}
		}
		return nil
	}
	if err := l.mf.w.Flush(); err != nil {
		return err
	}
	rd := bufio.NewReaderSize(io.NewSectionReader(l.mf.f, 0, l.mf.size), 1<<20)
	var b [stateRecord]byte
	for k := range l.n {
		if _, err := io.ReadFull(rd, b[:]); err != nil {
			return fmt.Errorf("reading back %s: %w", l.d.file(l.mf.name), err)
		}
		m := levelMeta{parent: binary.LittleEndian.Uint32(b[:]), act: packed(binary.LittleEndian.Uint32(b[4:])),
			fp: binary.LittleEndian.Uint64(b[8:])}
		if err := do(k, m); err != nil {
			return err
		}
	}
	return nil
}

// seal ends the level: the states whose fingerprints a run holds (reached
// in an earlier level, before the set was flushed) are dropped, and the
// others, in order, are numbered from the parent store's length and their
// parents appended to it.
func (l *level) seal(runs *fpRuns, ps *parentStore) error {
	l.base = uint32(ps.len())
	var hits []uint64
	if len(runs.runs) > 0 && l.n > 0 {
		fps := make([]uint64, 0, l.n)
		if err := l.eachMeta(func(_ int, m levelMeta) error { fps = append(fps, m.fp); return nil }); err != nil {
			return err
		}
		slices.Sort(fps)
		var err error
		if hits, err = runs.lookup(slices.Compact(fps)); err != nil {
			return err
		}
	}
	if len(hits) > 0 && l.f != nil {
		l.drops = make([]uint64, (l.n+63)/64)
	}
	keep := 0
	err := l.eachMeta(func(k int, m levelMeta) error {
		if _, hit := slices.BinarySearch(hits, m.fp); hit {
			if l.drops != nil {
				l.drops[k/64] |= 1 << (k % 64)
			}
			return nil
		}
		if l.f == nil {
			l.nodes[keep] = l.nodes[k]
			l.nodes[keep].idx = l.base + uint32(keep)
		}
		keep++
		return ps.add(m.parent, m.act, m.fp)
	})
	if err != nil {
		return err
	}
	l.count, l.meta = keep, nil
	if l.f == nil {
		clear(l.nodes[keep:])
		l.nodes = l.nodes[:keep]
		l.mem -= 16 * int64(l.n) // the metadata
		l.n = keep               // the dropped are gone
		return nil
	}
	l.mf.f.Close()
	l.d.remove(l.mf.name)
	l.mf = nil
	return l.f.close()
}

func (l *level) dropped(k int) bool {
	return l.drops != nil && l.drops[k/64]&(1<<(k%64)) != 0
}

// spilledFile says whether the level is held in the file name.
func (l *level) spilledFile(name string) bool { return l.f != nil && l.f.name == name }

// memBytes is what the level holds in memory while w, a window of it, is
// expanded: all of it, or (spilled) the window read back.
func (l *level) memBytes(w []node) int64 {
	if l.f == nil {
		return l.mem
	}
	var n int64
	for i := range w {
		n += int64(len(w[i].enc)) + 16
	}
	return n
}

// windows calls do with the level's states in order, a slice at a time: a
// whole number of chunks (but the last), at least minStates, and about
// limit bytes of encodings. The slice is valid during the call only.
func (l *level) windows(limit int64, minStates int, do func(w []node) error) error {
	enough := func(states int, bytes int64) bool {
		return states >= minStates && bytes >= limit && states%chunkSize == 0
	}
	if l.f == nil {
		for lo := 0; lo < len(l.nodes); {
			hi, bytes := lo, int64(0)
			for hi < len(l.nodes) && !enough(hi-lo, bytes) {
				bytes += int64(len(l.nodes[hi].enc))
				hi++
			}
			if err := do(l.nodes[lo:hi]); err != nil {
				return err
			}
			lo = hi
		}
		return nil
	}
	fh, err := os.Open(l.d.file(l.f.name))
	if err != nil {
		return fmt.Errorf("reading back a spilled level: %w", err)
	}
	defer fh.Close()
	rd := bufio.NewReaderSize(fh, 1<<20)
	var arena []byte
	var offs []int
	var win []node
	kept := 0
	for k := 0; k < l.n; k++ {
		size, err := binary.ReadUvarint(rd)
		if err != nil {
			return fmt.Errorf("reading back %s: %w", l.d.file(l.f.name), err)
		}
		if l.dropped(k) {
			if _, err := rd.Discard(int(size)); err != nil {
				return fmt.Errorf("reading back %s: %w", l.d.file(l.f.name), err)
			}
			continue
		}
		off := len(arena)
		arena = slices.Grow(arena, int(size))[:off+int(size)]
		if _, err := io.ReadFull(rd, arena[off:]); err != nil {
			return fmt.Errorf("reading back %s: %w", l.d.file(l.f.name), err)
		}
		offs = append(offs, off)
		if enough(len(offs), int64(len(arena))) || kept+len(offs) == l.count {
			win = win[:0]
			for i, off := range offs {
				end := len(arena)
				if i+1 < len(offs) {
					end = offs[i+1]
				}
				win = append(win, node{enc: arena[off:end:end], idx: l.base + uint32(kept+i)})
			}
			if err := do(win); err != nil {
				return err
			}
			kept += len(offs)
			arena, offs = arena[:0], offs[:0]
		}
	}
	if kept != l.count {
		return fmt.Errorf("%s: %d states read back, %d written", l.d.file(l.f.name), kept, l.count)
	}
	return nil
}

// release frees the level once expanded.
func (l *level) release() {
	if l.f != nil {
		if l.f.f != nil {
			l.f.f.Close() // a level not sealed (the search stopped) is still open
		}
		l.d.remove(l.f.name)
	}
	if l.mf != nil {
		l.mf.f.Close()
		l.d.remove(l.mf.name)
	}
	*l = level{}
}

// saveRef writes a level held in memory to a file for a checkpoint (the
// level stays in memory); a spilled one is its file already. drops is the
// file of its drop bits, "" when none.
func (l *level) saveRef() (ref fileRef, drops string, err error) {
	if l.f != nil {
		if l.drops == nil {
			return l.f.ref(), "", nil
		}
		df, err := l.d.create(dropsPrefix)
		if err != nil {
			return fileRef{}, "", err
		}
		var b [8]byte
		for _, w := range l.drops {
			binary.LittleEndian.PutUint64(b[:], w)
			if _, err := df.Write(b[:]); err != nil {
				return fileRef{}, "", err
			}
		}
		return l.f.ref(), df.name, df.close()
	}
	f, err := l.d.create(levelPrefix)
	if err != nil {
		return fileRef{}, "", err
	}
	var b [binary.MaxVarintLen64]byte
	for _, nd := range l.nodes {
		n := binary.PutUvarint(b[:], uint64(len(nd.enc)))
		if _, err := f.Write(b[:n]); err != nil {
			return fileRef{}, "", err
		}
		if _, err := f.Write(nd.enc); err != nil {
			return fileRef{}, "", err
		}
	}
	return f.ref(), "", f.close()
}

// loadLevel reads back a sealed level a checkpoint names (n states written,
// count kept, numbered from base; drops the file of drop bits or ""),
// checking its size and CRC-32C. One that fits in limit is held in memory,
// a larger one stays in its file.
func loadLevel(d *spillDir, ref fileRef, drops string, n, count int, base uint32, limit int64) (*level, error) {
	l := &level{d: d, limit: unlimited, n: n, base: base, count: count}
	if drops != "" {
		b, err := os.ReadFile(d.file(drops))
		if err != nil {
			return nil, err
		}
		if len(b) != (n+63)/64*8 {
			return nil, fmt.Errorf("%s: %d bytes, not one bit per state of %d", drops, len(b), n)
		}
		l.drops = make([]uint64, len(b)/8)
		for i := range l.drops {
			l.drops[i] = binary.LittleEndian.Uint64(b[8*i:])
		}
	}
	fh, err := os.Open(d.file(ref.Name))
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	if st, err := fh.Stat(); err != nil || st.Size() != ref.Size {
		return nil, fmt.Errorf("level file %s: not of the %d bytes the checkpoint says", ref.Name, ref.Size)
	}
	inMemory := ref.Size+int64(count)*16 <= limit
	crc := crc32.New(castagnoli)
	rd := bufio.NewReaderSize(io.TeeReader(fh, crc), 1<<20)
	kept := 0
	for k := range n {
		size, err := binary.ReadUvarint(rd)
		if err != nil || size > uint64(ref.Size) {
			return nil, fmt.Errorf("level file %s: state %d: truncated or corrupt", ref.Name, k)
		}
		enc := make([]byte, size)
		if _, err := io.ReadFull(rd, enc); err != nil {
			return nil, fmt.Errorf("level file %s: state %d: %w", ref.Name, k, err)
		}
		if l.dropped(k) {
			continue
		}
		if inMemory {
			if err := l.add(0, 0, 0, enc); err != nil {
				return nil, err
			}
			l.nodes[len(l.nodes)-1].idx = base + uint32(kept)
		}
		kept++
	}
	if _, err := rd.ReadByte(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("level file %s: longer than the checkpoint says", ref.Name)
	}
	if crc.Sum32() != ref.CRC || kept != count {
		return nil, fmt.Errorf("level file %s: corrupt (CRC %08x, %d states kept; the checkpoint says %08x, %d)", ref.Name, crc.Sum32(), kept, ref.CRC, count)
	}
	d.adopt(ref.Name, ref.Size)
	if drops != "" {
		st, _ := os.Stat(d.file(drops))
		if st != nil {
			d.adopt(drops, st.Size())
		}
	}
	l.limit = limit
	if inMemory {
		l.meta, l.n, l.drops = nil, count, nil
		l.mem -= 16 * int64(count) // no metadata once sealed
		d.remove(ref.Name)         // doomed: the checkpoint still references it
		d.remove(drops)
		return l, nil
	}
	l.f = &spillFile{d: d, name: ref.Name, size: ref.Size, crc: ref.CRC}
	d.remove(drops) // read; doomed
	return l, nil
}
