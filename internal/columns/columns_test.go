package columns

import (
	"strings"
	"testing"
)

func TestWrap(t *testing.T) {
	got := Wrap("  -x  ", "aaa bbb ccc ddd", 14, "      ")
	want := "  -x  aaa bbb\n      ccc ddd\n"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	long := strings.Repeat("z", 30)
	if got := Wrap("", "a "+long+" b", 10, ""); got != "a\n"+long+"\nb\n" {
		t.Errorf("a word wider than the line: %q", got)
	}
	if got := Wrap("p: ", "", 10, ""); got != "p: \n" {
		t.Errorf("no text: %q", got)
	}
	if w := Width("\tab✓"); w != 11 {
		t.Errorf("Width = %d, want 11", w)
	}
}
