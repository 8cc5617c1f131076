package tlatrace

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/model/tlccfg"
	"github.com/hwepoch/hwepoch/trace"
	"github.com/hwepoch/hwepoch/trace/tlcjson"
)

const tlcDir = "../../traces/tlc"

// twin is one TLC run's -dumpTrace tla file and its -dumpTrace json twin.
type twin struct {
	tla, json string // paths
	config    string // the configuration the run checked
}

// jsonTwin pairs trace_NAME_WITH_UNDERSCORES.tla with NAME-WITH-DASHES.json
// in the same directory, as `hwepoch tlc` names them.
func jsonTwin(tla string) string {
	base := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(tla), "trace_"), ".tla")
	return filepath.Join(filepath.Dir(tla), strings.ReplaceAll(base, "_", "-")+".json")
}

// twins finds every traces/tlc/**/*.tla and its json twin; runs.json
// names each run's configuration (else the file name does) and must agree
// with the pairing.
func twins(t testing.TB) []twin {
	runs, err := tlcjson.LoadRuns(tlcDir)
	if err != nil {
		t.Fatal(err)
	}
	config := map[string]string{}
	for _, r := range runs.Runs {
		if r.TraceTLA == "" {
			continue
		}
		config[r.TraceTLA] = r.ConfigName()
		if want := jsonTwin(r.TraceTLA); r.TraceJSON != want {
			t.Errorf("runs.json: %s: traceJson %s, but the file name pairs %s with %s", r.Name, r.TraceJSON, r.TraceTLA, want)
		}
	}
	var out []twin
	err = filepath.WalkDir(tlcDir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".tla") {
			return err
		}
		rel, _ := filepath.Rel(tlcDir, path)
		rel = filepath.ToSlash(rel)
		cfg, ok := config[rel]
		if !ok { // not recorded (yet): the configuration named like the file
			cfg = strings.TrimSuffix(filepath.Base(jsonTwin(path)), ".json")
			if _, err := os.Stat(filepath.Join("..", "..", "spec", cfg+".cfg")); err != nil {
				t.Errorf("%s: no run in runs.json names it, and there is no configuration %s", path, cfg)
				return nil
			}
		}
		out = append(out, twin{tla: path, json: jsonTwin(path), config: cfg})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatal("no .tla traces in " + tlcDir)
	}
	return out
}

func loadConfig(t testing.TB, name string) *model.Config {
	dir, err := tlccfg.FindSpecDir(".")
	if err != nil {
		t.Fatal(err)
	}
	chk, err := tlccfg.LoadCheckSeeded(filepath.Join(dir, name+".cfg")) // a mutant configuration's bug seeded
	if err != nil {
		t.Fatal(err)
	}
	return &chk.Config
}

// Every .tla trace loads as exactly the trace its json twin loads as.
func TestTLAEqualsJSONTwin(t *testing.T) {
	for _, tw := range twins(t) {
		t.Run(filepath.Base(tw.tla), func(t *testing.T) {
			cfg := loadConfig(t, tw.config)
			want, err := tlcjson.Load(tw.json, cfg, tw.config)
			if err != nil {
				t.Fatalf("json twin: %v", err)
			}
			got, err := Load(tw.tla, cfg, tw.config)
			if err != nil {
				t.Fatal(err)
			}
			if got.Source != "tlc:"+tw.tla || got.ConfigName != tw.config {
				t.Errorf("Source, ConfigName = %q, %q; want %q, %q", got.Source, got.ConfigName, "tlc:"+tw.tla, tw.config)
			}
			if d := cmp.Diff(want.Steps, got.Steps); d != "" {
				t.Fatalf("the .tla trace differs from %s (-json +tla):\n%s", tw.json, d)
			}
			if i, err := trace.Replay(cfg, got); err != nil {
				t.Fatalf("replay: step %d: %v", i, err)
			}
		})
	}
}

