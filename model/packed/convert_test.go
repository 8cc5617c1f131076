package packed

import (
	"testing"

	"github.com/hwepoch/hwepoch/model"
)

// Every reachable state of every ci configuration survives the round trip
// model -> packed -> model unchanged.
func TestRoundTrip(t *testing.T) {
	total := 0
	for _, c := range ciChecks(t) {
		cfg := &c.Config
		var p State
		reachable(t, c).each(t, 0, reachable(t, c).len(), func(_ int, s *model.State) bool {
			if err := FromModel(cfg, s, &p); err != nil {
				t.Fatalf("%s: %v", c.Name, err)
			}
			if back := ToModel(cfg, &p); !back.Equal(*s) {
				t.Fatalf("%s: round trip changed the state\n got %+v\nwant %+v", c.Name, back, *s)
			}
			total++
			return true
		})
	}
	t.Logf("%d states", total)
}

func TestFromModelRefusesWhatDoesNotFit(t *testing.T) {
	cfg := model.Config{Replicas: []model.Replica{"r1", "r2"}, Truncation: model.LeaderEpoch, Acks: "all", MinInsyncReplicas: 1}
	s := model.Init(&cfg)
	s.Log[0] = make([]model.Record, MaxLog+1)
	var p State
	if err := FromModel(&cfg, &s, &p); err == nil {
		t.Fatal("a log longer than MaxLog was packed")
	}
	s = model.Init(&cfg)
	s.Leader[1] = "r9"
	if err := FromModel(&cfg, &s, &p); err == nil {
		t.Fatal("a replica outside the configuration was packed")
	}
	s = model.Init(&cfg)
	s.Hw[0] = 1000
	if err := FromModel(&cfg, &s, &p); err == nil {
		t.Fatal("an HW of 1000 was packed into 8 bits")
	}
}
