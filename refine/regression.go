package refine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hwepoch/hwepoch/internal/strictjson"
	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/trace"
	"github.com/hwepoch/hwepoch/trace/itf"
)

// A regression is an ITF trace (trace/itf writes it) whose #meta also
// carries, under "hwepoch", the constants it was found with and a note on
// what it caught, so that it replays without a spec/*.cfg:
//
//	"#meta": {..., "hwepoch": {"config": {"Replicas": ["r1", "r2"], "Truncation": "LeaderEpoch", ...},
//	                           "note": "random trace, seed 7: ..."}}
//
// Random traces that fail are shrunk and written this way under
// traces/regressions/, where the trace test replays them from then on.

// itfMeta is what refine reads from an ITF file's #meta.
type itfMeta struct {
	ConfigName string        // "config": a spec configuration's name
	Config     *model.Config // "hwepoch"."config": the constants themselves
	Refuse     *model.Action // "hwepoch"."refuse": see Case.Refuse
	Note       string
}

type hwepochMeta struct {
	Config *model.Config `json:"config"`
	// Refuse is an action the model does not enable after the last state,
	// which the implementation must refuse (a random trace's failing probe).
	Refuse *actionJSON `json:"refuse,omitempty"`
	Note   string      `json:"note,omitempty"`
}

// actionJSON is an action as ITF's #meta names one.
type actionJSON struct {
	Action string         `json:"action"`
	Params map[string]any `json:"params"`
}

func readITFMeta(path string, b []byte) (itfMeta, error) {
	var doc struct {
		Meta map[string]json.RawMessage `json:"#meta"`
	}
	if err := strictjson.Unmarshal(b, &doc); err != nil {
		return itfMeta{}, fmt.Errorf("%s: not ITF JSON: %w", path, err)
	}
	var m itfMeta
	if raw, ok := doc.Meta["config"]; ok {
		if err := json.Unmarshal(raw, &m.ConfigName); err != nil {
			return itfMeta{}, fmt.Errorf("%s: #meta.config: want a configuration name: %w", path, err)
		}
	}
	if raw, ok := doc.Meta["hwepoch"]; ok {
		var h hwepochMeta
		d := json.NewDecoder(bytes.NewReader(raw))
		d.DisallowUnknownFields()
		if err := d.Decode(&h); err != nil {
			return itfMeta{}, fmt.Errorf("%s: #meta.hwepoch: %w", path, err)
		}
		if h.Config == nil {
			return itfMeta{}, fmt.Errorf("%s: #meta.hwepoch.config: missing", path)
		}
		if err := h.Config.Validate(); err != nil {
			return itfMeta{}, fmt.Errorf("%s: #meta.hwepoch.config: %w", path, err)
		}
		m.Config, m.Note = h.Config, h.Note
		if h.Refuse != nil {
			a, err := trace.ActionFromContext(h.Config, h.Refuse.Action, h.Refuse.Params)
			if err != nil {
				return itfMeta{}, fmt.Errorf("%s: #meta.hwepoch.refuse: %w", path, err)
			}
			m.Refuse = &a
		}
	}
	return m, nil
}

// WriteRegression writes tr as a replayable ITF file at path, with cfg's
// constants, the action the implementation must refuse after it (if any)
// and a note in its #meta. Directories are created as needed.
func WriteRegression(path string, cfg *model.Config, tr trace.Trace, refuse *model.Action, note string) error {
	var b bytes.Buffer
	if err := itf.Write(&b, cfg, tr); err != nil {
		return err
	}
	// Add our #meta entry to what itf wrote, keeping everything else.
	var doc map[string]any
	d := json.NewDecoder(&b)
	d.UseNumber()
	if err := d.Decode(&doc); err != nil {
		return err
	}
	meta, _ := doc["#meta"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
		doc["#meta"] = meta
	}
	h := hwepochMeta{Config: cfg, Note: note}
	if refuse != nil {
		h.Refuse = &actionJSON{Action: refuse.Kind.String(), Params: trace.ActionContext(*refuse)}
	}
	meta["hwepoch"] = h
	out, err := json.MarshalIndent(doc, "", " ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, append(out, '\n'), 0o644)
}