// plainModule rewrites a -dumpTrace tla module as -dumpTrace tlcplain
// writes it: Trace == <<VARS, ...>>, without actions.
func plainModule(t testing.TB, b []byte) []byte {
	m, serr := parseModule(b)
	if serr != nil {
		t.Fatal(serr)
	}
	d, _ := m.lookup("CounterExample")
	sv, _ := d.value.Field("state")
	vars := make([]Value, len(sv.Elems))
	for _, e := range sv.Elems {
		n, v, ok := numbered(e)
		if !ok {
			t.Fatalf("bad state %s", e)
		}
		vars[n-1] = v
	}
	seq := Value{Kind: Seq, Elems: vars}
	return []byte("---- MODULE " + m.name + " ----\nLOCAL INSTANCE TLC\n\nTrace == \n\t" + seq.String() + "\n\n====\n")
}

// Without TLC's action records (-dumpTrace tlcplain), the actions are
// inferred: the trace has the same states, replays on the model, and each
// inferred action is TLC's own unless another action of Next yields the
// very same state (then it is the first such, in Next's order).
func TestInferredActions(t *testing.T) {
	steps, differ := 0, 0
	for _, tw := range twins(t) {
		cfg := loadConfig(t, tw.config)
		want, err := Load(tw.tla, cfg, tw.config)
		if err != nil {
			t.Fatal(err)
		}
		if want.Lasso {
			continue // the plain form lists the states, not the step back into the cycle
		}
		b, err := os.ReadFile(tw.tla)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Parse(tw.tla, plainModule(t, b), cfg, tw.config)
		if err != nil {
			t.Fatal(err)
		}
		if i, err := trace.Replay(cfg, got); err != nil {
			t.Fatalf("%s: replay of the inferred trace: step %d: %v", tw.tla, i, err)
		}
		for i := range want.Steps {
			if !want.Steps[i].State.Equal(got.Steps[i].State) {
				t.Fatalf("%s: step %d: state differs", tw.tla, i)
			}
			if i == 0 {
				continue
			}
			steps++
			if want.Steps[i].Action == got.Steps[i].Action {
				continue
			}
			differ++
			all, err := trace.MatchingActions(cfg, want.Steps[i-1].State, want.Steps[i].State)
			if err != nil || len(all) < 2 || all[0] != got.Steps[i].Action {
				t.Errorf("%s: step %d: inferred %s, TLC says %s; matching actions %v (%v)", tw.tla, i, got.Steps[i].Action, want.Steps[i].Action, all, err)
			}
		}
	}
	t.Logf("%d steps, %d inferred actions differ from TLC's (another action of Next yields the same state)", steps, differ)
}

