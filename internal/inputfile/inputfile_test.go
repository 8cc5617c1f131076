package inputfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A named pipe, a directory or a device is refused at once, naming the
// path and what it is; a regular file is read.
func TestRefusesWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	for path, want := range map[string]string{fifo: "a named pipe", dir: "a directory", "/dev/null": "a character device"} {
		done := make(chan error, 1)
		go func() { _, err := ReadFile(path); done <- err }()
		select {
		case err := <-done:
			var e *Error
			if !errors.As(err, &e) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: %v, want an *Error naming it as %s", path, err, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: ReadFile blocked", path)
		}
	}
	ok := filepath.Join(dir, "ok")
	if err := os.WriteFile(ok, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFile(ok); err != nil || string(b) != "x" {
		t.Errorf("a regular file: %q, %v", b, err)
	}
	if _, err := ReadFile(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v, want os.ErrNotExist in the chain", err)
	}
}

// A file larger than MaxSize is refused before it is read (a sparse file
// costs no disk).
func TestRefusesAHugeFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "huge")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxSize + 1); err != nil {
		t.Skipf("no sparse file here: %v", err)
	}
	f.Close()
	if _, err := ReadFile(path); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("%v, want it refused as too large", err)
	}
}

// Reading stops with an error, not silently, at MaxSize bytes even when
// the size said less (a file that grows while read).
func TestLimitedFailsPastTheLimit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, []byte("abcdef"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	l := &limited{f: f, path: path, left: 4}
	defer l.Close()
	buf := make([]byte, 10)
	n, err := l.Read(buf)
	if n != 4 || err != nil {
		t.Fatalf("first read: %d, %v", n, err)
	}
	if _, err := l.Read(buf); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("past the limit: %v", err)
	}
	exact := &limited{f: mustOpen(t, path), path: path, left: 6}
	defer exact.Close()
	if n, _ := exact.Read(buf); n != 6 {
		t.Fatalf("read %d", n)
	}
	if _, err := exact.Read(buf); err == nil || err.Error() != "EOF" {
		t.Errorf("a file of exactly the limit: %v, want EOF", err)
	}
}

func mustOpen(t *testing.T, path string) *os.File {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	return f
}
