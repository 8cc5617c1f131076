package explore

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/model/tlccfg"
)

const smallPath = "testdata/tlc-small.json"

// pendingPath holds small configurations whose TLC numbers are from an
// older spec and have not been regenerated yet (the regeneration takes
// hours on two cores). They are not compared: a number made on another
// spec says nothing. TestRegenerateSmallTLCRuns runs TLC on each and moves
// it into tlc-small.json; TestSmallConfigsPending says how many wait.
const pendingPath = "testdata/tlc-small-pending.json"

// currentSpecSHA256 is spec/Replication.tla's hash, as the runs record it.
func currentSpecSHA256(t *testing.T) string {
	spec, err := os.ReadFile(filepath.Join(specDir(t), "Replication.tla"))
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x", sha256.Sum256(spec))
}

// loadPending reads pendingPath; no file means nothing pends.
func loadPending(t *testing.T) *SmallRuns {
	b, err := os.ReadFile(pendingPath)
	if os.IsNotExist(err) {
		return &SmallRuns{}
	}
	if err != nil {
		t.Fatal(err)
	}
	var s SmallRuns
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("%s: %v", pendingPath, err)
	}
	return &s
}

// TestSmallConfigsPending: the configurations still waiting for TLC on
// this spec are well formed and none is also in tlc-small.json (where it
// would be compared twice, once with stale numbers).
func TestSmallConfigsPending(t *testing.T) {
	small, pending := loadSmall(t), loadPending(t)
	names := map[string]bool{}
	for _, r := range small.Runs {
		names[r.Name] = true
	}
	for _, r := range pending.Runs {
		if names[r.Name] {
			t.Errorf("%s is both compared (%s) and pending (%s)", r.Name, smallPath, pendingPath)
		}
		if err := r.Config.Validate(); err != nil {
			t.Errorf("%s: %v", r.Name, err)
		}
	}
	if n := len(pending.Runs); n > 0 {
		t.Logf("%d small configurations wait for TLC on this spec (%d compared): HWEPOCH_REGEN_TLC=1 TLA2TOOLS_JAR=... go test -run TestRegenerateSmallTLCRuns -timeout 0 ./model/explore",
			n, len(small.Runs))
	}
}

