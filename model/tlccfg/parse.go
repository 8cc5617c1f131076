// Package tlccfg reads TLC model configurations (.cfg files) and the spec's
// manifest, and maps them onto model.Config: the Go model is run on exactly
// the configurations TLC runs, never on hard-coded constants.
package tlccfg

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/hwepoch/hwepoch/internal/inputfile"
)

// ValueKind is the kind of a constant's value.
type ValueKind int

const (
	ModelValue ValueKind = iota
	Int
	String
	Bool
	Set
)

// Value is a constant's value as written in the .cfg.
type Value struct {
	Kind  ValueKind
	Name  string  // ModelValue: its name
	Int   int     // Int
	Str   string  // String
	Bool  bool    // Bool
	Elems []Value // Set, as written
	Line  int
}

func (v Value) String() string {
	switch v.Kind {
	case ModelValue:
		return v.Name
	case Int:
		return strconv.Itoa(v.Int)
	case String:
		return strconv.Quote(v.Str)
	case Bool:
		if v.Bool {
			return "TRUE"
		}
		return "FALSE"
	}
	s := "{"
	for i, e := range v.Elems {
		if i > 0 {
			s += ", "
		}
		s += e.String()
	}
	return s + "}"
}

// Constant is one CONSTANT assignment, in file order.
type Constant struct {
	Name  string
	Value Value
	Line  int
}

// File is a parsed .cfg.
type File struct {
	Path          string
	Specification string // SPECIFICATION, or "" when INIT/NEXT are given
	Init, Next    string
	Constants     []Constant
	Invariants    []string
	Properties    []string
	Constraints   []string
	Symmetry      string // SYMMETRY: the operator naming the permutations, "" if none
	// Lines place what errors name: the line of each section keyword
	// (SPECIFICATION, INIT, NEXT, SYMMETRY, CONSTANTS, ...) as first given,
	// and of each operator name listed under INVARIANTS, PROPERTIES or
	// CONSTRAINTS.
	Lines map[string]int
}

// line is where the keyword or operator name first appears, else 1.
func (f *File) line(key string) int {
	if n, ok := f.Lines[key]; ok {
		return n
	}
	return 1
}

// Constant returns the named constant.
func (f *File) Constant(name string) (Constant, bool) {
	for _, c := range f.Constants {
		if c.Name == name {
			return c, true
		}
	}
	return Constant{}, false
}

// ParseFile reads and parses a .cfg file.
func ParseFile(path string) (*File, error) {
	b, err := inputfile.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, b)
}

// sections are the .cfg keywords this package reads.
var sections = map[string]bool{
	"SPECIFICATION": true, "INIT": true, "NEXT": true, "CONSTANT": true, "CONSTANTS": true,
	"INVARIANT": true, "INVARIANTS": true, "PROPERTY": true, "PROPERTIES": true,
	"CONSTRAINT": true, "CONSTRAINTS": true, "SYMMETRY": true,
}

// unsupported are TLC .cfg keywords that the Go model cannot honour.
var unsupported = map[string]bool{
	"VIEW": true, "ACTION_CONSTRAINT": true, "ACTION_CONSTRAINTS": true,
	"CHECK_DEADLOCK": true, "ALIAS": true, "POSTCONDITION": true, "TYPE": true, "TYPE_CONSTRAINT": true,
}

type parser struct {
	file string
	toks []token
	pos  int
}

func (p *parser) peek() token { return p.toks[p.pos] }
func (p *parser) next() token {
	t := p.toks[p.pos]
	if t.kind != tEOF {
		p.pos++
	}
	return t
}

func (p *parser) errAt(t token, format string, args ...any) error {
	tok := t.String()
	return &ParseError{File: p.file, Line: t.line, Token: tok, Msg: fmt.Sprintf(format, args...)}
}

func isSection(t token) bool {
	return t.kind == tIdent && (sections[t.text] || unsupported[t.text])
}

