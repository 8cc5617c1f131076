package scenario

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/hwepoch/hwepoch/model"

	"github.com/hwepoch/hwepoch/internal/inputfile"
)

// Error names the file, the line and the token a scenario is wrong at.
type Error struct {
	File  string
	Line  int // 1-based; 0 when about the whole file
	Token string
	Msg   string
}

func (e *Error) Error() string {
	s := e.File
	if e.Line > 0 {
		s += ":" + strconv.Itoa(e.Line)
	}
	if e.Token != "" {
		s += ": " + strconv.Quote(e.Token)
	}
	return s + ": " + e.Msg
}

// Load reads and checks the scenario file at path (see Parse).
func Load(path string) (Scenario, error) { return LoadProgress(path, nil) }

// LoadProgress is Load that reports, through progress (if not nil), how
// far checking a long case has come (see ProgressEvery): every step of
// every case is run when a scenario is read.
func LoadProgress(path string, progress func(msg string)) (Scenario, error) {
	b, err := inputfile.ReadFile(path)
	if err != nil {
		return Scenario{}, err
	}
	return parse(path, b, progress)
}

// Parse reads a scenario and checks it completely: the syntax, the names
// (constants, policies, variants, actions, invariants, replicas), that every
// case has exactly one expectation, and that every step is enabled in the
// model, in every case that takes it, where it stands. name is used in
// errors and as Path.
func Parse(name string, src []byte) (Scenario, error) { return parse(name, src, nil) }

func parse(name string, src []byte, progress func(msg string)) (Scenario, error) {
	p := &parser{sc: Scenario{Path: name}}
	for i, raw := range strings.Split(string(src), "\n") {
		if err := p.line(i+1, strings.TrimRight(raw, "\r")); err != nil {
			return Scenario{}, err
		}
	}
	if err := p.finish(); err != nil {
		return Scenario{}, err
	}
	if err := p.sc.validateRuns(progress); err != nil {
		return Scenario{}, err
	}
	return p.sc, nil
}

// parser holds what a line can depend on that an earlier line said.
type parser struct {
	sc       Scenario
	comments []string // the comment block waiting for the line it attaches to
	seen     map[string]int
	steps    bool // a step line has been read
	finals   bool // a final line has been read
	sels     []rawSelector
}

// rawSelector is a selector as written, resolved once policies and
// variants are known; set receives the result.
type rawSelector struct {
	line int
	toks []string
	set  func(Selector)
}

