package viewer

import (
	"bytes"
	"fmt"
	"go/format"
	"regexp"
	"strings"

	"github.com/hwepoch/hwepoch/model"
)

// What each spec action follows in Kafka's code comes from the docs, not
// from this package: the Kafka source column of docs/mapping.md's action
// table, and the release columns of docs/kafka-releases.md's summary
// table. kafka_gen.go holds both as parsed by Generate; TestKafkaTableIsCurrent
// regenerates it from the docs and fails when it differs (go test
// ./internal/viewer -run TestKafkaTableIsCurrent -update rewrites it).
//
// Which behaviours of the summary table an action exercises is the one
// judgement made here: behaviours lists them per action.
var behaviours = map[model.ActionKind][]string{
	model.Elect:                               {"Crashed-leader handling"},
	model.HandleLeaderAndIsr:                  {"Truncation trigger (LeaderAndIsr as follower)", "When the leader gets its cache entry", "Leader's view of followers reset on becoming leader"},
	model.Produce:                             {"When the leader gets its cache entry", "DelayedProduce epoch check"},
	model.SendOffsetsForLeaderEpoch:           {"UNDEFINED handling (OffsetsForLeaderEpoch)", "Fencing"},
	model.HandleOffsetsForLeaderEpoch:         {"UNDEFINED handling (OffsetsForLeaderEpoch)", "Fencing"},
	model.HandleOffsetsForLeaderEpochResponse: {"UNDEFINED handling (OffsetsForLeaderEpoch)", "Epoch cache assign rule"},
	model.SendFetch:                           {"Fencing"},
	model.HandleFetch:                         {"Fetch atomicity (leader)", "Fencing"},
	model.UpdateFollowerFetchState:            {"Fetch atomicity (leader)", "ISR expand rule"},
	model.HandleFetchResponse:                 {"Epoch cache assign rule", "OFFSET_OUT_OF_RANGE (follower)"},
	model.ShrinkIsr:                           {"ISR change protocol"},
	model.ExpandIsr:                           {"ISR expand rule", "ISR change protocol"},
	model.HandleAlterPartition:                {"ISR change protocol"},
	model.HandleAlterPartitionResponse:        {"ISR change protocol"},
	model.CheckpointHW:                        nil,
	model.Crash:                               {"Crashed-leader handling"},
	model.Restart:                             {"Truncation trigger (LeaderAndIsr as follower)"},
	model.LoseMessage:                         nil,
	model.MissLeaderAndIsr:                    {"Truncation trigger (LeaderAndIsr as follower)"},
}

// KafkaRef is what the page shows under a step: the Kafka source the
// action follows (docs/mapping.md) and, for the page's release, what the
// release does in each behaviour the action exercises
// (docs/kafka-releases.md).
type KafkaRef struct {
	Source  string        `json:"source"`
	Release []ReleaseCell `json:"release,omitempty"`
}

// ReleaseCell is one cell of the summary table.
type ReleaseCell struct {
	Behaviour string `json:"behaviour"`
	Text      string `json:"text"`
}

// Ref is action kind k's reference for Kafka release rel ("2.1.0", as
// model.Release names it).
func Ref(k model.ActionKind, rel string) KafkaRef {
	ref := KafkaRef{Source: kafkaSource[k.String()]}
	col := releaseColumn(rel)
	for _, b := range behaviours[k] {
		if cells, ok := releaseTable[b]; ok && col >= 0 && col < len(cells) {
			ref.Release = append(ref.Release, ReleaseCell{Behaviour: b, Text: cells[col]})
		}
	}
	return ref
}

// releaseColumn is the summary table's column of release rel: the one
// whose header starts with it ("0.11.0.3" is the column "0.11.0.3-rc0").
func releaseColumn(rel string) int {
	if rel == "" {
		return -1
	}
	for i, h := range releaseHeaders {
		if strings.HasPrefix(h, rel) {
			return i
		}
	}
	return -1
}

var (
	actionRow = regexp.MustCompile("^\\| `([A-Za-z]+)\\(")
	boldName  = regexp.MustCompile(`^\*\*(.+)\*\*$`)
)

// cells splits a Markdown table row, keeping escaped pipes (\|) in cells.
func cells(row string) []string {
	row = strings.TrimSpace(row)
	row = strings.TrimPrefix(strings.TrimSuffix(row, "|"), "|")
	row = strings.ReplaceAll(row, `\|`, "\x00")
	parts := strings.Split(row, "|")
	for i, p := range parts {
		parts[i] = strings.TrimSpace(strings.ReplaceAll(p, "\x00", "|"))
	}
	return parts
}

