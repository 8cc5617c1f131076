package tlc

import "github.com/hwepoch/hwepoch/model/tlccfg"

// Matches says whether a TLC result is the verdict the manifest entry
// expects: "holds", or "violated" with the entry's property.
func Matches(e tlccfg.Entry, r Result) bool {
	if r.Verdict != e.Expect {
		return false
	}
	return e.Expect == "holds" || r.Property == e.Property
}
