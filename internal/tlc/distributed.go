package tlc

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Distributed asks for TLC's distributed mode (tlc2.tool.distributed): one
// TLCServer process, which holds the state queue, the trace and the
// fingerprint set, and Workers local TLCWorker processes that compute
// successor states and reach the server over Java RMI. Workers on other
// machines may join the same server (docs/tlc.md says how).
type Distributed struct {
	Workers int // local TLCWorker processes (at least 1)
	Threads int // threads in each worker process (TLCWorker.threadCount)
	// Host is the address the server's RMI objects advertise
	// (java.rmi.server.hostname) and the local workers connect to; empty
	// means 127.0.0.1, which only processes on this machine can reach.
	Host string
	// Port is the server's RMI registry port; 0 picks a free one.
	Port int
	// FPSets, when above 0, spreads the fingerprint set over this many
	// local FPSet server processes (TLC's expectedFPSetCount) instead of
	// keeping it in the server.
	FPSets int
	// RemoteFPSets more FPSet servers, started by hand on other machines
	// (docs/tlc.md), must register before the server lets workers in.
	RemoteFPSets int
}

// shimSources are hwepoch's Java classes for TLC's distributed mode:
// RemoteFPSet, the FPSet the server runs with (its comment says why the
// unpatched jar needs it); FPSetServer, a fingerprint set server that
// registers one; and BoundMain, which binds RMI's sockets to one address.
// They are compiled against the jar at run time.
//
//go:embed java/hwepoch/tlc/RemoteFPSet.java java/hwepoch/tlc/BoundMain.java java/hwepoch/tlc/FPSetServer.java
var shimSources embed.FS

const (
	remoteFPSetClass = "hwepoch.tlc.RemoteFPSet"
	boundMainClass   = "hwepoch.tlc.BoundMain"
	fpsetServerClass = "hwepoch.tlc.FPSetServer"
)

// rmiExports lets TLCWorker read its own RMI port, so the server's log
// names each worker by host:port instead of "port 0" (JDK 17 closes
// sun.rmi.* to reflection).
var rmiExports = []string{"--add-exports", "java.rmi/sun.rmi.server=ALL-UNNAMED",
	"--add-exports", "java.rmi/sun.rmi.transport=ALL-UNNAMED"}

// Lines of TLC's distributed console output the supervisor acts on.
const (
	serverReadyPrefix = "TLC server at " // "TLC server at HOST is ready (...)"
	serverReadySuffix = " is ready"
	workerCompleted   = ", work completed at: " // TLCWorker.exit, called by the server at the end
	workerServerDone  = "TLCServer has finished, exiting worker"
	// An FPSet server once the server called exit on its set: TLC's
	// DiskFPSet.exit prints this and calls System.exit (FPSetServer's own
	// "hwepoch FPSet server exiting" is for sets that do not).
	fpsetCompleted     = ", work completed. Thank you!"
	fpsetServerExiting = "hwepoch FPSet server exiting"
)

// compileShim compiles shimSources against jar into dir/classes and
// returns that class directory.
func compileShim(ctx context.Context, jar, dir string) (string, error) {
	classes := filepath.Join(dir, "classes")
	var srcs []string
	err := fs.WalkDir(shimSources, "java", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := shimSources.ReadFile(path)
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, "src", filepath.FromSlash(strings.TrimPrefix(path, "java/")))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		srcs = append(srcs, dst)
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		return "", err
	}
	javac, err := exec.LookPath("javac")
	if err != nil {
		return "", fmt.Errorf("TLC's distributed mode needs javac (a JDK, 17 or newer) to compile hwepoch's classes for it (%s, %s, %s): %w",
			remoteFPSetClass, fpsetServerClass, boundMainClass, err)
	}
	args := append([]string{"-nowarn", "-cp", jar, "-d", classes}, srcs...)
	out, err := exec.CommandContext(ctx, javac, args...).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("compiling hwepoch's TLC classes against %s: %v\n%s", jar, err, out)
	}
	return classes, nil
}