func (p *parser) errAt(line int, tok, format string, args ...any) error {
	return &Error{File: p.sc.Path, Line: line, Token: tok, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) line(n int, raw string) error {
	text := strings.TrimSpace(raw)
	if text == "" {
		return nil
	}
	if c, ok := strings.CutPrefix(text, "#"); ok {
		p.comments = append(p.comments, strings.TrimRight(strings.TrimPrefix(c, " "), " \t"))
		return nil
	}
	block := trimBlank(p.comments)
	p.comments = nil
	if strings.HasPrefix(text, "[") {
		return p.step(n, text, block)
	}
	word, rest, _ := strings.Cut(text, " ")
	rest = strings.TrimSpace(rest)
	switch word {
	case "name", "config", "policies", "variants", "check", "expect":
		if p.steps {
			return p.errAt(n, word, "%s lines come before the first step", word)
		}
		if p.seen == nil {
			p.seen = map[string]int{}
		}
		if prev, dup := p.seen[word]; dup && word != "config" && word != "expect" {
			return p.errAt(n, word, "a second %s line (the first is line %d)", word, prev)
		}
		p.seen[word] = n
	case "final":
		p.finals = true
		return p.final(n, rest)
	case "refuse":
		return p.refuse(n, rest)
	default:
		return p.step(n, text, block)
	}
	switch word {
	case "name":
		if !isName(rest) {
			return p.errAt(n, rest, "a scenario name is letters, digits and '-' (e.g. kip101-scenario-1)")
		}
		p.sc.Name = rest
		if len(block) > 0 {
			p.sc.Title = block[0]
			p.sc.Description = trimBlank(block[1:])
		}
	case "config":
		toks, err := splitAssignments(rest)
		if err != nil {
			return p.errAt(n, rest, "%v", err)
		}
		for _, tok := range toks {
			k, err := parseAssignment(n, tok)
			if err != nil {
				return p.errAt(n, tok, "%v", err)
			}
			for _, prev := range p.sc.consts {
				if prev.Name == k.Name {
					return p.errAt(n, tok, "%s is already set on line %d", k.Name, prev.Line)
				}
			}
			p.sc.consts = append(p.sc.consts, k)
		}
	case "policies":
		for _, tok := range strings.Fields(rest) {
			if !slices.Contains(model.Policies, tok) {
				return p.errAt(n, tok, "not a Truncation policy: want one of %s", strings.Join(model.Policies, ", "))
			}
			if contains(p.sc.Policies, tok) {
				return p.errAt(n, tok, "policy listed twice")
			}
			p.sc.Policies = append(p.sc.Policies, tok)
		}
	case "variants":
		return p.variants(n, rest)
	case "check":
		for _, tok := range strings.Fields(rest) {
			if _, ok := model.Invariants[tok]; !ok {
				return p.errAt(n, tok, "unknown invariant (the spec's invariants: %s)", strings.Join(model.InvariantNames(), " "))
			}
			if contains(p.sc.Checks, tok) {
				return p.errAt(n, tok, "invariant listed twice")
			}
			p.sc.Checks = append(p.sc.Checks, tok)
		}
	case "expect":
		return p.expect(n, rest)
	}
	return nil
}

func (p *parser) variants(n int, rest string) error {
	toks, err := splitAssignments(rest)
	if err != nil {
		return p.errAt(n, rest, "%v", err)
	}
	for _, tok := range toks {
		k, err := parseAssignment(n, tok)
		if err != nil {
			return p.errAt(n, tok, "%v", err)
		}
		a := Assignment{Name: k.Name, Value: k.Value.String()}
		if len(p.sc.Variants) > 0 && p.sc.Variants[0].Name != a.Name {
			return p.errAt(n, tok, "variants vary one constant (%s), not %s too", p.sc.Variants[0].Name, a.Name)
		}
		if contains(p.sc.Variants, a) {
			return p.errAt(n, tok, "variant listed twice")
		}
		p.sc.Variants = append(p.sc.Variants, a)
	}
	return nil
}

// expect reads "SEL... holds" or "SEL... violates INV...".
func (p *parser) expect(n int, rest string) error {
	toks := strings.Fields(rest)
	for i, tok := range toks {
		var e Expect
		switch tok {
		case "holds":
			if i != len(toks)-1 {
				return p.errAt(n, toks[i+1], "nothing may follow holds")
			}
			e = Expect{Line: n}
		case "violates":
			if i == len(toks)-1 {
				return p.errAt(n, tok, "name the invariants it violates: expect [POLICY|VARIANT ...] violates INVARIANT ...")
			}
			e = Expect{Line: n}
			for _, inv := range toks[i+1:] {
				if contains(e.Violates, inv) {
					return p.errAt(n, inv, "invariant listed twice")
				}
				e.Violates = append(e.Violates, inv)
			}
		default:
			continue
		}
		idx := len(p.sc.Expects)
		p.sc.Expects = append(p.sc.Expects, e)
		p.sels = append(p.sels, rawSelector{line: n, toks: toks[:i], set: func(s Selector) { p.sc.Expects[idx].Only = s }})
		return nil
	}
	return p.errAt(n, rest, "write: expect [POLICY|VARIANT ...] holds, or ... violates INVARIANT ...")
}

// step reads "[SEL] Action(arg, ...)".
func (p *parser) step(n int, text string, note []string) error {
	if p.finals {
		return p.errAt(n, text, "steps come before the final lines")
	}
	p.steps = true
	var selToks []string
	if rest, ok := strings.CutPrefix(text, "["); ok {
		inside, after, ok := strings.Cut(rest, "]")
		if !ok {
			return p.errAt(n, text, "a selector opened with '[' is not closed with ']'")
		}
		selToks = strings.Fields(strings.ReplaceAll(inside, ",", " "))
		if len(selToks) == 0 {
			return p.errAt(n, "[]", "an empty selector: name policies or variants, or leave the brackets out")
		}
		text = strings.TrimSpace(after)
	}
	a, err := parseAction(text)
	if err != nil {
		return p.errAt(n, text, "%v", err)
	}
	idx := len(p.sc.Steps)
	p.sc.Steps = append(p.sc.Steps, Step{Line: n, Text: text, Action: a, Note: note})
	p.sels = append(p.sels, rawSelector{line: n, toks: selToks, set: func(s Selector) { p.sc.Steps[idx].Only = s }})
	return nil
}

// refuse reads "SEL... Action(arg, ...)", after the steps.
func (p *parser) refuse(n int, rest string) error {
	if !p.steps {
		return p.errAt(n, "refuse", "refuse lines come after the steps: the action is refused after the last one")
	}
	all := strings.Fields(rest)
	at := slices.IndexFunc(all, func(tok string) bool { return strings.Contains(tok, "(") })
	if at < 0 {
		return p.errAt(n, rest, "write: refuse [POLICY|VARIANT ...] Action(arg, ...)")
	}
	text := strings.Join(all[at:], " ")
	a, err := parseAction(text)
	if err != nil {
		return p.errAt(n, text, "%v", err)
	}
	idx := len(p.sc.Refusals)
	p.sc.Refusals = append(p.sc.Refusals, Refusal{Line: n, Text: text, Action: a})
	p.sels = append(p.sels, rawSelector{line: n, toks: all[:at], set: func(s Selector) { p.sc.Refusals[idx].Only = s }})
	return nil
}

// parseAction reads Name(arg, ...) with the arguments in the order of the
// spec operator's parameters.
func parseAction(text string) (model.Action, error) {
	name, args, ok := strings.Cut(text, "(")
	name = strings.TrimSpace(name)
	if !ok || !strings.HasSuffix(args, ")") {
		if isIdent(name) && !strings.Contains(text, " ") {
			if _, err := model.ParseActionKind(name); err == nil {
				return model.Action{}, fmt.Errorf("write the action with its arguments, e.g. %s(r1)", name)
			}
		}
		return model.Action{}, fmt.Errorf("not a directive (name, config, policies, variants, check, expect, refuse, final) nor a step Action(arg, ...)")
	}
	k, err := model.ParseActionKind(name)
	if err != nil {
		var names []string
		for _, k := range model.ActionKinds() {
			names = append(names, k.String())
		}
		return model.Action{}, fmt.Errorf("unknown action %s (the spec's actions: %s)", name, strings.Join(names, " "))
	}
	params := k.Params()
	var vals []string
	if inner := strings.TrimSpace(strings.TrimSuffix(args, ")")); inner != "" {
		for v := range strings.SplitSeq(inner, ",") {
			vals = append(vals, strings.TrimSpace(v))
		}
	}
	if len(vals) != len(params) {
		return model.Action{}, fmt.Errorf("%s takes %d argument(s) (%s), got %d", name, len(params), strings.Join(params, ", "), len(vals))
	}
	a := model.Action{Kind: k}
	for i, p := range params {
		v := vals[i]
		if p == "keep" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 || n > 1000 {
				return model.Action{}, fmt.Errorf("%s's argument keep must be a record count, not %q", name, v)
			}
			a.Keep = n
			continue
		}
		if !isIdent(v) {
			return model.Action{}, fmt.Errorf("%s's argument %s must be a replica name, not %q", name, p, v)
		}
		switch p {
		case "r":
			a.R = model.Replica(v)
		case "l":
			a.L = model.Replica(v)
		case "f":
			a.F = model.Replica(v)
		}
	}
	return a, nil
}

