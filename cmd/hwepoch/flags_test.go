package main

import (
	"flag"
	"io"
	"slices"
	"testing"
)

// Flags after positional arguments count, as the docs write them; a
// positional argument after "--" stays positional even if it looks like a
// flag; unknown flags still fail.
func TestInterspersedFlags(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		policy  string
		md      bool
		pos     []string
		wantErr bool
	}{
		{args: []string{"kip101-scenario-1", "--policy", "HighWatermark"}, policy: "HighWatermark", pos: []string{"kip101-scenario-1"}},
		{args: []string{"a", "-md", "b", "-policy=Kip101"}, policy: "Kip101", md: true, pos: []string{"a", "b"}},
		{args: []string{"-policy", "LeaderEpoch", "a"}, policy: "LeaderEpoch", pos: []string{"a"}},
		{args: []string{"a", "--", "-md"}, pos: []string{"a", "-md"}},
		{args: []string{"-md"}, md: true},
		{args: []string{"a", "-nosuch"}, wantErr: true},
		{args: []string{"a", "-policy"}, wantErr: true},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		policy := fs.String("policy", "", "")
		md := fs.Bool("md", false, "")
		err := fs.Parse(interspersed(fs, tc.args))
		if (err != nil) != tc.wantErr {
			t.Errorf("%q: error %v, want error %v", tc.args, err, tc.wantErr)
			continue
		}
		if err != nil {
			continue
		}
		if *policy != tc.policy || *md != tc.md || !slices.Equal(fs.Args(), tc.pos) {
			t.Errorf("%q: policy %q md %v args %q; want %q %v %q", tc.args, *policy, *md, fs.Args(), tc.policy, tc.md, tc.pos)
		}
	}
}