// Generate parses docs/mapping.md and docs/kafka-releases.md and returns
// the Go source of kafka_gen.go.
func Generate(mapping, releases string) ([]byte, error) {
	source := map[string]string{}
	inActions := false
	for _, line := range strings.Split(mapping, "\n") {
		if strings.HasPrefix(line, "## ") {
			// Only section (b)'s table maps Next's actions; the liveness
			// section names the module's operators.
			inActions = strings.HasPrefix(line, "## (b) Actions")
			continue
		}
		if !inActions {
			continue
		}
		m := actionRow.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		c := cells(line)
		if len(c) != 4 {
			return nil, fmt.Errorf("docs/mapping.md: the row of %s has %d cells, want 4 (spec action, model, implementation, Kafka source)", m[1], len(c))
		}
		if _, err := model.ParseActionKind(m[1]); err != nil {
			return nil, fmt.Errorf("docs/mapping.md: %v", err)
		}
		source[m[1]] = c[3]
	}
	for _, k := range model.ActionKinds() {
		if source[k.String()] == "" {
			return nil, fmt.Errorf("docs/mapping.md's action table has no Kafka source for %s", k)
		}
	}
	var headers []string
	table := map[string][]string{}
	var order []string
	in := false
	for _, line := range strings.Split(releases, "\n") {
		switch {
		case strings.HasPrefix(line, "| Behaviour |"):
			headers = cells(line)[1:]
			in = true
		case in && strings.HasPrefix(line, "|---"):
		case in && strings.HasPrefix(line, "| "):
			c := cells(line)
			m := boldName.FindStringSubmatch(c[0])
			if m == nil {
				return nil, fmt.Errorf("docs/kafka-releases.md: a summary row's behaviour is not bold: %q", c[0])
			}
			if len(c)-1 != len(headers) {
				return nil, fmt.Errorf("docs/kafka-releases.md: the row %q has %d release cells, the header %d", m[1], len(c)-1, len(headers))
			}
			row := c[1:]
			// "same", "identical" and "= 3.9" cells say the release does
			// what the column before does: say what that is.
			for i := 1; i < len(row); i++ {
				if r := row[i]; len(r) < 60 && (strings.HasPrefix(r, "same") || strings.HasPrefix(r, "identical") || strings.HasPrefix(r, "=")) {
					row[i] = r + " — as " + strings.Fields(headers[i-1])[0] + ": " + row[i-1]
				}
			}
			table[m[1]] = row
			order = append(order, m[1])
		case in:
			in = false
		}
	}
	if len(headers) == 0 {
		return nil, fmt.Errorf("docs/kafka-releases.md has no summary table (a row starting \"| Behaviour |\")")
	}
	for k, bs := range behaviours {
		for _, b := range bs {
			if _, ok := table[b]; !ok {
				return nil, fmt.Errorf("internal/viewer: %s exercises %q, which docs/kafka-releases.md's summary table does not have", k, b)
			}
		}
	}
	for _, rel := range []string{"0.10.2.2", "0.11.0.3", "2.1.0", "3.9.0"} {
		found := false
		for _, h := range headers {
			found = found || strings.HasPrefix(h, rel)
		}
		if !found {
			return nil, fmt.Errorf("docs/kafka-releases.md's summary table has no column for release %s", rel)
		}
	}
	var b bytes.Buffer
	b.WriteString("// Code generated by TestKafkaTableIsCurrent -update from docs/mapping.md and docs/kafka-releases.md; DO NOT EDIT.\n\npackage viewer\n\n")
	b.WriteString("// kafkaSource is docs/mapping.md's Kafka source column, by spec action.\nvar kafkaSource = map[string]string{\n")
	for _, k := range model.ActionKinds() {
		fmt.Fprintf(&b, "\t%q: %q,\n", k.String(), source[k.String()])
	}
	b.WriteString("}\n\n// releaseHeaders are the release columns of docs/kafka-releases.md's summary table.\nvar releaseHeaders = []string{\n")
	for _, h := range headers {
		fmt.Fprintf(&b, "\t%q,\n", h)
	}
	b.WriteString("}\n\n// releaseTable is that table's rows, by behaviour, one cell per release column.\nvar releaseTable = map[string][]string{\n")
	for _, name := range order {
		fmt.Fprintf(&b, "\t%q: {\n", name)
		for _, c := range table[name] {
			fmt.Fprintf(&b, "\t\t%q,\n", c)
		}
		b.WriteString("\t},\n")
	}
	b.WriteString("}\n")
	return format.Source(b.Bytes())
}
