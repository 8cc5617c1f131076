package storage

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// The segment file format. Kafka's record batch format is not needed here;
// what is kept from Kafka (LogSegment, FileRecords) is the shape: a log is a
// sequence of segment files named by their base offset, each an append-only
// sequence of self-checking records, so a torn or corrupt tail is found on
// load rather than served.
//
//	segment  = header record*
//	header   = magic[8] baseOffset:int64 crc:uint32        (20 bytes)
//	record   = length:uint32 crc:uint32 body[length]
//	body     = offset:int64 leaderEpoch:int32 id:int64 payload[length-20]
//
// Integers are big-endian (as in Kafka). The header crc is CRC32C of the 16
// bytes before it; a record's crc is CRC32C of its length field and body, so
// a damaged length is caught too and not mistaken for a record boundary.

const (
	segmentSuffix    = ".log"
	headerSize       = 20
	recordHeaderSize = 8  // length, crc
	recordFixedBody  = 20 // offset, leader epoch, id
	// MaxPayloadBytes bounds one record's payload, so a damaged length field
	// can never make the loader allocate gigabytes.
	MaxPayloadBytes = 1 << 20
	// DefaultSegmentBytes is the roll threshold when Options leaves it 0.
	DefaultSegmentBytes = 1 << 20
)

var (
	segmentMagic = [8]byte{'H', 'W', 'E', 'P', 'L', 'O', 'G', 1}
	castagnoli   = crc32.MakeTable(crc32.Castagnoli)
)

// Record is one record of the partition log (spec Record: id and epoch; the
// offset is its position). Payload is optional and opaque.
type Record struct {
	Offset      int64
	LeaderEpoch int32
	ID          int64
	Payload     []byte
}

// CorruptError is a log segment that fails validation on load or read. Pos is
// the byte offset in File where the bad header or record starts; Record is
// the record's index in the segment (-1 for the header) and Offset the log
// offset expected there. Torn means the file ends inside the record: the
// signature of an interrupted write rather than of damaged bytes.
type CorruptError struct {
	File   string
	Pos    int64
	Record int
	Offset int64
	Torn   bool
	Reason string
}

func (e *CorruptError) Error() string {
	what := "corrupt"
	if e.Torn {
		what = "torn"
	}
	if e.Record < 0 {
		return fmt.Sprintf("storage: %s log segment %s at byte %d (segment header): %s", what, e.File, e.Pos, e.Reason)
	}
	return fmt.Sprintf("storage: %s log segment %s at byte %d (record %d, offset %d): %s",
		what, e.File, e.Pos, e.Record, e.Offset, e.Reason)
}

// segmentName is Kafka's LogFileUtils.logFile naming: the base offset as 20
// zero-padded digits.
func segmentName(base int64) string { return fmt.Sprintf("%020d%s", base, segmentSuffix) }

// parseSegmentName returns the base offset of a segment file name, or false
// if name is not one we would have written.
func parseSegmentName(name string) (int64, bool) {
	digits, ok := strings.CutSuffix(name, segmentSuffix)
	if !ok || len(digits) != 20 {
		return 0, false
	}
	base, err := strconv.ParseInt(digits, 10, 64)
	if err != nil || base < 0 || segmentName(base) != name {
		return 0, false
	}
	return base, true
}

func encodeHeader(base int64) []byte {
	b := make([]byte, headerSize)
	copy(b, segmentMagic[:])
	binary.BigEndian.PutUint64(b[8:], uint64(base))
	binary.BigEndian.PutUint32(b[16:], crc32.Checksum(b[:16], castagnoli))
	return b
}

func encodedSize(r Record) int64 {
	return recordHeaderSize + recordFixedBody + int64(len(r.Payload))
}