func loadSmall(t *testing.T) *SmallRuns {
	s, err := LoadSmallRuns(smallPath)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The explorer finds exactly TLC's distinct states, states generated and
// depth on a representative subset of the small configurations: for every
// release, every pair of values of two other switches, and a symmetric
// configuration (Representative). Comparing all of them is hwepoch verify
// --all's stage tlc-small (on two cores it took most of go test's time,
// past Go's ten-minute timeout under load); every run of the file must
// still be of the current spec.
func TestSmallConfigsMatchTLC(t *testing.T) {
	s := loadSmall(t)
	specSum := currentSpecSHA256(t)
	for _, r := range s.Runs {
		if r.SpecSHA256 != specSum {
			t.Errorf("%s: TLC's numbers are for spec sha256 %.12s…, spec/Replication.tla is %.12s…: regenerate (HWEPOCH_REGEN_TLC=1, TestRegenerateSmallTLCRuns)",
				r.Name, r.SpecSHA256, specSum)
		}
	}
	rep := s.Representative()
	var generated, all int64
	for _, r := range s.Runs {
		all += r.TLC.Generated
	}
	for _, r := range rep {
		generated += r.TLC.Generated
	}
	t.Logf("%d of %d configurations, %d of %d states generated (hwepoch verify --all compares every one)", len(rep), len(s.Runs), generated, all)
	for _, r := range rep {
		t.Run(r.Name, func(t *testing.T) {
			if testing.Short() && r.TLC.Distinct > 100_000 {
				t.Skipf("%d states: not in -short mode", r.TLC.Distinct)
			}
			t.Parallel()
			if _, mismatch, err := r.Compare(context.Background(), specSum); err != nil {
				t.Fatal(err)
			} else if mismatch != "" {
				t.Error(mismatch)
			}
		})
	}
}

// The representative subset covers what it says: for every release of the
// matrix, every pair of values of two other switches that any matrix
// configuration has; and it is a small part of the file.
func TestRepresentativeSmallConfigs(t *testing.T) {
	s := loadSmall(t)
	rep := s.Representative()
	covered := map[Combination]bool{}
	sym := false
	var generated, all int64
	for _, r := range rep {
		for _, c := range r.Combinations() {
			covered[c] = true
		}
		sym = sym || r.Symmetry
		generated += r.TLC.Generated
	}
	// The tenth is of every small configuration, those whose TLC numbers
	// wait for a run on this spec (pendingPath) included: their earlier
	// numbers size them well enough.
	for _, r := range loadPending(t).Runs {
		all += r.TLC.Generated
	}
	for _, r := range s.Runs {
		all += r.TLC.Generated
		if !strings.HasPrefix(r.Name, "m-") {
			continue
		}
		for _, c := range r.Combinations() {
			if !covered[c] {
				t.Errorf("%s: %s with switch %d = %s and switch %d = %s is in no representative configuration", r.Name, c.Release, c.I, c.ValI, c.J, c.ValJ)
			}
		}
	}
	if !sym {
		t.Error("no symmetric configuration among the representatives")
	}
	if generated*10 > all {
		t.Errorf("the representatives generate %d of %d states: more than a tenth", generated, all)
	}
}

// TestRegenerateSmallTLCRuns reruns TLC on every configuration of
// testdata/tlc-small.json and rewrites TLC's numbers there. It runs only
// with HWEPOCH_REGEN_TLC=1 and TLA2TOOLS_JAR set.
func TestRegenerateSmallTLCRuns(t *testing.T) {
	jar := os.Getenv("TLA2TOOLS_JAR")
	if os.Getenv("HWEPOCH_REGEN_TLC") != "1" || jar == "" {
		t.Skip("set HWEPOCH_REGEN_TLC=1 and TLA2TOOLS_JAR to rerun TLC on testdata/tlc-small.json's configurations")
	}
	s, pending := loadSmall(t), loadPending(t)
	spec, err := os.ReadFile(filepath.Join(specDir(t), "Replication.tla"))
	if err != nil {
		t.Fatal(err)
	}
	specSum := fmt.Sprintf("%x", sha256.Sum256(spec))
	// The pending configurations are regenerated after the compared ones,
	// each moving into tlc-small.json once TLC has run it.
	total := len(s.Runs) + len(pending.Runs)
	s.Runs = append(s.Runs, pending.Runs...)
	pending.Runs = nil
	write := func(path string, v *SmallRuns) {
		b, err := json.MarshalIndent(v, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	save := func() {
		done, rest := &SmallRuns{About: s.About, TLCVersion: s.TLCVersion}, &SmallRuns{About: s.About, TLCVersion: s.TLCVersion}
		for _, r := range s.Runs {
			if r.SpecSHA256 == specSum {
				done.Runs = append(done.Runs, r)
			} else {
				rest.Runs = append(rest.Runs, r)
			}
		}
		write(smallPath, done)
		if len(rest.Runs) > 0 {
			write(pendingPath, rest)
		} else if err := os.Remove(pendingPath); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "Replication.tla"), spec, 0o644); err != nil {
		t.Fatal(err)
	}
	reGen := regexp.MustCompile(`(\d+) states generated, (\d+) distinct states found`)
	reDepth := regexp.MustCompile(`depth of the complete state graph search is (\d+)`)
	reViol := regexp.MustCompile(`Error: (?:Invariant|Action property) (\w+) is violated`)
	reVersion := regexp.MustCompile(`TLC2 Version \S+`)
	for i := range s.Runs {
		r := &s.Runs[i]
		if r.SpecSHA256 == specSum {
			continue // made on this spec already: resume after it
		}
		t.Logf("TLC %d/%d: %s", i+1, total, r.Name)
		cfgPath := filepath.Join(dir, r.Name+".cfg")
		text := FormatCfg(&r.Config, r.Invariants)
		if r.Symmetry {
			text += "SYMMETRY Symmetry\n"
		}
		if err := os.WriteFile(cfgPath, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("java", "-XX:+UseParallelGC", "-cp", jar, "tlc2.TLC", "-workers", "1", "-deadlock",
			"-metadir", filepath.Join(dir, "meta-"+r.Name), "-config", r.Name+".cfg", "Replication.tla")
		cmd.Dir = dir
		out, _ := cmd.CombinedOutput()
		g, d := reGen.FindSubmatch(out), reDepth.FindSubmatch(out)
		if g == nil || d == nil {
			t.Fatalf("%s: TLC's output has no counts:\n%s", r.Name, out)
		}
		r.TLC.Generated, _ = strconv.ParseInt(string(g[1]), 10, 64)
		r.TLC.Distinct, _ = strconv.ParseInt(string(g[2]), 10, 64)
		r.TLC.Depth, _ = strconv.Atoi(string(d[1]))
		r.TLC.Verdict, r.TLC.Property = "holds", ""
		if v := reViol.FindSubmatch(out); v != nil {
			r.TLC.Verdict, r.TLC.Property = "violated", string(v[1])
		}
		if v := reVersion.Find(out); v != nil {
			s.TLCVersion = string(v)
		}
		r.SpecSHA256 = specSum
		save() // after every run, so a stopped regeneration resumes here
	}
	save()
}

// FormatCfg writes a TLC .cfg for cfg checking the given invariants.
func FormatCfg(cfg *model.Config, invariants []string) string {
	var b strings.Builder
	names := make([]string, len(cfg.Replicas))
	for i, r := range cfg.Replicas {
		names[i] = string(r)
	}
	tf := func(x bool) string {
		if x {
			return "TRUE"
		}
		return "FALSE"
	}
	fmt.Fprintf(&b, "SPECIFICATION Spec\nCONSTANTS\n    Replicas = {%s}\n    None = None\n", strings.Join(names, ", "))
	fmt.Fprintf(&b, "    Truncation = %q\n    Fencing = %s\n    Acks = %q\n    MinInsyncReplicas = %d\n",
		cfg.Truncation, tf(cfg.Fencing), cfg.Acks, cfg.MinInsyncReplicas)
	fmt.Fprintf(&b, "    MinIsrGatesHW = %s\n    UncleanLeaderElectionEnable = %s\n    UnflushedLoss = %s\n    LossyNetwork = %s\n    MissedLeaderAndIsr = %s\n",
		tf(cfg.MinIsrGatesHW), tf(cfg.UncleanLeaderElectionEnable), tf(cfg.UnflushedLoss), tf(cfg.LossyNetwork), tf(cfg.MissedLeaderAndIsr))
	fmt.Fprintf(&b, "    MaxRecords = %d\n    MaxEpoch = %d\n    MaxCrashes = %d\n    MaxPartitionEpoch = %d\n",
		cfg.MaxRecords, cfg.MaxEpoch, cfg.MaxCrashes, cfg.MaxPartitionEpoch)
	if len(invariants) > 0 {
		fmt.Fprintf(&b, "INVARIANTS\n    %s\n", strings.Join(invariants, "\n    "))
	}
	return b.String()
}

// FormatCfg's output parses back to the same configuration.
func TestFormatCfgRoundTrip(t *testing.T) {
	for _, r := range loadSmall(t).Runs[:3] {
		f, err := tlccfg.Parse(r.Name+".cfg", []byte(FormatCfg(&r.Config, r.Invariants)))
		if err != nil {
			t.Fatal(err)
		}
		chk, err := f.ToCheck()
		if err != nil {
			t.Fatal(err)
		}
		if chk.Config.String() != r.Config.String() {
			t.Fatalf("%s: got %s", r.Name, chk.Config.String())
		}
	}
}
