package tlcjson

import (
	"encoding/json"
	"testing"
)

func jsonRoundTrip(t *testing.T, v map[string]any) map[string]any {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := decode(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}
