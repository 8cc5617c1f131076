package tlatrace

import (
	"fmt"
	"strconv"
	"strings"
)

// Kind is the sort of a TLA+ value as TLC prints it.
type Kind uint8

// The kinds of values TLC's ToString prints.
const (
	Int        Kind = iota + 1 // 42, -1
	String                     // "Leader"
	Bool                       // TRUE, FALSE
	ModelValue                 // r1, None (any bare identifier)
	Seq                        // <<a, b>> (sequences and tuples)
	Set                        // {a, b}; also a..b, expanded
	Record                     // [a |-> 1, b |-> 2]
	Func                       // (k1 :> v1 @@ k2 :> v2)
)

var kindNames = [...]string{"", "an integer", "a string", "a Boolean", "a model value", "a sequence", "a set", "a record", "a function"}

func (k Kind) String() string {
	if int(k) < len(kindNames) && k != 0 {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Value is one parsed TLA+ value. Only the fields of its Kind are set.
type Value struct {
	Kind   Kind
	Int    int     // Int
	Str    string  // String (unescaped), ModelValue (the identifier)
	Bool   bool    // Bool
	Elems  []Value // Seq, Set: in printed order
	Fields []Field // Record: in printed order
	Pairs  []Pair  // Func: in printed order
	Off    int     // byte offset of the value in the parsed text
}

// Field is one field of a record.
type Field struct {
	Name  string
	Value Value
}

// Pair is one k :> v of a function.
type Pair struct {
	Key, Value Value
}

// Field returns the record field named name.
func (v Value) Field(name string) (Value, bool) {
	for _, f := range v.Fields {
		if f.Name == name {
			return f.Value, true
		}
	}
	return Value{}, false
}

// String prints v in the syntax TLC uses, which ParseValue reads back.
func (v Value) String() string {
	var b strings.Builder
	v.write(&b)
	return b.String()
}

func (v Value) write(b *strings.Builder) {
	list := func(open, close string, n int, elem func(i int)) {
		b.WriteString(open)
		for i := range n {
			if i > 0 {
				b.WriteString(", ")
			}
			elem(i)
		}
		b.WriteString(close)
	}
	switch v.Kind {
	case Int:
		b.WriteString(strconv.Itoa(v.Int))
	case String:
		b.WriteString(quote(v.Str))
	case Bool:
		if v.Bool {
			b.WriteString("TRUE")
		} else {
			b.WriteString("FALSE")
		}
	case ModelValue:
		b.WriteString(v.Str)
	case Seq:
		list("<<", ">>", len(v.Elems), func(i int) { v.Elems[i].write(b) })
	case Set:
		list("{", "}", len(v.Elems), func(i int) { v.Elems[i].write(b) })
	case Record:
		list("[", "]", len(v.Fields), func(i int) {
			b.WriteString(v.Fields[i].Name)
			b.WriteString(" |-> ")
			v.Fields[i].Value.write(b)
		})
	case Func:
		b.WriteString("(")
		for i, p := range v.Pairs {
			if i > 0 {
				b.WriteString(" @@ ")
			}
			p.Key.write(b)
			b.WriteString(" :> ")
			p.Value.write(b)
		}
		b.WriteString(")")
	default:
		b.WriteString("<invalid>")
	}
}

func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		case '\f':
			b.WriteString(`\f`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// neutral converts v to the neutral JSON-like form trace.ValuesToState
// reads: integers as int, strings and model values as string, Booleans as
// bool, sequences and sets as []any, records and functions as map[string]any
// (a function's keys by their name when strings or model values, otherwise
// by their printed form).
func neutral(v Value) any {
	switch v.Kind {
	case Int:
		return v.Int
	case String, ModelValue:
		return v.Str
	case Bool:
		return v.Bool
	case Seq, Set:
		out := make([]any, len(v.Elems))
		for i, e := range v.Elems {
			out[i] = neutral(e)
		}
		return out
	case Record:
		out := make(map[string]any, len(v.Fields))
		for _, f := range v.Fields {
			out[f.Name] = neutral(f.Value)
		}
		return out
	case Func:
		out := make(map[string]any, len(v.Pairs))
		for _, p := range v.Pairs {
			out[keyName(p.Key)] = neutral(p.Value)
		}
		return out
	}
	return nil
}

func keyName(k Value) string {
	if k.Kind == String || k.Kind == ModelValue {
		return k.Str
	}
	return k.String()
}

// equal reports whether a and b are the same printed value (offsets aside).
func equal(a, b Value) bool {
	if a.Kind != b.Kind || a.Int != b.Int || a.Str != b.Str || a.Bool != b.Bool ||
		len(a.Elems) != len(b.Elems) || len(a.Fields) != len(b.Fields) || len(a.Pairs) != len(b.Pairs) {
		return false
	}
	for i := range a.Elems {
		if !equal(a.Elems[i], b.Elems[i]) {
			return false
		}
	}
	for i := range a.Fields {
		if a.Fields[i].Name != b.Fields[i].Name || !equal(a.Fields[i].Value, b.Fields[i].Value) {
			return false
		}
	}
	for i := range a.Pairs {
		if !equal(a.Pairs[i].Key, b.Pairs[i].Key) || !equal(a.Pairs[i].Value, b.Pairs[i].Value) {
			return false
		}
	}
	return true
}
