package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/hwepoch/hwepoch/model/tlccfg"
	"github.com/hwepoch/hwepoch/trace/tlcjson"
)

// Bad -distributed use is refused before TLC starts (no jar needed).
func TestTLCDistributedUsage(t *testing.T) {
	for _, args := range [][]string{
		{"-distributed", "-1", "le-fenced-2"},
		{"-distributed", "65", "le-fenced-2"},
		{"-distributed", "two", "le-fenced-2"},
		{"-distributed", "2", "-simulate", "3"},
		{"-distributed", "2", "-port", "65536", "le-fenced-2"},
		{"-distributed", "2", "-rmi-host", " ", "le-fenced-2"},
		{"-port", "10997", "le-fenced-2"},
		{"-rmi-host", "10.0.0.1", "le-fenced-2"},
		{"-fpsets", "1", "le-fenced-2"},
		{"-remote-fpsets", "1", "le-fenced-2"},
		{"-distributed", "1", "-remote-fpsets", "-2", "le-fenced-2"},
		{"-distributed", "1", "-fpsets", "-1", "le-fenced-2"},
	} {
		var out, errs strings.Builder
		if code := runTLC(args, &out, &errs); code != 2 {
			t.Errorf("hwepoch tlc %q: exit %d, want 2 (stderr %q)", args, code, errs.String())
		} else if !strings.Contains(errs.String(), "hwepoch tlc") && !strings.Contains(errs.String(), "invalid value") {
			t.Errorf("hwepoch tlc %q: the error does not say why: %q", args, errs.String())
		}
	}
}

