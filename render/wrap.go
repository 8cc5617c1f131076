package render

import "strings"

// wrap breaks s into lines of at most width characters at spaces; a word
// longer than width gets a line of its own. Continuation lines are indented
// by indent spaces so that they read as part of the line above.
func wrap(s string, width, indent int) []string {
	if width < 8 {
		width = 8
	}
	words := strings.Fields(s)
	var lines []string
	cur := ""
	for _, w := range words {
		switch {
		case cur == "":
			cur = w
			if len(lines) > 0 {
				cur = strings.Repeat(" ", indent) + w
			}
		case len([]rune(cur))+1+len([]rune(w)) <= width:
			cur += " " + w
		default:
			lines = append(lines, cur)
			cur = strings.Repeat(" ", indent) + w
		}
	}
	if cur != "" {
		lines = append(lines, cur)
	}
	return lines
}

// firstSentence is the beginning of a note up to its first full stop, so a
// panel can show what a phase is about without its whole paragraph.
func firstSentence(lines []string) string {
	s := strings.Join(lines, " ")
	if i := strings.Index(s, ". "); i >= 0 {
		return s[:i+1]
	}
	return s
}
