package deviation

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hwepoch/hwepoch/internal/strictjson"
	"github.com/hwepoch/hwepoch/internal/tlc"
	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/trace/tlcjson"
)

// RecordPath is the record of the deviation checks, beside the TLC and
// explorer records.
func RecordPath(specDir string) string {
	return filepath.Join(specDir, "..", "traces", "deviations.json")
}

// Records is traces/deviations.json: every check `hwepoch deviations
// -record` ran, on the spec whose hash it names.
type Records struct {
	About      string   `json:"about"`
	SpecSHA256 string   `json:"specSha256"`
	Checks     []Record `json:"checks"`
}

// Record is one configuration checked with one behaviour put back.
type Record struct {
	Restore model.Restore `json:"restore"`
	Config  string        `json:"config"`
	// PatchedSHA256 is the hash of the spec with the behaviour put back
	// (model.RestoreSpec): a change to the spec or to the patch makes the
	// record stale.
	PatchedSHA256 string `json:"patchedSha256"`
	Expect        string `json:"expect"`
	Verdict       string `json:"verdict"` // the restored search's: "holds" or "violated P"
	Distinct      int64  `json:"distinct"`
	Depth         int    `json:"depth"`
	// SpecDistinct is the spec's own search (no behaviour put back);
	// for a holds verdict Distinct - SpecDistinct is what was added.
	SpecDistinct int64   `json:"specDistinct"`
	Seconds      float64 `json:"seconds"`
	// TLC is TLC's run on the patched spec, when one was made.
	TLC *TLCRecord `json:"tlc,omitempty"`
}

// TLCRecord is TLC's run on the spec with the behaviour put back.
type TLCRecord struct {
	Verdict  string  `json:"verdict"`
	Distinct int64   `json:"distinct"`
	Depth    int     `json:"depth"`
	Seconds  float64 `json:"seconds"`
	Workers  int     `json:"workers"`
}

const recordsAbout = "Checks of docs/spec.md's deviation rows that put a Kafka behaviour back (model.Restores): each configuration explored with the behaviour, by the explorer (readable engine) and, where tlc is given, by TLC on the patched spec (model.RestoreSpec). Written by `hwepoch deviations -record`; go test ./internal/deviation re-runs the small ones."

// ToRecord is r as a record.
func ToRecord(r Result) Record {
	rec := Record{Restore: r.Restore, Config: r.Config, Expect: r.Expect, Verdict: r.Restored.String(),
		Distinct: r.Restored.Distinct, Depth: r.Restored.Depth, SpecDistinct: r.Base.Distinct,
		Seconds: float64(r.Restored.Duration.Milliseconds()) / 1000}
	if r.TLC != nil {
		v := r.TLC.Verdict
		if v == "violated" {
			v += " " + r.TLC.Property
		}
		rec.TLC = &TLCRecord{Verdict: v, Distinct: r.TLC.DistinctStates, Depth: r.TLC.Depth, Seconds: r.TLC.Seconds, Workers: r.TLC.Workers}
	}
	return rec
}

// Equal: the record's restored verdict is the manifest's, and TLC's too.
func (r Record) Equal() bool {
	return r.Verdict == r.Expect && (r.TLC == nil || r.TLC.Verdict == r.Verdict)
}

// Vacuous: a holds verdict with nothing added.
func (r Record) Vacuous() bool { return r.Verdict == "holds" && r.Distinct == r.SpecDistinct }

// LoadRecords reads the record; a missing file is an empty record.
func LoadRecords(path string) (*Records, error) {
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return &Records{About: recordsAbout}, nil
	}
	if err != nil {
		return nil, err
	}
	var rs Records
	if err := strictjson.Unmarshal(b, &rs); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &rs, nil
}

