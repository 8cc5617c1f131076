package verify

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/model/explore"
	"github.com/hwepoch/hwepoch/model/tlccfg"
	"github.com/hwepoch/hwepoch/trace"
	"github.com/hwepoch/hwepoch/trace/tlcjson"
)

// TLCTraceFiles lists the traces TLC exported: runsDir/*.json (runs.json
// excluded) and runsDir/sim/*.json, as paths relative to runsDir.
func TLCTraceFiles(runsDir string) ([]string, error) {
	var out []string
	for _, pat := range []string{"*.json", filepath.Join("sim", "*.json")} {
		m, err := filepath.Glob(filepath.Join(runsDir, pat))
		if err != nil {
			return nil, err
		}
		for _, p := range m {
			if filepath.Base(p) == "runs.json" {
				continue
			}
			rel, err := filepath.Rel(runsDir, p)
			if err != nil {
				return nil, err
			}
			out = append(out, filepath.ToSlash(rel))
		}
	}
	slices.Sort(out)
	return out, nil
}

var simSeed = regexp.MustCompile(`-seed\d+$`)

// TLCTraceRows replays every trace TLC exported (TLCTraceFiles) on the
// model: the first state is Init, every step's action is enabled and
// yields exactly the state TLC recorded, and the configuration's
// invariants and properties are evaluated on every state and step. A
// counterexample or witness must violate the property its run recorded
// (else the manifest's) first at its last state and nowhere before; a
// simulated behaviour must violate nothing.
func TLCTraceRows(man *tlccfg.Manifest, runsDir string) []Row {
	files, err := TLCTraceFiles(runsDir)
	if err != nil {
		return []Row{{Stage: "tlc-trace", Item: runsDir, Expected: "readable", Found: "error: " + err.Error(), Status: Fail}}
	}
	if len(files) == 0 {
		return []Row{{Stage: "tlc-trace", Item: runsDir, Size: "skipped (no exported traces; run hwepoch tlc)",
			Expected: "-", Found: "not run", Status: Skipped}}
	}
	runs, err := tlcjson.LoadRuns(runsDir)
	if errors.Is(err, fs.ErrNotExist) {
		runs, err = &tlcjson.Runs{}, nil // traces without a record: configurations by file name
	}
	if err != nil {
		return []Row{{Stage: "tlc-trace", Item: "runs.json", Expected: "readable", Found: "error: " + err.Error(), Status: Fail}}
	}
	byTrace := map[string]tlcjson.Run{}
	for _, r := range runs.Runs {
		if r.TraceJSON != "" {
			byTrace[filepath.ToSlash(filepath.Clean(r.TraceJSON))] = r
		}
	}
	var rows []Row
	for _, f := range files {
		rows = append(rows, tlcTraceRow(man, runsDir, f, byTrace))
	}
	return rows
}

func tlcTraceRow(man *tlccfg.Manifest, runsDir, file string, byTrace map[string]tlcjson.Run) Row {
	start := time.Now()
	row := Row{Stage: "tlc-trace", Item: file, Status: Fail}
	rec, recorded := byTrace[file]
	cfgName := rec.Config
	if cfgName == "" {
		cfgName = simSeed.ReplaceAllString(strings.TrimSuffix(filepath.Base(file), ".json"), "")
	}
	// What the trace must show.
	simulated := rec.Mode == "simulate" || strings.HasPrefix(file, "sim/")
	want := ""
	switch {
	case simulated:
	case recorded && rec.Verdict == "violated":
		want = rec.Property
	default:
		if e, ok := man.Lookup(cfgName); ok && e.Expect == "violated" {
			want = e.Property
		}
	}
	if simulated || want == "" {
		row.Expected = "replays, nothing violated"
	} else {
		row.Expected = "replays, " + want + " at the last state"
	}
	cfgPath := filepath.Join(man.Dir, cfgName+".cfg")
	if sum, err := tlcjson.FileSHA256(cfgPath); err == nil && recorded && sum != rec.CfgSHA256 {
		// The trace was made under another version of the .cfg: replaying
		// it under this one proves nothing either way.
		row.Size = fmt.Sprintf("skipped (%s.cfg changed since TLC's run made this trace; rerun hwepoch tlc %s)", cfgName, rec.Name)
		row.Found, row.Status = "not replayed", Skipped
		return row
	}
	chk, err := tlccfg.LoadCheckSeeded(cfgPath) // a mutant configuration's bug seeded
	if err != nil {
		if os.IsNotExist(err) {
			err = fmt.Errorf("no configuration %s for this trace (record it in runs.json or name the trace after its .cfg)", cfgName)
		}
		row.Found = "error: " + err.Error()
		return row
	}
	row.Policy = chk.Config.Truncation
	tr, err := tlcjson.Load(filepath.Join(runsDir, file), &chk.Config, cfgName)
	if err != nil {
		row.Found = "does not load: " + err.Error()
		row.Time = time.Since(start)
		return row
	}
	row.Size = fmt.Sprintf("%d states", tr.Len())
	if _, err := trace.Replay(&chk.Config, tr); err != nil {
		row.Found = "does not replay: " + err.Error()
		row.Time = time.Since(start)
		return row
	}
	if tr.Lasso {
		// A liveness counterexample: the lasso must be a fair behaviour,
		// faults stopped, that breaks the property.
		row.Expected = "replays, a fair lasso that breaks " + want
		inst, err := explore.CheckLasso(&chk.Config, want, tr)
		row.Time = time.Since(start)
		if err != nil {
			row.Found = "replays, but " + err.Error()
			return row
		}
		row.Found = "replays, a fair lasso that breaks " + want
		if inst != "" {
			row.Found += " (" + inst + ")"
		}
		row.Status = Pass
		return row
	}
	step, name := firstViolation(chk, tr)
	row.Time = time.Since(start)
	switch {
	case step < 0:
		row.Found = "replays, nothing violated"
	case step == tr.Len()-1:
		row.Found = fmt.Sprintf("replays, %s at step %d (the last)", name, step)
	default:
		row.Found = fmt.Sprintf("replays, %s at step %d of %d", name, step, tr.Len()-1)
	}
	ok := (want == "" && step < 0) || (want != "" && step == tr.Len()-1 && name == want)
	if ok {
		row.Status = Pass
	}
	return row
}

// firstViolation is the first step (0: the initial state) at which one of
// chk's invariants fails, or whose transition violates one of its action
// properties, with that property's name; -1 when none does.
func firstViolation(chk *tlccfg.Check, tr trace.Trace) (step int, name string) {
	defer func() {
		if p := recover(); p != nil {
			name = fmt.Sprintf("%s (evaluation error: %v)", name, p)
		}
	}()
	for i, st := range tr.Steps {
		step = i
		for _, name = range chk.Invariants {
			if !model.Invariants[name](&chk.Config, st.State) {
				return i, name
			}
		}
		if i == 0 {
			continue
		}
		prev := tr.Steps[i-1].State
		for _, name = range chk.Properties {
			if !prev.Equal(st.State) && !model.Properties[name](&chk.Config, prev, st.State) {
				return i, name
			}
		}
	}
	return -1, ""
}
