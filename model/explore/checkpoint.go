package explore

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/hwepoch/hwepoch/model"
)

// A checkpoint (checkpointName in Options.SpillDir) is what Options.Resume
// continues a search from: written at the end of a level, it names the
// files that hold the search's state then (parent pointers and the
// fingerprints of the states since the last flush, the fingerprint runs,
// the next level's states) with their sizes and CRC-32Cs, and the counts.
// It is written to a temporary file, synced and renamed over the previous
// one, and the files it names are kept until a later checkpoint does not
// name them (spillDir.pin), so that a search killed at any moment leaves a
// whole checkpoint behind.
type checkpoint struct {
	Format int
	// Search is the SHA-256 of Identity: the configuration, the options
	// that shape the state graph or its fingerprints, and the initial
	// state's encoding and fingerprint (which change when the encoding or
	// the hash does).
	Search   string
	Identity string

	Depth         int
	Distinct      int64
	Generated     int64
	FrontierBytes int64
	SpilledBytes  int64
	Elapsed       time.Duration

	// States: the parent store's file (stateRecord bytes a state) as of
	// StateCount states; the in-memory fingerprints are those of states
	// SeenFrom onwards, the others are in Runs.
	States     fileRef
	StateCount int64
	SeenFrom   int64
	Runs       []runRef

	// The level to expand next: LevelStates states written to Level, of
	// which those not in LevelDrops (a file of bits, "" for none) are kept,
	// LevelCount of them, numbered from LevelBase.
	Level       fileRef
	LevelDrops  string
	LevelStates int
	LevelCount  int
	LevelBase   uint32

	// Sum is the SHA-256 of the checkpoint's JSON with Sum empty.
	Sum string
}

type runRef struct {
	File  fileRef
	Count int64
}

const checkpointFormat = 1

// identity describes a search for its checkpoint: what must be the same to
// resume it.
func identity(cfg *model.Config, opts *Options, initEnc []byte, initFP uint64) (desc, sum string) {
	cj, _ := json.Marshal(cfg)
	encSum := sha256.Sum256(initEnc)
	desc = fmt.Sprintf("config %s; invariants %v; properties %v; symmetry %t (full %t); initial state %x fingerprint %016x",
		cj, opts.Invariants, opts.Properties, opts.Symmetry, opts.Symmetry && opts.FullSymmetry, encSum[:8], initFP)
	if opts.Reduce {
		// Added only when set, so that the checkpoints of unreduced
		// searches keep the identity they were written with.
		desc += "; inert-message reduction"
	}
	s := sha256.Sum256([]byte(desc))
	return desc, hex.EncodeToString(s[:])
}

func (ck *checkpoint) marshal() ([]byte, error) {
	ck.Sum = ""
	b, err := json.MarshalIndent(ck, "", "  ")
	if err != nil {
		return nil, err
	}
	s := sha256.Sum256(b)
	ck.Sum = hex.EncodeToString(s[:])
	return json.MarshalIndent(ck, "", "  ")
}

// writeCheckpoint records the search at the end of a level, cur being the
// level to expand next.
func (st *store) writeCheckpoint(res *Result, cur *level, elapsed time.Duration) error {
	ps := st.parents
	if err := ps.f.sync(); err != nil {
		return err
	}
	lref, drops, err := cur.saveRef()
	if err != nil {
		return err
	}
	ck := &checkpoint{Format: checkpointFormat, Search: st.sum, Identity: st.desc,
		Depth: res.Depth, Distinct: res.Distinct, Generated: res.Generated, FrontierBytes: res.FrontierBytes,
		SpilledBytes: st.d.maxSize, Elapsed: elapsed,
		States: ps.f.ref(), StateCount: ps.len(), SeenFrom: st.seenFrom,
		Level: lref, LevelDrops: drops, LevelStates: cur.n, LevelCount: cur.count, LevelBase: cur.base}
	names := []string{ps.f.name, lref.Name}
	if drops != "" {
		names = append(names, drops)
	}
	for _, r := range st.runs.runs {
		ck.Runs = append(ck.Runs, runRef{r.ref, r.count})
		names = append(names, r.ref.Name)
	}
	b, err := ck.marshal()
	if err != nil {
		return err
	}
	tmp := st.d.file(checkpointName + ".tmp")
	if err := writeSynced(tmp, b); err != nil {
		return fmt.Errorf("writing the checkpoint: %w", err)
	}
	if err := os.Rename(tmp, st.d.file(checkpointName)); err != nil {
		return fmt.Errorf("writing the checkpoint: %w", err)
	}
	if dir, err := os.Open(st.d.path); err == nil {
		dir.Sync()
		dir.Close()
	}
	st.d.pin(names)
	if !cur.spilledFile(lref.Name) {
		st.d.remove(lref.Name) // a copy of a level in memory: the checkpoint's alone
	}
	st.d.remove(drops)
	return nil
}

