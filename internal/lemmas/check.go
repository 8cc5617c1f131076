package lemmas

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/trace"
)

// Options configure Check.
type Options struct {
	// Symmetry explores one state per permutation class of the replicas, as
	// the configuration's SYMMETRY Symmetry makes TLC do. Every lemma is
	// symmetric in the replicas, so this loses nothing.
	Symmetry bool
	// Name labels counterexample traces.
	Name string
	// Progress, when set, gets a line every few seconds, starting with
	// ProgressPrefix (the verb running the check).
	Progress       io.Writer
	ProgressPrefix string
}

// Outcome is one lemma's result over the state graph.
type Outcome struct {
	Lemma    Lemma
	Premise  int64 // states (or steps) where the lemma had something to judge
	Violated *trace.Trace
}

// Report is the result of a Check.
type Report struct {
	Distinct int64 // distinct states (TLC's count for the same configuration)
	Steps    int64 // steps judged (successors generated, TLC's "states generated" minus the initial state)
	Depth    int
	Duration time.Duration
	Outcomes []Outcome
}

// OK reports that no lemma was violated.
func (r *Report) OK() bool {
	for _, o := range r.Outcomes {
		if o.Violated != nil {
			return false
		}
	}
	return true
}

type node struct {
	parent int32
	act    model.Action
}

// Check explores cfg's whole state graph breadth first from model.Init
// and judges every lemma on every state and every step. For each lemma it
// keeps the first (shortest) violation as a trace.
func Check(ctx context.Context, cfg *model.Config, lemmas []Lemma, opt Options) (*Report, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	start := time.Now()
	rep := &Report{Outcomes: make([]Outcome, len(lemmas))}
	for i, l := range lemmas {
		rep.Outcomes[i].Lemma = l
	}
	var perms [][]int
	if opt.Symmetry {
		perms = model.Permutations(cfg.N())
	}
	var buf []byte
	fp := func(s *model.State) uint64 {
		if perms != nil {
			var h uint64
			h, buf = model.SymmetricFingerprint(cfg, s, perms, buf)
			return h
		}
		buf = model.AppendEncoding(buf[:0], s)
		return model.Hash64(buf)
	}
	seen := map[uint64]int32{}
	var nodes []node
	type item struct {
		id  int32
		enc []byte // model.AppendEncoding of the state
	}
	init := model.Init(cfg)
	seen[fp(&init)] = 0
	nodes = append(nodes, node{parent: -1})
	frontier := []item{{0, model.Encode(init)}}
	// path rebuilds the trace to node id, then the extra step (a, t).
	path := func(id int32, extra *model.Action, t *model.State) *trace.Trace {
		var ids []int32
		for i := id; i >= 0; i = nodes[i].parent {
			ids = append(ids, i)
		}
		tr := &trace.Trace{Source: "lemmas", ConfigName: opt.Name}
		s := model.Init(cfg)
		tr.Steps = append(tr.Steps, trace.Step{State: s})
		for k := len(ids) - 2; k >= 0; k-- {
			a := nodes[ids[k]].act
			next, err := model.Apply(cfg, s, a)
			if err != nil {
				panic(fmt.Sprintf("lemmas: rebuilding a trace: %v", err))
			}
			s = next
			tr.Steps = append(tr.Steps, trace.Step{Action: a, State: s})
		}
		if extra != nil {
			tr.Steps = append(tr.Steps, trace.Step{Action: *extra, State: *t})
		}
		return tr
	}
	judgeState := func(id int32, s *model.State) {
		for i, l := range lemmas {
			if l.State == nil || rep.Outcomes[i].Violated != nil {
				continue
			}
			premise, ok := l.State(cfg, s)
			if premise {
				rep.Outcomes[i].Premise++
			}
			if !ok {
				rep.Outcomes[i].Violated = path(id, nil, nil)
			}
		}
	}
	judgeState(0, &init)
	last := time.Now()
	for len(frontier) > 0 {
		rep.Depth++
		var next []item
		for _, it := range frontier {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			s, err := model.Decode(it.enc)
			if err != nil {
				return nil, err
			}
			err = model.NextPtr(cfg, &s, func(a model.Action, t *model.State) bool {
				rep.Steps++
				for i, l := range lemmas {
					if l.Step == nil || rep.Outcomes[i].Violated != nil {
						continue
					}
					premise, ok := l.Step(cfg, &s, a, t)
					if premise {
						rep.Outcomes[i].Premise++
					}
					if !ok {
						rep.Outcomes[i].Violated = path(it.id, &a, t)
					}
				}
				h := fp(t)
				if _, dup := seen[h]; dup {
					return true
				}
				id := int32(len(nodes))
				seen[h] = id
				nodes = append(nodes, node{parent: it.id, act: a})
				judgeState(id, t)
				next = append(next, item{id, model.AppendEncoding(nil, t)})
				return true
			})
			if err != nil {
				return nil, err
			}
			if opt.Progress != nil && time.Since(last) > 5*time.Second {
				last = time.Now()
				// "so far" and "searching": a count while the search goes
				// on, not its result (the caller reports that when done).
				fmt.Fprintf(opt.Progress, "%s%s: searching: %d distinct states so far, depth %d, %v elapsed\n",
					opt.ProgressPrefix, opt.Name, len(nodes), rep.Depth, time.Since(start).Round(time.Second))
			}
		}
		frontier = next
	}
	rep.Distinct = int64(len(nodes))
	rep.Duration = time.Since(start)
	return rep, nil
}
