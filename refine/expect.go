package refine

import (
	"fmt"

	"github.com/hwepoch/hwepoch/model"
)

// ExpectedInvariants are the spec's invariants a configuration promises:
// the ones every run of it must satisfy, so that a checker may demand them
// after every step. It follows the verdicts of spec/manifest.json and
// docs/spec.md:
//
//   - every configuration keeps the structural invariants (TypeOK,
//     HWBelowLEO, LeaderInIsr, EpochCacheWellFormed, RecordIdentity);
//   - LeaderEpoch with fencing (KIP-101 + KIP-279 + KIP-320) also keeps the
//     cache consistent with the log and never diverges (NoDivergence), even
//     with unclean elections or unflushed loss (le-unclean-nodiv,
//     le-unflushed);
//   - with clean elections and no unflushed loss it keeps the committed
//     prefixes equal and loses no visible record (le-fenced-2, le-fenced-3),
//     and with acks=all no acknowledged one.
//
// HighWatermark and Kip101 promise only the structural invariants: their
// divergence and loss are what the spec's counterexamples show, and a
// follower there can also fetch records whose epochs its cache does not
// cover (EpochCacheMatchesLog fails; model random walks find it, as they
// do without fencing under LeaderEpoch).
func ExpectedInvariants(cfg *model.Config) []string {
	out := []string{"TypeOK", "HWBelowLEO", "LeaderInIsr", "EpochCacheWellFormed", "RecordIdentity"}
	if cfg.Truncation != model.LeaderEpoch || !cfg.Fencing {
		return out
	}
	out = append(out, "EpochCacheMatchesLog", "NoDivergence")
	if cfg.UncleanLeaderElectionEnable || cfg.UnflushedLoss {
		return out
	}
	out = append(out, "CommittedPrefixesAgree", "NoVisibleLoss")
	if cfg.Acks == "all" || cfg.Acks == "0" {
		out = append(out, "NoAckedLoss")
	}
	return out
}

// Violated lists the invariants among names that s violates. An invariant
// that cannot be evaluated on s (it would index a log out of range, where
// TLC would stop with an evaluation error) counts as violated, marked so.
func Violated(cfg *model.Config, s model.State, names []string) []string {
	var out []string
	for _, n := range names {
		inv, ok := model.Invariants[n]
		if !ok {
			continue
		}
		if holds, err := evaluate(inv, cfg, s); err != nil {
			out = append(out, n+" (evaluation error: "+err.Error()+")")
		} else if !holds {
			out = append(out, n)
		}
	}
	return out
}

func evaluate(inv model.Invariant, cfg *model.Config, s model.State) (holds bool, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%v", p)
		}
	}()
	return inv(cfg, s), nil
}
