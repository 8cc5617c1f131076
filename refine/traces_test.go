package refine

import (
	"path/filepath"
	"testing"
)

// Every trace under traces/ (TLC's exports, scenarios, regressions) replays
// on the model and on the implementation: after every step the abstraction
// of the stepped cluster equals the model's state.
func TestReplayTraces(t *testing.T) {
	files, err := Discover(filepath.Join("..", "traces"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no traces under traces/: TLC's exports (traces/tlc) should be there")
	}
	for _, f := range files {
		t.Run(filepath.ToSlash(f), func(t *testing.T) {
			t.Parallel()
			cases, err := Load(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range cases {
				if err := ReplayCase(c, Options{}); err != nil {
					t.Errorf("%s:\n%v", c.Name, err)
				}
			}
		})
	}
}
