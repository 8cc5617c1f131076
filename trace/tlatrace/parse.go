package tlatrace

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// Limits that keep hostile input from exhausting the stack or memory.
const (
	maxDepth    = 1000    // nesting of << { [ (
	maxInterval = 1 << 16 // elements of an a..b set
)

// module is a parsed TLA+ module: its name and its definitions Name == value.
type module struct {
	name    string
	nameOff int // where the name starts in the source
	defs    []def
}

type def struct {
	name  string
	value Value
	off   int
}

// syntaxError is a failure to parse; off is the byte offset it happened at
// and where (step, field) is the parser's best guess of the trace position.
type syntaxError struct {
	off   int
	step  int // -1 when unknown
	field string
	msg   string
}

func (e *syntaxError) Error() string { return e.msg }

// frame is one open bracket while parsing, for error positions.
type frame struct {
	open     byte // '<' '{' '[' '('
	off      int
	idx      int    // element index within the bracket
	name     string // record field / function key being parsed
	first    Value  // the first element of a << >>, once parsed
	hasFirst bool
}

type parser struct {
	src    []byte
	pos    int
	def    string // the definition being parsed
	frames []frame
	err    *syntaxError
}

// ParseValue parses one TLA+ value in TLC's printed syntax: integers,
// strings, TRUE/FALSE, model values (bare identifiers), <<sequences>>,
// {sets}, a..b, [records |-> ...], (functions :> ... @@ ...), with
// \* and (* *) comments allowed between tokens.
func ParseValue(src string) (Value, error) {
	p := &parser{src: []byte(src)}
	v, ok := p.value()
	if ok {
		p.space()
		if p.pos < len(p.src) {
			p.fail(p.pos, "unexpected %s after the value", p.tokenAt(p.pos))
			ok = false
		}
	}
	if !ok {
		line, col := lineCol(p.src, p.err.off)
		return Value{}, fmt.Errorf("%d:%d: %s", line, col, p.err.msg)
	}
	return v, nil
}

// parseModule parses a module TLC writes with -dumpTrace tla or tlcplain:
// a ---- MODULE name ---- header, LOCAL INSTANCE / INSTANCE / EXTENDS lines,
// definitions Name == value, and a ==== line.
func parseModule(src []byte) (*module, *syntaxError) {
	p := &parser{src: src}
	m, ok := p.module()
	if !ok {
		return nil, p.err
	}
	return m, nil
}

func (p *parser) fail(off int, format string, args ...any) {
	if p.err != nil {
		return
	}
	step, field := p.where()
	p.err = &syntaxError{off: off, step: step, field: field, msg: fmt.Sprintf(format, args...)}
}

func (p *parser) module() (*module, bool) {
	p.space()
	if !p.dashes() {
		p.fail(p.pos, "not a TLA+ module: want a ---- MODULE name ---- header, got %s", p.tokenAt(p.pos))
		return nil, false
	}
	p.space()
	if kw := p.ident(); kw != "MODULE" {
		p.fail(p.pos, "not a TLA+ module: want MODULE after ----, got %s", p.tokenAt(p.pos))
		return nil, false
	}
	p.space()
	m := &module{nameOff: p.pos}
	m.name = p.ident()
	if m.name == "" {
		p.fail(p.pos, "want the module's name, got %s", p.tokenAt(p.pos))
		return nil, false
	}
	p.space()
	if !p.dashes() {
		p.fail(p.pos, "want ---- after MODULE %s, got %s", m.name, p.tokenAt(p.pos))
		return nil, false
	}
	for {
		p.space()
		switch {
		case p.pos >= len(p.src):
			p.fail(p.pos, "truncated module: no ==== line ends module %s", m.name)
			return nil, false
		case p.run('=') >= 4:
			// TLA+ ignores what follows a module's end, but a trace file
			// is one module as TLC -dumpTrace writes it: anything more (a
			// second module concatenated, stray text) is not silently
			// dropped.
			p.space()
			if p.pos < len(p.src) {
				p.fail(p.pos, "%s after the ==== that ends module %s: a trace file holds one module", p.tokenAt(p.pos), m.name)
				return nil, false
			}
			return m, true
		case p.dashes():
			continue
		}
		start := p.pos
		name := p.ident()
		switch name {
		case "":
			p.fail(p.pos, "want a definition, got %s", p.tokenAt(p.pos))
			return nil, false
		case "LOCAL":
			p.space()
			if save := p.pos; p.ident() != "INSTANCE" {
				p.fail(save, "only LOCAL INSTANCE is supported, got LOCAL %s", p.tokenAt(save))
				return nil, false
			}
			fallthrough
		case "INSTANCE", "EXTENDS":
			if !p.names() {
				return nil, false
			}
			continue
		}
		p.space()
		if !p.lit("==") {
			p.fail(p.pos, "want == after %s, got %s", name, p.tokenAt(p.pos))
			return nil, false
		}
		p.def = name
		v, ok := p.value()
		if !ok {
			return nil, false
		}
		for _, d := range m.defs {
			if d.name == name {
				p.fail(start, "%s is defined twice", name)
				return nil, false
			}
		}
		m.defs = append(m.defs, def{name: name, value: v, off: start})
		p.def = ""
	}
}

