package explore

import (
	"encoding/binary"
	"fmt"
)

// parentStore holds, for every state in BFS order, the state it was first
// reached from and the action that reached it: what rebuild follows back to
// the initial state. They are kept in memory until they outgrow their
// share of the budget, then in a file (statesPrefix) of 16 bytes a state:
// parent, action, and the state's fingerprint, which a checkpoint uses to
// restore the in-memory fingerprint set (records spilled from memory carry
// fingerprint 0: a search that checkpoints writes the file from the start).
type parentStore struct {
	parents []uint32
	acts    []packed
	f       *spillFile
	n       int64
	limit   int64 // bytes in memory before spilling
	d       *spillDir
}

const stateRecord = 16

func (p *parentStore) len() int64 { return p.n }

// bytes is what the store holds in memory.
func (p *parentStore) bytes() int64 { return int64(4*cap(p.parents) + 4*cap(p.acts)) }

func (p *parentStore) add(parent uint32, act packed, fp uint64) error {
	if p.f == nil && 8*(p.n+1) > p.limit {
		if err := p.spill(); err != nil {
			return err
		}
	}
	p.n++
	if p.f == nil {
		p.parents = append(p.parents, parent)
		p.acts = append(p.acts, act)
		return nil
	}
	var rec [stateRecord]byte
	putRecord(rec[:], parent, act, fp)
	_, err := p.f.Write(rec[:])
	return err
}

func putRecord(b []byte, parent uint32, act packed, fp uint64) {
	binary.LittleEndian.PutUint32(b, parent)
	binary.LittleEndian.PutUint32(b[4:], uint32(act))
	binary.LittleEndian.PutUint64(b[8:], fp)
}

// spill moves the records to a file, where every later one goes too.
func (p *parentStore) spill() error {
	f, err := p.d.create(statesPrefix)
	if err != nil {
		return err
	}
	p.f = f
	var rec [stateRecord]byte
	for i := range p.parents {
		putRecord(rec[:], p.parents[i], p.acts[i], 0)
		if _, err := f.Write(rec[:]); err != nil {
			return err
		}
	}
	p.parents, p.acts = nil, nil
	return nil
}

// get is state i's parent and the action from it.
func (p *parentStore) get(i uint32) (uint32, packed, error) {
	if int64(i) >= p.n {
		return 0, 0, fmt.Errorf("state %d: only %d states numbered", i, p.n)
	}
	if p.f == nil {
		return p.parents[i], p.acts[i], nil
	}
	if err := p.f.w.Flush(); err != nil {
		return 0, 0, err
	}
	var rec [stateRecord]byte
	if _, err := p.f.f.ReadAt(rec[:], int64(i)*stateRecord); err != nil {
		return 0, 0, fmt.Errorf("reading state %d's parent from %s: %w", i, p.d.file(p.f.name), err)
	}
	return binary.LittleEndian.Uint32(rec[:]), packed(binary.LittleEndian.Uint32(rec[4:])), nil
}