// checkPort makes sure the server will be able to listen on host:port: host
// must be an address of this machine (BoundMain binds it) and the port
// free. Port 0 asks the kernel for a free port, which it returns. Another
// process may take the port before the server binds it; the server then
// fails to start ("Port already in use") and no worker is started.
func checkPort(host string, port int) (int, error) {
	l, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		return 0, fmt.Errorf("the TLC server cannot listen on %s port %d (is %s an address of this machine, and the port free?): %w",
			host, port, host, err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// serverArgs is the java command line (without "java") of a TLCServer
// checking module under config in the working directory: RMI listens on
// host only (BoundMain), the registry on port, and the fingerprint set is
// RemoteFPSet, or spread over fpsets FPSet servers when fpsets > 0; shim
// holds hwepoch's compiled classes.
func serverArgs(jar, shim, host string, port, fpsets int, config, module string) []string {
	args := []string{"-XX:+UseParallelGC",
		"-Dtlc2.tool.distributed.TLCServer.port=" + strconv.Itoa(port),
		"-Djava.rmi.server.hostname=" + host, "-Dhwepoch.rmi.bind=" + host,
		"-Dtlc2.tool.fp.FPSet.impl=" + remoteFPSetClass}
	if fpsets > 0 {
		args = append(args, "-Dtlc2.tool.distributed.TLCServer.expectedFPSetCount="+strconv.Itoa(fpsets))
	}
	return append(args, "-Djava.io.tmpdir=tmp",
		"-cp", jar+string(os.PathListSeparator)+shim, boundMainClass,
		"tlc2.tool.distributed.TLCServer", "-deadlock", "-fpbits", "0",
		"-config", config, module+".tla")
}

// fpsetServerArgs is the java command line (without "java") of a local
// FPSet server (FPSetServer) for the server at host:port.
func fpsetServerArgs(jar, shim, host string, port int) []string {
	return []string{"-XX:+UseParallelGC",
		"-Dtlc2.tool.distributed.TLCServer.port=" + strconv.Itoa(port),
		"-Djava.rmi.server.hostname=" + host, "-Dhwepoch.rmi.bind=" + host,
		"-Dsun.rmi.server.exceptionTrace=true", "-Djava.io.tmpdir=tmp",
		"-cp", jar + string(os.PathListSeparator) + shim, boundMainClass, fpsetServerClass, host}
}

// workerArgs is the java command line (without "java") of a local
// TLCWorker with threads threads, listening on and advertising host, and
// connecting to the server at host:port. (A worker on another machine needs
// only the jar: docs/tlc.md gives its command.)
func workerArgs(jar, shim, host string, port, threads int) []string {
	args := append([]string{}, rmiExports...)
	args = append(args, "-XX:+UseParallelGC",
		"-Dtlc2.tool.distributed.TLCServer.port="+strconv.Itoa(port),
		"-Djava.rmi.server.hostname="+host, "-Dhwepoch.rmi.bind="+host,
		// RMI prints the exceptions remote calls throw: the only place a
		// worker's "Error: Invariant P is violated." appears.
		"-Dsun.rmi.server.exceptionTrace=true",
		"-Dtlc2.tool.distributed.TLCWorker.threadCount="+strconv.Itoa(threads),
		"-Djava.io.tmpdir=tmp")
	return append(args, "-cp", jar+string(os.PathListSeparator)+shim, boundMainClass,
		"tlc2.tool.distributed.TLCWorker", host)
}

// lineSink collects a process's output line by line, echoing the lines
// echo selects to progress with a prefix. exec.Cmd calls Write from one
// goroutine at a time when Stdout and Stderr are the same sink.
type lineSink struct {
	mu       sync.Mutex
	buf      bytes.Buffer // whole lines
	partial  []byte
	prefix   string
	progress io.Writer
	echo     func(string) bool
	onLine   func(string)
}

func (s *lineSink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.partial = append(s.partial, p...)
	for {
		i := bytes.IndexByte(s.partial, '\n')
		if i < 0 {
			break
		}
		s.line(string(s.partial[:i]))
		s.partial = s.partial[i+1:]
	}
	return len(p), nil
}

func (s *lineSink) line(l string) {
	s.buf.WriteString(l)
	s.buf.WriteByte('\n')
	if s.progress != nil && s.echo != nil && s.echo(l) {
		fmt.Fprintf(s.progress, "  [%s] %s\n", s.prefix, l)
	}
	if s.onLine != nil {
		s.onLine(l)
	}
}

// text returns the lines so far, an unterminated last line included.
func (s *lineSink) text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.buf.String()
	if len(s.partial) > 0 {
		t += string(s.partial) + "\n"
	}
	return t
}

// A helper is a local TLCWorker or FPSet server process of a distributed
// run, supervised by runDistributed.
type helper struct {
	kind   string // "worker" or "fpset"
	n      int    // 1-based, per kind
	cmd    *exec.Cmd
	out    *lineSink
	err    error // from Wait
	exited bool  // Wait returned (read and written by the supervisor only)
	// leaving says the output shows the server let it go (then its exit
	// is no death).
	leaving func(out string) bool
}

func (h *helper) String() string {
	if h.kind == "fpset" {
		return fmt.Sprintf("TLC FPSet server %d (pid %d)", h.n, h.cmd.Process.Pid)
	}
	return fmt.Sprintf("TLC worker %d (pid %d)", h.n, h.cmd.Process.Pid)
}

type exited struct {
	i   int // index into helpers; -1: the server
	err error
}

// runDistributed runs TLC's server, the local FPSet servers and the local
// workers in work, and appends to log the server's console output and
// then each helper's, every line prefixed "# workerN| " or "# fpsetN| "
// (Parse reads the workers' errors there). It returns a non-empty failure
// when a helper died before TLC finished (the server is then stopped: its
// verdict would rest on a run the user did not ask for).
func (r Run) runDistributed(ctx context.Context, work, module, head string, log *bytes.Buffer) (failure string, err error) {
	d := r.Distributed
	host := d.Host
	if host == "" {
		host = "127.0.0.1"
	}
	port, err := checkPort(host, d.Port)
	if err != nil {
		return "", err
	}
	shim, err := compileShim(ctx, r.Jar, filepath.Join(work, "hwepoch-shim"))
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Join(work, "tmp"), 0o755); err != nil {
		return "", err
	}
	name := r.OutName
	if name == "" {
		name = r.Config
	}

	ready := make(chan struct{})
	var readyOnce sync.Once
	sargs := serverArgs(r.Jar, shim, host, port, d.FPSets+d.RemoteFPSets, "run.cfg", module)
	fmt.Fprintf(log, "# hwepoch tlc -distributed %d: server: java %s\n%s", d.Workers, strings.Join(sargs, " "), head)
	server := exec.CommandContext(ctx, "java", sargs...)
	serverOut := &lineSink{prefix: name, progress: r.Progress, echo: func(l string) bool {
		return strings.HasPrefix(l, "Progress(") || strings.HasPrefix(l, "Error:") ||
			strings.HasPrefix(l, "Registration for worker") || strings.HasPrefix(l, "TLC worker ") ||
			strings.HasPrefix(l, serverReadyPrefix) || strings.Contains(l, "FPSet server(s)")
	}, onLine: func(l string) {
		if strings.HasPrefix(l, serverReadyPrefix) && strings.Contains(l, serverReadySuffix) {
			readyOnce.Do(func() { close(ready) })
		}
	}}
	server.Dir = work
	server.Stdout, server.Stderr = serverOut, serverOut
	if err := server.Start(); err != nil {
		return "", fmt.Errorf("starting java (is a JDK installed?): %w", err)
	}
	done := make(chan exited, d.Workers+d.FPSets+1)
	go func() { done <- exited{-1, server.Wait()} }()
	var serverErr error
	serverExited := false

	var helpers []*helper
	running := 0
	start := func(kind string, n int, args []string, leaving func(string) bool) {
		dir := filepath.Join(work, fmt.Sprintf("%s%d", kind, n))
		h := &helper{kind: kind, n: n, cmd: exec.CommandContext(ctx, "java", args...), leaving: leaving,
			out: &lineSink{prefix: fmt.Sprintf("%s %s%d", name, kind, n), progress: r.Progress,
				echo: func(l string) bool { return strings.HasPrefix(l, "Error:") }}}
		h.cmd.Dir = dir
		h.cmd.Stdout, h.cmd.Stderr = h.out, h.out
		if err := os.MkdirAll(filepath.Join(dir, "tmp"), 0o755); err != nil {
			failure = fmt.Sprintf("%s %d did not start: %v", kind, n, err)
			return
		}
		if err := h.cmd.Start(); err != nil {
			failure = fmt.Sprintf("%s %d did not start: %v", kind, n, err)
			return
		}
		helpers = append(helpers, h)
		running++
		go func(i int) { done <- exited{i, h.cmd.Wait()} }(len(helpers) - 1)
		if r.Progress != nil {
			fmt.Fprintf(r.Progress, "  [%s] started %s for the TLC server at %s:%d\n", name, h, host, port)
		}
	}
	// FPSet servers register before the server computes the initial states;
	// workers are let in after that (the server may also finish right
	// there: a violated initial state).
	for i := 1; i <= d.FPSets && failure == ""; i++ {
		start("fpset", i, fpsetServerArgs(r.Jar, shim, host, port), func(out string) bool {
			return strings.Contains(out, fpsetCompleted) || strings.Contains(out, fpsetServerExiting)
		})
	}
	// Supervise: the run ends when the server exits; a helper that exits
	// before the server let it go is a death.
	for !serverExited && failure == "" && ctx.Err() == nil {
		select {
		case <-ready:
			for i := 1; i <= d.Workers && failure == ""; i++ {
				start("worker", i, workerArgs(r.Jar, shim, host, port, max(1, d.Threads)), func(out string) bool {
					return strings.Contains(out, workerCompleted) || strings.Contains(out, workerServerDone)
				})
			}
			ready = nil
		case e := <-done:
			if e.i < 0 {
				serverErr, serverExited = e.err, true
				break
			}
			h := helpers[e.i]
			h.err, h.exited = e.err, true
			running--
			if out := h.out.text(); !h.leaving(out) {
				failure = fmt.Sprintf("%s exited before TLC finished (%s): %s", h, exitStatus(h.err), lastLines(out, 3))
			}
		case <-ctx.Done():
		}
	}
	if failure != "" && r.Progress != nil {
		fmt.Fprintf(r.Progress, "  [%s] %s; stopping the TLC server\n", name, failure)
	}
	// Stop whatever still runs: on a failure or a timeout everything at
	// once; after the server's own exit, helpers get a grace period to
	// leave (the server tells them to).
	kill := func() {
		if !serverExited {
			server.Process.Kill()
		}
		for _, h := range helpers {
			if !h.exited {
				h.cmd.Process.Kill()
			}
		}
	}
	var grace <-chan time.Time
	if serverExited && failure == "" {
		grace = time.After(15 * time.Second)
	} else {
		kill()
	}
	for !serverExited || running > 0 {
		select {
		case e := <-done:
			if e.i < 0 {
				serverErr, serverExited = e.err, true
			} else {
				helpers[e.i].err, helpers[e.i].exited = e.err, true
				running--
			}
		case <-grace:
			kill()
			grace = nil
		}
	}

	log.WriteString(serverOut.text())
	if serverErr != nil {
		fmt.Fprintf(log, "# server: %s\n", exitStatus(serverErr))
	}
	for _, h := range helpers {
		fmt.Fprintf(log, "# %s%d (pid %d, %s): java %s\n", h.kind, h.n, h.cmd.Process.Pid, exitStatus(h.err),
			strings.Join(h.cmd.Args[1:], " "))
		for _, l := range strings.Split(strings.TrimSuffix(h.out.text(), "\n"), "\n") {
			fmt.Fprintf(log, "# %s%d| %s\n", h.kind, h.n, l)
		}
	}
	if failure != "" {
		fmt.Fprintf(log, "# hwepoch tlc: %s; the server was stopped\n", failure)
	}
	return failure, nil
}

func exitStatus(err error) string {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return "exit status 0"
	case errors.As(err, &ee):
		return ee.ProcessState.String()
	}
	return err.Error()
}

// lastLines is the last n non-empty lines of out joined by " | ".
func lastLines(out string, n int) string {
	var keep []string
	for _, l := range strings.Split(out, "\n") {
		if strings.TrimSpace(l) != "" {
			keep = append(keep, strings.TrimSpace(l))
		}
	}
	if len(keep) > n {
		keep = keep[len(keep)-n:]
	}
	if len(keep) == 0 {
		return "no output"
	}
	return strings.Join(keep, " | ")
}