// Put adds rec, replacing a record of the same behaviour and configuration.
// A record of another spec is dropped whole first.
func (rs *Records) Put(specSHA256 string, rec Record) {
	if rs.SpecSHA256 != specSHA256 {
		rs.Checks = nil
		rs.SpecSHA256 = specSHA256
	}
	for i, c := range rs.Checks {
		if c.Restore == rec.Restore && c.Config == rec.Config {
			if rec.TLC == nil && c.TLC != nil && c.Distinct == rec.Distinct && c.Verdict == rec.Verdict {
				rec.TLC = c.TLC // an explorer-only rerun keeps the TLC run it agrees with
			}
			rs.Checks[i] = rec
			return
		}
	}
	rs.Checks = append(rs.Checks, rec)
}

// Write writes the record, sorted by behaviour (model.Restores' order) and
// configuration.
func (rs *Records) Write(path string) error {
	order := map[model.Restore]int{}
	for i, r := range model.Restores {
		order[r] = i
	}
	sort.SliceStable(rs.Checks, func(i, j int) bool {
		a, b := rs.Checks[i], rs.Checks[j]
		if a.Restore != b.Restore {
			return order[a.Restore] < order[b.Restore]
		}
		return a.Config < b.Config
	})
	rs.About = recordsAbout
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(rs); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// SpecSHA256 is the hash of the spec the records must be of.
func SpecSHA256(specDir string) (string, error) {
	return tlcjson.FileSHA256(filepath.Join(specDir, "Replication.tla"))
}

// PatchedSHA256 is the hash of the spec in specDir with r put back.
func PatchedSHA256(specDir string, r model.Restore) (string, error) {
	b, err := os.ReadFile(filepath.Join(specDir, "Replication.tla"))
	if err != nil {
		return "", err
	}
	if b, err = model.RestoreSpec(b, r); err != nil {
		return "", err
	}
	return fmt.Sprintf("%x", sha256.Sum256(b)), nil
}

// RecordsMarkdown is the record as docs/spec.md's table: a row per
// behaviour and holds configuration, with its states and depth, and a row
// per behaviour for its counterexample and witness configurations (their
// counts are those of a search stopped at the violation).
func RecordsMarkdown(rs *Records) string {
	var b strings.Builder
	b.WriteString("| item | behaviour put back | configuration | with Kafka's behaviour | distinct states (spec's own) | depth | TLC on the patched spec |\n")
	b.WriteString("|---|---|---|---|---|---|---|\n")
	for _, r := range model.Restores {
		info := model.RestoreInfos[r]
		name := fmt.Sprintf("`%s`", r)
		if info.Superset {
			name += " (superset)"
		}
		var violated []Record
		for _, c := range rs.Checks {
			if c.Restore != r {
				continue
			}
			if c.Expect != "holds" {
				violated = append(violated, c)
				continue
			}
			v := c.Verdict
			switch {
			case !c.Equal():
				v = "**" + v + "** (differs)"
			case c.Vacuous():
				v += ", nothing added"
			}
			tl := "—"
			if c.TLC != nil {
				tl = c.TLC.Verdict
				if c.TLC.Verdict == "holds" {
					tl += fmt.Sprintf(", %s states, depth %d", tlc.Commas(c.TLC.Distinct), c.TLC.Depth)
				}
			}
			fmt.Fprintf(&b, "| %d | %s | `%s` | %s | %s (%s) | %d | %s |\n", info.Item, name, c.Config, v,
				tlc.Commas(c.Distinct), tlc.Commas(c.SpecDistinct), c.Depth, tl)
		}
		if len(violated) == 0 {
			continue
		}
		var names []string
		same, withTLC := 0, 0
		for _, c := range violated {
			n := "`" + c.Config + "`"
			if !c.Equal() {
				n += " (**" + c.Verdict + "**, differs)"
			} else {
				same++
			}
			if c.TLC != nil {
				withTLC++
			}
			names = append(names, n)
		}
		fmt.Fprintf(&b, "| %d | %s | the %d counterexamples and witnesses: %s | %d of %d violate the manifest's property | stopped at the violation | — | %d of %d, the same property |\n",
			info.Item, name, len(violated), strings.Join(names, ", "), same, len(violated), withTLC, len(violated))
	}
	return b.String()
}