// names skips the module names of INSTANCE or EXTENDS.
func (p *parser) names() bool {
	for {
		p.space()
		if p.ident() == "" {
			p.fail(p.pos, "want a module name, got %s", p.tokenAt(p.pos))
			return false
		}
		p.space()
		if !p.lit(",") {
			return true
		}
	}
}

// space skips white space and comments.
func (p *parser) space() {
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			p.pos++
		case bytes.HasPrefix(p.src[p.pos:], []byte(`\*`)):
			i := bytes.IndexByte(p.src[p.pos:], '\n')
			if i < 0 {
				p.pos = len(p.src)
			} else {
				p.pos += i + 1
			}
		case bytes.HasPrefix(p.src[p.pos:], []byte("(*")):
			start, depth := p.pos, 0
			for p.pos < len(p.src) {
				if bytes.HasPrefix(p.src[p.pos:], []byte("(*")) {
					depth++
					p.pos += 2
				} else if bytes.HasPrefix(p.src[p.pos:], []byte("*)")) {
					depth--
					p.pos += 2
					if depth == 0 {
						break
					}
				} else {
					p.pos++
				}
			}
			if depth > 0 {
				p.fail(start, "truncated: comment (* is never closed")
				p.pos = len(p.src)
			}
		default:
			return
		}
	}
}

// run returns the length of the run of c at pos, consuming it if >= 4.
func (p *parser) run(c byte) int {
	n := 0
	for p.pos+n < len(p.src) && p.src[p.pos+n] == c {
		n++
	}
	if n >= 4 {
		p.pos += n
	}
	return n
}

func (p *parser) dashes() bool { return p.run('-') >= 4 }

func (p *parser) lit(s string) bool {
	if bytes.HasPrefix(p.src[p.pos:], []byte(s)) {
		p.pos += len(s)
		return true
	}
	return false
}

