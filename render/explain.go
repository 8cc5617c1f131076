package render

import (
	"fmt"
	"strings"

	"github.com/hwepoch/hwepoch/model"
)

// caption is a step's action and, where the action's effect is not drawn
// (a request, an answer), what it carried: the answers are what the
// scenarios turn on.
func caption(cfg *model.Config, prev, cur *model.State, a model.Action) string {
	s := a.String()
	idx := func(r model.Replica) int { return cfg.Index(r) }
	switch a.Kind {
	case model.Elect:
		if !model.Contains(prev.CtrlIsr, a.R) {
			return s + " unclean"
		}
	case model.SendOffsetsForLeaderEpoch:
		if m := cur.Inflight[idx(a.F)]; m.Type == model.MsgOffsetsForLeaderEpoch {
			if m.Epoch < 0 {
				return s + " asks, cache empty"
			}
			return fmt.Sprintf("%s asks about e%d", s, m.Epoch)
		}
	case model.HandleOffsetsForLeaderEpoch:
		m := cur.Inflight[idx(a.F)]
		switch {
		case m.Error != model.ErrNone:
			return s + " → " + m.Error.String()
		case m.Offset == -1:
			return s + " → undefined"
		case m.Epoch == -1:
			return fmt.Sprintf("%s → %d", s, m.Offset)
		}
		return fmt.Sprintf("%s → e%d ends at %d", s, m.Epoch, m.Offset)
	case model.SendFetch:
		if m := cur.Inflight[idx(a.F)]; m.Type == model.MsgFetch {
			if m.LastFetchedEpoch >= 0 {
				return fmt.Sprintf("%s at %d, last e%d", s, m.Offset, m.LastFetchedEpoch)
			}
			return fmt.Sprintf("%s at %d", s, m.Offset)
		}
	case model.HandleFetch:
		m := cur.Inflight[idx(a.F)]
		switch {
		case m.Type == model.MsgNone:
			return s + " (orphan dropped)"
		case m.Error != model.ErrNone:
			return s + " → " + m.Error.String()
		case m.Diverging:
			return fmt.Sprintf("%s → diverging: e%d ends at %d", s, m.DivergingEpoch.Epoch, m.DivergingEpoch.Offset)
		}
		return fmt.Sprintf("%s → %d rec, hw %d", s, len(m.Records), m.Hw)
	case model.ShrinkIsr, model.ExpandIsr:
		if m := cur.AlterPartition[idx(a.L)]; m.Type == model.MsgAlterPartition && prev.AlterPartition[idx(a.L)].Type == model.MsgNone {
			return fmt.Sprintf("%s proposes %s", s, isrText(m.Isr))
		}
	case model.HandleAlterPartition:
		m := cur.AlterPartition[idx(a.L)]
		if m.Error != model.ErrNone {
			return s + " → " + m.Error.String()
		}
		return fmt.Sprintf("%s → %s, pe %d", s, isrText(m.Isr), m.PartitionEpoch)
	case model.Crash:
		if lost := prev.LEO(idx(a.R)) - a.Keep; lost > 0 {
			return fmt.Sprintf("%s loses %d", s, lost)
		}
	}
	return s
}

// isrText writes a set of replicas as the captions do: {r1,r2}.
func isrText(isr []model.Replica) string {
	parts := make([]string, len(isr))
	for i, r := range isr {
		parts[i] = string(r)
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// explain says why s violates invariant name, naming replicas and offsets.
func explain(cfg *model.Config, s *model.State, name string) string {
	rec := func(r, o int) string { return fmt.Sprintf("m%d", s.Log[r][o].ID) }
	switch name {
	case "NoAckedLoss", "NoVisibleLoss":
		set, what := s.Acked, "acked"
		if name == "NoVisibleLoss" {
			set, what = s.Committed, "committed"
		}
		l := cfg.Index(s.CtrlLeader)
		if l < 0 {
			break
		}
		var miss []string
		for _, x := range set {
			if !model.HasRecord(s, l, x) {
				miss = append(miss, fmt.Sprintf("m%d@%d", x.ID, x.Offset))
			}
		}
		return fmt.Sprintf("leader %s lacks %s %s", s.CtrlLeader, what, strings.Join(miss, " "))
	case "NoDivergence", "CommittedPrefixesAgree":
		for r := range cfg.Replicas {
			for q := r + 1; q < cfg.N(); q++ {
				if name == "NoDivergence" && !(model.Reconciled(s, r) && model.Reconciled(s, q) && s.LeaderEpoch[r] == s.LeaderEpoch[q]) {
					continue
				}
				if name == "CommittedPrefixesAgree" && !(s.Up(r) && s.Up(q)) {
					continue
				}
				for o := 0; o < min(s.Hw[r], s.Hw[q]); o++ {
					if s.Log[r][o] != s.Log[q][o] {
						return fmt.Sprintf("offset %d: %s on %s, %s on %s, below both HWs",
							o, rec(r, o), cfg.Replicas[r], rec(q, o), cfg.Replicas[q])
					}
				}
			}
		}
	case "EpochCacheMatchesLog":
		for r := range cfg.Replicas {
			if !s.Up(r) {
				continue
			}
			for o := range s.Log[r] {
				cover := -1
				for _, e := range s.EpochCache[r] {
					if e.Start <= o {
						cover = e.Epoch
					}
				}
				if cover != s.Log[r][o].Epoch {
					return fmt.Sprintf("%s's cache says e%d at offset %d, the record is e%d", cfg.Replicas[r], cover, o, s.Log[r][o].Epoch)
				}
			}
		}
	}
	return "violated"
}

// Caption is a step's action and what it carried, as the timeline's panels
// caption it (the interactive viewer, internal/viewer, says it the same way).
func Caption(cfg *model.Config, prev, cur *model.State, a model.Action) string {
	return caption(cfg, prev, cur, a)
}
