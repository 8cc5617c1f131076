package verify

import (
	"context"
	"strings"
	"testing"

	"github.com/hwepoch/hwepoch/internal/lemmas"
	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/trace/tlcjson"
)

// The lemma stage's record row passes a result equal to its record and
// TLC's count, and fails one that differs from either, or has no record:
// what TestLemmaPlans checked in go test for every plan it ran.
func TestLemmaRecordRowBites(t *testing.T) {
	cfg := model.Config{Replicas: []model.Replica{"r1", "r2"}, Truncation: model.HighWatermark, Acks: "all",
		MinInsyncReplicas: 1, MaxRecords: 1, MaxEpoch: 1, MaxCrashes: 1}
	rep, err := lemmas.Check(context.Background(), &cfg, lemmas.All, lemmas.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := lemmas.Plan{Config: "tiny"}
	rec := &lemmas.Recording{}
	rec.Put(lemmas.RecordOf("tiny", rep, "", ""))
	tlc := &tlcjson.Runs{Runs: []tlcjson.Run{{Name: "tiny", Verdict: "holds", DistinctStates: rep.Distinct, Depth: rep.Depth, SpecSHA256: "s"}}}
	if row := LemmaRecordRow(p, rep, rec, tlc, "s"); row.Status != Pass || row.Found != "the same" {
		t.Errorf("equal to its record and TLC's: %+v", row)
	}
	bad := lemmas.RecordOf("tiny", rep, "", "")
	bad.Lemmas[0].Premise++
	other := &lemmas.Recording{}
	other.Put(bad)
	if row := LemmaRecordRow(p, rep, other, tlc, "s"); row.Status != Fail || !strings.Contains(row.Found, bad.Lemmas[0].Lemma+": recorded") {
		t.Errorf("a premise count that is not the recorded one passed: %+v", row)
	}
	if row := LemmaRecordRow(p, rep, &lemmas.Recording{}, tlc, "s"); row.Status != Fail || !strings.Contains(row.Found, "no record") {
		t.Errorf("no record passed: %+v", row)
	}
	tlc.Runs[0].DistinctStates++
	if row := LemmaRecordRow(p, rep, rec, tlc, "s"); row.Status != Fail || !strings.Contains(row.Found, "TLC found") {
		t.Errorf("a count that is not TLC's passed: %+v", row)
	}
	if row := LemmaRecordRow(p, rep, rec, tlc, "another spec"); row.Status != Pass {
		t.Errorf("TLC's run of another spec was compared: %+v", row)
	}
	// A record marked pending (of an earlier spec) is compared with
	// nothing, and the row says so instead of passing.
	pending := &lemmas.Recording{}
	stale := bad
	stale.Pending = "recorded on an earlier spec"
	pending.Put(stale)
	if row := LemmaRecordRow(p, rep, pending, tlc, "s"); row.Status != Skipped || !strings.Contains(row.Found, "earlier spec") {
		t.Errorf("a pending record was not reported as skipped: %+v", row)
	}
}
