package release

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// specReleases parses the Releases table of spec/Replication.tla into
// policy -> field -> value (TLA+ spelling: strings unquoted, TRUE/FALSE).
func specReleases(t *testing.T, text string) map[string]map[string]string {
	t.Helper()
	start := strings.Index(text, "Releases == [")
	if start < 0 {
		t.Fatal("spec has no Releases table")
	}
	end := strings.Index(text[start:], "]]")
	if end < 0 {
		t.Fatal("spec's Releases table does not end")
	}
	body := text[start+len("Releases == [") : start+end+1]
	rowRe := regexp.MustCompile(`(\w+)\s*\|->\s*\[([^\]]*)\]`)
	fieldRe := regexp.MustCompile(`(\w+)\s*\|->\s*("[^"]*"|TRUE|FALSE)`)
	out := map[string]map[string]string{}
	for _, row := range rowRe.FindAllStringSubmatch(body, -1) {
		fields := map[string]string{}
		for _, f := range fieldRe.FindAllStringSubmatch(row[2], -1) {
			fields[f[1]] = strings.Trim(f[2], `"`)
		}
		out[row[1]] = fields
	}
	return out
}

// row renders a Release in the spec's spelling.
func row(r Release) map[string]string {
	b := func(v bool) string { return strings.ToUpper(fmt.Sprint(v)) }
	return map[string]string{
		"release":               r.Release,
		"restartFetcherOn":      string(r.RestartFetcherOn),
		"reconcile":             string(r.Reconcile),
		"cacheAssign":           string(r.CacheAssign),
		"leaderEntry":           string(r.LeaderEntry),
		"undefinedTo":           string(r.UndefinedTo),
		"asyncIsr":              b(r.AsyncIsr),
		"expandLiveOnly":        b(r.ExpandLiveOnly),
		"expandNeedsEpochStart": b(r.ExpandNeedsEpochStart),
		"staleFetchServed":      b(r.StaleFetchServed),
		"minIsrGatesHW":         b(r.MinIsrGatesHW),
		"fencing":               b(r.Fencing),
		"isrBrokerEpochs":       b(r.IsrBrokerEpochs),
		"elr":                   b(r.Elr),
	}
}

// TestTableIsTheSpecs holds the table to spec/Replication.tla's Releases,
// cell for cell: a release changed on one side only fails here.
func TestTableIsTheSpecs(t *testing.T) {
	text, err := os.ReadFile(filepath.Join("..", "..", "spec", "Replication.tla"))
	if err != nil {
		t.Fatal(err)
	}
	checkAgainstSpec(t, string(text), t.Errorf)
}

func checkAgainstSpec(t *testing.T, text string, report func(string, ...any)) {
	spec := specReleases(t, text)
	if len(spec) != len(Policies) {
		report("spec has %d releases, the implementation %d", len(spec), len(Policies))
	}
	for _, p := range Policies {
		want, ok := spec[string(p)]
		if !ok {
			report("spec has no release %s", p)
			continue
		}
		rel, _ := Of(p)
		got := row(rel)
		if len(want) != len(got) {
			report("%s: spec has %d fields, the implementation %d", p, len(want), len(got))
		}
		for k, v := range want {
			if got[k] != v {
				report("%s.%s = %q, spec says %q", p, k, got[k], v)
			}
		}
	}
}

// TestTableCheckBites: a spec that differs in one cell is caught.
func TestTableCheckBites(t *testing.T) {
	text, err := os.ReadFile(filepath.Join("..", "..", "spec", "Replication.tla"))
	if err != nil {
		t.Fatal(err)
	}
	seeded := strings.Replace(string(text), `cacheAssign |-> "GreaterOnly"`, `cacheAssign |-> "TruncateAndAppend"`, 1)
	if seeded == string(text) {
		t.Fatal("seed did not apply")
	}
	var complaints []string
	checkAgainstSpec(t, seeded, func(f string, a ...any) { complaints = append(complaints, fmt.Sprintf(f, a...)) })
	if len(complaints) != 1 || !strings.Contains(complaints[0], "Kip101.cacheAssign") {
		t.Fatalf("complaints = %q, want one about Kip101.cacheAssign", complaints)
	}
}

func TestUnknownPolicy(t *testing.T) {
	if _, ok := Of("Sometimes"); ok {
		t.Error("Of accepted an unknown policy")
	}
	if _, err := IsAblation("", true, false, 1); err == nil {
		t.Error("IsAblation accepted the empty policy")
	}
}

func TestParsePolicy(t *testing.T) {
	for _, p := range Policies {
		got, err := ParsePolicy(string(p))
		if err != nil || got != p {
			t.Errorf("ParsePolicy(%q) = %q, %v", p, got, err)
		}
	}
	for _, bad := range []string{"", "leaderepoch", "Diverging"} {
		if _, err := ParsePolicy(bad); err == nil || !strings.Contains(err.Error(), "DivergingEpoch") {
			t.Errorf("ParsePolicy(%q) error = %v, want one listing the policies", bad, err)
		}
	}
}

func TestIsAblation(t *testing.T) {
	for _, c := range []struct {
		p       Policy
		fencing bool
		gate    bool
		minIsr  int
		want    bool
	}{
		{LeaderEpoch, true, false, 2, false},
		{LeaderEpoch, false, false, 1, true},  // 2.1 without KIP-320
		{HighWatermark, true, false, 1, true}, // fencing never shipped with 0.10.2
		{DivergingEpoch, true, true, 2, false},
		{DivergingEpoch, true, false, 2, true},  // 3.9 without the gate
		{DivergingEpoch, true, false, 1, false}, // the gate cannot act at 1
		{EligibleLeader, true, true, 2, false},  // 4.1 as shipped
		{EligibleLeader, true, true, 1, false},
		{EligibleLeader, false, true, 2, true},  // 4.1 without KIP-320
		{EligibleLeader, true, false, 2, true},  // 4.1 without the gate (and ELR then unsafe)
		{EligibleLeader, true, false, 1, false}, // the gate cannot act at 1
	} {
		if got, err := IsAblation(c.p, c.fencing, c.gate, c.minIsr); err != nil || got != c.want {
			t.Errorf("IsAblation(%s, fencing=%t, gate=%t, min=%d) = %t, want %t", c.p, c.fencing, c.gate, c.minIsr, got, c.want)
		}
	}
}

// TestEligibleLeaderBrokersAre39: the 4.1 row with ELR is the 3.9 row but
// for its tag and Elr (the research note, docs/research/kip966-elr.md §3:
// the leader never sees the ELR), and Elr is on in that row only.
func TestEligibleLeaderBrokersAre39(t *testing.T) {
	el, _ := Of(EligibleLeader)
	de, _ := Of(DivergingEpoch)
	if !el.Elr || el.Release != "4.1.0" {
		t.Fatalf("EligibleLeader = %+v, want Elr and release 4.1.0", el)
	}
	el.Release, el.Elr = de.Release, de.Elr
	if el != de {
		t.Errorf("EligibleLeader's broker side %+v differs from DivergingEpoch's %+v", el, de)
	}
	for _, p := range Policies {
		if r, _ := Of(p); r.Elr != (p == EligibleLeader) {
			t.Errorf("%s.Elr = %t", p, r.Elr)
		}
	}
	if Policies[len(Policies)-1] != EligibleLeader {
		t.Errorf("Policies = %v, want EligibleLeader last (the order Kafka shipped them)", Policies)
	}
}
