package scenario

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/hwepoch/hwepoch/model"
)

// Final assertions pin down the end state a scenario is about (whose log
// lost what, where two logs differ), so that a change to the model that
// still happens to give the same verdict for another reason is caught.

// fields are the assertable spec variables (and LEO), and whether each is
// per replica.
var fields = []struct {
	name       string
	perReplica bool
}{
	{"log", true}, {"epochCache", true}, {"hwCheckpoint", true}, {"role", true},
	{"leaderEpoch", true}, {"leader", true}, {"hw", true}, {"LEO", true}, {"fetchState", true},
	{"isr", true}, {"followerLeo", true}, {"produceEpoch", true}, {"partitionEpoch", true}, {"pendingIsr", true},
	{"ctrlLeader", false}, {"ctrlEpoch", false}, {"ctrlIsr", false}, {"ctrlPartitionEpoch", false},
	{"ctrlElr", false}, {"brokerEpoch", true}, {"ctrlLastKnownElr", false},
	{"nextId", false}, {"crashes", false}, {"acked", false}, {"committed", false},
}

func fieldPerReplica(name string) (perReplica, ok bool) {
	for _, f := range fields {
		if f.name == name {
			return f.perReplica, true
		}
	}
	return false, false
}

func fieldNames() string {
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.name
	}
	return strings.Join(names, " ")
}

// final reads "SEL... FIELD [REPLICA] = VALUE".
func (p *parser) final(n int, rest string) error {
	// The '=' that separates the value is a word of its own: selectors
	// such as Fencing=TRUE contain one too.
	all := strings.Fields(rest)
	eq := slices.Index(all, "=")
	if eq < 0 {
		return p.errAt(n, rest, "write: final [POLICY|VARIANT ...] FIELD [REPLICA] = VALUE, with spaces around '='")
	}
	toks, lhs, rhs := all[:eq], strings.Join(all[:eq], " "), strings.Join(all[eq+1:], " ")
	at := -1
	for i, tok := range toks {
		if _, ok := fieldPerReplica(tok); ok {
			at = i
			break
		}
	}
	if at < 0 {
		return p.errAt(n, lhs, "no field to assert on (fields: %s)", fieldNames())
	}
	f := Final{Line: n, Field: toks[at]}
	per, _ := fieldPerReplica(f.Field)
	args := toks[at+1:]
	switch {
	case per && len(args) != 1:
		return p.errAt(n, f.Field, "%s is per replica: write final %s REPLICA = VALUE", f.Field, f.Field)
	case per && !isIdent(args[0]):
		return p.errAt(n, args[0], "not a replica name")
	case per:
		f.Replica = model.Replica(args[0])
	case len(args) != 0:
		return p.errAt(n, args[0], "%s is not per replica: write final %s = VALUE", f.Field, f.Field)
	}
	f.Want = strings.Join(strings.Fields(rhs), " ")
	if f.Want == "" {
		return p.errAt(n, rest, "no value after '=' (write empty for an empty log, cache or set)")
	}
	// The same field of the same replica under the same selectors asserted
	// twice is a slip (the second either repeats or contradicts the first).
	for _, g := range p.sc.Finals {
		if g.Field == f.Field && g.Replica == f.Replica && p.selectorText(g.Line) == strings.Join(toks[:at], " ") {
			return p.errAt(n, lhs, "already asserted on line %d", g.Line)
		}
	}
	idx := len(p.sc.Finals)
	p.sc.Finals = append(p.sc.Finals, f)
	p.sels = append(p.sels, rawSelector{line: n, toks: toks[:at], set: func(s Selector) { p.sc.Finals[idx].Only = s }})
	return nil
}

// fieldValue writes field of s canonically, as final lines spell values.
func fieldValue(cfg *model.Config, s *model.State, field string, r model.Replica) string {
	i := cfg.Index(r)
	list := func(parts []string) string {
		if len(parts) == 0 {
			return "empty"
		}
		return strings.Join(parts, " ")
	}
	ids := func(xs []model.OffsetID) string {
		parts := make([]string, len(xs))
		for k, x := range xs {
			parts[k] = fmt.Sprintf("%d:%d", x.Offset, x.ID)
		}
		return list(parts)
	}
	switch field {
	case "log":
		parts := make([]string, len(s.Log[i]))
		for o, x := range s.Log[i] {
			parts[o] = fmt.Sprintf("%d:%d/%d", o, x.Epoch, x.ID)
		}
		return list(parts)
	case "epochCache":
		parts := make([]string, len(s.EpochCache[i]))
		for k, e := range s.EpochCache[i] {
			parts[k] = fmt.Sprintf("%d@%d", e.Epoch, e.Start)
		}
		return list(parts)
	case "hwCheckpoint":
		return strconv.Itoa(s.HwCheckpoint[i])
	case "role":
		return s.Role[i].String()
	case "leaderEpoch":
		return strconv.Itoa(s.LeaderEpoch[i])
	case "leader":
		return string(s.Leader[i])
	case "hw":
		return strconv.Itoa(s.Hw[i])
	case "LEO":
		return strconv.Itoa(s.LEO(i))
	case "fetchState":
		return s.FetchState[i].String()
	case "ctrlLeader":
		return string(s.CtrlLeader)
	case "ctrlEpoch":
		return strconv.Itoa(s.CtrlEpoch)
	case "ctrlIsr":
		return replicas(s.CtrlIsr)
	case "isr":
		return replicas(s.Isr[i])
	case "pendingIsr":
		return replicas(s.PendingIsr[i])
	case "followerLeo":
		parts := make([]string, len(s.FollowerLeo[i]))
		for k, v := range s.FollowerLeo[i] {
			parts[k] = strconv.Itoa(v)
		}
		return list(parts)
	case "produceEpoch":
		return strconv.Itoa(s.ProduceEpoch[i])
	case "partitionEpoch":
		return strconv.Itoa(s.PartitionEpoch[i])
	case "ctrlPartitionEpoch":
		return strconv.Itoa(s.CtrlPartitionEpoch)
	case "ctrlElr":
		return replicas(s.CtrlElr)
	case "brokerEpoch":
		return strconv.Itoa(s.BrokerEpoch[i])
	case "ctrlLastKnownElr":
		return replicas(s.CtrlLastKnownElr)
	case "nextId":
		return strconv.Itoa(s.NextId)
	case "crashes":
		return strconv.Itoa(s.Crashes)
	case "acked":
		return ids(s.Acked)
	case "committed":
		return ids(s.Committed)
	}
	return ""
}

// replicas writes a set of replicas as final lines spell it.
func replicas(xs []model.Replica) string {
	if len(xs) == 0 {
		return "empty"
	}
	parts := make([]string, len(xs))
	for k, x := range xs {
		parts[k] = string(x)
	}
	return strings.Join(parts, " ")
}

// failedFinals lists the final assertions of case c that s does not meet.
func (sc Scenario) failedFinals(c Case, cfg *model.Config, s *model.State) []string {
	var out []string
	for _, f := range sc.Finals {
		if !f.Only.Matches(c) {
			continue
		}
		if got := fieldValue(cfg, s, f.Field, f.Replica); got != f.Want {
			out = append(out, fmt.Sprintf("%s:%d: final %s, got %s", sc.Path, f.Line, f, got))
		}
	}
	return out
}

// selectorText is the selector words of the final line n, as written.
func (p *parser) selectorText(n int) string {
	for _, r := range p.sels {
		if r.line == n {
			return strings.Join(r.toks, " ")
		}
	}
	return ""
}