// Parse parses .cfg source; name is used in errors.
func Parse(name string, src []byte) (*File, error) {
	toks, err := lex(name, string(src))
	if err != nil {
		return nil, err
	}
	p := &parser{file: name, toks: toks}
	f := &File{Path: name, Lines: map[string]int{}}
	for p.peek().kind != tEOF {
		kw := p.next()
		if _, seen := f.Lines[kw.text]; !seen && kw.kind == tIdent {
			f.Lines[kw.text] = kw.line
		}
		if kw.kind != tIdent || !isSection(kw) {
			return nil, p.errAt(kw, "expected a section keyword (SPECIFICATION, INIT, NEXT, CONSTANTS, INVARIANTS, PROPERTIES, CONSTRAINTS)")
		}
		if unsupported[kw.text] {
			return nil, p.errAt(kw, "%s is not supported: the Go model explores exactly Init and Next", kw.text)
		}
		switch kw.text {
		case "SPECIFICATION", "INIT", "NEXT", "SYMMETRY":
			id := p.next()
			if id.kind != tIdent || isSection(id) {
				return nil, p.errAt(id, "%s needs an operator name", kw.text)
			}
			dst := map[string]*string{"SPECIFICATION": &f.Specification, "INIT": &f.Init, "NEXT": &f.Next, "SYMMETRY": &f.Symmetry}[kw.text]
			if *dst != "" {
				return nil, p.errAt(kw, "%s given twice", kw.text)
			}
			*dst = id.text
			f.Lines[id.text] = id.line
		case "CONSTANT", "CONSTANTS":
			for p.peek().kind == tIdent && !isSection(p.peek()) {
				c, err := p.constant()
				if err != nil {
					return nil, err
				}
				if _, dup := f.Constant(c.Name); dup {
					return nil, p.errAt(token{tIdent, c.Name, c.Line}, "constant %s assigned twice", c.Name)
				}
				f.Constants = append(f.Constants, c)
			}
		default:
			names, err := p.names(kw, f)
			if err != nil {
				return nil, err
			}
			switch kw.text {
			case "INVARIANT", "INVARIANTS":
				f.Invariants = append(f.Invariants, names...)
			case "PROPERTY", "PROPERTIES":
				f.Properties = append(f.Properties, names...)
			default:
				f.Constraints = append(f.Constraints, names...)
			}
		}
	}
	if f.Specification != "" && (f.Init != "" || f.Next != "") {
		line := f.line("INIT")
		if f.Init == "" {
			line = f.line("NEXT")
		}
		return nil, &ParseError{File: name, Line: max(line, f.line("SPECIFICATION")), Msg: "both SPECIFICATION and INIT/NEXT are given"}
	}
	return f, nil
}

// names reads the operator names of an INVARIANTS / PROPERTIES / CONSTRAINTS
// section: identifiers up to the next keyword.
func (p *parser) names(kw token, f *File) ([]string, error) {
	var out []string
	for p.peek().kind == tIdent && !isSection(p.peek()) {
		t := p.next()
		if slices.Contains(out, t.text) || slices.Contains(f.Invariants, t.text) || slices.Contains(f.Properties, t.text) || slices.Contains(f.Constraints, t.text) {
			return nil, p.errAt(t, "%s listed twice", t.text)
		}
		f.Lines[t.text] = t.line
		out = append(out, t.text)
	}
	if len(out) == 0 {
		return nil, p.errAt(p.peek(), "%s needs at least one operator name", kw.text)
	}
	if t := p.peek(); t.kind != tEOF && t.kind != tIdent {
		return nil, p.errAt(t, "expected an operator name")
	}
	return out, nil
}

func (p *parser) constant() (Constant, error) {
	id := p.next()
	op := p.next()
	if op.kind == tSym && op.text == "<-" {
		return Constant{}, p.errAt(op, "substitution (%s <- ...) is not supported: assign a value with =", id.text)
	}
	if op.kind != tSym || op.text != "=" {
		return Constant{}, p.errAt(op, "expected = after constant %s", id.text)
	}
	v, err := p.value()
	if err != nil {
		return Constant{}, err
	}
	return Constant{Name: id.text, Value: v, Line: id.line}, nil
}

func (p *parser) value() (Value, error) {
	t := p.next()
	switch t.kind {
	case tInt:
		n, err := strconv.Atoi(t.text)
		if err != nil {
			return Value{}, p.errAt(t, "integer out of range")
		}
		return Value{Kind: Int, Int: n, Line: t.line}, nil
	case tString:
		return Value{Kind: String, Str: t.text, Line: t.line}, nil
	case tIdent:
		switch {
		case t.text == "TRUE" || t.text == "FALSE":
			return Value{Kind: Bool, Bool: t.text == "TRUE", Line: t.line}, nil
		case isSection(t):
			return Value{}, p.errAt(t, "expected a value")
		}
		return Value{Kind: ModelValue, Name: t.text, Line: t.line}, nil
	case tSym:
		if t.text != "{" {
			break
		}
		v := Value{Kind: Set, Line: t.line}
		if p.peek().kind == tSym && p.peek().text == "}" {
			p.next()
			return v, nil
		}
		for {
			e, err := p.value()
			if err != nil {
				return Value{}, err
			}
			v.Elems = append(v.Elems, e)
			sep := p.next()
			if sep.kind == tSym && sep.text == "}" {
				return v, nil
			}
			if sep.kind != tSym || sep.text != "," {
				return Value{}, p.errAt(sep, "expected , or } in a set")
			}
		}
	}
	return Value{}, p.errAt(t, "expected a value: a model value, an integer, a string, TRUE, FALSE or a set {...}")
}

// Base is the configuration's name: its file name without .cfg.
func Base(path string) string {
	b := filepath.Base(path)
	return b[:len(b)-len(filepath.Ext(b))]
}
