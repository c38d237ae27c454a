package exec

import (
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// parallelAgg is a hash aggregation over a pipeline run on workers: each
// worker groups its morsels' rows into a partial hashAggregate of its own,
// and the consumer merges every partial into one as the workers finish.
// Every aggregate of the catalog merges (functions.AggState.Merge), and a
// DISTINCT aggregate keeps each group's distinct values, folded into the
// merged group through one more duplicate check.
type parallelAgg struct {
	c     *Context
	p     *plan.Aggregate
	run   *parRun
	final *hashAggregate
	done  bool
}

func newParallelAgg(c *Context, p *plan.Aggregate, run *parRun) (*parallelAgg, error) {
	final, err := newHashAggregate(c, p, nil)
	if err != nil {
		return nil, err
	}
	return &parallelAgg{c: c, p: p, run: run, final: final}, nil
}

func (a *parallelAgg) Next() (*vector.Batch, error) {
	if !a.done {
		a.done = true
		if err := a.consume(); err != nil {
			return nil, err
		}
		a.final.done = true
	}
	return a.final.emit()
}

func (a *parallelAgg) consume() error {
	a.run.start(func(w int, c *Context, _ func(*vector.Batch) bool) (*hashAggregate, error) {
		in, err := Build(c, a.p.Input)
		if err != nil {
			return nil, err
		}
		h, err := newHashAggregate(c, a.p, in)
		if err != nil {
			return nil, err
		}
		for _, st := range h.aggs {
			st.keep = st.seen != nil
		}
		h.hint = 0 // a worker sees a share of the rows
		if err := h.consume(); err != nil {
			return nil, err
		}
		return h, nil
	})
	for {
		m, ok, err := a.run.receive()
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		if err := a.final.merge(m.agg); err != nil {
			a.run.stop()
			return err
		}
	}
}

// merge folds the groups of a partial aggregate w (same plan) into h.
// What h holds then is charged, and what w's worker charged given back:
// w's values moved into h (counted in h's state from now on), the rest
// of it is garbage.
func (h *hashAggregate) merge(w *hashAggregate) error {
	keyVecs := make([]*vector.Vector, len(w.keyCols))
	for k := range w.keyCols {
		keyVecs[k] = w.keyCols[k].V
	}
	to := h.mergeByIDs(w) // h's group of each of w's
	if to == nil {
		to = make([]int32, w.ngroups)
		if len(h.keys) > 0 && len(h.groups) == 0 && h.ngroups == 0 {
			h.groups = make(map[string]int32, w.ngroups)
		}
		if len(h.keys) > 0 {
			for g := range to {
				to[g] = h.lookup(keyVecs, g)
			}
		}
	}
	for i, a := range h.aggs {
		if err := a.merge(w.aggs[i], to); err != nil {
			return err
		}
	}
	err := h.settle()
	h.c.Mem.Release(w.charged)
	w.charged = 0
	return err
}

// merge folds the groups of b (a partial state of the same call) into
// groups to. A DISTINCT b kept its distinct values, which may repeat
// another worker's: they go through one more duplicate check.
func (a *aggState) merge(b *aggState, to []int32) error {
	if !a.call.Distinct {
		return a.st.Merge(b.st, to)
	}
	one := &vector.Vector{Type: vector.Any, Any: make([]vector.Value, 1)}
	for fg, vals := range b.dvals[:min(len(b.dvals), len(to))] {
		for _, x := range vals {
			one.Any[0] = x
			if !a.firstSeen(to[fg], one, 0) {
				continue
			}
			if err := a.st.MergeValue(to[fg], x, b.st, int32(fg)); err != nil {
				return err
			}
		}
	}
	return nil
}
