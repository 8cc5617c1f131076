package refine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/google/go-cmp/cmp"
	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/model/tlccfg"
	"github.com/hwepoch/hwepoch/trace"
	"github.com/hwepoch/hwepoch/trace/itf"
	"github.com/hwepoch/hwepoch/trace/scenario"
	"github.com/hwepoch/hwepoch/trace/tlatrace"
	"github.com/hwepoch/hwepoch/trace/tlcjson"

	"github.com/hwepoch/hwepoch/internal/inputfile"
)

// Case is one trace to replay with the configuration it belongs to.
type Case struct {
	Name   string // what reports call it: the file, and the scenario case if any
	Config *model.Config
	Trace  trace.Trace
	// Refuse, if set, is an action the model does not enable after the
	// trace: the implementation must refuse it and change nothing.
	Refuse *model.Action
	// Invariants are what the trace's configuration checks: the INVARIANTS
	// of its .cfg (of its check line, for a scenario); for constants an ITF
	// file carries itself, every safety invariant of the spec.
	Invariants []string
}

// Formats, told apart by file name:
//
//	*.itf.json                  ITF (Apalache/Quint); its #meta names a spec
//	                            configuration ("config") or carries the
//	                            constants themselves ("hwepoch.config", as
//	                            regressions written by WriteRegression do)
//	*.json (runs.json excluded) TLC -dumpTrace json; the configuration is the
//	                            run's in traces/tlc/runs.json, else spec/NAME.cfg
//	*.tla                       TLC -dumpTrace tla, likewise
//	*.scenario                  a scenario file (trace/scenario): one case per
//	                            policy (and variant)
const (
	itfSuffix      = ".itf.json"
	scenarioSuffix = scenario.Ext
)

// Load reads a trace file of any supported format and returns its cases,
// with the configuration each was made on as the repository records it.
// Errors name the file, and for bad content the step and field.
func Load(path string) ([]Case, error) { return LoadWithConfig(path, "") }

// LoadWithConfig is Load with the configuration given: cfgPath, if not
// empty, is the TLC .cfg whose constants a TLC or ITF trace was made with
// (for traces made outside this repository). An ITF file that carries its
// own constants must agree with it; a scenario carries its own, so cfgPath
// does not apply to one.
func LoadWithConfig(path, cfgPath string) ([]Case, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, err
	}
	var given *tlccfg.Check
	if cfgPath != "" {
		chk, err := tlccfg.LoadCheckSeeded(cfgPath)
		if err != nil {
			return nil, fmt.Errorf("the configuration given for %s: %w", path, err)
		}
		given = chk
	}
	switch {
	case strings.HasSuffix(path, itfSuffix):
		c, err := loadITF(path, given)
		return []Case{c}, err
	case strings.HasSuffix(path, scenarioSuffix):
		if given != nil {
			return nil, fmt.Errorf("%s: a scenario carries its own constants (its config line); a .cfg does not apply to it", path)
		}
		return LoadScenario(path)
	case strings.HasSuffix(path, ".json") && filepath.Base(path) != "runs.json":
		c, err := loadTLC(path, given, tlcjson.Load)
		return []Case{c}, err
	case strings.HasSuffix(path, ".tla"):
		c, err := loadTLC(path, given, tlatrace.Load)
		return []Case{c}, err
	}
	return nil, fmt.Errorf("%s: not a trace file hwepoch knows: want a TLC trace (*.json or *.tla), an ITF trace (*%s) or a scenario (*%s)",
		path, itfSuffix, scenarioSuffix)
}

// loadTLC reads a TLC -dumpTrace json or tla file with its configuration:
// chk, or the one runs.json or the file's name gives.
func loadTLC(path string, chk *tlccfg.Check, load func(string, *model.Config, string) (trace.Trace, error)) (Case, error) {
	cfgName, run, err := tlcConfigName(path)
	if err != nil {
		return Case{}, err
	}
	if chk == nil {
		if chk, err = specConfig(path, cfgName); err != nil {
			return Case{}, err
		}
		if err := sameCfg(path, cfgName, run); err != nil {
			return Case{}, err
		}
	} else if err := agrees(path, cfgName, chk); err != nil {
		return Case{}, err
	}
	tr, err := load(path, &chk.Config, chk.Name)
	if err != nil {
		return Case{}, err
	}
	return Case{Name: path, Config: &chk.Config, Trace: tr, Invariants: chk.Invariants}, nil
}

