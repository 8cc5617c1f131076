package tlccfg

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/hwepoch/hwepoch/model"
)

// Format writes a TLC configuration for the spec: cfg's constants, the
// invariants and action properties to check and, with symmetry, SYMMETRY
// Symmetry. It is the inverse of Parse followed by ToCheck (format_test.go
// holds it to that), so a search configured in Go (hwepoch hunt's bugs) can
// be handed to TLC without a hand-written .cfg that could drift from it.
// header, if not empty, is written first as \* comment lines.
func Format(cfg model.Config, invariants, properties []string, symmetry bool, header string) []byte {
	var b bytes.Buffer
	if header != "" {
		for _, line := range strings.Split(strings.TrimRight(header, "\n"), "\n") {
			fmt.Fprintf(&b, "\\* %s\n", line)
		}
	}
	names := make([]string, len(cfg.Replicas))
	for i, r := range cfg.Replicas {
		names[i] = string(r)
	}
	spec := "Spec"
	for _, p := range properties {
		if _, ok := model.LiveProperties[p]; ok {
			spec = "LiveSpec" // the spec with its fairness (ReplicationLiveness)
		}
	}
	b.WriteString("SPECIFICATION " + spec + "\nCONSTANTS\n")
	constant := func(name, value string) { fmt.Fprintf(&b, "    %s = %s\n", name, value) }
	constant("Replicas", "{"+strings.Join(names, ", ")+"}")
	constant("None", string(model.None))
	constant("Truncation", fmt.Sprintf("%q", cfg.Truncation))
	constant("Fencing", tlaBool(cfg.Fencing))
	constant("Acks", fmt.Sprintf("%q", cfg.Acks))
	constant("MinInsyncReplicas", fmt.Sprint(cfg.MinInsyncReplicas))
	constant("MinIsrGatesHW", tlaBool(cfg.MinIsrGatesHW))
	constant("UncleanLeaderElectionEnable", tlaBool(cfg.UncleanLeaderElectionEnable))
	constant("UnflushedLoss", tlaBool(cfg.UnflushedLoss))
	constant("LossyNetwork", tlaBool(cfg.LossyNetwork))
	constant("MissedLeaderAndIsr", tlaBool(cfg.MissedLeaderAndIsr))
	constant("MaxRecords", fmt.Sprint(cfg.MaxRecords))
	constant("MaxEpoch", fmt.Sprint(cfg.MaxEpoch))
	constant("MaxCrashes", fmt.Sprint(cfg.MaxCrashes))
	constant("MaxPartitionEpoch", fmt.Sprint(cfg.MaxPartitionEpoch))
	if symmetry {
		b.WriteString("SYMMETRY Symmetry\n")
	}
	section := func(kw string, names []string) {
		if len(names) == 0 {
			return
		}
		b.WriteString(kw + "\n")
		for _, n := range names {
			fmt.Fprintf(&b, "    %s\n", n)
		}
	}
	section("INVARIANTS", invariants)
	section("PROPERTIES", properties)
	return b.Bytes()
}

func tlaBool(v bool) string {
	if v {
		return "TRUE"
	}
	return "FALSE"
}
