package tlcjson

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// LoadRuns never panics on whatever runs.json holds, and a record it
// accepts survives a Write and a second LoadRuns unchanged (and the second
// Write is byte for byte the first): `hwepoch tlc` reads and rewrites the
// file after every run.
func FuzzLoadRuns(f *testing.F) {
	// Seeds from the recorded runs.json: one run of each verdict, compact
	// (the whole file is TestRunsRoundTrip's). Small seeds matter: the
	// fuzzer minimizes every new input it keeps, the exec count stands
	// still meanwhile, and minimizing a mutant of the 17 kB file takes
	// longer than a 30 s run (it showed 15 execs in 30 s).
	real, err := LoadRuns(filepath.Join("..", "..", "traces", "tlc"))
	if err != nil {
		f.Fatal(err)
	}
	seen := map[string]bool{}
	for _, run := range real.Runs {
		if seen[run.Verdict] {
			continue
		}
		seen[run.Verdict] = true
		one, err := json.Marshal(Runs{TLCVersion: real.TLCVersion, Runs: []Run{run}})
		if err != nil {
			f.Fatal(err)
		}
		f.Add(one)
	}
	if len(seen) != 3 {
		f.Fatalf("runs.json has verdicts %v, want holds, violated and simulated seeds", seen)
	}
	f.Add([]byte(`{}`))
	f.Add([]byte(`null`))
	f.Add([]byte(`{"runs": [{"name": "a"}]}`))
	f.Add([]byte(`{"runs": [{"name": "a", "verdict": "holds", "seconds": -0, "seed": 9223372036854775807}]}`))
	f.Add([]byte(`{"runs": [{"name": "s", "mode": "simulate", "verdict": "simulated", "seconds": 1e-300}]}`))
	f.Add([]byte(`{"runs": [{"verdict": "holds"}]}`))
	f.Add([]byte(`{"tlcVersion": "\u00ff\ud800", "runs": [{"name": "\u0000", "verdict": "violated", "Dir": "x"}]}`))

	in, out := memTempDir(f), memTempDir(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		if err := os.WriteFile(filepath.Join(in, "runs.json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := LoadRuns(in)
		if err != nil {
			return
		}
		if r.Dir != in {
			t.Fatalf("Dir = %q, want %q", r.Dir, in)
		}
		if err := r.Write(out); err != nil {
			t.Fatalf("Write of a loaded record: %v", err)
		}
		first, err := os.ReadFile(filepath.Join(out, "runs.json"))
		if err != nil {
			t.Fatal(err)
		}
		back, err := LoadRuns(out)
		if err != nil {
			t.Fatalf("LoadRuns of what Write wrote: %v\n%s", err, first)
		}
		back.Dir = r.Dir
		if !reflect.DeepEqual(r, back) { // cmp.Equal costs more than the rest of an exec
			t.Fatalf("the record changed in a Write and LoadRuns:\n%s", cmp.Diff(r, back))
		}
		second, err := json.MarshalIndent(back, "", "  ") // what Write writes
		if err != nil {
			t.Fatal(err)
		}
		second = append(second, '\n')
		if !bytes.Equal(first, second) {
			t.Fatalf("a second Write differs:\n%s", cmp.Diff(string(first), string(second)))
		}
	})
}

// memTempDir is a temporary directory in memory (/dev/shm) where there is
// one, else f.TempDir(). A fuzz test that must write each input to a file
// runs some 30 times faster there than on a disk that syncs its writes (4 ms
// an exec here against 0.13 ms).
func memTempDir(f *testing.F) string {
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		if dir, err := os.MkdirTemp("/dev/shm", "fuzz"); err == nil {
			f.Cleanup(func() { os.RemoveAll(dir) })
			return dir
		}
	}
	return f.TempDir()
}
