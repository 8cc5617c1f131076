package explore

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/hwepoch/hwepoch/model"
)

// SmallRuns is model/explore/testdata/tlc-small.json: TLC's results on
// small configurations that together cover every combination of the
// spec's switches, so that every branch of every action is compared with
// TLC. go test compares a representative subset of them (Representative);
// hwepoch verify --all compares every one.
type SmallRuns struct {
	About      string     `json:"about"`
	TLCVersion string     `json:"tlcVersion"`
	Runs       []SmallRun `json:"runs"`
}

// SmallRun is one configuration and TLC's numbers on it.
type SmallRun struct {
	Name string `json:"name"`
	// SpecSHA256 is the spec's hash when TLC produced this run's numbers:
	// the regeneration skips runs already made on the current spec, so it
	// can be stopped and resumed.
	SpecSHA256 string       `json:"specSha256,omitempty"`
	Config     model.Config `json:"config"`
	Invariants []string     `json:"invariants"`
	Symmetry   bool         `json:"symmetry,omitempty"`
	TLC        struct {
		Verdict   string `json:"verdict"`
		Property  string `json:"property"`
		Distinct  int64  `json:"distinct"`
		Generated int64  `json:"generated"`
		Depth     int    `json:"depth"`
	} `json:"tlc"`
}

// SmallRunsPath is tlc-small.json's path in the repository at root.
func SmallRunsPath(root string) string {
	return filepath.Join(root, "model", "explore", "testdata", "tlc-small.json")
}

// LoadSmallRuns reads a tlc-small.json.
func LoadSmallRuns(path string) (*SmallRuns, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var s SmallRuns
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if len(s.Runs) == 0 {
		return nil, fmt.Errorf("%s has no runs", path)
	}
	return &s, nil
}

// Compare explores r's configuration with one worker and compares the
// result with TLC's: the same verdict (and violated property), and where
// the configuration holds, exactly TLC's distinct states, states generated
// and depth. mismatch is "" when they agree, else what differs. A run made
// on another spec than specSHA256 is a mismatch: its numbers say nothing.
func (r SmallRun) Compare(ctx context.Context, specSHA256 string) (res *Result, mismatch string, err error) {
	if r.SpecSHA256 != specSHA256 {
		return nil, fmt.Sprintf("TLC's numbers are for spec sha256 %.12s…, spec/Replication.tla is %.12s…: regenerate (HWEPOCH_REGEN_TLC=1, TestRegenerateSmallTLCRuns)",
			r.SpecSHA256, specSHA256), nil
	}
	cfg := r.Config
	res, err = Run(ctx, &cfg, Options{Workers: 1, Invariants: r.Invariants, Symmetry: r.Symmetry, ConfigName: r.Name})
	if err != nil {
		return nil, "", err
	}
	verdict := "holds"
	if res.Violation != nil {
		verdict = "violated"
	}
	switch {
	case verdict != r.TLC.Verdict:
		return res, fmt.Sprintf("explorer: %s (%v); TLC: %s %s", verdict, res.Violation, r.TLC.Verdict, r.TLC.Property), nil
	case verdict == "violated" && res.Violation.Property != r.TLC.Property:
		return res, fmt.Sprintf("explorer violated %s, TLC %s", res.Violation.Property, r.TLC.Property), nil
	case verdict == "holds" && (res.Distinct != r.TLC.Distinct || res.Generated != r.TLC.Generated || res.Depth != r.TLC.Depth):
		return res, fmt.Sprintf("explorer: %d distinct, %d generated, depth %d; TLC: %d, %d, depth %d (%s)",
			res.Distinct, res.Generated, res.Depth, r.TLC.Distinct, r.TLC.Generated, r.TLC.Depth, cfg.String()), nil
	}
	return res, "", nil
}

// switches are the spec's switches the small configurations combine, as
// strings, in a fixed order; the first is the release (Truncation).
func (r SmallRun) switches() []string {
	c := r.Config
	return []string{c.Truncation, strconv.FormatBool(c.Fencing), c.Acks, strconv.FormatBool(c.UncleanLeaderElectionEnable),
		strconv.FormatBool(c.UnflushedLoss), strconv.FormatBool(c.LossyNetwork),
		fmt.Sprintf("%d/%t", c.MinInsyncReplicas, c.MinIsrGatesHW)}
}

// Combination is a release with the values of two other switches: what
// Representative covers.
type Combination struct {
	Release    string
	I, J       int // switch indices, 1 <= I < J
	ValI, ValJ string
}

// Combinations are those that r's configuration exercises.
func (r SmallRun) Combinations() []Combination {
	s := r.switches()
	var out []Combination
	for i := 1; i < len(s); i++ {
		for j := i + 1; j < len(s); j++ {
			out = append(out, Combination{s[0], i, j, s[i], s[j]})
		}
	}
	return out
}

// Representative picks, among the runs of the switch matrix (two
// replicas at the matrix's bounds: names "m-..."), configurations that
// together exercise, for every release, every pair of values of any two
// other switches (fencing, acks, unclean elections, unflushed loss, a lossy
// network, min.insync.replicas with its HW gate): greedily, the one that
// adds most combinations per state TLC generated, ties broken by the
// cheaper, then by name. Then the cheapest symmetric run, so that symmetry
// is compared too. (Bounds beyond the matrix's, the "x2-..." runs, are
// compared in go test by the manifest's CI configurations against TLC's
// recorded runs.) About a fifteenth of the file's states: go test compares
// these, hwepoch verify --all every run.
func (s *SmallRuns) Representative() []SmallRun {
	var matrix, symmetric []SmallRun
	for _, r := range s.Runs {
		switch {
		case r.Symmetry:
			symmetric = append(symmetric, r)
		case strings.HasPrefix(r.Name, "m-"):
			matrix = append(matrix, r)
		}
	}
	byCost := func(a, b SmallRun) int {
		return cmp.Or(cmp.Compare(a.TLC.Generated, b.TLC.Generated), cmp.Compare(a.Name, b.Name))
	}
	slices.SortFunc(matrix, byCost)
	want := map[Combination]bool{}
	for _, r := range matrix {
		for _, c := range r.Combinations() {
			want[c] = true
		}
	}
	var out []SmallRun
	for len(want) > 0 {
		best, bestNew := -1, 0
		for i, r := range matrix {
			n := 0
			for _, c := range r.Combinations() {
				if want[c] {
					n++
				}
			}
			// n/cost greater than bestNew/cost(best), in integers.
			if n > 0 && (best < 0 || int64(n)*matrix[best].TLC.Generated > int64(bestNew)*r.TLC.Generated) {
				best, bestNew = i, n
			}
		}
		out = append(out, matrix[best])
		for _, c := range matrix[best].Combinations() {
			delete(want, c)
		}
	}
	if len(symmetric) > 0 {
		out = append(out, slices.MinFunc(symmetric, byCost))
	}
	return out
}
