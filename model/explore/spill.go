package explore

import (
	"bufio"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"
)

// The files a search spills to disk, all in one directory (Options.SpillDir
// or a temporary one): frontier levels (levelPrefix), the states' parent
// pointers (statesPrefix), runs of fingerprints flushed from memory
// (runPrefix) and the checkpoint (checkpointName) with the files it
// references. Every name but the checkpoint's starts with filePrefix, so
// that what an interrupted search left behind can be told from the user's
// files.
const (
	filePrefix     = "hwepoch-"
	levelPrefix    = filePrefix + "level-"
	statesPrefix   = filePrefix + "states-"
	runPrefix      = filePrefix + "fp-run-"
	dropsPrefix    = filePrefix + "drops-"
	checkpointName = "hwepoch-checkpoint.json"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// memSplit is the memory budget's share of each structure that spills: the
// in-memory fingerprint set, the two frontier levels alive at once (and the
// successors of the states being expanded), and the parent pointers.
type memSplit struct {
	fps, frontier, parents int64
}

// unlimited is a share that never spills.
const unlimited = math.MaxInt64 / 4

// splitBudget divides a budget of b bytes (0: 60% of the machine's memory;
// no limit when that is unknown). Fingerprints get half (they are what every
// successor is looked up in), the frontier 30%, the parent pointers, which
// only a counterexample reads, 20%.
func splitBudget(b int64) memSplit {
	if b <= 0 {
		b = MachineMemory() / 100 * 60
	}
	if b <= 0 {
		return memSplit{unlimited, unlimited, unlimited}
	}
	return memSplit{fps: b / 2, frontier: b / 10 * 3, parents: b / 5}
}

// spillDir is the directory of a search's files. It counts the bytes they
// hold, and keeps the files the last checkpoint references (pinned) until
// a later checkpoint no longer does, however soon the search is done with
// them.
type spillDir struct {
	path    string
	temp    bool // made under os.TempDir() for this search: removed at the end
	made    bool // path exists
	sizes   map[string]int64
	pinned  map[string]bool
	doomed  map[string]bool // removed by the search while pinned
	bytes   int64
	maxSize int64
	gauge   *atomic.Int64 // the progress line's spilled bytes
}

func newSpillDir(path string, gauge *atomic.Int64) *spillDir {
	return &spillDir{path: path, temp: path == "", made: path != "", sizes: map[string]int64{},
		pinned: map[string]bool{}, doomed: map[string]bool{}, gauge: gauge}
}

// mkdir makes the temporary directory on the first spill: a search that
// fits in memory touches no disk.
func (d *spillDir) mkdir() error {
	if d.made {
		return nil
	}
	p, err := os.MkdirTemp("", "hwepoch-spill-")
	if err != nil {
		return fmt.Errorf("spilling to disk: %w", err)
	}
	d.path, d.made = p, true
	return nil
}

func (d *spillDir) file(name string) string { return filepath.Join(d.path, name) }

func (d *spillDir) grow(name string, n int64) {
	d.sizes[name] += n
	d.bytes += n
	d.maxSize = max(d.maxSize, d.bytes)
	if d.gauge != nil {
		d.gauge.Store(d.bytes)
	}
}

// remove deletes a file the search is done with, or, when the checkpoint
// references it, once a later checkpoint does not.
func (d *spillDir) remove(name string) {
	if name == "" {
		return
	}
	if d.pinned[name] {
		d.doomed[name] = true
		return
	}
	os.Remove(d.file(name))
	d.grow(name, -d.sizes[name])
	delete(d.sizes, name)
}

// pin makes names the files the checkpoint references; files the search
// removed while the previous checkpoint referenced them go now.
func (d *spillDir) pin(names []string) {
	d.pinned = map[string]bool{}
	for _, n := range names {
		d.pinned[n] = true
	}
	for n := range d.doomed {
		if !d.pinned[n] {
			delete(d.doomed, n)
			d.remove(n)
		}
	}
}

// cleanup is the end of a search. A finished one (keep false) leaves
// nothing: its files, its checkpoint, and a temporary directory go. One
// stopped part way keeps its checkpoint and the files it references.
func (d *spillDir) cleanup(keep bool) {
	if !d.made {
		return
	}
	if d.temp {
		os.RemoveAll(d.path)
		return
	}
	if !keep {
		d.pinned = map[string]bool{}
		os.Remove(d.file(checkpointName))
	}
	for n := range d.sizes {
		if !d.pinned[n] {
			d.remove(n)
		}
	}
	if !keep {
		d.removeStray(nil)
	}
}

// removeStray removes the files of ours in the directory that keep does
// not name: what a search killed part way left beside its checkpoint.
func (d *spillDir) removeStray(keep map[string]bool) {
	ents, err := os.ReadDir(d.path)
	if err != nil {
		return
	}
	for _, e := range ents {
		if n := e.Name(); strings.HasPrefix(n, filePrefix) && !keep[n] && n != checkpointName {
			os.Remove(d.file(n))
		}
	}
}

// spillFile is a file being written sequentially, with its size and CRC-32C
// (Castagnoli) kept as it grows.
type spillFile struct {
	d    *spillDir
	name string
	f    *os.File
	w    *bufio.Writer
	size int64
	crc  uint32
}

// create makes a new file named prefix + a unique suffix.
func (d *spillDir) create(prefix string) (*spillFile, error) {
	if err := d.mkdir(); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(d.path, prefix+"*")
	if err != nil {
		return nil, fmt.Errorf("spilling to disk: %w", err)
	}
	name := filepath.Base(f.Name())
	d.sizes[name] = 0
	return &spillFile{d: d, name: name, f: f, w: bufio.NewWriterSize(f, 1<<20)}, nil
}

func (f *spillFile) Write(p []byte) (int, error) {
	n, err := f.w.Write(p)
	f.size += int64(n)
	f.crc = crc32.Update(f.crc, castagnoli, p[:n])
	f.d.grow(f.name, int64(n))
	if err != nil {
		return n, fmt.Errorf("spilling to %s: %w", f.d.file(f.name), err)
	}
	return n, nil
}

// sync writes out what is buffered and makes it durable.
func (f *spillFile) sync() error {
	if err := f.w.Flush(); err != nil {
		return fmt.Errorf("spilling to %s: %w", f.d.file(f.name), err)
	}
	return f.f.Sync()
}

// close syncs and closes the file; it stays on disk.
func (f *spillFile) close() error {
	err := f.sync()
	if cerr := f.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// ref is how a checkpoint names the file as written so far.
func (f *spillFile) ref() fileRef { return fileRef{Name: f.name, Size: f.size, CRC: f.crc} }

// fileRef names a file, or its first Size bytes, by its CRC-32C.
type fileRef struct {
	Name string
	Size int64
	CRC  uint32
}

// adopt counts a file a checkpoint left as one of the search's.
func (d *spillDir) adopt(name string, size int64) {
	d.sizes[name] = 0
	d.grow(name, size)
}

// store is what a search holds besides the in-memory fingerprint set and
// the chunks being expanded: the directory it spills to, the budget's
// split, the fingerprint runs, the parent pointers, and when to checkpoint.
type store struct {
	d        *spillDir
	split    memSplit
	runs     fpRuns
	parents  *parentStore
	seenFrom int64 // the in-memory fingerprints are those of states seenFrom onwards
	// window is the bytes of encodings expanded at a time from a level: a
	// sixteenth of the frontier's share, as a window's successors, before
	// they are deduplicated, take about six times its size.
	window int64
	every  time.Duration
	last   time.Time // the last checkpoint (or the start)
	sum    string    // identity's
	desc   string
}

func newStore(opts *Options, gauge *atomic.Int64) (*store, error) {
	if opts.Resume && opts.SpillDir == "" {
		return nil, fmt.Errorf("resuming a search needs the spill directory its checkpoint is in (Options.SpillDir)")
	}
	split := splitBudget(opts.MemoryBudget)
	if opts.split != nil {
		split = *opts.split
	}
	st := &store{d: newSpillDir(opts.SpillDir, gauge), split: split, window: max(split.frontier/16, 1), last: time.Now()}
	st.runs.d = st.d
	st.parents = &parentStore{limit: split.parents, d: st.d}
	if opts.SpillDir != "" {
		st.every = opts.CheckpointEvery
		if st.every == 0 {
			st.every = time.Minute
		}
		if err := os.MkdirAll(opts.SpillDir, 0o755); err != nil {
			return nil, fmt.Errorf("spill directory: %w", err)
		}
		if !opts.Resume && hasCheckpoint(opts.SpillDir) {
			return nil, fmt.Errorf("%s holds the checkpoint of an earlier search: resume it, or remove %s to start afresh",
				opts.SpillDir, filepath.Join(opts.SpillDir, checkpointName))
		}
		if !opts.Resume {
			st.d.removeStray(nil)
		}
	}
	if st.every > 0 {
		st.parents.limit = 0 // a checkpoint names the parents' file
	}
	return st, nil
}

// newLevel is an empty level; a third of the frontier's share is for it,
// a third for the level expanded, a third for the window's successors.
func (st *store) newLevel() *level { return &level{d: st.d, limit: st.levelLimit()} }

func (st *store) levelLimit() int64 { return max(st.split.frontier/3, 1) }

// endLevel comes after a level is sealed: the in-memory fingerprints
// become a run if they outgrew their share, and a checkpoint is written if
// one is due.
func (st *store) endLevel(seen *fpSet, res *Result, cur *level, elapsed time.Duration) error {
	if int64(seen.bytes()) > st.split.fps {
		if err := st.runs.flush(seen); err != nil {
			return err
		}
		st.seenFrom = st.parents.len()
	}
	if st.every > 0 && time.Since(st.last) >= st.every {
		if err := st.writeCheckpoint(res, cur, elapsed); err != nil {
			return err
		}
		st.last = time.Now()
	}
	return nil
}

// close ends the search: a finished one leaves nothing on disk; one
// stopped part way leaves its checkpoint.
func (st *store) close(finished bool) {
	if st.parents.f != nil && st.parents.f.f != nil {
		st.parents.f.w.Flush()
		st.parents.f.f.Close()
	}
	st.d.cleanup(!finished)
}
