// Package coverage measures which branches of the follower truncation rule
// and which leader paths a trace source reaches: TLC's traces, the named
// scenarios, the regressions, random traces and simulated runs. Each step
// of a trace is classified on the model's state before it, so every source
// is measured by the same yardstick.
package coverage

import (
	"fmt"
	"strings"

	"github.com/hwepoch/hwepoch/model"
)

// The branches, in the order the table lists them. T: the follower's
// truncation rule (TruncationTarget, and HighWatermark's truncation on
// becoming a follower); L: the leader's answers.
var Branches = []string{
	TruncHWBecomeFollower,
	TruncUndefined,
	TruncKip101Cuts, TruncKip101Keeps,
	TruncOwnUndefined, TruncAskAgain,
	TruncLeaderEndBinds, TruncOwnEndBinds, TruncNothingToCut,
	TruncIgnored,
	LeaderOffsetsError, LeaderOffsetsSameEpoch, LeaderOffsetsLowerEpoch, LeaderOffsetsUndefined, LeaderOffsetsKip101,
	LeaderFetchError, LeaderFetchOutOfRange, LeaderFetchRecords, LeaderFetchEmpty, LeaderFetchAdvancesHW,
}

const (
	TruncHWBecomeFollower = "T HighWatermark: a new follower truncates to its HW"
	TruncUndefined        = "T leader offset undefined: truncate to the HW"
	TruncKip101Cuts       = "T Kip101: the leader's offset cuts the log"
	TruncKip101Keeps      = "T Kip101: the leader's offset is at or past the LEO"
	TruncOwnUndefined     = "T LeaderEpoch: no own epoch at or below the leader's: its offset"
	TruncAskAgain         = "T LeaderEpoch: own epoch differs (KIP-279): truncate, ask again"
	TruncLeaderEndBinds   = "T LeaderEpoch: same epoch, the leader's copy ends first"
	TruncOwnEndBinds      = "T LeaderEpoch: same epoch, own copy ends first, a later own epoch follows"
	TruncNothingToCut     = "T LeaderEpoch: same epoch, nothing to cut (LEO binds)"
	TruncIgnored          = "T response ignored (stale, error, or not truncating)"

	LeaderOffsetsError      = "L OffsetsForLeaderEpoch: error (not leader, fenced, unknown epoch)"
	LeaderOffsetsSameEpoch  = "L OffsetsForLeaderEpoch: the asked epoch, its end"
	LeaderOffsetsLowerEpoch = "L OffsetsForLeaderEpoch: a lower epoch, its end (KIP-279)"
	LeaderOffsetsUndefined  = "L OffsetsForLeaderEpoch: undefined (no epoch at or below)"
	LeaderOffsetsKip101     = "L OffsetsForLeaderEpoch: Kip101's start of the next epoch"
	LeaderFetchError        = "L Fetch: error (not leader, fenced, unknown epoch)"
	LeaderFetchOutOfRange   = "L Fetch: offset out of range"
	LeaderFetchRecords      = "L Fetch: records"
	LeaderFetchEmpty        = "L Fetch: no records"
	LeaderFetchAdvancesHW   = "L Fetch: the leader's HW advances"
)

