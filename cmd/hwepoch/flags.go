package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strings"
	"time"
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
// see interspersed) and then applies the verb's rules (ranges of numeric
// flags, how many positional arguments). done says the verb should return
// code at once: 0 after -h, 2 after a bad flag (the flag package has said
// why) or a broken rule (reported as "hwepoch VERB: ..." on the flag set's
// output). A value out of range is refused here, before any work starts,
// rather than failing later per run or silently meaning something else
// (check -simulate -1 once explored exhaustively).
func parseFlags(fs *flag.FlagSet, args []string, rules ...flagRule) (code int, done bool) {
	if err := fs.Parse(interspersed(fs, args)); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0, true
		}
		return 2, true
	}
	for _, r := range rules {
		if err := r(fs); err != nil {
			return usageError(fs.Output(), fs.Name())("%v (see hwepoch %s -h)", err, fs.Name()), true
		}
	}
	return 0, false
}

// A flagRule checks a parsed flag set: a flag's range, or the positional
// arguments. parseFlags reports its error as a usage error (exit 2).
type flagRule func(fs *flag.FlagSet) error

// atLeast: the numeric flag name (int, int64, uint, uint64, float64 or
// time.Duration) must be at least min (for a duration, min nanoseconds).
func atLeast(name string, min float64) flagRule {
	return between(name, min, math.Inf(1))
}

// positive: the numeric flag name must be above zero (a duration: at
// least a nanosecond; a count: at least one).
func positive(name string) flagRule {
	return func(fs *flag.FlagSet) error {
		v, _ := numericFlag(fs, name)
		if v <= 0 {
			return fmt.Errorf("-%s %s: must be greater than zero", name, fs.Lookup(name).Value)
		}
		return nil
	}
}

// between: the numeric flag name must lie in [lo, hi].
func between(name string, lo, hi float64) flagRule {
	return func(fs *flag.FlagSet) error {
		v, dur := numericFlag(fs, name)
		if v >= lo && v <= hi {
			return nil
		}
		show := func(x float64) string {
			if dur {
				return time.Duration(x).String()
			}
			return fmt.Sprint(x)
		}
		switch {
		case math.IsInf(hi, 1):
			return fmt.Errorf("-%s %s: must be at least %s", name, fs.Lookup(name).Value, show(lo))
		case math.IsInf(lo, -1):
			return fmt.Errorf("-%s %s: must be at most %s", name, fs.Lookup(name).Value, show(hi))
		}
		return fmt.Errorf("-%s %s: must be between %s and %s", name, fs.Lookup(name).Value, show(lo), show(hi))
	}
}

// numericFlag is the value of a numeric flag, and whether it is a duration.
// A rule naming a flag the verb does not define, or one that is not
// numeric, is a programming error.
func numericFlag(fs *flag.FlagSet, name string) (float64, bool) {
	f := fs.Lookup(name)
	if f == nil {
		panic("hwepoch: a flag rule names no flag of " + fs.Name() + ": -" + name)
	}
	g, ok := f.Value.(flag.Getter)
	if !ok {
		panic("hwepoch: flag -" + name + " of " + fs.Name() + " is not numeric")
	}
	switch v := g.Get().(type) {
	case int:
		return float64(v), false
	case int64:
		return float64(v), false
	case uint:
		return float64(v), false
	case uint64:
		return float64(v), false
	case float64:
		return v, false
	case time.Duration:
		return float64(v), true
	}
	panic("hwepoch: flag -" + name + " of " + fs.Name() + " is not numeric")
}

// maxArgs: at most n positional arguments; what says what they are
// ("configuration names"), or is empty when the verb takes none.
func maxArgs(n int, what string) flagRule {
	return func(fs *flag.FlagSet) error {
		if fs.NArg() <= n {
			return nil
		}
		if n == 0 {
			return fmt.Errorf("unexpected arguments %q: %s takes flags only", fs.Args(), fs.Name())
		}
		return fmt.Errorf("unexpected arguments %q: %s takes at most %d (%s)", fs.Args()[n:], fs.Name(), n, what)
	}
}

