package scenario

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Ext is the extension of scenario files; traces/scenarios/NAME.scenario
// holds the scenario named NAME.
const Ext = ".scenario"

// LoadDir loads every scenario file in dir, sorted by name. A file whose
// name line differs from its file name is an error, so that a scenario can
// be found by name.
func LoadDir(dir string) ([]Scenario, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*"+Ext))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("%s: no %s files", dir, Ext)
	}
	sort.Strings(paths)
	out := make([]Scenario, 0, len(paths))
	for _, p := range paths {
		sc, err := loadNamed(p)
		if err != nil {
			return nil, err
		}
		out = append(out, sc)
	}
	return out, nil
}

// Find loads the scenario called name from dir.
func Find(dir, name string) (Scenario, error) {
	path := filepath.Join(dir, name+Ext)
	if _, err := os.Stat(path); err != nil {
		var names []string
		if all, gerr := filepath.Glob(filepath.Join(dir, "*"+Ext)); gerr == nil {
			for _, p := range all {
				names = append(names, strings.TrimSuffix(filepath.Base(p), Ext))
			}
		}
		sort.Strings(names)
		return Scenario{}, fmt.Errorf("no scenario %q in %s (the scenarios there: %s)", name, dir, strings.Join(names, " "))
	}
	return loadNamed(path)
}

func loadNamed(path string) (Scenario, error) {
	sc, err := Load(path)
	if err != nil {
		return Scenario{}, err
	}
	if base := strings.TrimSuffix(filepath.Base(path), Ext); sc.Name != base {
		return Scenario{}, &Error{File: path, Token: sc.Name, Msg: fmt.Sprintf("the name line says %s, the file is called %s%s: make them agree", sc.Name, base, Ext)}
	}
	return sc, nil
}