// Bad input fails with an *Error naming the file, the step and the field.
func TestBadInput(t *testing.T) {
	cfg := loadConfig(t, "w-acked")
	b, err := os.ReadFile(filepath.Join(tlcDir, "trace_w_acked.tla"))
	if err != nil {
		t.Fatal(err)
	}
	src := string(b)
	// the n-th occurrence of old replaced by new
	nth := func(old, new string, n int) func(string) string {
		return func(s string) string {
			i := -1
			for range n {
				j := strings.Index(s[i+1:], old)
				if j < 0 {
					return "no occurrence of " + old
				}
				i += 1 + j
			}
			return s[:i] + new + s[i+len(old):]
		}
	}
	// the state record of state 3 in the state set
	stateSet := strings.Index(src, "state |-> {")
	inState3 := func(old, new string) func(string) string {
		return func(s string) string {
			k := stateSet + strings.Index(s[stateSet:], "<<3, [")
			j := k + strings.Index(s[k:], old)
			return s[:j] + new + s[j+len(old):]
		}
	}
	cases := []struct {
		name string
		edit func(string) string
		want string
	}{
		{"truncated mid-value", func(s string) string { return s[:len(s)/2] }, "trace_w_acked.tla:5:"},
		{"truncated mid-value says so", func(s string) string { return s[:len(s)/2] }, "truncated: "},
		{"truncated: no ====", func(s string) string { return strings.TrimSuffix(strings.TrimSpace(s), "====") }, "trace_w_acked.tla:7:1: truncated module: no ==== line ends module trace_w_acked"},
		{"empty", func(string) string { return "" }, "trace_w_acked.tla:1:1: not a TLA+ module"},
		{"no header", func(s string) string { return s[strings.Index(s, "CounterExample"):] }, "trace_w_acked.tla:1:1: not a TLA+ module"},
		{"unknown variable", inState3("nextId |-> 1", "nextId |-> 1, nextID |-> 1"), "trace_w_acked.tla: step 2: state.nextID: not a variable of the spec"},
		{"missing variable", inState3("crashes |-> 0, ", ""), "trace_w_acked.tla: step 2: state.crashes: variable missing"},
		{"wrong type: string for integer", inState3("nextId |-> 1", `nextId |-> "one"`), `trace_w_acked.tla: step 2: state.nextId: want an integer, got the string "one"`},
		{"wrong type: set for function", inState3("hw |-> (r1 :> 0 @@ r2 :> 0)", "hw |-> {0}"), "trace_w_acked.tla: step 2: state.hw: want an object, got an array of 1"},
		{"wrong type: nested", inState3(`role |-> (r1 :> "Leader"`, `role |-> (r1 :> "Boss"`), `trace_w_acked.tla: step 2: state.role.r1: unknown role "Boss"`},
		{"wrong type: not a record", inState3("<<3, [", "<<3, <<"), "trace_w_acked.tla:5:"},
		{"wrong type: function domain", inState3("hw |-> (r1 :> 0 @@ r2 :> 0)", "hw |-> (r1 :> 0 @@ r3 :> 0)"), "trace_w_acked.tla: step 2: state.hw: function has no value for replica r2"},
		{"action before state", nth("ctrlEpoch |-> -1", "ctrlEpoch |-> TRUE", 1), "trace_w_acked.tla: step 0: action.before.ctrlEpoch: want an integer, got true"},
		{"action after state differs", nth("nextId |-> 2", "nextId |-> 3", 1), "trace_w_acked.tla: step 4: action: the states around the action differ from the trace's states 3 and 4"},
		{"unknown action", nth(`name |-> "Produce"`, `name |-> "Produkt"`, 1), `trace_w_acked.tla: step 4: action.name: unknown action "Produkt"`},
		{"action parameter not a replica", nth("context |-> [r |-> r1]", "context |-> [r |-> r9]", 1), `trace_w_acked.tla: step 1: action.context.r: "r9" is not a replica`},
		{"action parameter missing", nth("context |-> [l |-> r1, f |-> r2]", "context |-> [l |-> r1]", 1), "trace_w_acked.tla: step 3: action.context.f: ShrinkIsr takes parameters [l f]; f is missing"},
		{"action name not a string", nth(`name |-> "Elect"`, `name |-> Elect`, 1), "trace_w_acked.tla: step 1: action.name: want a string, got a model value"},
		{"unbalanced: ] for >>", inState3("<<[id |-> 1, epoch |-> 0]>>", "<<[id |-> 1, epoch |-> 0]]"), "trace_w_acked.tla:5:"},
		{"unbalanced names brackets", inState3("<<[id |-> 1, epoch |-> 0]>>", "<<[id |-> 1, epoch |-> 0]]"), "step 4: state.log.r1[0]: unbalanced brackets: << opened at 5:"},
		{"unbalanced: missing )", inState3("hw |-> (r1 :> 0 @@ r2 :> 0)", "hw |-> (r1 :> 0 @@ r2 :> 0"), "step 2: state.hw.r2: unbalanced brackets: ( opened at 5:"},
		{"unbalanced: extra }", inState3("ctrlIsr |-> {r1, r2}", "ctrlIsr |-> {r1, r2}}"), "step 2: state.ctrlIsr: unbalanced brackets: [ opened at 5:"},
		{"unbalanced: one more <<", nth("CounterExample == \n\t[", "CounterExample == \n\t<<[", 1), "trace_w_acked.tla:7:1: CounterExample: unbalanced brackets: << opened at 5:2 is not closed: want >>, got \"====\""},
		{"duplicate field", inState3("crashes |-> 0", "crashes |-> 0, crashes |-> 1"), "step 2: state.crashes: record has the field crashes twice"},
		{"duplicate function key", inState3("hw |-> (r1 :> 0 @@ r2 :> 0)", "hw |-> (r1 :> 0 @@ r1 :> 0)"), "step 2: state.hw.r1: function maps r1 twice"},
		{"bad integer", inState3("nextId |-> 1", "nextId |-> 99999999999999999999"), "step 2: state.nextId: integer 99999999999999999999 out of range"},
		{"bad string", inState3(`"Leader"`, `"Lea\qder"`), `step 2: state.role.r1: unknown escape \q in a string`},
		{"state number twice", nth("<<4, [", "<<3, [", 3), "trace_w_acked.tla: step 2: state: state 3 appears twice"},
		{"state number out of range", nth("<<5, [", "<<7, [", 2), "trace_w_acked.tla: state: state number 7 is not in 1..5"},
		{"action skips a state", nth("<<2, [", "<<3, [", 1), "trace_w_acked.tla: step 1: action: leads from state 1 to state 3, want 2"},
		{"no states", func(s string) string {
			return s[:strings.Index(s, "\t[action")] + "\t[action |-> {}, state |-> {}]\n\n====\n"
		}, "trace_w_acked.tla: state: no states"},
		{"neither definition", func(s string) string { return strings.Replace(s, "CounterExample ==", "Counterexample ==", 1) }, "trace_w_acked.tla: module trace_w_acked defines neither CounterExample"},
		{"not a definition", func(s string) string { return strings.Replace(s, "CounterExample ==", "CounterExample =", 1) }, "trace_w_acked.tla:4:16: want == after CounterExample"},
		{"defined twice", func(s string) string { return strings.Replace(s, "====", "CounterExample == 1\n====", 1) }, "CounterExample is defined twice"},
		{"garbage after the value", func(s string) string { return strings.Replace(s, "\n====", " junk\n====", 1) }, "trace_w_acked.tla:"},
		{"garbage after the module", func(s string) string { return s + "junk\n" }, "trace_w_acked.tla:"},
		{"a second module", func(s string) string { return s + s }, "trace_w_acked.tla:"},
		{"negative HW", inState3("hw |-> (r1 :> 0 @@ r2 :> 0)", "hw |-> (r1 :> -1 @@ r2 :> 0)"), "step 2: state.hw.r1: -1 is out of range: want 0 or more"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("trace_w_acked.tla", []byte(c.edit(src)), cfg, "w-acked")
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is not an *Error", err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("got  %v\nwant %s", err, c.want)
			}
			if !strings.HasPrefix(err.Error(), "trace_w_acked.tla") {
				t.Errorf("%v does not name the file", err)
			}
		})
	}
}

