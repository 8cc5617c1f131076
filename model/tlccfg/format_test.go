package tlccfg

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hwepoch/hwepoch/model"
)

// roundTrip formats a check and reads it back as TLC's configuration
// would be read.
func roundTrip(t *testing.T, c *Check, header string) *Check {
	t.Helper()
	src := Format(c.Config, c.Invariants, append(append([]string(nil), c.Properties...), c.LiveProperties...), c.Symmetry, header)
	f, err := Parse(c.Name+".cfg", src)
	if err != nil {
		t.Fatalf("%s: the formatted configuration does not parse: %v\n%s", c.Name, err, src)
	}
	got, err := f.ToCheck()
	if err != nil {
		t.Fatalf("%s: the formatted configuration does not map onto the spec: %v\n%s", c.Name, err, src)
	}
	return got
}

// Every configuration of the manifest survives Format, Parse and ToCheck
// unchanged: constants, invariants, properties and symmetry.
func TestFormatRoundTripsTheManifest(t *testing.T) {
	dir, err := FindSpecDir(".")
	if err != nil {
		t.Fatal(err)
	}
	m, err := LoadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range m.Configs {
		want, err := m.LoadCheck(e)
		if err != nil {
			t.Fatal(err)
		}
		got := roundTrip(t, want, "generated from "+e.Name+"\nsecond line")
		got.Config.Mutant = want.Config.Mutant // the manifest's, not the .cfg's
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: round trip changed the check:\n got %+v\nwant %+v", e.Name, got, want)
		}
	}
}

// Every constant is written, with every value it can take: a field Format
// dropped or mixed up with another would come back different here.
func TestFormatRoundTripsEveryConstant(t *testing.T) {
	base := Check{Name: "x", Config: model.Config{Replicas: []model.Replica{"a", "b", "c"},
		Truncation: model.Kip101, Acks: "1", MinInsyncReplicas: 2,
		MaxRecords: 3, MaxEpoch: 4, MaxCrashes: 5, MaxPartitionEpoch: 6},
		Invariants: []string{"NoDivergence", "TypeOK"}, Properties: []string{"NeverTruncates"}}
	flips := []func(*Check){
		func(c *Check) {},
		func(c *Check) { c.Config.Fencing = true },
		func(c *Check) { c.Config.MinIsrGatesHW = true },
		func(c *Check) { c.Config.UncleanLeaderElectionEnable = true },
		func(c *Check) { c.Config.UnflushedLoss = true },
		func(c *Check) { c.Config.LossyNetwork = true },
		func(c *Check) { c.Config.Acks = "all" },
		func(c *Check) { c.Config.Truncation = model.DivergingEpoch },
		func(c *Check) { c.Symmetry = true },
		func(c *Check) { c.Properties = nil },
		func(c *Check) { c.Invariants = nil },
	}
	var seen []string
	for i, flip := range flips {
		want := base
		want.Config.Replicas = slices.Clone(base.Config.Replicas)
		flip(&want)
		got := roundTrip(t, &want, "")
		if !reflect.DeepEqual(got, &want) {
			t.Errorf("variant %d: round trip changed the check:\n got %+v\nwant %+v", i, got, &want)
		}
		src := string(Format(want.Config, want.Invariants, want.Properties, want.Symmetry, ""))
		if slices.Contains(seen, src) {
			t.Errorf("variant %d formats like an earlier one: a constant is not written", i)
		}
		seen = append(seen, src)
		if strings.Contains(src, "\\*") {
			t.Errorf("variant %d: a comment was written with an empty header", i)
		}
	}
}
