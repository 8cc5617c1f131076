package tlcjson

// TLCSpelling writes values the way TLC's JSON does: sets as arrays,
// functions with model-value domains as objects.
type TLCSpelling struct{}

// Set spells a set as an array.
func (TLCSpelling) Set(elems []any) any { return elems }

// Func spells a function as an object keyed by model value name.
func (TLCSpelling) Func(keys []string, vals []any) any {
	m := make(map[string]any, len(keys))
	for i, k := range keys {
		m[k] = vals[i]
	}
	return m
}
