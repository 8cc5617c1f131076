package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// usageError returns a verb's reporter of bad use: it prints
// "hwepoch VERB: ..." and gives exit status 2.
func usageError(stderr io.Writer, verb string) func(format string, a ...any) int {
	return func(format string, a ...any) int {
		fmt.Fprintf(stderr, "hwepoch "+verb+": "+format+"\n", a...)
		return 2
	}
}

// parseFlags parses a verb's arguments (flags may follow positional ones,
// see interspersed). done says the verb should return code at once: 0
// after -h, 2 after a bad flag (the flag package has said why).
func parseFlags(fs *flag.FlagSet, args []string) (code int, done bool) {
	if err := fs.Parse(interspersed(fs, args)); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0, true
		}
		return 2, true
	}
	return 0, false
}

// interspersed reorders a verb's arguments so that flags written after
// positional arguments still count, as the docs write them
// ("hwepoch scenario NAME --policy P", "hwepoch render TRACE --svg out.svg"):
// Go's flag package stops at the first non-flag. Flags, with the value of a
// non-boolean flag given as the next argument, move to the front; the
// positional arguments follow a "--" so that one starting with '-' stays
// positional. An argument "--" ends the flags as usual. Unknown flags stay
// among the flags, so that fs.Parse reports them.
func interspersed(fs *flag.FlagSet, args []string) []string {
	var flags, pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			pos = append(pos, args[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			pos = append(pos, a)
			continue
		}
		flags = append(flags, a)
		name := strings.TrimLeft(a, "-")
		if strings.Contains(name, "=") {
			continue
		}
		f := fs.Lookup(name)
		if f == nil {
			continue
		}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			continue
		}
		if i+1 == len(args) {
			return flags // its value is missing: let fs.Parse say so
		}
		i++
		flags = append(flags, args[i])
	}
	if len(pos) == 0 {
		return flags
	}
	return append(append(flags, "--"), pos...)
}
