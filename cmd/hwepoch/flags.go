package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hwepoch/hwepoch/internal/columns"
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

// needs: the flag name means something only with one of others active
// (differing from its default), so giving it without them is refused
// rather than silently ignored (check -steps without -simulate, chaos
// -drop without -free). Given means given on the command line (flag.Visit),
// even with its default value: "-seeds 100" is as ignored as "-seeds 5".
func needs(name string, others ...string) flagRule {
	return func(fs *flag.FlagSet) error {
		if !given(fs, name) {
			return nil
		}
		for _, o := range others {
			if active(fs, o) {
				return nil
			}
		}
		return fmt.Errorf("-%s applies only with -%s", name, strings.Join(others, " or -"))
	}
}

// excludes: when the flag name is active (differs from its default), none
// of others may be given (tlc -distributed has no simulation), rather than
// one silently winning.
func excludes(name string, others ...string) flagRule {
	return func(fs *flag.FlagSet) error {
		if !active(fs, name) {
			return nil
		}
		for _, o := range others {
			if given(fs, o) {
				return fmt.Errorf("-%s cannot be combined with -%s", name, o)
			}
		}
		return nil
	}
}

// onlyWith: when the flag name is active, every flag given besides it must
// be one of allowed: name is a mode of its own that ignores the others
// (chaos -replay reruns what its file says, whatever -seeds, -policy or
// -free say).
func onlyWith(name string, allowed ...string) flagRule {
	return func(fs *flag.FlagSet) error {
		if !active(fs, name) {
			return nil
		}
		var stray []string
		fs.Visit(func(f *flag.Flag) {
			if f.Name != name && !slices.Contains(allowed, f.Name) {
				stray = append(stray, "-"+f.Name)
			}
		})
		if len(stray) == 0 {
			return nil
		}
		takes := "no other flag"
		if len(allowed) > 0 {
			takes = "no flag but -" + strings.Join(allowed, ", -")
		}
		return fmt.Errorf("with -%s, %s would be ignored: -%s takes %s", name, strings.Join(stray, ", "), name, takes)
	}
}

// given says whether the flag name was given on the command line.
func given(fs *flag.FlagSet, name string) bool {
	lookup(fs, name)
	found := false
	fs.Visit(func(f *flag.Flag) { found = found || f.Name == name })
	return found
}

// active says whether the flag name differs from its default.
func active(fs *flag.FlagSet, name string) bool {
	f := lookup(fs, name)
	return f.Value.String() != f.DefValue
}

// lookup is fs's flag name; a rule naming a flag the verb does not define
// is a programming error.
func lookup(fs *flag.FlagSet, name string) *flag.Flag {
	f := fs.Lookup(name)
	if f == nil {
		panic("hwepoch: a flag rule names no flag of " + fs.Name() + ": -" + name)
	}
	return f
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

// maxColumns is the widest line a command prints by default.
const maxColumns = columns.Max

// wrapColumns is where help text is wrapped: narrower than maxColumns, to
// read comfortably.
const wrapColumns = 100

// wrap is columns.Wrap: prefix, then text's words within width columns,
// each further line starting with indent.
func wrap(prefix, text string, width int, indent string) string {
	return columns.Wrap(prefix, text, width, indent)
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
		if columns.Width(strings.TrimSuffix(l, "\n")) > wrapColumns {
			// "    \tusage", or "  -x\tusage" for a one-letter boolean
			// flag, which flag writes on one line.
			if i := strings.Index(l, "\t"); i >= 0 {
				l = wrap(l[:i+1], l[i+1:], wrapColumns, "    \t")
			}
		}
		fmt.Fprint(out, l)
	}
}

// usableDir makes sure, before any work starts, that dir is a directory
// files can be written into: it creates it (and its missing parents) and
// writes and removes a probe file in it. A run that would write its
// results there (chaos -out) must not find out only after hours that it
// cannot. cleanup removes the directories usableDir created if they are
// still empty, so that a run that wrote nothing leaves nothing behind.
func usableDir(dir string) (cleanup func(), err error) {
	var created []string // the directories that do not exist yet, deepest first
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); !errors.Is(err, fs.ErrNotExist) {
			break // it exists, or something else is wrong: MkdirAll says what
		}
		created = append(created, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	cleanup = func() {
		for _, d := range created {
			os.Remove(d) // fails, as it should, on a directory not empty
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		cleanup()
		return func() {}, err
	}
	f, err := os.CreateTemp(dir, ".hwepoch-probe-*")
	if err != nil {
		cleanup()
		return func() {}, fmt.Errorf("cannot write into it: %w", err)
	}
	name := f.Name()
	err = f.Close()
	os.Remove(name)
	if err != nil {
		cleanup()
		return func() {}, fmt.Errorf("cannot write into it: %w", err)
	}
	return cleanup, nil
}

// printWrapped prints format's text wrapped to maxColumns, each further
// line indented two columns beyond the text's own leading blanks: how a
// command keeps a long line (a seed's verdict, a path twice) within a
// terminal's width.
func printWrapped(w io.Writer, format string, a ...any) {
	s := strings.TrimSuffix(fmt.Sprintf(format, a...), "\n")
	for _, l := range strings.Split(s, "\n") {
		text := strings.TrimLeft(l, " ")
		lead := l[:len(l)-len(text)]
		fmt.Fprint(w, wrap(lead, text, maxColumns, lead+"  "))
	}
}