// tinySpec is a copy of spec/ whose manifest lists "tiny": le-fenced-2.cfg
// with one record, one leader change and no crash (9,101 distinct states
// on the releases' spec), small enough for TLC's distributed mode on
// loopback in a test; and the configurations named in also, as spec/ has
// them.
func tinySpec(t *testing.T, also ...string) string {
	t.Helper()
	dir := t.TempDir()
	spec, err := os.ReadFile(filepath.Join("..", "..", "spec", "Replication.tla"))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := os.ReadFile(filepath.Join("..", "..", "spec", "le-fenced-2.cfg"))
	if err != nil {
		t.Fatal(err)
	}
	tiny := string(cfg)
	for name, v := range map[string]string{"MaxRecords": "1", "MaxEpoch": "1", "MaxCrashes": "0"} {
		re := regexp.MustCompile(`(?m)^(\s*` + name + ` = )\d+$`)
		if !re.MatchString(tiny) {
			t.Fatalf("spec/le-fenced-2.cfg sets no %s: update tinySpec", name)
		}
		tiny = re.ReplaceAllString(tiny, "${1}"+v)
	}
	files := map[string][]byte{"Replication.tla": spec, "tiny.cfg": []byte(tiny)}
	configs := []any{map[string]any{"name": "tiny",
		"policy": "LeaderEpoch", "release": "2.1.0", "kind": "proof", "expect": "holds", "ci": false,
		"about": "le-fenced-2 with MaxRecords = 1, MaxEpoch = 1, MaxCrashes = 0"}}
	real, err := tlccfg.LoadManifest(filepath.Join("..", "..", "spec"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range also {
		e, ok := real.Lookup(name)
		if !ok {
			t.Fatalf("spec/manifest.json has no %s", name)
		}
		configs = append(configs, e)
		if files[name+".cfg"], err = os.ReadFile(real.CfgPath(e)); err != nil {
			t.Fatal(err)
		}
	}
	b, err := json.Marshal(map[string]any{"spec": "Replication.tla", "configs": configs})
	if err != nil {
		t.Fatal(err)
	}
	files["manifest.json"] = b
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), text, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func needTLC(t *testing.T, javac bool) {
	t.Helper()
	if os.Getenv("TLA2TOOLS_JAR") == "" || testing.Short() {
		t.Skip("TLA2TOOLS_JAR is not set (or -short): not running TLC")
	}
	if _, err := exec.LookPath("javac"); javac && err != nil {
		t.Skip("no javac on PATH: TLC's distributed mode needs a JDK to compile hwepoch's RemoteFPSet")
	}
}

// TLC's distributed mode, a server and two worker processes on loopback,
// finds the verdict and the distinct states tlc2.TLC finds, and records the
// run beside it in runs.json; on a witness it names the violated property
// (which only the worker's exception trace says) with the trace in the log.
func TestTLCDistributedMatchesTLC(t *testing.T) {
	needTLC(t, true)
	spec, out := tinySpec(t, "w-committed"), t.TempDir()
	for _, args := range [][]string{
		{"-spec", spec, "-out", out, "-workers", "1", "tiny"},
		{"-spec", spec, "-out", out, "-workers", "1", "-distributed", "2", "tiny", "w-committed"},
	} {
		var stdout, stderr strings.Builder
		if code := runTLC(args, &stdout, &stderr); code != 0 {
			t.Fatalf("hwepoch tlc %q: exit %d\n%s%s", args, code, stdout.String(), stderr.String())
		}
	}
	runs, err := tlcjson.LoadRuns(out)
	if err != nil {
		t.Fatal(err)
	}
	bfs, ok := runs.Get("tiny")
	if !ok || bfs.Mode != tlcjson.ModeBFS {
		t.Fatalf("no breadth-first run recorded: %+v", runs.Runs)
	}
	dist, ok := runs.Get("distributed/tiny")
	if !ok {
		t.Fatalf("no distributed run recorded: %+v", runs.Runs)
	}
	if dist.Mode != tlcjson.ModeDistributed || dist.Exhaustive() || dist.WorkerProcesses != 2 || dist.Workers != 2 {
		t.Errorf("distributed run recorded as mode %q, %d worker processes, %d worker threads; want distributed, 2, 2",
			dist.Mode, dist.WorkerProcesses, dist.Workers)
	}
	if bfs.Verdict != "holds" || dist.Verdict != bfs.Verdict || bfs.DistinctStates == 0 || dist.DistinctStates != bfs.DistinctStates {
		t.Errorf("tlc2.TLC: %s with %d distinct states; distributed: %s with %d", bfs.Verdict, bfs.DistinctStates,
			dist.Verdict, dist.DistinctStates)
	}
	// The server's banner lacks the "(rev: ...)" tlc2.TLC appends.
	if dist.TLCVersion == "" || !strings.HasPrefix(bfs.TLCVersion, dist.TLCVersion) ||
		dist.SpecSHA256 != bfs.SpecSHA256 || dist.CfgSHA256 != bfs.CfgSHA256 {
		t.Errorf("the two runs name different TLC versions or files: %+v vs %+v", dist, bfs)
	}
	w, ok := runs.Get("distributed/w-committed")
	if !ok || w.Verdict != "violated" || w.Property != "NeverCommitted" || w.TraceLength == 0 || w.TraceJSON != "" {
		t.Errorf("distributed/w-committed recorded as %+v; want NeverCommitted violated, a trace in the log and no trace file", w)
	}
	// The fingerprint set in an FPSet server process instead of the server.
	out2 := t.TempDir()
	args := []string{"-spec", spec, "-out", out2, "-workers", "1", "-distributed", "1", "-fpsets", "1", "tiny"}
	var stdout, stderr strings.Builder
	if code := runTLC(args, &stdout, &stderr); code != 0 {
		t.Fatalf("hwepoch tlc %q: exit %d\n%s%s", args, code, stdout.String(), stderr.String())
	}
	runs2, err := tlcjson.LoadRuns(out2)
	if err != nil {
		t.Fatal(err)
	}
	if fp, ok := runs2.Get("distributed/tiny"); !ok || fp.Verdict != "holds" || fp.DistinctStates != bfs.DistinctStates ||
		fp.FPSetServers != 1 || fp.WorkerProcesses != 1 {
		t.Errorf("-fpsets 1 recorded %+v; want %d distinct states with 1 FPSet server and 1 worker", fp, bfs.DistinctStates)
	}
	log, err := os.ReadFile(filepath.Join(out, dist.Log))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"tlc2.tool.distributed.TLCServer", "-Dtlc2.tool.fp.FPSet.impl=hwepoch.tlc.RemoteFPSet",
		"-Dhwepoch.rmi.bind=127.0.0.1", "hwepoch.tlc.BoundMain tlc2.tool.distributed.TLCWorker 127.0.0.1",
		"# worker1| ", "# worker2| ", "Model checking completed."} {
		if !strings.Contains(string(log), want) {
			t.Errorf("%s lacks %q", dist.Log, want)
		}
	}
}

// killer watches hwepoch tlc's progress output and kills local worker 1
// once a worker has registered with the server: a worker dying mid-run.
type killer struct {
	t      *testing.T
	mu     sync.Mutex
	text   strings.Builder
	killed int
}

var startedWorker1 = regexp.MustCompile(`started TLC worker 1 \(pid (\d+)\)`)

func (k *killer) Write(p []byte) (int, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.text.Write(p)
	s := k.text.String()
	if m := startedWorker1.FindStringSubmatch(s); m != nil && k.killed == 0 && strings.Contains(s, "Registration for worker") {
		k.killed, _ = strconv.Atoi(m[1])
		if err := syscall.Kill(k.killed, syscall.SIGKILL); err != nil {
			k.t.Errorf("killing worker 1 (pid %d): %v", k.killed, err)
		}
	}
	return len(p), nil
}

// A worker that dies before TLC finished stops the run: exit 1, a message
// naming the worker, and nothing recorded.
func TestTLCDistributedWorkerDeath(t *testing.T) {
	needTLC(t, true)
	spec, out := tinySpec(t), t.TempDir()
	k := &killer{t: t}
	var stdout strings.Builder
	code := runTLC([]string{"-spec", spec, "-out", out, "-workers", "1", "-distributed", "2", "tiny"}, &stdout, k)
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.killed == 0 {
		t.Fatalf("worker 1 was never killed:\n%s", k.text.String())
	}
	want := "TLC worker 1 (pid " + strconv.Itoa(k.killed) + ") exited before TLC finished (signal: killed)"
	if code != 1 || !strings.Contains(stdout.String()+k.text.String(), want) {
		t.Fatalf("exit %d, want 1 and %q in the output:\n%s%s", code, want, stdout.String(), k.text.String())
	}
	if runs, err := tlcjson.LoadRuns(out); err == nil && len(runs.Runs) > 0 {
		t.Errorf("a stopped run was recorded: %+v", runs.Runs)
	}
}
