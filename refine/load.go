package refine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/model/tlccfg"
	"github.com/hwepoch/hwepoch/trace"
	"github.com/hwepoch/hwepoch/trace/itf"
	"github.com/hwepoch/hwepoch/trace/scenario"
	"github.com/hwepoch/hwepoch/trace/tlcjson"
)

// Case is one trace to replay with the configuration it belongs to.
type Case struct {
	Name   string // what reports call it: the file, and the scenario case if any
	Config *model.Config
	Trace  trace.Trace
	// Refuse, if set, is an action the model does not enable after the
	// trace: the implementation must refuse it and change nothing.
	Refuse *model.Action
}

// Formats, told apart by file name:
//
//	*.itf.json                  ITF (Apalache/Quint); its #meta names a spec
//	                            configuration ("config") or carries the
//	                            constants themselves ("hwepoch.config", as
//	                            regressions written by WriteRegression do)
//	*.json (runs.json excluded) TLC -dumpTrace json; the configuration is the
//	                            run's in traces/tlc/runs.json, else spec/NAME.cfg
//	*.scenario                  a scenario file (trace/scenario): one case per
//	                            policy (and variant)
const (
	itfSuffix      = ".itf.json"
	scenarioSuffix = scenario.Ext
)

// Load reads a trace file of any supported format and returns its cases.
// Errors name the file, and for bad content the step and field.
func Load(path string) ([]Case, error) {
	switch {
	case strings.HasSuffix(path, itfSuffix):
		c, err := LoadITF(path)
		return []Case{c}, err
	case strings.HasSuffix(path, scenarioSuffix):
		return LoadScenario(path)
	case strings.HasSuffix(path, ".json") && filepath.Base(path) != "runs.json":
		c, err := LoadTLC(path)
		return []Case{c}, err
	}
	return nil, fmt.Errorf("%s: not a trace file hwepoch knows: want a TLC trace (*.json), an ITF trace (*%s) or a scenario (*%s)",
		path, itfSuffix, scenarioSuffix)
}

// LoadTLC reads a TLC -dumpTrace json file with its configuration.
func LoadTLC(path string) (Case, error) {
	cfgName, err := tlcConfigName(path)
	if err != nil {
		return Case{}, err
	}
	cfg, err := specConfig(path, cfgName)
	if err != nil {
		return Case{}, err
	}
	tr, err := tlcjson.Load(path, cfg, cfgName)
	if err != nil {
		return Case{}, err
	}
	return Case{Name: path, Config: cfg, Trace: tr}, nil
}

// tlcConfigName is the configuration a TLC trace was made on: the run in
// runs.json (next to the trace or one directory up, for traces/tlc/sim/)
// whose traceJson is this file, else the file's base name.
func tlcConfigName(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	for _, dir := range []string{filepath.Dir(abs), filepath.Dir(filepath.Dir(abs))} {
		runs, err := tlcjson.LoadRuns(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		rel, err := filepath.Rel(dir, abs)
		if err != nil {
			continue
		}
		for _, r := range runs.Runs {
			if r.TraceJSON != "" && filepath.Clean(r.TraceJSON) == rel && r.Config != "" {
				return r.Config, nil
			}
		}
	}
	return tlccfg.Base(path), nil
}

// specConfig loads spec/NAME.cfg, finding spec/ above the trace file.
func specConfig(tracePath, name string) (*model.Config, error) {
	dir, err := tlccfg.FindSpecDir(filepath.Dir(tracePath))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", tracePath, err)
	}
	cfgPath := filepath.Join(dir, name+".cfg")
	chk, err := tlccfg.LoadCheck(cfgPath)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, fmt.Errorf("%s: its configuration %s does not exist (name the trace after its .cfg, or record it in runs.json)", tracePath, cfgPath)
		}
		return nil, fmt.Errorf("%s: configuration: %w", tracePath, err)
	}
	return &chk.Config, nil
}

// LoadITF reads an ITF trace whose actions are named in each state's #meta.
func LoadITF(path string) (Case, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Case{}, err
	}
	meta, err := readITFMeta(path, b)
	if err != nil {
		return Case{}, err
	}
	cfg := meta.Config
	if cfg == nil {
		if meta.ConfigName == "" {
			return Case{}, fmt.Errorf("%s: #meta: names no configuration (want \"config\": a spec/NAME.cfg, or \"hwepoch\": {\"config\": {...}})", path)
		}
		if cfg, err = specConfig(path, meta.ConfigName); err != nil {
			return Case{}, err
		}
	}
	tr, err := itf.Read(path, b, cfg)
	if err != nil {
		return Case{}, err
	}
	for i := 1; i < len(tr.Steps); i++ {
		if tr.Steps[i].Action.Kind == model.NoAction {
			return Case{}, fmt.Errorf("%s: state %d: #meta.action: missing (a replayable trace names the action of every step)", path, i)
		}
	}
	return Case{Name: path, Config: cfg, Trace: tr, Refuse: meta.Refuse}, nil
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
		case strings.HasSuffix(name, ".json") && name != "runs.json" && strings.Contains(filepath.ToSlash(p), "/tlc/"):
			out = append(out, p)
		}
		return nil
	})
	slices.Sort(out)
	return out, err
}