// finish checks what needs the whole file: required lines, selectors,
// and the constants of every case.
func (p *parser) finish() error {
	sc := &p.sc
	for _, req := range []string{"name", "policies", "check"} {
		if _, ok := p.seen[req]; !ok {
			return p.errAt(0, "", "no %s line (a scenario needs name, policies, check, expect and its steps)", req)
		}
	}
	if len(sc.Policies) == 0 {
		return p.errAt(p.seen["policies"], "policies", "name at least one policy")
	}
	if len(sc.Checks) == 0 {
		return p.errAt(p.seen["check"], "check", "name at least one invariant")
	}
	if len(sc.Steps) == 0 {
		return p.errAt(0, "", "no steps")
	}
	for _, rs := range p.sels {
		s, err := p.resolve(rs)
		if err != nil {
			return err
		}
		rs.set(s)
	}
	for _, e := range sc.Expects {
		for _, inv := range e.Violates {
			if !contains(sc.Checks, inv) {
				return p.errAt(e.Line, inv, "expects a violation of an invariant the check line does not evaluate (it checks %s)", strings.Join(sc.Checks, " "))
			}
		}
	}
	for _, c := range sc.Cases() {
		var cover []int
		for _, e := range sc.Expects {
			if e.Only.Matches(c) {
				cover = append(cover, e.Line)
			}
		}
		switch {
		case len(cover) == 0:
			return p.errAt(0, c.String(), "no expect line covers this case: add `expect %s holds` or `expect %s violates INVARIANT`", c, c)
		case len(cover) > 1:
			return p.errAt(cover[1], c.String(), "this case is covered by expect lines %d and %d: each case needs exactly one", cover[0], cover[1])
		}
		if _, err := sc.config(c); err != nil {
			line := 0
			if len(sc.consts) > 0 {
				line = sc.consts[0].Line
			}
			return p.errAt(line, c.String(), "the constants of this case are not a valid configuration: %v", err)
		}
	}
	for _, c := range sc.Cases() {
		var lines []int
		for _, r := range sc.Refusals {
			if r.Only.Matches(c) {
				lines = append(lines, r.Line)
			}
		}
		if len(lines) > 1 {
			return p.errAt(lines[1], c.String(), "this case has refuse lines %d and %d: a case refuses at most one action, after its last step", lines[0], lines[1])
		}
	}
	for _, f := range sc.Finals {
		if f.Replica == "" {
			continue
		}
		for _, c := range sc.Cases() {
			if !f.Only.Matches(c) {
				continue
			}
			cfg := sc.Config(c)
			if cfg.Index(f.Replica) < 0 {
				return p.errAt(f.Line, string(f.Replica), "not a replica of case %s (Replicas = %v)", c, cfg.Replicas)
			}
		}
	}
	return nil
}

