package browsertest

import (
	"testing"
)

// fakeTB records how Require ends a test.
type fakeTB struct {
	testing.TB
	how, msg string
}

type ended struct{}

func (f *fakeTB) Helper() {}
func (f *fakeTB) Fatal(a ...any) {
	f.how, f.msg = "fatal", a[0].(string)
	panic(ended{})
}
func (f *fakeTB) Skip(a ...any) {
	f.how, f.msg = "skip", a[0].(string)
	panic(ended{})
}

func require(t *testing.T) *fakeTB {
	f := &fakeTB{TB: t}
	func() {
		defer func() {
			if r := recover(); r != nil && r != (ended{}) {
				panic(r)
			}
		}()
		Require(f)
	}()
	return f
}

// TestRequireWithoutChromium: with no browser on PATH a browser test
// skips, saying how to install one, except under CI=true, where it fails.
func TestRequireWithoutChromium(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	t.Setenv("HWEPOCH_CHROMIUM", "")
	t.Setenv("CI", "")
	if f := require(t); f.how != "skip" || f.msg == "" {
		t.Errorf("locally: %s %q, want a skip", f.how, f.msg)
	}
	t.Setenv("CI", "true")
	if f := require(t); f.how != "fatal" {
		t.Errorf("under CI=true: %s %q, want a failure", f.how, f.msg)
	}
	t.Setenv("HWEPOCH_CHROMIUM", "/usr/bin/some-chromium")
	if p := Path(); p != "/usr/bin/some-chromium" {
		t.Errorf("HWEPOCH_CHROMIUM is not used: %q", p)
	}
}