func isLetter(c byte) bool { return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool  { return '0' <= c && c <= '9' }

// ident consumes an identifier (letters, digits, _; not all digits).
func (p *parser) ident() string {
	i := p.pos
	letter := false
	for i < len(p.src) && (isLetter(p.src[i]) || isDigit(p.src[i])) {
		letter = letter || isLetter(p.src[i])
		i++
	}
	if !letter {
		return ""
	}
	s := string(p.src[p.pos:i])
	p.pos = i
	return s
}

// tokenAt describes the input at off for error messages.
func (p *parser) tokenAt(off int) string {
	if off >= len(p.src) {
		return "the end of the input"
	}
	rest := p.src[off:]
	n := 0
	for n < len(rest) && n < 12 && rest[n] != '\n' {
		n++
	}
	if n == 0 {
		return strconv.Quote(string(rest[:1]))
	}
	return strconv.Quote(string(rest[:n]))
}

func lineCol(src []byte, off int) (int, int) {
	off = min(off, len(src))
	line := 1 + bytes.Count(src[:off], []byte("\n"))
	col := off - bytes.LastIndexByte(src[:off], '\n')
	return line, col
}

var closers = map[byte]string{'<': ">>", '{': "}", '[': "]", '(': ")"}
var openers = map[byte]string{'<': "<<", '{': "{", '[': "[", '(': "("}

// push opens a bracket; pop closes it, expecting its closer.
func (p *parser) push(open byte) bool {
	if len(p.frames) >= maxDepth {
		p.fail(p.pos, "values nested deeper than %d", maxDepth)
		return false
	}
	p.frames = append(p.frames, frame{open: open, off: p.pos})
	p.pos += len(openers[open])
	return true
}

func (p *parser) top() *frame { return &p.frames[len(p.frames)-1] }

// close consumes the top bracket's closer or reports why not.
func (p *parser) close() bool {
	f := p.top()
	p.space()
	if p.lit(closers[f.open]) {
		p.frames = p.frames[:len(p.frames)-1]
		return true
	}
	if p.pos < len(p.src) && strings.IndexByte(">}])", p.src[p.pos]) < 0 {
		line, col := lineCol(p.src, f.off)
		p.fail(p.pos, "unbalanced brackets: %s opened at %d:%d is not closed: want %s, got %s",
			openers[f.open], line, col, closers[f.open], p.tokenAt(p.pos))
		return false
	}
	p.unexpected(closers[f.open])
	return false
}

// unexpected reports the input at pos where want was expected, naming an
// unclosed or mismatched bracket as such.
func (p *parser) unexpected(want string) {
	f := p.top()
	line, col := lineCol(p.src, f.off)
	// The input ends, or ends inside the closer (the first ">" of ">>").
	if rest := p.src[p.pos:]; len(rest) < len(want) && bytes.HasPrefix([]byte(want), rest) {
		p.fail(p.pos, "truncated: %s opened at %d:%d is never closed", openers[f.open], line, col)
		return
	}
	for _, c := range []string{">>", "}", "]", ")"} {
		if c != closers[f.open] && bytes.HasPrefix(p.src[p.pos:], []byte(c)) {
			p.fail(p.pos, "unbalanced brackets: %s opened at %d:%d closed by %s", openers[f.open], line, col, c)
			return
		}
	}
	p.fail(p.pos, "want %s, got %s", want, p.tokenAt(p.pos))
}

// value parses one value.
func (p *parser) value() (Value, bool) {
	p.space()
	if p.err != nil {
		return Value{}, false
	}
	off := p.pos
	if off >= len(p.src) {
		if len(p.frames) > 0 {
			p.unexpected("a value")
		} else {
			p.fail(off, "truncated: want a value, got the end of the input")
		}
		return Value{}, false
	}
	c := p.src[off]
	switch {
	case p.lit("<<"):
		p.pos = off
		return p.list('<', Seq)
	case c == '{':
		return p.list('{', Set)
	case c == '[':
		return p.record()
	case c == '(':
		return p.function()
	case c == '"':
		return p.str()
	case c == '-' || isDigit(c):
		return p.number()
	case isLetter(c):
		switch s := p.ident(); s {
		case "TRUE":
			return Value{Kind: Bool, Bool: true, Off: off}, true
		case "FALSE":
			return Value{Kind: Bool, Off: off}, true
		default:
			return Value{Kind: ModelValue, Str: s, Off: off}, true
		}
	}
	if len(p.frames) > 0 {
		p.unexpected("a value")
	} else {
		p.fail(off, "want a value, got %s", p.tokenAt(off))
	}
	return Value{}, false
}

// list parses << a, b >> or { a, b }.
func (p *parser) list(open byte, kind Kind) (Value, bool) {
	v := Value{Kind: kind, Off: p.pos}
	if !p.push(open) {
		return Value{}, false
	}
	p.space()
	if p.lit(closers[open]) {
		p.frames = p.frames[:len(p.frames)-1]
		v.Elems = []Value{}
		return v, true
	}
	for {
		e, ok := p.value()
		if !ok {
			return Value{}, false
		}
		v.Elems = append(v.Elems, e)
		if f := p.top(); f.idx == 0 {
			f.first, f.hasFirst = e, true
		}
		p.space()
		if !p.lit(",") {
			break
		}
		p.top().idx++
	}
	if !p.close() {
		return Value{}, false
	}
	return v, true
}

// record parses [a |-> v, ...] (and [] for the empty record).
func (p *parser) record() (Value, bool) {
	v := Value{Kind: Record, Off: p.pos, Fields: []Field{}}
	if !p.push('[') {
		return Value{}, false
	}
	p.space()
	if p.lit("]") {
		p.frames = p.frames[:len(p.frames)-1]
		return v, true
	}
	for {
		p.space()
		at := p.pos
		name := p.ident()
		if name == "" {
			p.unexpected("a field name")
			return Value{}, false
		}
		p.top().name = name
		for _, f := range v.Fields {
			if f.Name == name {
				p.fail(at, "record has the field %s twice", name)
				return Value{}, false
			}
		}
		p.space()
		if !p.lit("|->") {
			p.unexpected("|-> after " + name)
			return Value{}, false
		}
		e, ok := p.value()
		if !ok {
			return Value{}, false
		}
		v.Fields = append(v.Fields, Field{Name: name, Value: e})
		p.space()
		if !p.lit(",") {
			break
		}
		p.top().idx++
	}
	if !p.close() {
		return Value{}, false
	}
	return v, true
}

// function parses (k :> v @@ k2 :> v2); a parenthesized value without :>
// is that value.
func (p *parser) function() (Value, bool) {
	off := p.pos
	if !p.push('(') {
		return Value{}, false
	}
	var pairs []Pair
	for {
		p.top().name = ""
		k, ok := p.value()
		if !ok {
			return Value{}, false
		}
		p.space()
		if !p.lit(":>") {
			if len(pairs) == 0 { // (value)
				if !p.close() {
					return Value{}, false
				}
				return k, true
			}
			p.unexpected(":>")
			return Value{}, false
		}
		p.top().name = keyName(k)
		for _, q := range pairs {
			if equal(q.Key, k) {
				p.fail(k.Off, "function maps %s twice", k)
				return Value{}, false
			}
		}
		v, ok := p.value()
		if !ok {
			return Value{}, false
		}
		pairs = append(pairs, Pair{Key: k, Value: v})
		p.space()
		if !p.lit("@@") {
			break
		}
		p.top().idx++
	}
	if !p.close() {
		return Value{}, false
	}
	return Value{Kind: Func, Pairs: pairs, Off: off}, true
}

// str parses a string literal with TLA+'s escapes.
func (p *parser) str() (Value, bool) {
	off := p.pos
	p.pos++
	var b strings.Builder
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		p.pos++
		switch c {
		case '"':
			return Value{Kind: String, Str: b.String(), Off: off}, true
		case '\n':
			p.fail(off, "string has a line break; want a closing \"")
			return Value{}, false
		case '\\':
			if p.pos >= len(p.src) {
				break
			}
			e := p.src[p.pos]
			p.pos++
			switch e {
			case '"', '\\':
				b.WriteByte(e)
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case 'f':
				b.WriteByte('\f')
			default:
				p.fail(p.pos-2, "unknown escape \\%c in a string", e)
				return Value{}, false
			}
		default:
			b.WriteByte(c)
		}
	}
	p.fail(off, "truncated: string is never closed")
	return Value{}, false
}

