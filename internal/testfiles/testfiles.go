// Package testfiles builds the small copies of the repository (a spec/
// with an edited .cfg, a traces/tlc/ with its runs.json) that tests of
// stale records, readers and commands run against. Tests only.
package testfiles

import (
	"os"
	"path/filepath"
	"testing"
)

// Copy copies the file from to the file to, through edit (nil: as is),
// creating to's directory. Any failure fails the test.
func Copy(t testing.TB, from, to string, edit func(string) string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		b = []byte(edit(string(b)))
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
