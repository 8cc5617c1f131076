package tlc

import (
	"net"
	"strconv"
	"strings"
	"testing"
)

// lineSink reassembles lines split across writes, echoes only the lines
// its filter picks (prefixed), and keeps an unterminated last line.
func TestLineSink(t *testing.T) {
	var progress strings.Builder
	var seen []string
	s := &lineSink{prefix: "cfg", progress: &progress,
		echo:   func(l string) bool { return strings.HasPrefix(l, "Error:") },
		onLine: func(l string) { seen = append(seen, l) }}
	for _, w := range []string{"TLC Wor", "ker\nError: bo", "om\nlast"} {
		if n, err := s.Write([]byte(w)); n != len(w) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", w, n, err)
		}
	}
	if got, want := s.text(), "TLC Worker\nError: boom\nlast\n"; got != want {
		t.Errorf("text = %q, want %q", got, want)
	}
	if got, want := progress.String(), "  [cfg] Error: boom\n"; got != want {
		t.Errorf("progress = %q, want %q", got, want)
	}
	if len(seen) != 2 || seen[0] != "TLC Worker" || seen[1] != "Error: boom" {
		t.Errorf("onLine saw %q, want the two whole lines", seen)
	}
}

func TestLastLines(t *testing.T) {
	if got := lastLines("a\n\n  b \nc\nd\n", 3); got != "b | c | d" {
		t.Errorf("lastLines = %q", got)
	}
	if got := lastLines("\n \n", 3); got != "no output" {
		t.Errorf("lastLines of nothing = %q", got)
	}
}

// The server's command line keeps the fingerprint set exportable, and a
// positive FPSet count hands it to FPSet servers.
func TestServerArgs(t *testing.T) {
	args := strings.Join(serverArgs("t.jar", "cls", "10.0.0.5", 10997, 0, "run.cfg", "Replication"), " ")
	for _, want := range []string{"-Dtlc2.tool.distributed.TLCServer.port=10997", "-Djava.rmi.server.hostname=10.0.0.5",
		"-Dhwepoch.rmi.bind=10.0.0.5", "-Dtlc2.tool.fp.FPSet.impl=hwepoch.tlc.RemoteFPSet",
		"hwepoch.tlc.BoundMain tlc2.tool.distributed.TLCServer -deadlock -fpbits 0 -config run.cfg Replication.tla"} {
		if !strings.Contains(args, want) {
			t.Errorf("server args %q lack %q", args, want)
		}
	}
	if strings.Contains(args, "expectedFPSetCount") {
		t.Errorf("no FPSet servers asked for, but %q", args)
	}
	if args := strings.Join(serverArgs("t.jar", "cls", "h", 1, 3, "run.cfg", "M"), " "); !strings.Contains(args, "expectedFPSetCount=3") {
		t.Errorf("3 FPSet servers: %q", args)
	}
}

// The server's address and port are checked before anything starts: a
// port in use, or an address that is not this machine's, is an error
// naming them; port 0 picks a free one.
func TestCheckPort(t *testing.T) {
	port, err := checkPort("127.0.0.1", 0)
	if err != nil || port == 0 {
		t.Fatalf("checkPort(127.0.0.1, 0) = %d, %v", port, err)
	}
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := checkPort("127.0.0.1", port); err == nil || !strings.Contains(err.Error(), "cannot listen on 127.0.0.1 port "+strconv.Itoa(port)) {
		t.Errorf("a port in use: %v", err)
	}
	// 203.0.113.0/24 is TEST-NET-3: no machine's own address.
	if _, err := checkPort("203.0.113.7", 0); err == nil || !strings.Contains(err.Error(), "is 203.0.113.7 an address of this machine") {
		t.Errorf("a foreign address: %v", err)
	}
}