// tlcConfigName is the configuration a TLC trace was made on: the run in
// runs.json (next to the trace or one directory up, for traces/tlc/sim/)
// whose traceJson is this file, with that run, else the file's base name
// (and no run).
func tlcConfigName(path string) (string, *tlcjson.Run, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", nil, err
	}
	for _, dir := range []string{filepath.Dir(abs), filepath.Dir(filepath.Dir(abs))} {
		runs, err := tlcjson.LoadRuns(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", nil, err
		}
		rel, err := filepath.Rel(dir, abs)
		if err != nil {
			continue
		}
		for _, r := range runs.Runs {
			for _, f := range []string{r.TraceJSON, r.TraceTLA} {
				if f != "" && filepath.Clean(f) == rel && r.Config != "" {
					if err := checkConfigName(r.Config); err != nil {
						return "", nil, fmt.Errorf("%s: its run %s in %s: config: %w", path, r.Name, filepath.Join(dir, "runs.json"), err)
					}
					return r.Config, &r, nil
				}
			}
		}
	}
	return tlccfg.Base(path), nil, nil
}

// StaleRunError says a TLC trace's run was made on another version of its
// .cfg than spec/ holds now: replayed under this one it proves nothing.
type StaleRunError struct {
	Trace, Config string
}

func (e *StaleRunError) Error() string {
	return fmt.Sprintf("%s: %s.cfg changed since TLC's run made this trace (its cfgSha256 in runs.json differs): rerun `hwepoch tlc %s`, or give the configuration it was made with (-cfg FILE.cfg)",
		e.Trace, e.Config, e.Config)
}

// sameCfg checks that run, if any, was made on spec/NAME.cfg as it is now.
func sameCfg(tracePath, name string, run *tlcjson.Run) error {
	if run == nil {
		return nil
	}
	dir, err := tlccfg.FindSpecDir(filepath.Dir(tracePath))
	if err != nil {
		return nil // specConfig has found it already
	}
	sum, err := tlcjson.FileSHA256(filepath.Join(dir, name+".cfg"))
	if err != nil {
		return err
	}
	if sum != run.CfgSHA256 {
		return &StaleRunError{Trace: tracePath, Config: name}
	}
	return nil
}