// appendRecord appends the encoding of r to buf.
func appendRecord(buf []byte, r Record) []byte {
	start := len(buf)
	buf = binary.BigEndian.AppendUint32(buf, uint32(recordFixedBody+len(r.Payload)))
	buf = binary.BigEndian.AppendUint32(buf, 0) // crc, filled below
	buf = binary.BigEndian.AppendUint64(buf, uint64(r.Offset))
	buf = binary.BigEndian.AppendUint32(buf, uint32(r.LeaderEpoch))
	buf = binary.BigEndian.AppendUint64(buf, uint64(r.ID))
	buf = append(buf, r.Payload...)
	crc := recordCRC(buf[start:])
	binary.BigEndian.PutUint32(buf[start+4:], crc)
	return buf
}

// recordCRC is the CRC32C of an encoded record's length field and body.
func recordCRC(rec []byte) uint32 {
	crc := crc32.Update(0, castagnoli, rec[:4])
	return crc32.Update(crc, castagnoli, rec[recordHeaderSize:])
}

// scanSegment validates a whole segment file's bytes. It returns every
// valid record, the byte position of each and the end of the valid prefix;
// err is non-nil at the first bad byte, and then records, positions and end
// describe what came before it (what recovery keeps).
func scanSegment(path string, base int64, data []byte) (recs []Record, pos []int64, end int64, err *CorruptError) {
	if len(data) < headerSize {
		return nil, nil, 0, &CorruptError{File: path, Record: -1, Offset: base, Torn: true,
			Reason: fmt.Sprintf("file has %d bytes, shorter than the %d-byte header", len(data), headerSize)}
	}
	bad := func(reason string, args ...any) *CorruptError {
		return &CorruptError{File: path, Record: -1, Offset: base, Reason: fmt.Sprintf(reason, args...)}
	}
	switch {
	case [8]byte(data[:8]) != segmentMagic:
		return nil, nil, 0, bad("bad magic %q", data[:8])
	case binary.BigEndian.Uint32(data[16:20]) != crc32.Checksum(data[:16], castagnoli):
		return nil, nil, 0, bad("header crc mismatch")
	case int64(binary.BigEndian.Uint64(data[8:16])) != base:
		return nil, nil, 0, bad("header base offset %d does not match the file name", int64(binary.BigEndian.Uint64(data[8:16])))
	}
	p := int64(headerSize)
	for p < int64(len(data)) {
		r, n, cerr := decodeRecord(data[p:])
		if cerr == nil && r.Offset != base+int64(len(pos)) {
			cerr = &CorruptError{Reason: fmt.Sprintf("record has offset %d, expected %d", r.Offset, base+int64(len(pos)))}
		}
		if cerr != nil {
			cerr.File, cerr.Pos, cerr.Record, cerr.Offset = path, p, len(pos), base+int64(len(pos))
			return recs, pos, p, cerr
		}
		recs = append(recs, r)
		pos = append(pos, p)
		p += n
	}
	return recs, pos, p, nil
}

// decodeRecord decodes the record at the start of b, returning it and its
// encoded size. The error carries only Torn and Reason; the caller knows
// where b came from.
func decodeRecord(b []byte) (Record, int64, *CorruptError) {
	if len(b) < recordHeaderSize {
		return Record{}, 0, &CorruptError{Torn: true, Reason: fmt.Sprintf("%d bytes left, shorter than a record header", len(b))}
	}
	length := int64(binary.BigEndian.Uint32(b))
	if length < recordFixedBody || length > recordFixedBody+MaxPayloadBytes {
		return Record{}, 0, &CorruptError{Reason: fmt.Sprintf("invalid record length %d", length)}
	}
	n := recordHeaderSize + length
	if int64(len(b)) < n {
		return Record{}, 0, &CorruptError{Torn: true, Reason: fmt.Sprintf("record of %d bytes runs past the end of the file (%d bytes left)", n, len(b))}
	}
	rec := b[:n]
	if stored, computed := binary.BigEndian.Uint32(rec[4:]), recordCRC(rec); stored != computed {
		return Record{}, 0, &CorruptError{Reason: fmt.Sprintf("crc mismatch (stored %#08x, computed %#08x)", stored, computed)}
	}
	r := Record{
		Offset:      int64(binary.BigEndian.Uint64(rec[8:])),
		LeaderEpoch: int32(binary.BigEndian.Uint32(rec[16:])),
		ID:          int64(binary.BigEndian.Uint64(rec[20:])),
	}
	if r.LeaderEpoch < 0 {
		return Record{}, 0, &CorruptError{Reason: fmt.Sprintf("negative leader epoch %d", r.LeaderEpoch)}
	}
	if payload := rec[recordHeaderSize+recordFixedBody:]; len(payload) > 0 {
		r.Payload = append([]byte(nil), payload...)
	}
	return r, n, nil
}

