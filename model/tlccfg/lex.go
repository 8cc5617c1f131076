package tlccfg

import (
	"fmt"
	"strings"
)

// tokKind classifies the tokens of TLC's .cfg language.
type tokKind int

const (
	tIdent tokKind = iota
	tInt
	tString
	tSym // = { } , <-
	tEOF
)

type token struct {
	kind tokKind
	text string
	line int
}

func (t token) String() string {
	if t.kind == tEOF {
		return "end of file"
	}
	return fmt.Sprintf("%q", t.text)
}

// ParseError names the file, line and token where a .cfg went wrong.
type ParseError struct {
	File  string
	Line  int
	Token string
	Msg   string
}

func (e *ParseError) Error() string {
	if e.Token == "" {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s:%d: at %s: %s", e.File, e.Line, e.Token, e.Msg)
}

// lex splits src into tokens, dropping \* line comments and (* *) block
// comments (which nest, as in TLA+).
func lex(file, src string) ([]token, error) {
	var toks []token
	line := 1
	i := 0
	for i < len(src) {
		c := src[i]
		switch {
		case c == '\n':
			line++
			i++
		case c == ' ' || c == '\t' || c == '\r' || c == '\f':
			i++
		case strings.HasPrefix(src[i:], `\*`):
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case strings.HasPrefix(src[i:], "(*"):
			start, depth := line, 0
			for {
				if i >= len(src) {
					return nil, &ParseError{File: file, Line: start, Token: `"(*"`, Msg: "comment is never closed"}
				}
				switch {
				case strings.HasPrefix(src[i:], "(*"):
					depth++
					i += 2
				case strings.HasPrefix(src[i:], "*)"):
					depth--
					i += 2
				default:
					if src[i] == '\n' {
						line++
					}
					i++
				}
				if depth == 0 {
					break
				}
			}
		case c == '"':
			j := i + 1
			var b strings.Builder
			for ; j < len(src) && src[j] != '"'; j++ {
				if src[j] == '\n' {
					return nil, &ParseError{File: file, Line: line, Token: fmt.Sprintf("%q", src[i:j]), Msg: "string is not closed on its line"}
				}
				if src[j] == '\\' && j+1 < len(src) {
					j++
					switch src[j] {
					case 'n':
						b.WriteByte('\n')
					case 't':
						b.WriteByte('\t')
					default:
						b.WriteByte(src[j])
					}
					continue
				}
				b.WriteByte(src[j])
			}
			if j >= len(src) {
				return nil, &ParseError{File: file, Line: line, Token: fmt.Sprintf("%q", src[i:j]), Msg: "string is not closed"}
			}
			toks = append(toks, token{tString, b.String(), line})
			i = j + 1
		case c == '=' || c == '{' || c == '}' || c == ',':
			toks = append(toks, token{tSym, string(c), line})
			i++
		case strings.HasPrefix(src[i:], "<-"):
			toks = append(toks, token{tSym, "<-", line})
			i += 2
		case c == '-' || isDigit(c):
			j := i + 1
			for j < len(src) && isDigit(src[j]) {
				j++
			}
			if c == '-' && j == i+1 {
				return nil, &ParseError{File: file, Line: line, Token: `"-"`, Msg: "unexpected character"}
			}
			if j < len(src) && isIdentChar(src[j]) {
				// TLA+ identifiers may start with digits (e.g. 1st).
				for j < len(src) && isIdentChar(src[j]) {
					j++
				}
				toks = append(toks, token{tIdent, src[i:j], line})
			} else {
				toks = append(toks, token{tInt, src[i:j], line})
			}
			i = j
		case isIdentChar(c):
			j := i
			for j < len(src) && isIdentChar(src[j]) {
				j++
			}
			toks = append(toks, token{tIdent, src[i:j], line})
			i = j
		default:
			r := src[i:min(i+1, len(src))]
			return nil, &ParseError{File: file, Line: line, Token: fmt.Sprintf("%q", r), Msg: "unexpected character"}
		}
	}
	toks = append(toks, token{tEOF, "", line})
	return toks, nil
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isIdentChar(c byte) bool {
	return c == '_' || isDigit(c) || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
}
