package render

import "fmt"

// epochColors are the fills of records by epoch: light enough for black
// text, distinct enough side by side, and fixed so that a picture reads
// the same in every document. Epochs beyond the palette reuse it.
var epochColors = []string{
	"#9ecae1", // e0 blue
	"#fdae6b", // e1 orange
	"#a1d99b", // e2 green
	"#c9b3e6", // e3 purple
	"#f7a8c4", // e4 pink
	"#f2dc6b", // e5 yellow
	"#8fd3c8", // e6 teal
	"#d9b38c", // e7 brown
}

func epochColor(e int) string {
	if e < 0 {
		return "#ffffff"
	}
	return epochColors[e%len(epochColors)]
}

const (
	colorHW       = "#1f4e9c"
	colorViolated = "#c62828"
	colorChanged  = "#fff1a8"
	colorText     = "#222222"
	colorMuted    = "#666666"
	colorFrame    = "#b0b0b0"
)

// xmlEscape makes s safe inside SVG text and attribute values.
func xmlEscape(s string) string {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '&':
			out = append(out, "&amp;"...)
		case '<':
			out = append(out, "&lt;"...)
		case '>':
			out = append(out, "&gt;"...)
		case '"':
			out = append(out, "&quot;"...)
		default:
			out = append(out, c)
		}
	}
	return string(out)
}

// num writes a coordinate without needless decimals, so the output is
// stable and small.
func num(f float64) string {
	s := fmt.Sprintf("%.1f", f)
	if len(s) > 2 && s[len(s)-2:] == ".0" {
		return s[:len(s)-2]
	}
	return s
}