// segment is one open segment file (Kafka's LogSegment without the indexes:
// the byte position of every record is kept in memory instead).
type segment struct {
	base int64
	path string
	f    *os.File
	pos  []int64 // byte position of each record
	// recs are the records as written to the file or validated by the load
	// (payloads included), one per pos: what Log.Snapshot reports without
	// reading the file back. Read (what a broker serves) reads the file.
	recs  []Record
	size  int64 // end of the last record
	dirty bool  // written since the last fsync
}

func (s *segment) end() int64 { return s.base + int64(len(s.pos)) }

// createSegment creates a new, empty segment file.
func createSegment(dir string, base int64) (*segment, error) {
	path := filepath.Join(dir, segmentName(base))
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, err
	}
	if _, err := f.WriteAt(encodeHeader(base), 0); err != nil {
		f.Close()
		os.Remove(path)
		return nil, err
	}
	return &segment{base: base, path: path, f: f, size: headerSize, dirty: true}, nil
}

// truncate cuts the segment so that its first n records remain.
func (s *segment) truncate(n int) error {
	size := s.size
	if n < len(s.pos) {
		size = s.pos[n]
	}
	if err := s.f.Truncate(size); err != nil {
		return err
	}
	s.pos = s.pos[:n]
	clear(s.recs[n:]) // drop the payloads cut off
	s.recs = s.recs[:n]
	s.size = size
	s.dirty = true
	return nil
}

// held appends the records this segment holds from offset from to out, as
// the segment keeps them in memory (payloads copied).
func (s *segment) held(out []Record, from int64) []Record {
	for _, r := range s.recs[max(int(from-s.base), 0):] {
		if r.Payload != nil {
			r.Payload = append([]byte(nil), r.Payload...)
		}
		out = append(out, r)
	}
	return out
}

// read returns the records of this segment from offset from, at most max
// of them (max <= 0: all), read from the file.
func (s *segment) read(from int64, max int) ([]Record, error) {
	i := int(from - s.base)
	j := len(s.pos)
	if max > 0 && i+max < j {
		j = i + max
	}
	if i >= j {
		return nil, nil
	}
	stop := s.size
	if j < len(s.pos) {
		stop = s.pos[j]
	}
	buf := make([]byte, stop-s.pos[i])
	if _, err := s.f.ReadAt(buf, s.pos[i]); err != nil {
		return nil, fmt.Errorf("storage: read %s at byte %d: %w", s.path, s.pos[i], err)
	}
	out := make([]Record, 0, j-i)
	for k := i; k < j; k++ {
		r, _, cerr := decodeRecord(buf[s.pos[k]-s.pos[i]:])
		if cerr == nil && r.Offset != s.base+int64(k) {
			cerr = &CorruptError{Reason: fmt.Sprintf("record has offset %d, expected %d", r.Offset, s.base+int64(k))}
		}
		if cerr != nil {
			// Damaged after it was loaded: report it, never serve it.
			cerr.File, cerr.Pos, cerr.Record, cerr.Offset = s.path, s.pos[k], k, s.base+int64(k)
			return nil, cerr
		}
		out = append(out, r)
	}
	return out, nil
}
