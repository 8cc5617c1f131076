package cluster

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/hwepoch/hwepoch/impl/broker"
)

// Step is one action of the spec with its arguments in the spec's order,
// e.g. HandleFetch(l, f) or Crash(r, keep): a replayable event.
type Step struct {
	Action string
	Args   []int64
}

// arity is every action's number of arguments.
var arity = map[string]int{
	ActElect:                                      1,
	broker.ActHandleLeaderAndIsr:                  1,
	broker.ActProduce:                             1,
	broker.ActSendOffsetsForLeaderEpoch:           1,
	broker.ActHandleOffsetsForLeaderEpoch:         2,
	broker.ActHandleOffsetsForLeaderEpochResponse: 1,
	broker.ActSendFetch:                           1,
	broker.ActHandleFetch:                         2,
	broker.ActUpdateFollowerFetchState:            2,
	broker.ActHandleFetchResponse:                 1,
	broker.ActShrinkIsr:                           2,
	broker.ActExpandIsr:                           2,
	ActHandleAlterPartition:                       1,
	broker.ActHandleAlterPartitionResponse:        1,
	broker.ActCheckpointHW:                        1,
	ActCrash:                                      2,
	ActRestart:                                    1,
	broker.ActLoseMessage:                         1,
	ActMissLeaderAndIsr:                           1,
}

// S builds a step.
func S(action string, args ...int64) Step { return Step{Action: action, Args: args} }

func (s Step) String() string {
	parts := make([]string, len(s.Args))
	for i, a := range s.Args {
		parts[i] = strconv.FormatInt(a, 10)
	}
	return s.Action + "(" + strings.Join(parts, ", ") + ")"
}

// ParseStep reads a step written by String.
func ParseStep(line string) (Step, error) {
	line = strings.TrimSpace(line)
	open := strings.IndexByte(line, '(')
	if open <= 0 || !strings.HasSuffix(line, ")") {
		return Step{}, fmt.Errorf("cluster: step %q is not Action(args)", line)
	}
	s := Step{Action: line[:open]}
	n, ok := arity[s.Action]
	if !ok {
		return Step{}, fmt.Errorf("cluster: unknown action %q", s.Action)
	}
	if body := strings.TrimSpace(line[open+1 : len(line)-1]); body != "" {
		for _, a := range strings.Split(body, ",") {
			v, err := strconv.ParseInt(strings.TrimSpace(a), 10, 64)
			if err != nil {
				return Step{}, fmt.Errorf("cluster: step %q: %w", line, err)
			}
			s.Args = append(s.Args, v)
		}
	}
	if len(s.Args) != n {
		return Step{}, fmt.Errorf("cluster: step %q: %s takes %d arguments", line, s.Action, n)
	}
	if err := s.inRange(); err != nil {
		return Step{}, fmt.Errorf("cluster: step %q: %w", line, err)
	}
	return s, nil
}

// inRange checks the arguments fit what Apply passes them as: a broker id
// is an int32 (Kafka's broker.id), so Elect(4294967297) must not become
// Elect(1) by narrowing; Crash's second argument is a record count, not
// negative.
func (s Step) inRange() error {
	for i, v := range s.Args {
		if s.Action == ActCrash && i == 1 {
			if v < 0 {
				return fmt.Errorf("%s's record count %d is negative", s.Action, v)
			}
			continue
		}
		if v < 0 || v > math.MaxInt32 {
			return fmt.Errorf("%s's argument %d, %d, is not a broker id (0..%d)", s.Action, i+1, v, math.MaxInt32)
		}
	}
	return nil
}

// Apply performs a step with the stepped API.
func (c *Cluster) Apply(s Step) error {
	n, ok := arity[s.Action]
	if !ok {
		return fmt.Errorf("cluster: unknown action %q", s.Action)
	}
	if len(s.Args) != n {
		return fmt.Errorf("cluster: %s takes %d arguments, got %d", s.Action, n, len(s.Args))
	}
	if err := s.inRange(); err != nil {
		return fmt.Errorf("cluster: %s: %w", s, err)
	}
	a := func(i int) int32 { return int32(s.Args[i]) }
	switch s.Action {
	case ActElect:
		return c.Elect(a(0))
	case broker.ActHandleLeaderAndIsr:
		return c.HandleLeaderAndIsr(a(0))
	case broker.ActProduce:
		return c.Produce(a(0))
	case broker.ActSendOffsetsForLeaderEpoch:
		return c.SendOffsetsForLeaderEpoch(a(0))
	case broker.ActHandleOffsetsForLeaderEpoch:
		return c.HandleOffsetsForLeaderEpoch(a(0), a(1))
	case broker.ActHandleOffsetsForLeaderEpochResponse:
		return c.HandleOffsetsForLeaderEpochResponse(a(0))
	case broker.ActSendFetch:
		return c.SendFetch(a(0))
	case broker.ActHandleFetch:
		return c.HandleFetch(a(0), a(1))
	case broker.ActUpdateFollowerFetchState:
		return c.UpdateFollowerFetchState(a(0), a(1))
	case broker.ActHandleFetchResponse:
		return c.HandleFetchResponse(a(0))
	case broker.ActShrinkIsr:
		return c.ShrinkIsr(a(0), a(1))
	case broker.ActExpandIsr:
		return c.ExpandIsr(a(0), a(1))
	case ActHandleAlterPartition:
		return c.HandleAlterPartition(a(0))
	case broker.ActHandleAlterPartitionResponse:
		return c.HandleAlterPartitionResponse(a(0))
	case broker.ActCheckpointHW:
		return c.CheckpointHW(a(0))
	case ActCrash:
		return c.Crash(a(0), s.Args[1])
	case ActRestart:
		return c.Restart(a(0))
	case broker.ActLoseMessage:
		return c.LoseMessage(a(0))
	case ActMissLeaderAndIsr:
		return c.MissLeaderAndIsr(a(0))
	}
	return fmt.Errorf("cluster: unknown action %q", s.Action)
}

// ApplyAll performs steps in order, stopping at the first error.
func (c *Cluster) ApplyAll(steps []Step) error {
	for i, s := range steps {
		if err := c.Apply(s); err != nil {
			return fmt.Errorf("step %d %s: %w", i+1, s, err)
		}
	}
	return nil
}
