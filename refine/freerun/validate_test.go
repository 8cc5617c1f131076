package freerun

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/hwepoch/hwepoch/impl/client"
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
	tamperCases(t, rec)
	ackCases(t, rec)
}

// ackCases: a recording whose producers claim an acknowledgement the model
// never gave is rejected, naming the record.
func ackCases(t *testing.T, rec Recording) {
	t.Helper()
	if len(rec.Acked) == 0 {
		t.Fatal("the recording acknowledged nothing: the acknowledgement check would be empty")
	}
	a := rec.Acked[len(rec.Acked)-1]
	for name, bad := range map[string]client.OffsetID{
		"wrong offset":   {Offset: a.Offset + 100, ID: a.ID},
		"never appended": {Offset: a.Offset, ID: 1 << 40},
	} {
		r := rec
		r.Acked = append(slices.Clone(rec.Acked), bad)
		rep := Validate(r)
		if rep.Err == nil || !strings.Contains(rep.Err.Error(), "acknowledgements:") || !strings.Contains(rep.Err.Error(), fmt.Sprint(bad.ID)) {
			t.Errorf("%s: a claimed acknowledgement of record %d at offset %d was not rejected as such: %v", name, bad.ID, bad.Offset, rep.Err)
		}
	}
}

// tamperCases tampers with rec, which the validator accepts, one event at a
// time, and checks that the validator rejects each, saying why. It tampers
// with the first event of a kind with no crash among the next 40 events:
// one just before a crash the validator could reorder past the crash (a
// bridge), which carries its search beyond the tampered event, so that it
// reports a later event as the furthest it got. (An event late in the run
// would do too, but the search backtracks through every earlier choice
// before it gives up on a post-state or an enabling condition: seconds,
// where this takes milliseconds. An unknown action or parameter stops the
// search at once: no order maps it.)
func tamperCases(t *testing.T, rec Recording) {
	t.Helper()
	find := func(action string) int {
		i := tamperTarget(rec, action)
		if i < 0 {
			t.Fatalf("no %s event with no crash among the next 40", action)
		}
		return i
	}
	fetchResponse, checkpoint := find(model.HandleFetchResponse.String()), find(model.CheckpointHW.String())
	sendFetch, handleFetch := find(model.SendFetch.String()), find(model.HandleFetch.String())
	update := find(model.UpdateFollowerFetchState.String())
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
		evs[fetchResponse].Post.HW += 7
	})
	tamper("unknown action", `the spec has no action "Frobnicate"`, func(evs []cluster.Event) {
		evs[checkpoint].Action = "Frobnicate"
	})
	tamper("missing parameter", "has no parameter f", func(evs []cluster.Event) {
		evs[sendFetch].Params = map[string]int64{}
	})
	tamper("no such broker", "broker 9 plays no replica", func(evs []cluster.Event) {
		evs[handleFetch].Params = map[string]int64{"l": 9, "f": evs[handleFetch].Params["f"]}
	})
	// The leader's update of its view of the follower is a step of its own
	// (the spec's UpdateFollowerFetchState), its post-state checked like
	// any other; and it must complete a request some event sent.
	tamper("update's view", "post-state differs", func(evs []cluster.Event) {
		views := maps.Clone(evs[update].Post.FollowerLEO)
		views[int32(evs[update].Params["f"])] += 3
		evs[update].Post.FollowerLEO = views
	})
	tamper("update of no request", "which no recorded event sent", func(evs []cluster.Event) {
		evs[update].Received = 1 << 40
	})
	// The broker that sent a fetch is up: it cannot restart.
	b := rec.Events[sendFetch].Broker
	tamper("not enabled", fmt.Sprintf("not a step of the model: Restart(r%d) is not enabled", b), func(evs []cluster.Event) {
		evs[sendFetch].Action, evs[sendFetch].Params = cluster.ActRestart, map[string]int64{"r": int64(b)}
	})
}

// tamperActions are the actions tamperCases tampers with.
var tamperActions = []string{model.HandleFetchResponse.String(), model.CheckpointHW.String(), model.SendFetch.String(),
	model.HandleFetch.String(), model.UpdateFollowerFetchState.String()}

// tamperTarget is the first event of rec's focus partition with the given
// action and no crash among the next 40 events, -1 if none (see
// tamperCases).
func tamperTarget(rec Recording, action string) int {
	quiet := func(i int) bool {
		for _, e := range rec.Events[i+1 : min(i+41, len(rec.Events))] {
			if e.Action == cluster.ActCrash {
				return false
			}
		}
		return true
	}
	for i, e := range rec.Events {
		if e.Action == action && e.Partition.String() == rec.Focus && quiet(i) {
			return i
		}
	}
	return -1
}

// tamperable reports whether tamperCases finds every event it tampers
// with in rec.
func tamperable(rec Recording) bool {
	for _, a := range tamperActions {
		if tamperTarget(rec, a) < 0 {
			return false
		}
	}
	return true
}
