package render

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/hwepoch/hwepoch/trace/scenario"
)

// VerdictTable runs every case of every scenario and writes a Markdown
// table of what each violates (with the step where each invariant first
// fails) and whether that is what its expect line says. docs/scenarios.md
// embeds it; a test keeps the copy current.
func VerdictTable(scs []scenario.Scenario) (string, error) {
	var b bytes.Buffer
	b.WriteString("| scenario | case | checked invariants violated (first step) | expected |\n|---|---|---|---|\n")
	for _, sc := range scs {
		for _, c := range sc.Cases() {
			_, v, err := sc.Run(c)
			if err != nil {
				return "", err
			}
			found := "none: all hold"
			if !v.Holds {
				parts := make([]string, len(v.Broken))
				for i, x := range v.Broken {
					parts[i] = fmt.Sprintf("%s (%d)", x.Invariant, x.Step)
				}
				found = strings.Join(parts, ", ")
			}
			ok := "yes"
			if err := v.Meets(sc.Expectation(c)); err != nil {
				ok = "**NO**"
			}
			fmt.Fprintf(&b, "| [%s](#%s) | %s | %s | %s |\n", sc.Name, sc.Name, c, found, ok)
		}
	}
	return b.String(), nil
}
