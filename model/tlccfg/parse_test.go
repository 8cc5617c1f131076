package tlccfg

import (
	"errors"
	"strings"
	"testing"

	"github.com/hwepoch/hwepoch/model"
)

const sample = `\* a comment
(* a block (* nested *) comment
   over lines *)
SPECIFICATION Spec
CONSTANTS
    Replicas = {r2, r1}
    None = None
    Truncation = "LeaderEpoch"
    Fencing = TRUE
    Acks = "all"
    MinInsyncReplicas = 1
    MinIsrGatesHW = FALSE
    UncleanLeaderElectionEnable = FALSE
    UnflushedLoss = FALSE
    LossyNetwork = FALSE
    MissedLeaderAndIsr = FALSE
    MaxRecords = 2
    MaxEpoch = 2
    MaxCrashes = 1
    MaxPartitionEpoch = 0
INVARIANTS
    TypeOK NoDivergence
PROPERTY NeverTruncates
`

func TestParseSample(t *testing.T) {
	f, err := Parse("x.cfg", []byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	c, err := f.ToCheck()
	if err != nil {
		t.Fatal(err)
	}
	want := model.Config{Replicas: []model.Replica{"r1", "r2"}, Truncation: "LeaderEpoch", Fencing: true,
		Acks: "all", MinInsyncReplicas: 1, MaxRecords: 2, MaxEpoch: 2, MaxCrashes: 1}
	if c.Config.String() != want.String() {
		t.Errorf("config\n got %s\nwant %s", c.Config.String(), want.String())
	}
	if strings.Join(c.Invariants, ",") != "TypeOK,NoDivergence" || strings.Join(c.Properties, ",") != "NeverTruncates" {
		t.Errorf("invariants %v properties %v", c.Invariants, c.Properties)
	}
	if c.Name != "x" {
		t.Errorf("name %q", c.Name)
	}
}

func TestParseErrorsNameLineAndToken(t *testing.T) {
	cases := []struct {
		src, want string
	}{
		{"SPECIFICATION Spec\nCONSTANTS\n  X = @", `x.cfg:3: at "@": unexpected character`},
		{"SPECIFICATION Spec\nCONSTANTS\n  X = {a, b", `x.cfg:3: at end of file: expected , or } in a set`},
		{"SPECIFICATION Spec\nVIEW V", `x.cfg:2: at "VIEW": VIEW is not supported`},
		{"SPECIFICATION Spec\nCONSTANTS\n  X <- Y", `x.cfg:3: at "<-": substitution`},
		{"FOO Spec", `x.cfg:1: at "FOO": expected a section keyword`},
		{"(* open", `x.cfg:1: at "(*": comment is never closed`},
		{"CONSTANTS\n X = \"abc", `x.cfg:2: at "\"abc": string is not closed`},
	}
	for _, c := range cases {
		_, err := Parse("x.cfg", []byte(c.src))
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Errorf("%q: error %v is not a *ParseError", c.src, err)
			continue
		}
		if !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q:\n got %v\nwant prefix %s", c.src, err, c.want)
		}
	}
}

func TestToCheckErrors(t *testing.T) {
	cases := []struct {
		edit func(string) string
		want string
	}{
		{func(s string) string { return strings.Replace(s, "TypeOK", "TypeOk", 1) }, "unknown invariant TypeOk"},
		{func(s string) string { return strings.Replace(s, "NeverTruncates", "Foo", 1) }, "unknown property Foo"},
		{func(s string) string { return strings.Replace(s, "MaxCrashes = 1", "MaxCrashes = 1\n Extra = 2", 1) }, "the spec declares no constant Extra"},
		{func(s string) string { return strings.Replace(s, "    MaxEpoch = 2\n", "", 1) }, "constant MaxEpoch is not assigned"},
		{func(s string) string { return strings.Replace(s, `"LeaderEpoch"`, `"Epoch"`, 1) }, "ASSUME violated: constant Truncation"},
		{func(s string) string { return strings.Replace(s, "MinInsyncReplicas = 1", "MinInsyncReplicas = 0", 1) }, "MinInsyncReplicas = 0"},
		{func(s string) string { return strings.Replace(s, "Fencing = TRUE", "Fencing = 1", 1) }, "Fencing must be TRUE or FALSE"},
		{func(s string) string { return strings.Replace(s, "{r2, r1}", "{r1, None}", 1) }, "ASSUME None \\notin Replicas"},
		{func(s string) string { return strings.Replace(s, "SPECIFICATION Spec", "SPECIFICATION Other", 1) }, "SPECIFICATION must be Spec"},
		{func(s string) string { return s + "CONSTRAINT Bound\n" }, "CONSTRAINT is not supported"},
		{func(s string) string { return s + "SYMMETRY Perms\n" }, "SYMMETRY must be the spec's Symmetry"},
		{func(s string) string { return strings.Replace(s, "MaxRecords = 2", "MaxRecords = -1", 1) }, "MaxRecords = -1"},
	}
	for _, c := range cases {
		src := c.edit(sample)
		f, err := Parse("x.cfg", []byte(src))
		if err == nil {
			_, err = f.ToCheck()
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want an error containing %q", err, c.want)
		}
	}
}