// A step TLC recorded no action for, with no action of Next leading to
// it, is an error naming the step.
func TestNoActionLeadsThere(t *testing.T) {
	cfg := loadConfig(t, "w-acked")
	b, err := os.ReadFile(filepath.Join(tlcDir, "trace_w_acked.tla"))
	if err != nil {
		t.Fatal(err)
	}
	plain := string(plainModule(t, b))
	// state 5 (step 4) with nextId 7: nothing leads there from step 3
	re := regexp.MustCompile(`nextId \|-> 2`)
	i := re.FindStringIndex(plain)
	bad := plain[:i[0]] + "nextId |-> 7" + plain[i[1]:]
	_, err = Parse("trace_w_acked.tla", []byte(bad), cfg, "w-acked")
	want := "trace_w_acked.tla: step 4: action: TLC recorded no action, and no action of Next leads from the previous state to this one"
	if err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
}

func TestParseValue(t *testing.T) {
	cases := []struct{ in, out string }{
		{"-1", "-1"},
		{`"a\"b\\c\n"`, `"a\"b\\c\n"`},
		{"TRUE", "TRUE"},
		{"FALSE", "FALSE"},
		{"r1", "r1"},
		{"<<>>", "<<>>"},
		{"{}", "{}"},
		{"[]", "[]"},
		{"<< 1 , <<2>> >>", "<<1, <<2>>>>"},
		{"{r1, r2}", "{r1, r2}"},
		{"1..3", "{1, 2, 3}"},
		{"3..1", "{}"},
		{"(1)", "1"},
		{"(r1 :> -1)", "(r1 :> -1)"},
		{`("a" :> 1 @@ "b" :> <<>>)`, `("a" :> 1 @@ "b" :> <<>>)`},
		{"[a |-> (r1 :> {}), b |-> [c |-> None]]", "[a |-> (r1 :> {}), b |-> [c |-> None]]"},
		{"(* comment *) [a (* (* nested *) *) |-> 1 \\* to the end\n]", "[a |-> 1]"},
	}
	for _, c := range cases {
		v, err := ParseValue(c.in)
		if err != nil {
			t.Errorf("ParseValue(%q): %v", c.in, err)
			continue
		}
		if got := v.String(); got != c.out {
			t.Errorf("ParseValue(%q) = %s, want %s", c.in, got, c.out)
		}
	}
	bad := []struct{ in, want string }{
		{"", "1:1: truncated: want a value"},
		{"<<1, 2", "1:7: truncated: << opened at 1:1 is never closed"},
		{"<<1, 2]", "1:7: unbalanced brackets: << opened at 1:1 closed by ]"},
		{"[a |-> 1,]", "1:10: want a field name"},
		{"(r1 :> 1 @@ r2)", "1:15: want :>"},
		{"1 2", "1:3: unexpected \"2\" after the value"},
		{"1..100000000", "1:1: interval 1..100000000 has more than 65536 elements"},
		{"-", "1:1: want an integer"},
		{"12ab", "1:1: want an integer"},
		{`"abc`, "1:1: truncated: string is never closed"},
		{"(* abc", "1:1: truncated: comment (* is never closed"},
		{strings.Repeat("<<", 2000), "values nested deeper than 1000"},
	}
	for _, c := range bad {
		_, err := ParseValue(c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseValue(%q) = %v, want %s", c.in, err, c.want)
		}
	}
}

