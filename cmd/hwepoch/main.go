// Command hwepoch checks Kafka's partition replication protocol three ways:
// a TLA+ spec run by TLC, a pure-Go model explored exhaustively, and a
// concurrent implementation held to the model by a refinement checker.
package main

import (
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/hwepoch/hwepoch/trace"
)

// A command is one verb of the hwepoch CLI. Each verb lives in its own file
// and registers itself in init, so verbs can be added without touching main.
type command struct {
	summary string
	// run gets the arguments after the verb and returns the exit status.
	run func(args []string, stdout, stderr io.Writer) int
}

var commands = map[string]command{}

func register(name, summary string, run func(args []string, stdout, stderr io.Writer) int) {
	if _, dup := commands[name]; dup {
		panic("hwepoch: command registered twice: " + name)
	}
	commands[name] = command{summary: summary, run: run}
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: hwepoch <command> [flags] [args]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "commands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprint(w, wrap(fmt.Sprintf("  %-10s ", n), commands[n].summary, wrapColumns, "             "))
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'hwepoch <command> -h' (or 'hwepoch help <command>') for a command's flags,")
	fmt.Fprintln(w, "and 'hwepoch help notation' for how a trace is printed, one line per replica per step.")
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run runs the command args name and returns the exit status. A failed
// write to stdout (a full disk, /dev/full, a closed pipe) is remembered:
// the command's later writes are dropped, and once it returns the error is
// reported on stderr and the exit status is 1 (or the command's own, when
// that already says it failed). Output that was never written is never a
// success.
func run(args []string, stdout, stderr io.Writer) int {
	out := &stickyWriter{w: stdout}
	code := dispatch(args, out, stderr)
	if out.err != nil {
		fmt.Fprintf(stderr, "hwepoch: writing the output failed: %v\n", out.err)
		if code == 0 {
			code = 1
		}
	}
	return code
}

// stickyWriter remembers the first error of a write; every later write
// fails with it without writing.
type stickyWriter struct {
	w   io.Writer
	err error
}

func (s *stickyWriter) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.w.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	s.err = err
	return n, err
}

const helpUsage = `usage: hwepoch help [COMMAND | notation]

Prints the list of commands, a command's usage and flags (the same as
'hwepoch COMMAND -h'), or, with notation, how a trace is printed.
`

func dispatch(args []string, stdout, stderr io.Writer) int {
	if len(args) >= 2 && args[0] == "help" {
		if len(args) > 2 {
			fmt.Fprintf(stderr, "hwepoch help: give one command, not %q\n", args[1:])
			return 2
		}
		if args[1] == "help" || args[1] == "-h" || args[1] == "--help" {
			fmt.Fprint(stdout, helpUsage)
			return 0
		}
		if args[1] == "notation" {
			fmt.Fprint(stdout, "How hwepoch prints a trace (check, scenario, render, verify -traces):\n\n"+trace.Notation)
			return 0
		}
		if _, ok := commands[args[1]]; !ok {
			fmt.Fprintf(stderr, "hwepoch help: unknown command %q\n\n", args[1])
			usage(stderr)
			return 2
		}
		return dispatch([]string{args[1], "-h"}, stdout, stderr) // "hwepoch help verify"
	}
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stdout)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "hwepoch: unknown command %q\n\n", args[0])
		usage(stderr)
		return 2
	}
	return c.run(args[1:], stdout, stderr)
}
