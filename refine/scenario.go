package refine

import (
	"github.com/hwepoch/hwepoch/trace/scenario"
)

// LoadScenario reads a scenario file (trace/scenario) and returns one case
// per policy (and variant) it runs under: the case's configuration and the
// model's trace of its steps (ActionsTrace, which reports a step the model
// does not enable by file, step and action).
func LoadScenario(path string) ([]Case, error) {
	sc, err := scenario.Load(path)
	if err != nil {
		return nil, err
	}
	var out []Case
	for _, c := range sc.Cases() {
		cfg := sc.Config(c)
		name := path + " [" + c.String() + "]"
		tr, err := ActionsTrace(name, &cfg, sc.Actions(c))
		if err != nil {
			return nil, err
		}
		tr.ConfigName = sc.Name + " " + c.String()
		out = append(out, Case{Name: name, Config: &cfg, Trace: tr, Refuse: sc.RefusalFor(c), Invariants: sc.Checks})
	}
	return out, nil
}
