// Package columns keeps hwepoch's output within a terminal's width: Max is
// the widest line a command prints by default, Wrap breaks a long line at
// spaces, Width measures a line as a terminal shows it.
package columns

import "strings"

// Max is the widest line a command prints by default (help, tables,
// progress lines); tests hold every command's default output to it.
const Max = 120

// Wrap writes prefix and then text's words, breaking the line at spaces so
// that none is wider than width columns (a word longer than that stays
// whole) and starting each further line with indent. The result ends with
// a newline.
func Wrap(prefix, text string, width int, indent string) string {
	var b strings.Builder
	line, empty := prefix, true // empty: line holds no word yet
	for _, w := range strings.Fields(text) {
		switch {
		case empty:
			line += w
		case Width(line)+1+Width(w) > width:
			b.WriteString(line + "\n")
			line = indent + w
		default:
			line += " " + w
		}
		empty = false
	}
	b.WriteString(line + "\n")
	return b.String()
}

// Width is how wide s prints: runes, a tab advancing to the next multiple
// of eight.
func Width(s string) int {
	n := 0
	for _, r := range s {
		if r == '\t' {
			n += 8 - n%8
			continue
		}
		n++
	}
	return n
}
