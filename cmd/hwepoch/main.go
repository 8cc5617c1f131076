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
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'hwepoch <command> -h' (or 'hwepoch help <command>') for a command's flags,")
	fmt.Fprintln(w, "and 'hwepoch help notation' for how a trace is printed, one line per replica per step.")
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) >= 2 && args[0] == "help" {
		if len(args) > 2 {
			fmt.Fprintf(stderr, "hwepoch help: give one command, not %q\n", args[1:])
			return 2
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
		return run([]string{args[1], "-h"}, stdout, stderr) // "hwepoch help verify"
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
