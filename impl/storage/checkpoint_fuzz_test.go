package storage

import (
	"bytes"
	"testing"
)

// FuzzReadCheckpoint feeds arbitrary bytes to both checkpoint parsers: they
// must never panic, and whatever they accept must re-serialize to exactly the
// bytes read (so the reader accepts only what the writer produces).
func FuzzReadCheckpoint(f *testing.F) {
	for _, seed := range []string{
		"0\n0\n",
		"0\n2\n1 0\n3 5\n",
		"0\n2\nt 0 5\nu 1 7\n",
		"0\n1\n2147483647 9223372036854775807\n",
		"0\n3\n1 0\n3 5\n2 7\n",
		"0\n1\n01 0\n",
		"0\n2\n1 0\n",
		"1\n0\n",
		"",
		"0\n1\nt 0 5",
		"0\r\n0\r\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if es, err := parseCheckpoint(leaderEpochFormat, "fuzz", data); err == nil {
			out, ferr := formatCheckpoint(leaderEpochFormat, es)
			if ferr != nil || !bytes.Equal(out, data) {
				t.Fatalf("leader-epoch-checkpoint %q parsed to %v, re-serialized to %q, %v", data, es, out, ferr)
			}
		} else if _, ok := err.(*CheckpointError); !ok {
			t.Fatalf("parse error %v is not a *CheckpointError", err)
		}
		if es, err := parseCheckpoint(offsetFormat, "fuzz", data); err == nil {
			out, ferr := formatCheckpoint(offsetFormat, es)
			if ferr != nil || !bytes.Equal(out, data) {
				t.Fatalf("replication-offset-checkpoint %q parsed to %v, re-serialized to %q, %v", data, es, out, ferr)
			}
		} else if _, ok := err.(*CheckpointError); !ok {
			t.Fatalf("parse error %v is not a *CheckpointError", err)
		}
	})
}