// Every value of the real files prints back to the text TLC wrote.
func TestValuesPrintAsTLCDoes(t *testing.T) {
	for _, tw := range twins(t) {
		b, err := os.ReadFile(tw.tla)
		if err != nil {
			t.Fatal(err)
		}
		m, serr := parseModule(b)
		if serr != nil {
			t.Fatal(serr)
		}
		d, _ := m.lookup("CounterExample")
		text := string(b)
		i := strings.Index(text, "CounterExample == \n\t") + len("CounterExample == \n\t")
		j := strings.LastIndex(text, "\n\n====")
		if got, want := d.value.String(), text[i:j]; got != want {
			t.Errorf("%s: printed value differs from the file's", tw.tla)
		}
	}
}

func TestIntervalAtTheLimits(t *testing.T) {
	for _, s := range []string{"9223372036854775806..9223372036854775807", "-9223372036854775808..-9223372036854775807"} {
		v, err := ParseValue(s)
		if err != nil || len(v.Elems) != 2 {
			t.Errorf("ParseValue(%s) = %v, %v", s, v, err)
		}
	}
	if _, err := ParseValue("-9223372036854775808..9223372036854775807"); err == nil {
		t.Error("the interval of all ints parsed")
	}
}

// Errors in a -dumpTrace tlcplain module name the step by its position.
func TestPlainErrors(t *testing.T) {
	cfg := loadConfig(t, "w-acked")
	b, err := os.ReadFile(filepath.Join(tlcDir, "trace_w_acked.tla"))
	if err != nil {
		t.Fatal(err)
	}
	plain := string(plainModule(t, b))
	third := func(old, new string) string { // in the third state
		k := 0
		for range 3 {
			k += 1 + strings.Index(plain[k+1:], "[leader |-> (")
		}
		j := k + strings.Index(plain[k:], old)
		return plain[:j] + new + plain[j+len(old):]
	}
	cases := []struct{ src, want string }{
		{third("nextId |-> 1", `nextId |-> "1"`), `trace_w_acked.tla: step 2: state.nextId: want an integer, got the string "1"`},
		{third("hw |-> (r1 :> 0 @@ r2 :> 0)", "hw |-> (r1 :> 0 @@ r2 :> 0]"), "trace_w_acked.tla:5:"},
		{third("hw |-> (r1 :> 0 @@ r2 :> 0)", "hw |-> (r1 :> 0 @@ r2 :> 0]"), ": step 2: state.hw.r2: unbalanced brackets: ( opened at 5:"},
		{strings.Replace(plain, "Trace == \n\t<<", "Trace == \n\t{", 1), "trace_w_acked.tla:5:"},
		{strings.Replace(plain, "Trace == \n\t<<", "Trace == \n\t[x |-> ", 1), "trace_w_acked.tla:5:"},
		{"---- MODULE trace_w_acked ----\nTrace == <<>>\n====", "trace_w_acked.tla: Trace: no states"},
		{"---- MODULE trace_w_acked ----\nTrace == {}\n====", "trace_w_acked.tla: Trace: want a sequence of records of the variables, got a set"},
		{"---- MODULE trace_w_acked ----\nTrace == <<1>>\n====", "trace_w_acked.tla: step 0: state: want a record of the variables, got an integer"},
	}
	for _, c := range cases {
		_, err := Parse("trace_w_acked.tla", []byte(c.src), cfg, "w-acked")
		var e *Error
		if !errors.As(err, &e) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got  %v\nwant %s", err, c.want)
		}
	}
}

