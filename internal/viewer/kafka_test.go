package viewer

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hwepoch/hwepoch/model"
)

var update = flag.Bool("update", false, "rewrite kafka_gen.go from the docs, and the docs' viewer pages and screenshots")

func readDocs(t *testing.T) (mapping, releases string) {
	t.Helper()
	m, err := os.ReadFile(filepath.Join("..", "..", "docs", "mapping.md"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := os.ReadFile(filepath.Join("..", "..", "docs", "kafka-releases.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(m), string(r)
}

// TestKafkaTableIsCurrent: kafka_gen.go is what Generate makes of the docs
// now, so a page cites what docs/mapping.md and docs/kafka-releases.md say.
func TestKafkaTableIsCurrent(t *testing.T) {
	m, r := readDocs(t)
	want, err := Generate(m, r)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("kafka_gen.go")
	if *update {
		if err := os.WriteFile("kafka_gen.go", want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("kafka_gen.go is stale (or missing: %v): go test ./internal/viewer -run TestKafkaTableIsCurrent -update", err)
	}
}

// TestGenerateRefusesBadDocs: a doc that lost an action's row, a
// behaviour or a release column is an error, not a silently thinner page.
func TestGenerateRefusesBadDocs(t *testing.T) {
	m, r := readDocs(t)
	for name, tc := range map[string]struct{ m, r, want string }{
		"action row gone": {strings.Replace(m, "| `Produce(l)` |", "| Produce |", 1), r, "no Kafka source for Produce"},
		"behaviour gone":  {m, strings.Replace(r, "| **ISR expand rule** |", "| **ISR growth** |", 1), `"ISR expand rule"`},
		"release gone":    {m, strings.Replace(r, "3.9.0-rc3 (DivergingEpoch", "3.8.0 (DivergingEpoch", 1), "release 3.9.0"},
		"no table":        {m, strings.Replace(r, "| Behaviour |", "| Behavior |", 1), "no summary table"},
	} {
		_, err := Generate(tc.m, tc.r)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Generate says %v, want an error containing %q", name, err, tc.want)
		}
	}
}

// TestRefPerRelease: every action has its Kafka source, and a behaviour's
// cell differs by release where the docs say releases differ.
func TestRefPerRelease(t *testing.T) {
	for _, k := range model.ActionKinds() {
		if Ref(k, "2.1.0").Source == "" {
			t.Errorf("%s has no Kafka source", k)
		}
	}
	hw := Ref(model.HandleLeaderAndIsr, "0.10.2.2").Release[0].Text
	le := Ref(model.HandleLeaderAndIsr, "2.1.0").Release[0].Text
	if !strings.Contains(hw, "@0.10.2.2") || !strings.Contains(le, "@2.1.0") || hw == le {
		t.Errorf("the truncation trigger of 0.10.2.2 and 2.1.0:\n%s\n%s", hw, le)
	}
	if de := Ref(model.HandleLeaderAndIsr, "3.9.0").Release[0].Text; !strings.Contains(de, "3.9.0-rc3") {
		t.Errorf("3.9.0's column is not 3.9.0-rc3's: %s", de)
	}
	if r := Ref(model.Elect, ""); len(r.Release) != 0 {
		t.Errorf("no release, yet release cells: %v", r.Release)
	}
}
