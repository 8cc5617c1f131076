// Package strictjson decodes JSON files the way a checker must read its
// inputs: exactly one document, no key given twice, and every error placed
// at a line and column. encoding/json alone accepts data after the value
// (trailing garbage, a second concatenated document, with Decoder), keeps
// the last of two equal keys, and reports a byte offset at best.
package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Unmarshal decodes b, which must hold exactly one JSON value, into v.
// Numbers decode into interface values as json.Number (never a float64
// that silently rounds a large integer). Errors say "line L, column C: ...".
func Unmarshal(b []byte, v any) error {
	if err := Check(b); err != nil {
		return err
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			where := te.Field
			if where == "" {
				where = "value"
			}
			return fmt.Errorf("%s: %s: want %s, got JSON %s", At(b, te.Offset), where, te.Type, te.Value)
		}
		return err
	}
	return nil
}

// Check verifies that b holds exactly one well-formed JSON value in which
// no object has the same key twice.
func Check(b []byte) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	type frame struct {
		obj     bool
		wantKey bool
		keys    map[string]bool
	}
	var stack []frame
	valueDone := func() {
		if n := len(stack); n > 0 && stack[n-1].obj {
			stack[n-1].wantKey = true
		}
	}
	for {
		before := d.InputOffset()
		tok, err := d.Token()
		if err == io.EOF {
			return fmt.Errorf("%s: the JSON ends early (no value, or an unclosed object or array)", At(b, int64(len(b))))
		}
		if err != nil {
			return syntax(b, err, d.InputOffset())
		}
		if n := len(stack); n > 0 && stack[n-1].obj && stack[n-1].wantKey {
			if k, ok := tok.(string); ok {
				if stack[n-1].keys[k] {
					return fmt.Errorf("%s: key %q given twice in one object", At(b, skipSpace(b, before)), k)
				}
				stack[n-1].keys[k] = true
				stack[n-1].wantKey = false
				continue
			}
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, frame{obj: true, wantKey: true, keys: map[string]bool{}})
		case json.Delim('['):
			stack = append(stack, frame{})
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			valueDone()
		default:
			valueDone()
		}
		if len(stack) == 0 {
			end := d.InputOffset()
			if _, err := d.Token(); err != io.EOF {
				return fmt.Errorf("%s: data after the JSON value (trailing garbage, or a second document)", At(b, skipSpace(b, end)))
			}
			return nil
		}
	}
}

// syntax places a syntax error at its offset.
func syntax(b []byte, err error, fallback int64) error {
	off := fallback
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off = se.Offset
	}
	return fmt.Errorf("%s: %v", At(b, off), err)
}

// skipSpace moves off past white space, commas and colons: to where the
// next token starts.
func skipSpace(b []byte, off int64) int64 {
	for off < int64(len(b)) {
		switch b[off] {
		case ' ', '\t', '\n', '\r', ',', ':':
			off++
			continue
		}
		break
	}
	return off
}

// At names byte offset off of b as "line L, column C" (both from 1).
func At(b []byte, off int64) string {
	if off > int64(len(b)) {
		off = int64(len(b))
	}
	if off < 0 {
		off = 0
	}
	line := 1 + bytes.Count(b[:off], []byte{'\n'})
	col := off - int64(bytes.LastIndexByte(b[:off], '\n'))
	return fmt.Sprintf("line %d, column %d", line, col)
}
