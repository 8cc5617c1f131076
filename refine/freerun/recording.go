package freerun

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/hwepoch/hwepoch/internal/inputfile"
)

// A recording is saved as JSON, so a free run that fails validation can be
// validated again, dumped and read at leisure: free runs are not
// reproducible (goroutine scheduling is part of them), their recordings are.

// WriteFile saves the recording at path.
func (r Recording) WriteFile(path string) error {
	doc := struct {
		Recording
		Err string `json:",omitempty"`
	}{Recording: r}
	if r.Err != nil {
		doc.Err = r.Err.Error()
	}
	b, err := json.MarshalIndent(doc, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// ReadRecording loads a recording saved by WriteFile.
func ReadRecording(path string) (Recording, error) {
	b, err := inputfile.ReadFile(path)
	if err != nil {
		return Recording{}, err
	}
	var r Recording
	if err := json.Unmarshal(b, &r); err != nil {
		return Recording{}, fmt.Errorf("%s: not a free-run recording: %w", path, err)
	}
	if r.Config == nil {
		return Recording{}, fmt.Errorf("%s: Config: missing", path)
	}
	if err := r.Config.Validate(); err != nil {
		return Recording{}, fmt.Errorf("%s: Config: %w", path, err)
	}
	if r.Focus == "" {
		return Recording{}, fmt.Errorf("%s: Focus: missing", path)
	}
	return r, nil
}
