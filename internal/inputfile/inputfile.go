// Package inputfile reads the files hwepoch takes as input (traces,
// scenarios, configurations, manifests, recorded runs, simulation runs)
// the way a checker must: only a regular file, and only up to MaxSize
// bytes. A named pipe, a device or a directory given where a file belongs
// is refused at once with an error naming it, instead of blocking until a
// writer appears (a FIFO) or reading without end (/dev/zero).
package inputfile

import (
	"fmt"
	"io"
	"io/fs"
	"os"
)

// MaxSize is the largest input read, in bytes: far above any trace,
// scenario or record hwepoch writes (a few megabytes at most), far below
// what would exhaust a machine's memory.
const MaxSize = 256 << 20

// Error is an input that is not a regular file, or too large.
type Error struct {
	Path string
	What string
}

func (e *Error) Error() string { return e.Path + ": " + e.What }

// ReadFile is os.ReadFile for an input: path must name a regular file
// (symbolic links followed) of at most MaxSize bytes.
func ReadFile(path string) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// Open opens an input for reading: path must name a regular file
// (symbolic links followed); reading more than MaxSize bytes from it
// fails with an *Error.
func Open(path string) (io.ReadCloser, error) {
	// Stat before opening: opening a FIFO for reading blocks until a
	// writer opens it.
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := Check(path, fi); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	// The file may have been replaced between the two calls.
	if fi, err = f.Stat(); err != nil {
		f.Close()
		return nil, err
	}
	if err := Check(path, fi); err != nil {
		f.Close()
		return nil, err
	}
	return &limited{f: f, path: path, left: MaxSize}, nil
}

// Check refuses what is not a regular file of at most MaxSize bytes.
func Check(path string, fi fs.FileInfo) error {
	if !fi.Mode().IsRegular() {
		return &Error{Path: path, What: "not a regular file (" + kind(fi.Mode()) + "): give a file"}
	}
	if fi.Size() > MaxSize {
		return tooLarge(path)
	}
	return nil
}

func tooLarge(path string) error {
	return &Error{Path: path, What: fmt.Sprintf("larger than %d MiB, the most hwepoch reads from an input file", MaxSize>>20)}
}

func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeIrregular != 0:
		return "an irregular file"
	}
	return "mode " + m.String()
}

// limited reads at most left bytes, then fails rather than stopping
// quietly: a file that grew past MaxSize while read is refused, not cut.
type limited struct {
	f    *os.File
	path string
	left int64
}

func (l *limited) Read(p []byte) (int, error) {
	if l.left <= 0 {
		// One more byte tells a file of exactly MaxSize bytes from a
		// longer one.
		var one [1]byte
		if n, _ := l.f.Read(one[:]); n > 0 {
			return 0, tooLarge(l.path)
		}
		return 0, io.EOF
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.f.Read(p)
	l.left -= int64(n)
	return n, err
}

func (l *limited) Close() error { return l.f.Close() }