// checkConfigName refuses a configuration name that is not one. A
// configuration is spec/NAME.cfg of the repository a trace is in, named by
// NAME alone: an absolute path, or one that climbs out of spec/ with "..",
// would read a .cfg from outside the repository, and any other path names
// no configuration of the manifest.
func checkConfigName(name string) error {
	const want = "want a configuration's name, NAME of spec/NAME.cfg in the repository the trace is in"
	switch {
	case name == "":
		return fmt.Errorf("empty: %s", want)
	case filepath.IsAbs(name) || strings.HasPrefix(name, "/") || strings.HasPrefix(name, `\`):
		return fmt.Errorf("%q is an absolute path: %s", name, want)
	case slices.Contains(strings.FieldsFunc(name, func(r rune) bool { return r == '/' || r == '\\' }), ".."):
		return fmt.Errorf("%q leaves spec/ with \"..\": %s", name, want)
	case strings.ContainsAny(name, "/\\\x00") || name == ".":
		return fmt.Errorf("%q is not a configuration's name: %s", name, want)
	}
	return nil
}

// specConfig loads spec/NAME.cfg, finding spec/ above the trace file.
func specConfig(tracePath, name string) (*tlccfg.Check, error) {
	if err := checkConfigName(name); err != nil {
		return nil, fmt.Errorf("%s: configuration: %w", tracePath, err)
	}
	dir, err := tlccfg.FindSpecDir(filepath.Dir(tracePath))
	if err != nil {
		return nil, fmt.Errorf("%s: no spec/ directory above it holds %s.cfg: give the configuration it was made with (-cfg FILE.cfg)", tracePath, name)
	}
	cfgPath := filepath.Join(dir, name+".cfg")
	chk, err := tlccfg.LoadCheckSeeded(cfgPath)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, fmt.Errorf("%s: its configuration %s does not exist (name the trace after its .cfg, record it in runs.json, or give the configuration: -cfg FILE.cfg)", tracePath, cfgPath)
		}
		return nil, fmt.Errorf("%s: configuration: %w", tracePath, err)
	}
	return chk, nil
}

// loadITF reads an ITF trace — actions named in each state's #meta, or
// inferred where none is — with the constants it carries, else chk's, else those of the
// spec configuration its #meta names.
func loadITF(path string, chk *tlccfg.Check) (Case, error) {
	b, err := inputfile.ReadFile(path)
	if err != nil {
		return Case{}, err
	}
	meta, err := readITFMeta(path, b)
	if err != nil {
		return Case{}, err
	}
	// A configuration #meta names must be there, with the constants the
	// trace carries or is given.
	var named *tlccfg.Check
	if meta.ConfigName != "" {
		if named, err = namedConfig(path, meta.ConfigName, chk != nil); err != nil {
			return Case{}, err
		}
	}
	cfg, invariants := meta.Config, safetyInvariants()
	switch {
	case cfg != nil && chk != nil:
		if d := cmp.Diff(chk.Config, *cfg); d != "" {
			return Case{}, fmt.Errorf("%s: carries its own constants, which differ from %s's (-file +trace):\n%s", path, chk.Name, d)
		}
		invariants = chk.Invariants
	case chk != nil:
		cfg, invariants = &chk.Config, chk.Invariants
	case cfg == nil:
		if named == nil {
			return Case{}, fmt.Errorf("%s: #meta: names no configuration (want \"config\": a spec/NAME.cfg, or \"hwepoch\": {\"config\": {...}}; or give the .cfg)", path)
		}
		cfg, invariants = &named.Config, named.Invariants
	}
	if named != nil && cfg != &named.Config {
		if d := cmp.Diff(named.Config, *cfg); d != "" {
			what := "carries"
			if meta.Config == nil {
				what = "is given (" + chk.Name + ")"
			}
			return Case{}, fmt.Errorf("%s: #meta.config names %s, whose constants differ from those the trace %s (-named +trace):\n%s", path, named.Name, what, d)
		}
	}
	tr, err := itf.Read(path, b, cfg)
	if err != nil {
		return Case{}, err
	}
	// ITF from other tools (Apalache) records states only: a step whose
	// #meta names no action gets the one of Next that leads to its state.
	for i := 1; i < len(tr.Steps); i++ {
		if tr.Steps[i].Action.Kind != model.NoAction {
			continue
		}
		a, err := trace.InferAction(cfg, tr.Steps[i-1].State, tr.Steps[i].State)
		if err != nil {
			return Case{}, fmt.Errorf("%s: state %d: #meta.action: none recorded, and %v", path, i, err)
		}
		tr.Steps[i].Action = a
	}
	return Case{Name: path, Config: cfg, Trace: tr, Refuse: meta.Refuse, Invariants: invariants}, nil
}

// namedConfig loads the configuration an ITF trace's #meta.config names:
// spec/NAME.cfg of the repository the trace is in (spec/ found above the
// trace, as for TLC's traces). A name that is a path, or names no file
// there, is refused. Only a trace in no repository, whose configuration is
// given (-cfg), gets nil and no error: the given one stands.
func namedConfig(path, name string, given bool) (*tlccfg.Check, error) {
	if err := checkConfigName(name); err != nil {
		return nil, fmt.Errorf("%s: #meta.config: %w", path, err)
	}
	dir, err := tlccfg.FindSpecDir(filepath.Dir(path))
	if err != nil {
		if given {
			return nil, nil
		}
		return nil, fmt.Errorf("%s: #meta.config: names %s, but no spec/ directory above the trace holds %s.cfg: give the configuration it was made with (-cfg FILE.cfg)", path, name, name)
	}
	cfgPath := filepath.Join(dir, name+".cfg")
	chk, err := tlccfg.LoadCheckSeeded(cfgPath)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%s: #meta.config: names %s, but %s does not exist (name a configuration of spec/manifest.json, or drop \"config\" from #meta if the trace carries its constants)", path, name, cfgPath)
	case err != nil:
		return nil, fmt.Errorf("%s: #meta.config: %s: %w", path, name, err)
	}
	return chk, nil
}

// agrees checks a configuration given for a trace against the one the
// repository records for it (spec/NAME.cfg): where there is one, they must
// have the same constants, or the trace would be judged under rules it was
// not made with. Where there is none (a trace made elsewhere), the given
// one stands.
func agrees(path, name string, given *tlccfg.Check) error {
	rec, err := specConfig(path, name)
	if err != nil {
		return nil
	}
	if d := cmp.Diff(rec.Config, given.Config); d != "" {
		return fmt.Errorf("%s: made with %s, whose constants differ from those given (%s) (-recorded +given):\n%s", path, name, given.Name, d)
	}
	return nil
}

// safetyInvariants are the spec's invariants less its witnesses (Never*,
// which exist to be violated).
func safetyInvariants() []string {
	var out []string
	for _, n := range model.InvariantNames() {
		if !strings.HasPrefix(n, "Never") {
			out = append(out, n)
		}
	}
	return out
}

// Discover lists the trace files under root (traces/ by default): TLC's
// traces in tlc/ and tlc/sim/, scenarios in scenarios/, regressions in
// regressions/. Each directory may be missing.
func Discover(root string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) && p == root {
				return fs.SkipAll
			}
			return err
		}
		if d.IsDir() {
			return nil
		}
		name := d.Name()
		switch {
		case strings.HasSuffix(name, itfSuffix), strings.HasSuffix(name, scenarioSuffix):
			out = append(out, p)
		case (strings.HasSuffix(name, ".json") && name != "runs.json" || strings.HasSuffix(name, ".tla")) && strings.Contains(filepath.ToSlash(p), "/tlc/"):
			out = append(out, p)
		}
		return nil
	})
	slices.Sort(out)
	return out, err
}