// TLC names a -dumpTrace tla module after the file it writes, as TLA+
// requires: a module renamed, or a file renamed, is refused with the
// module's line and column; the file in another directory is not renamed.
// (Every real trace loads: TestTLAEqualsJSONTwin.)
func TestModuleNamedAfterItsFile(t *testing.T) {
	cfg := loadConfig(t, "w-acked")
	b, err := os.ReadFile(filepath.Join(tlcDir, "trace_w_acked.tla"))
	if err != nil {
		t.Fatal(err)
	}
	src := string(b)
	if !strings.HasPrefix(src, "---- MODULE trace_w_acked ----\n") {
		t.Fatalf("trace_w_acked.tla's header changed: %.40q", src)
	}
	renamed := strings.Replace(src, "MODULE trace_w_acked", "MODULE trace_w_acked_renamed", 1)
	for _, c := range []struct{ file, src, want string }{
		{"trace_w_acked.tla", src, ""},
		{filepath.Join("some", "dir", "trace_w_acked.tla"), src, ""},
		{"trace_w_acked.tla", renamed, "trace_w_acked.tla:1:13: module trace_w_acked_renamed is not named after its file: TLC names a -dumpTrace module after the file it writes (want MODULE trace_w_acked)"},
		{"trace_w_acked_renamed.tla", renamed, ""},
		{"trace_le_unclean_loss.tla", src, "trace_le_unclean_loss.tla:1:13: module trace_w_acked is not named after its file"},
		{"trace_w_acked.tla.txt", src, "module trace_w_acked is not named after its file"},
		{"trace_w_acked.tla", string(plainModule(t, []byte(renamed))), "module trace_w_acked_renamed is not named"},
	} {
		_, err := Parse(c.file, []byte(c.src), cfg, "w-acked")
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.file, err)
		case c.want != "" && (err == nil || !strings.HasPrefix(err.Error(), c.file) || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: got %v\nwant %s", c.file, err, c.want)
		}
	}
}