// noArgsWith: no positional arguments when the flag name is set (differs
// from its default), because with it they would be ignored.
func noArgsWith(name string) flagRule {
	return func(fs *flag.FlagSet) error {
		f := fs.Lookup(name)
		if f == nil {
			panic("hwepoch: a flag rule names no flag of " + fs.Name() + ": -" + name)
		}
		if fs.NArg() == 0 || f.Value.String() == f.DefValue {
			return nil
		}
		return fmt.Errorf("unexpected arguments %q: with -%s, %s takes none", fs.Args(), name, fs.Name())
	}
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

// needs: the flag name means something only with the flag other set (both
// "set" when they differ from their defaults), so giving it alone is
// refused rather than silently ignored (check -steps without -simulate).
func needs(name string, others ...string) flagRule {
	return func(fs *flag.FlagSet) error {
		if !flagSet(fs, name) {
			return nil
		}
		for _, o := range others {
			if flagSet(fs, o) {
				return nil
			}
		}
		return fmt.Errorf("-%s applies only with -%s", name, strings.Join(others, " or -"))
	}
}

// excludes: the flag name cannot be combined with any of others (tlc
// -distributed has no simulation), rather than one silently winning.
func excludes(name string, others ...string) flagRule {
	return func(fs *flag.FlagSet) error {
		if !flagSet(fs, name) {
			return nil
		}
		for _, o := range others {
			if flagSet(fs, o) {
				return fmt.Errorf("-%s cannot be combined with -%s", name, o)
			}
		}
		return nil
	}
}

// flagSet says whether the flag name differs from its default.
func flagSet(fs *flag.FlagSet, name string) bool {
	f := fs.Lookup(name)
	if f == nil {
		panic("hwepoch: a flag rule names no flag of " + fs.Name() + ": -" + name)
	}
	return f.Value.String() != f.DefValue
}

// nonEmpty: the string flag name must not be empty or blank.
func nonEmpty(name string) flagRule {
	return func(fs *flag.FlagSet) error {
		f := fs.Lookup(name)
		if f == nil {
			panic("hwepoch: a flag rule names no flag of " + fs.Name() + ": -" + name)
		}
		if strings.TrimSpace(f.Value.String()) == "" {
			return fmt.Errorf("-%s must not be empty", name)
		}
		return nil
	}
}

// maxColumns is the widest line a command prints by default (help, tables,
// progress lines); tests hold every command's default output to it.
const maxColumns = 120

// wrapColumns is where help text is wrapped: narrower than maxColumns, to
// read comfortably.
const wrapColumns = 100

// wrap writes prefix and then text's words, breaking the line at spaces so
// that none is wider than width columns (a word longer than that stays
// whole) and starting each further line with indent. The result ends with
// a newline.
func wrap(prefix, text string, width int, indent string) string {
	var b strings.Builder
	line, empty := prefix, true // empty: line holds no word yet
	for _, w := range strings.Fields(text) {
		switch {
		case empty:
			line += w
		case columns(line)+1+columns(w) > width:
			b.WriteString(line + "\n")
			line = indent + w
		default:
			line += " " + w
		}
		empty = false
	}
	b.WriteString(line + "\n")
	return b.String()
}

// columns is how wide s prints: runes, a tab advancing to the next
// multiple of eight.
func columns(s string) int {
	n := 0
	for _, r := range s {
		if r == '\t' {
			n += 8 - n%8
			continue
		}
		n++
	}
	return n
}

// printDefaults is fs.PrintDefaults with each flag's description wrapped
// to wrapColumns (flag's own lines are as long as the description).
func printDefaults(fs *flag.FlagSet) {
	var b strings.Builder
	out := fs.Output()
	fs.SetOutput(&b)
	fs.PrintDefaults()
	fs.SetOutput(out)
	for _, l := range strings.SplitAfter(b.String(), "\n") {
		if rest, ok := strings.CutPrefix(l, "    \t"); ok && columns(strings.TrimSuffix(l, "\n")) > wrapColumns {
			l = wrap("    \t", rest, wrapColumns, "    \t")
		}
		fmt.Fprint(out, l)
	}
}