func writeSynced(path string, b []byte) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// readCheckpoint reads and checks dir's checkpoint: present, whole, of
// this search.
func readCheckpoint(dir, path, sum, desc string) (*checkpoint, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("no checkpoint to resume in %s (a search with a spill directory writes %s there at the end of a level)", dir, checkpointName)
	}
	if err != nil {
		return nil, err
	}
	var ck checkpoint
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ck); err != nil {
		return nil, fmt.Errorf("checkpoint %s is corrupt or truncated: %v", path, err)
	}
	want := ck.Sum
	again, err := ck.marshal()
	if err != nil || ck.Sum != want || !bytes.Equal(bytes.TrimSpace(again), bytes.TrimSpace(b)) {
		return nil, fmt.Errorf("checkpoint %s is corrupt: its SHA-256 does not match its contents", path)
	}
	if ck.Format != checkpointFormat {
		return nil, fmt.Errorf("checkpoint %s is of format %d; this explorer reads format %d", path, ck.Format, checkpointFormat)
	}
	if ck.Search != sum {
		return nil, fmt.Errorf("checkpoint %s is of another search, not resumed:\n  the checkpoint's: %s\n  this one's:       %s",
			path, ck.Identity, desc)
	}
	if ck.StateCount < 1 || ck.SeenFrom > ck.StateCount || ck.States.Size != ck.StateCount*stateRecord ||
		ck.LevelCount > ck.LevelStates || int64(ck.LevelBase)+int64(ck.LevelCount) != ck.StateCount {
		return nil, fmt.Errorf("checkpoint %s is inconsistent: %d states, %d in memory, level of %d from %d", path,
			ck.StateCount, ck.StateCount-ck.SeenFrom, ck.LevelCount, ck.LevelBase)
	}
	return &ck, nil
}

// resume restores the search a checkpoint recorded: the parent store, the
// fingerprints (seen, and the runs), and the level to expand next. Every
// file is checked against the checkpoint's size and CRC.
func (st *store) resume(res *Result, seen *fpSet) (*checkpoint, *level, error) {
	ck, err := readCheckpoint(st.d.path, st.d.file(checkpointName), st.sum, st.desc)
	if err != nil {
		return nil, nil, err
	}
	fail := func(err error) (*checkpoint, *level, error) {
		st.d.sizes, st.d.bytes = map[string]int64{}, 0 // a failed resume deletes nothing
		return nil, nil, fmt.Errorf("resuming from %s: %w", st.d.file(checkpointName), err)
	}
	ps, err := openStates(st.d, ck.States, ck.StateCount, ck.SeenFrom, seen)
	if err != nil {
		return fail(err)
	}
	st.parents, st.seenFrom = ps, ck.SeenFrom
	keep := map[string]bool{ck.States.Name: true, ck.Level.Name: true, ck.LevelDrops: true}
	for _, r := range ck.Runs {
		if err := st.runs.loadRun(r.File, r.Count); err != nil {
			return fail(err)
		}
		keep[r.File.Name] = true
	}
	st.d.removeStray(keep)
	names := make([]string, 0, len(keep))
	for n := range keep {
		if n != "" {
			names = append(names, n)
		}
	}
	st.d.pin(names)
	cur, err := loadLevel(st.d, ck.Level, ck.LevelDrops, ck.LevelStates, ck.LevelCount, ck.LevelBase, st.levelLimit())
	if err != nil {
		return fail(err)
	}
	res.Depth, res.Distinct, res.Generated, res.FrontierBytes = ck.Depth, ck.Distinct, ck.Generated, ck.FrontierBytes
	st.d.maxSize = max(st.d.maxSize, ck.SpilledBytes)
	return ck, cur, nil
}

// openStates reopens the parent store's file for appending after the
// checkpoint's count states (cutting what a later level added), checking
// them, and adds the fingerprints of states seenFrom onwards to seen.
func openStates(d *spillDir, ref fileRef, count, seenFrom int64, seen *fpSet) (*parentStore, error) {
	f, err := os.OpenFile(d.file(ref.Name), os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil || st.Size() < ref.Size {
		f.Close()
		return nil, fmt.Errorf("%s is shorter than the checkpoint's %d states", ref.Name, count)
	}
	rd := bufio.NewReaderSize(io.NewSectionReader(f, 0, ref.Size), 1<<20)
	var crc uint32
	var rec [stateRecord]byte
	for i := range count {
		if _, err := io.ReadFull(rd, rec[:]); err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: %w", ref.Name, err)
		}
		crc = crc32.Update(crc, castagnoli, rec[:])
		if i >= seenFrom {
			seen.add(binary.LittleEndian.Uint64(rec[8:]))
		}
	}
	if crc != ref.CRC {
		f.Close()
		return nil, fmt.Errorf("%s is corrupt: CRC %08x, the checkpoint says %08x", ref.Name, crc, ref.CRC)
	}
	if err := f.Truncate(ref.Size); err != nil {
		f.Close()
		return nil, err
	}
	if _, err := f.Seek(ref.Size, io.SeekStart); err != nil {
		f.Close()
		return nil, err
	}
	d.adopt(ref.Name, ref.Size)
	sf := &spillFile{d: d, name: ref.Name, f: f, w: bufio.NewWriterSize(f, 1<<20), size: ref.Size, crc: ref.CRC}
	return &parentStore{f: sf, n: count, d: d}, nil
}

// hasCheckpoint says whether dir holds a checkpoint.
func hasCheckpoint(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, checkpointName))
	return err == nil
}