// Classify names the branches step a, taken in state s, reaches.
func Classify(cfg *model.Config, s model.State, a model.Action) []string {
	idx := cfg.Index
	switch a.Kind {
	case model.HandleLeaderAndIsr:
		r := idx(a.R)
		q := s.ControllerQueue[r]
		if cfg.Truncation == model.HighWatermark && len(q) > 0 && q[0].Epoch > s.LeaderEpoch[r] &&
			q[0].Leader != a.R && s.Hw[r] < s.LEO(r) {
			return []string{TruncHWBecomeFollower}
		}
	case model.HandleOffsetsForLeaderEpochResponse:
		f := idx(a.F)
		m := s.Inflight[f]
		if !model.AcceptsResponse(&s, f, m) || s.FetchState[f] != model.Truncating || m.Error != model.ErrNone {
			return []string{TruncIgnored}
		}
		leo := s.LEO(f)
		switch {
		case m.Offset == -1:
			return []string{TruncUndefined}
		case cfg.Truncation == model.Kip101 && m.Offset < leo:
			return []string{TruncKip101Cuts}
		case cfg.Truncation == model.Kip101:
			return []string{TruncKip101Keeps}
		}
		own := model.EndOffsetFor(s.EpochCache[f], leo, m.Epoch)
		switch {
		case own.Offset == -1:
			return []string{TruncOwnUndefined}
		case own.Epoch != m.Epoch:
			return []string{TruncAskAgain}
		case m.Offset < own.Offset && m.Offset < leo:
			return []string{TruncLeaderEndBinds}
		case own.Offset < m.Offset && own.Offset < leo:
			return []string{TruncOwnEndBinds}
		}
		return []string{TruncNothingToCut}
	case model.HandleOffsetsForLeaderEpoch:
		l, f := idx(a.L), idx(a.F)
		m := s.Inflight[f]
		switch ans := model.EndOffsetFor(s.EpochCache[l], s.LEO(l), m.Epoch); {
		case model.RequestError(cfg, &s, l, m) != model.ErrNone:
			return []string{LeaderOffsetsError}
		case cfg.Truncation == model.Kip101:
			return []string{LeaderOffsetsKip101}
		case ans.Offset == -1:
			return []string{LeaderOffsetsUndefined}
		case ans.Epoch == m.Epoch:
			return []string{LeaderOffsetsSameEpoch}
		default:
			return []string{LeaderOffsetsLowerEpoch}
		}
	case model.HandleFetch:
		l, f := idx(a.L), idx(a.F)
		m := s.Inflight[f]
		if model.RequestError(cfg, &s, l, m) != model.ErrNone {
			return []string{LeaderFetchError}
		}
		if m.Offset > s.LEO(l) {
			return []string{LeaderFetchOutOfRange}
		}
		if m.Offset < s.LEO(l) {
			return []string{LeaderFetchRecords}
		}
		return []string{LeaderFetchEmpty}
	case model.UpdateFollowerFetchState:
		// The fetch's second half: the leader's view of the follower, and
		// its HW, move here (HandleFetch only reads).
		l := idx(a.L)
		if t, err := model.Apply(cfg, s, a); err == nil && t.Hw[l] > s.Hw[l] {
			return []string{LeaderFetchAdvancesHW}
		}
	}
	return nil
}

// Tally counts branches per source.
type Tally struct {
	Sources []string // in the order added
	counts  map[string]map[string]int
	steps   map[string]int
	units   map[string]string
}

// NewTally is an empty tally.
func NewTally() *Tally {
	return &Tally{counts: map[string]map[string]int{}, steps: map[string]int{}, units: map[string]string{}}
}

// Source declares a column, described by what it holds ("34 traces").
func (t *Tally) Source(name, units string) {
	if _, ok := t.counts[name]; !ok {
		t.Sources = append(t.Sources, name)
		t.counts[name] = map[string]int{}
	}
	t.units[name] = units
}

// Step classifies one step of source.
func (t *Tally) Step(source string, cfg *model.Config, s model.State, a model.Action) {
	t.steps[source]++
	for _, b := range Classify(cfg, s, a) {
		t.counts[source][b]++
	}
}

// Trace classifies every step of a trace given by its actions from Init.
func (t *Tally) Trace(source string, cfg *model.Config, actions []model.Action) error {
	s := model.Init(cfg)
	for i, a := range actions {
		t.Step(source, cfg, s, a)
		next, err := model.Apply(cfg, s, a)
		if err != nil {
			return fmt.Errorf("step %d %s: %w", i+1, a, err)
		}
		s = next
	}
	return nil
}

// Count is how often source reached branch.
func (t *Tally) Count(source, branch string) int { return t.counts[source][branch] }

// Unreached lists the branches no source reached.
func (t *Tally) Unreached() []string {
	var out []string
	for _, b := range Branches {
		n := 0
		for _, s := range t.Sources {
			n += t.counts[s][b]
		}
		if n == 0 {
			out = append(out, b)
		}
	}
	return out
}

// Markdown is the table: a row per branch, a column per source, each cell
// the number of steps that reached it ("–" for none).
func (t *Tally) Markdown() string {
	var b strings.Builder
	b.WriteString("| branch |")
	for _, s := range t.Sources {
		fmt.Fprintf(&b, " %s |", s)
	}
	b.WriteString("\n|---|")
	for range t.Sources {
		b.WriteString("---:|")
	}
	b.WriteString("\n| *(what the source holds)* |")
	for _, s := range t.Sources {
		fmt.Fprintf(&b, " *%s* |", t.units[s])
	}
	b.WriteString("\n| *(steps)* |")
	for _, s := range t.Sources {
		fmt.Fprintf(&b, " *%d* |", t.steps[s])
	}
	b.WriteString("\n")
	for _, br := range Branches {
		fmt.Fprintf(&b, "| %s |", br)
		for _, s := range t.Sources {
			if n := t.counts[s][br]; n > 0 {
				fmt.Fprintf(&b, " %d |", n)
			} else {
				b.WriteString(" – |")
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}