// number parses an integer, or an interval a..b as the set of its elements.
func (p *parser) number() (Value, bool) {
	off := p.pos
	lo, ok := p.integer()
	if !ok {
		return Value{}, false
	}
	save := p.pos
	p.space()
	if !p.lit("..") {
		p.pos = save
		return Value{Kind: Int, Int: lo, Off: off}, true
	}
	p.space()
	hi, ok := p.integer()
	if !ok {
		return Value{}, false
	}
	v := Value{Kind: Set, Off: off, Elems: []Value{}}
	if hi < lo {
		return v, true
	}
	if n := uint64(hi) - uint64(lo); n >= maxInterval { // no overflow: hi >= lo
		p.fail(off, "interval %d..%d has more than %d elements", lo, hi, maxInterval)
		return Value{}, false
	}
	for k := range hi - lo + 1 {
		v.Elems = append(v.Elems, Value{Kind: Int, Int: lo + k, Off: off})
	}
	return v, true
}

func (p *parser) integer() (int, bool) {
	off := p.pos
	i := p.pos
	if i < len(p.src) && p.src[i] == '-' {
		i++
	}
	for i < len(p.src) && isDigit(p.src[i]) {
		i++
	}
	text := string(p.src[off:i])
	if i < len(p.src) && isLetter(p.src[i]) {
		p.fail(off, "want an integer, got %s", p.tokenAt(off))
		return 0, false
	}
	n, err := strconv.Atoi(text)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			p.fail(off, "integer %s out of range", text)
		} else {
			p.fail(off, "want an integer, got %s", p.tokenAt(off))
		}
		return 0, false
	}
	p.pos = i
	return n, true
}

// where guesses the trace step and field the open brackets are in, in the
// shape of the definitions Load reads:
//
//	CounterExample == [state |-> {<<n, VARS>>, ...},
//	                   action |-> {<<<<n, VARS>>, INFO, <<n+1, VARS>>>>, ...}]
//	Trace == <<VARS, ...>>
//
// A << >> whose first element is an integer n is state n (step n-1); its
// record's fields name the field. Elsewhere the path is generic.
func (p *parser) where() (int, string) {
	step := -1
	var path strings.Builder
	path.WriteString(p.def)
	for i := range p.frames {
		f := &p.frames[i]
		switch f.open {
		case '[':
			path.WriteString("." + f.name)
			continue
		case '(':
			if f.name != "" {
				path.WriteString("." + f.name)
			}
			continue
		}
		switch {
		case p.def == "Trace" && i == 0 && f.open == '<':
			step = f.idx
			path.Reset()
			path.WriteString("state")
			continue
		case f.open == '<' && f.idx == 1 && f.hasFirst && f.first.Kind == Int:
			step = f.first.Int - 1
			role := "state"
			if i > 0 {
				if pf := p.frames[i-1]; pf.open == '<' && pf.idx == 0 {
					role = "action.before"
				} else if pf.open == '<' && pf.idx == 2 {
					role = "action.after"
				}
			}
			path.Reset()
			path.WriteString(role)
			continue
		case f.open == '<' && f.idx >= 1 && f.hasFirst && f.first.Kind == Seq &&
			len(f.first.Elems) > 0 && f.first.Elems[0].Kind == Int:
			if f.idx == 1 { // the action record between <<n, VARS>> and <<n+1, VARS>>
				step = f.first.Elems[0].Int
				path.Reset()
				path.WriteString("action")
				continue
			}
		}
		if p.def != "CounterExample" || i > 1 {
			fmt.Fprintf(&path, "[%d]", f.idx)
		}
	}
	return step, strings.TrimPrefix(path.String(), "CounterExample.")
}
