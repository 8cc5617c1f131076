package cluster

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// Replay runs steps on a fresh stepped cluster built from cfg (its Mode is
// forced to Stepped) and returns the final snapshot, the number of steps
// applied, and the error of the first step that could not be (nil if all
// were). A free run's Steps replay its events in a causal order; a step
// that fails means the stepped cluster could not follow the free run there
// (the free run's interleaving is one the stepped API cannot express, e.g.
// a message that arrived after its sender had timed out).
func Replay(cfg Config, steps []Step) (Snapshot, int, error) {
	cfg.Mode = Stepped
	cfg.Hook = nil
	c, err := New(cfg)
	if err != nil {
		return Snapshot{}, 0, err
	}
	defer c.Close()
	for i, s := range steps {
		if err := c.Apply(s); err != nil {
			return c.Snapshot(), i, fmt.Errorf("step %d %s: %w", i+1, s, err)
		}
	}
	return c.Snapshot(), len(steps), nil
}

// WriteSteps writes a replayable step list: the settings as "# set k=v"
// lines, then one step per line. A key given more than once (defaults,
// then a run's own settings) is written once, with its last value, since
// ReadSteps refuses a setting given twice.
func WriteSteps(w io.Writer, settings []string, steps []Step) error {
	bw := bufio.NewWriter(w)
	for _, s := range lastByKey(settings) {
		fmt.Fprintf(bw, "# set %s\n", s)
	}
	for _, s := range steps {
		fmt.Fprintln(bw, s)
	}
	return bw.Flush()
}

// ReadSteps reads what WriteSteps wrote: the settings and the steps.
// Other "#" lines and blank lines are ignored.
func ReadSteps(r io.Reader) (settings []string, steps []Step, err error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	setAt := map[string]int{} // the line of each setting
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "":
		case strings.HasPrefix(line, "# set "):
			kv := strings.TrimSpace(strings.TrimPrefix(line, "# set "))
			key, _, _ := strings.Cut(kv, "=")
			key = strings.TrimSpace(key)
			if l, dup := setAt[key]; dup {
				return nil, nil, fmt.Errorf("line %d: setting %s given twice (first on line %d)", n, key, l)
			}
			setAt[key] = n
			settings = append(settings, kv)
		case strings.HasPrefix(line, "#"):
		default:
			s, err := ParseStep(line)
			if err != nil {
				return nil, nil, fmt.Errorf("line %d: %w", n, err)
			}
			steps = append(steps, s)
		}
	}
	return settings, steps, sc.Err()
}

// lastByKey keeps one "k=v" per key, the last value, at the key's first
// position.
func lastByKey(settings []string) []string {
	at := map[string]int{}
	var out []string
	for _, kv := range settings {
		key, _, _ := strings.Cut(kv, "=")
		key = strings.TrimSpace(key)
		if i, ok := at[key]; ok {
			out[i] = kv
			continue
		}
		at[key] = len(out)
		out = append(out, kv)
	}
	return out
}
