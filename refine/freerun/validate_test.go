package freerun

import (
	"slices"
	"strings"
	"testing"

	"github.com/hwepoch/hwepoch/impl/cluster"
	"github.com/hwepoch/hwepoch/model"
)

// The validator bites: a recording it accepts, tampered with in one event,
// is rejected at that event, with a reason that says what is wrong.
func TestValidatorRejectsTamperedRecordings(t *testing.T) {
	var rec Recording
	for seed := uint64(1); ; seed++ {
		rec = Record(DefaultOptions(Configs[0], seed))
		if rec.Err != nil {
			t.Fatal(rec.Err)
		}
		if rep := Validate(rec); rep.Err == nil {
			break
		} else if seed == 5 {
			t.Fatalf("no clean recording in 5 runs: %v", rep.Err)
		}
	}
	find := func(action string) int {
		for i, e := range rec.Events {
			if e.Action == action && e.Partition.String() == rec.Focus {
				return i
			}
		}
		t.Fatalf("no %s event", action)
		return -1
	}
	tamper := func(name, want string, f func(evs []cluster.Event)) {
		t.Run(name, func(t *testing.T) {
			bad := rec
			bad.Events = slices.Clone(rec.Events)
			f(bad.Events)
			rep := Validate(bad)
			if rep.Err == nil {
				t.Fatal("the validator accepted it")
			}
			if !strings.Contains(rep.Err.Error(), want) {
				t.Fatalf("want an error saying %q, got: %v", want, rep.Err)
			}
		})
	}
	tamper("post-state", "post-state differs", func(evs []cluster.Event) {
		i := find(model.HandleFetchResponse.String())
		evs[i].Post.HW += 7
	})
	tamper("unknown action", `the spec has no action "Frobnicate"`, func(evs []cluster.Event) {
		evs[find(model.CheckpointHW.String())].Action = "Frobnicate"
	})
	tamper("missing parameter", "has no parameter f", func(evs []cluster.Event) {
		i := find(model.SendFetch.String())
		evs[i].Params = map[string]int64{}
	})
	tamper("no such broker", "broker 9 plays no replica", func(evs []cluster.Event) {
		i := find(model.HandleFetch.String())
		evs[i].Params = map[string]int64{"l": 9, "f": evs[i].Params["f"]}
	})
	tamper("not enabled", "not a step of the model: Restart(r1) is not enabled", func(evs []cluster.Event) {
		i := find(model.SendFetch.String())
		evs[i].Action, evs[i].Params = cluster.ActRestart, map[string]int64{"r": 1}
	})
}
