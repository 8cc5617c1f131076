package main

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hwepoch/hwepoch/model/explore"
	"github.com/hwepoch/hwepoch/model/tlccfg"
)

func TestCheckSpillUsage(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		says string
	}{
		{[]string{"-resume", "w-leader-change"}, "-resume applies only with -spill"},
		{[]string{"-spill", dir, "-resume"}, "-resume continues one configuration's search: name it"},
		{[]string{"-spill", dir, "-resume", "w-leader-change", "w-truncation"}, "name it"},
		{[]string{"-spill", dir, "-resume", "-ci"}, "name it"},
		{[]string{"-simulate", "5", "-spill", dir, "w-leader-change"}, "-simulate cannot be combined with -spill"},
		{[]string{"-simulate", "5", "-memory", "1G", "w-leader-change"}, "-simulate cannot be combined with -memory"},
		{[]string{"-memory", "lots", "w-leader-change"}, "no number of bytes"},
		{[]string{"-memory", "-5", "w-leader-change"}, "no number of bytes"},
		{[]string{"-spill", dir, "-resume", "w-leader-change"}, "no checkpoint to resume in " + filepath.Join(dir, "w-leader-change")},
		{[]string{"-spill", dir, "-resume", "live-le"}, "cannot resume"},
	} {
		code, _, errs := runCLI(append([]string{"check", "-q"}, tc.args...)...)
		if code != 2 || !strings.Contains(errs, tc.says) {
			t.Errorf("check %q: exit %d, %s; want exit 2 saying %q", tc.args, code, errs, tc.says)
		}
	}
	for _, s := range []struct {
		in   string
		want int64
	}{{"0", 0}, {"1234", 1234}, {"2K", 2048}, {"512M", 512 << 20}, {"8G", 8 << 30}, {"3GiB", 3 << 30}, {"1t", 1 << 40}} {
		var b byteSize
		if err := b.Set(s.in); err != nil || int64(b) != s.want {
			t.Errorf("-memory %s: %d, %v; want %d", s.in, b, err, s.want)
		}
	}
}

// check -spill DIR -resume NAME continues a search stopped part way (here
// at a depth bound, with a checkpoint at every level) to the table row of
// an uninterrupted run; a run spilling everything (-memory 1K) gives it
// too.
func TestCheckSpillResume(t *testing.T) {
	const name = "w-de-hw-pending"
	row := func(out string) []string {
		for _, l := range strings.Split(out, "\n") {
			if f := strings.Fields(l); len(f) > 7 && f[0] == name {
				return slices.Delete(f, 7, 8) // the wall time
			}
		}
		t.Fatalf("no row of %s in\n%s", name, out)
		return nil
	}
	code, out, errs := runCLI("check", "-q", name)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	want := row(out)

	dir := t.TempDir()
	specDir, err := tlccfg.FindSpecDir(".")
	if err != nil {
		t.Fatal(err)
	}
	chk, err := tlccfg.LoadCheck(filepath.Join(specDir, name+".cfg"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := explore.Run(context.Background(), &chk.Config, explore.Options{Invariants: chk.Invariants, Properties: chk.Properties,
		Symmetry: chk.Symmetry, ConfigName: name, SpillDir: filepath.Join(dir, name), CheckpointEvery: 1, MaxDepth: 6})
	if err != nil || res.Complete || res.Violation != nil {
		t.Fatalf("the search to depth 6: %+v, %v", res, err)
	}
	code, out, errs = runCLI("check", "-q", "-spill", dir, "-resume", name)
	if got := row(out); code != 0 || !slices.Equal(got, want) {
		t.Fatalf("resumed: exit %d, row %q, want %q\n%s\n%s", code, got, want, out, errs)
	}
	if code, _, errs = runCLI("check", "-q", "-spill", dir, "-resume", name); code != 2 || !strings.Contains(errs, "no checkpoint to resume") {
		t.Errorf("a finished search left a checkpoint to resume: exit %d, %s", code, errs)
	}
	code, out, errs = runCLI("check", "-q", "-spill", dir, "-memory", "1K", name)
	if got := row(out); code != 0 || !slices.Equal(got, want) {
		t.Fatalf("-memory 1K: exit %d, row %q, want %q\n%s\n%s", code, got, want, out, errs)
	}
}