// resolve turns selector tokens into a Selector; each must be a policy of
// the policies line or a variant of the variants line.
func (p *parser) resolve(rs rawSelector) (Selector, error) {
	var s Selector
	for _, tok := range rs.toks {
		switch {
		case contains(p.sc.Policies, tok):
			s.Policies = append(s.Policies, tok)
		case strings.Contains(tok, "="):
			k, err := parseAssignment(rs.line, tok)
			if err != nil {
				return s, p.errAt(rs.line, tok, "%v", err)
			}
			a := Assignment{Name: k.Name, Value: k.Value.String()}
			if !contains(p.sc.Variants, a) {
				return s, p.errAt(rs.line, tok, "not a variant of the variants line (%s)", assignments(p.sc.Variants))
			}
			s.Variants = append(s.Variants, a)
		default:
			return s, p.errAt(rs.line, tok, "a selector names a policy of the policies line (%s) or a variant of the variants line", strings.Join(p.sc.Policies, " "))
		}
	}
	return s, nil
}

func assignments(as []Assignment) string {
	if len(as) == 0 {
		return "there is none"
	}
	parts := make([]string, len(as))
	for i, a := range as {
		parts[i] = a.String()
	}
	return strings.Join(parts, " ")
}

func trimBlank(lines []string) []string {
	for len(lines) > 0 && lines[0] == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) == 0 {
		return nil
	}
	return lines
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		letter := c == '_' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

func isName(s string) bool {
	if s == "" || s[0] == '-' {
		return false
	}
	for _, c := range s {
		if c != '-' && !('a' <= c && c <= 'z') && !('A' <= c && c <= 'Z') && !('0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

func contains[T comparable](xs []T, x T) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