func TestSymmetry(t *testing.T) {
	f, err := Parse("x.cfg", []byte(sample+"SYMMETRY Symmetry\n"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := f.ToCheck()
	if err != nil || !c.Symmetry {
		t.Fatalf("symmetry %v, err %v", c, err)
	}
}

func TestInitNext(t *testing.T) {
	src := strings.Replace(sample, "SPECIFICATION Spec", "INIT Init\nNEXT Next", 1)
	f, err := Parse("x.cfg", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.ToCheck(); err != nil {
		t.Fatal(err)
	}
}

// Every configuration of the manifest parses, maps onto the model, and
// names only known properties; the manifest's expected property is the
// one configured.
func TestManifestConfigs(t *testing.T) {
	dir, err := FindSpecDir(".")
	if err != nil {
		t.Fatal(err)
	}
	m, err := LoadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Configs) == 0 {
		t.Fatal("manifest lists no configurations")
	}
	for _, e := range m.Configs {
		c, err := m.LoadCheck(e)
		if err != nil {
			t.Errorf("%s: %v", e.Name, err)
			continue
		}
		if e.Expect == "violated" {
			all := append(append(append([]string{}, c.Invariants...), c.Properties...), c.LiveProperties...)
			found := false
			for _, n := range all {
				found = found || n == e.Property
			}
			if !found {
				t.Errorf("%s: the manifest expects %s violated, the .cfg does not check it (%v)", e.Name, e.Property, all)
			}
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(sample))
	f.Add([]byte("CONSTANTS X = {1, -2, \"s\", {TRUE}} (* c *) \\* d\nINVARIANT A B"))
	f.Add([]byte("(* (* *)"))
	f.Add([]byte("CONSTANT X <- Y"))
	f.Fuzz(func(t *testing.T, src []byte) {
		file, err := Parse("fuzz.cfg", src)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not a *ParseError", err)
			}
			return
		}
		_, _ = file.ToCheck()
	})
}

// Every error of a .cfg cites the line of its fault (they all cited line 1),
// and the reader refuses trailing garbage, anything given twice and
// integers out of range.
func TestErrorsCiteTheFaultsLine(t *testing.T) {
	cases := []struct {
		edit func(string) string
		want string
	}{
		{func(s string) string { return strings.Replace(s, "TypeOK NoDivergence", "TypeOK NoDivergense", 1) }, `x.cfg:22: at NoDivergense: unknown invariant`},
		{func(s string) string { return strings.Replace(s, "NeverTruncates", "Foo", 1) }, `x.cfg:23: at Foo: unknown property`},
		{func(s string) string { return strings.Replace(s, "SPECIFICATION Spec", "SPECIFICATION Other", 1) }, `x.cfg:4: at Other: SPECIFICATION must be Spec`},
		{func(s string) string { return strings.Replace(s, "SPECIFICATION Spec", "INIT Init", 1) }, `x.cfg:4: give SPECIFICATION Spec, or INIT Init and NEXT Next`},
		{func(s string) string { return s + "NEXT Next\n" }, `x.cfg:24: both SPECIFICATION and INIT/NEXT`},
		{func(s string) string { return s + "\n\nCONSTRAINT Bound\n" }, `x.cfg:26: at Bound: CONSTRAINT is not supported`},
		{func(s string) string { return s + "SYMMETRY Perms\n" }, `x.cfg:24: at Perms: SYMMETRY must be`},
		{func(s string) string { return strings.Replace(s, "    MaxEpoch = 2\n", "", 1) }, `x.cfg:5: constant MaxEpoch is not assigned`},
		{func(s string) string { return strings.Replace(s, "MaxRecords = 2", "MaxRecords = -1", 1) }, `x.cfg:17: ASSUME violated: constant MaxRecords = -1`},
		{func(s string) string { return strings.Replace(s, `"LeaderEpoch"`, `"Epoch"`, 1) }, `x.cfg:8: ASSUME violated: constant Truncation`},
		{func(s string) string { return strings.Replace(s, "MinInsyncReplicas = 1", "MinInsyncReplicas = 0", 1) }, `x.cfg:11: ASSUME violated: constant MinInsyncReplicas = 0`},
		{func(s string) string { return s[:strings.Index(s, "INVARIANTS")] }, `x.cfg:5: the configuration checks nothing`},
		{func(string) string { return "" }, `x.cfg:1: give SPECIFICATION Spec`},
		// Trailing garbage, things given twice, integers out of range.
		{func(s string) string { return s + "    NeverTruncates )\n" }, `x.cfg:24: at ")"`},
		{func(s string) string { return s + "42\n" }, `x.cfg:24: at "42"`},
		{func(s string) string { return s + "PROPERTY NeverTruncates\n" }, `x.cfg:24: at "NeverTruncates": NeverTruncates listed twice`},
		{func(s string) string {
			return strings.Replace(s, "TypeOK NoDivergence", "TypeOK NoDivergence TypeOK", 1)
		}, `x.cfg:22: at "TypeOK": TypeOK listed twice`},
		{func(s string) string { return s + "SPECIFICATION Spec\n" }, `x.cfg:24: at "SPECIFICATION": SPECIFICATION given twice`},
		{func(s string) string {
			return strings.Replace(s, "    MaxEpoch = 2\n", "    MaxEpoch = 2\n    MaxEpoch = 3\n", 1)
		}, `x.cfg:19: at "MaxEpoch": constant MaxEpoch assigned twice`},
		{func(s string) string {
			return strings.Replace(s, "MaxRecords = 2", "MaxRecords = 99999999999999999999", 1)
		}, `x.cfg:17: at "99999999999999999999": integer out of range`},
	}
	for _, c := range cases {
		f, err := Parse("x.cfg", []byte(c.edit(sample)))
		if err == nil {
			_, err = f.ToCheck()
		}
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("got  %v\nwant %s...", err, c.want)
		}
	}
}
