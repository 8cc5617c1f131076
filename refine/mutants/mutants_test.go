package mutants

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hwepoch/hwepoch/impl/broker"
)

// The checker bites: every seeded bug is caught by at least one check, at
// CI size, and the implementation without one passes every check (else
// "caught" would mean nothing).
func TestEveryMutantIsCaught(t *testing.T) {
	b := CI(filepath.Join("..", "..", "traces"))
	base := Run("", b, nil)
	for _, d := range base.Detections {
		if d.Caught || d.Err != nil {
			t.Fatalf("baseline: %s fails without a mutant (%s: %s %v): fix that first, the mutation check means nothing until then", d.Check, d.Where, d.Detail, d.Err)
		}
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for _, m := range broker.Mutants {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			r := Run(m, b, nil)
			mu.Lock()
			defer mu.Unlock()
			for _, d := range r.Detections {
				if d.Err != nil {
					t.Errorf("%s: %s could not run: %v", m, d.Check, d.Err)
				}
			}
			if d, ok := r.First(); ok {
				t.Logf("%-24s caught by %s in %d steps (%s)", m, d.Check, d.Length, d.Where)
			} else {
				t.Errorf("%s: no check caught it", m)
			}
		}()
	}
	wg.Wait()
}

// docs/mutants.md describes every mutant and every check.
func TestMutantsDocIsComplete(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "mutants.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, m := range broker.Mutants {
		if !strings.Contains(doc, "| `"+string(m)+"` |") || !strings.Contains(doc, "| "+string(m)+" |") {
			t.Errorf("docs/mutants.md: %s lacks its description row or its table row", m)
		}
	}
	for _, c := range Checks {
		if !strings.Contains(doc, "| "+string(c)+" |") {
			t.Errorf("docs/mutants.md: the check %q is not described", c)
		}
	}
}
