package refine

import "fmt"

// LoadScenario reads a scenario file: one case per policy and variant.
func LoadScenario(path string) ([]Case, error) {
	return nil, fmt.Errorf("%s: scenario files are not supported yet", path)
}
