package exec

import (
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// parallelAgg is a hash aggregation over a pipeline run on workers: each
// worker groups its morsels' rows into a partial hashAggregate of its own,
// and the consumer merges every partial into one as the workers finish.
// Every aggregate merges: counts and sums add, min and max compare,
// collect and the percentiles' value lists concatenate, the standard
// deviations combine their running means (Chan et al.), and a DISTINCT
// aggregate keeps each group's distinct values, folded into the merged
// group through one more duplicate check.
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

// mergeable reports whether every aggregate has a merge (aggState.merge).
func mergeable(aggs []plan.AggCall) bool {
	for _, a := range aggs {
		switch a.Func {
		case plan.AggCount, plan.AggSum, plan.AggAvg, plan.AggMin, plan.AggMax, plan.AggCollect,
			plan.AggStDev, plan.AggStDevP, plan.AggVariance, plan.AggVarianceP, plan.AggPercentileCont, plan.AggPercentileDisc:
		default:
			return false
		}
	}
	return true
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
		keyVecs[k] = w.keyCols[k].v
	}
	for g := 0; g < w.ngroups; g++ {
		var to int32
		if len(h.keys) > 0 {
			to = h.lookup(keyVecs, g)
		}
		for i, a := range h.aggs {
			if err := a.merge(to, w.aggs[i], int32(g)); err != nil {
				return err
			}
		}
	}
	for i, a := range h.aggs {
		if a.lists != nil && !a.call.Distinct {
			a.held += w.aggs[i].held // the listed values moved
		}
	}
	err := h.settle()
	h.c.Mem.Release(w.charged)
	w.charged = 0
	return err
}

// merge folds group bg of b (a partial state of the same call) into group g.
func (a *aggState) merge(g int32, b *aggState, bg int32) error {
	if a.call.Distinct {
		// b kept its distinct values; they may repeat another worker's.
		one := &vector.Vector{Type: vector.Any, Any: make([]vector.Value, 1)}
		if int(bg) < len(b.dvals) {
			for _, x := range b.dvals[bg] {
				one.Any[0] = x
				if !a.firstSeen(g, one, 0) {
					continue
				}
				if (a.call.Func == plan.AggPercentileCont || a.call.Func == plan.AggPercentileDisc) && len(a.lists[g]) == 0 {
					a.pct[g] = b.pct[bg]
				}
				if err := a.add(g, one, 0); err != nil {
					return err
				}
			}
		}
		return nil
	}
	switch a.call.Func {
	case plan.AggCount:
		a.count[g] += b.count[bg]
	case plan.AggSum, plan.AggAvg:
		// A group sums numbers or durations; meeting both is an error
		// whichever worker saw which.
		if b.isDur(bg) {
			if a.count[g] > 0 && !a.isDur(g) {
				return errs.Data("%s() cannot mix numbers and durations", a.call.Func)
			}
			a.setDur(g)
			a.count[g] += b.count[bg]
			return a.addDuration(g, b.dsum[bg])
		}
		if b.count[bg] > 0 && a.isDur(g) {
			return errs.Data("%s() cannot mix numbers and durations", a.call.Func)
		}
		a.count[g] += b.count[bg]
		if err := a.addInt(g, b.isum[bg]); err != nil {
			return err
		}
		if b.isFloat(bg) {
			a.addFloat(g, b.fsum[bg])
		}
	case plan.AggMin, plan.AggMax:
		a.count[g] += b.count[bg]
		x := b.best[bg]
		if x == nil {
			return nil
		}
		want := 1
		if a.call.Func == plan.AggMin {
			want = -1
		}
		if a.best[g] == nil || functions.OrderTotal(x, a.best[g]) == want {
			a.best[g] = x
		}
	case plan.AggCollect:
		a.count[g] += b.count[bg]
		return a.appendList(g, b, bg)
	case plan.AggStDev, plan.AggStDevP, plan.AggVariance, plan.AggVarianceP:
		na, nb := float64(a.count[g]), float64(b.count[bg])
		if nb == 0 {
			return nil
		}
		if na == 0 {
			a.mean[g], a.m2[g] = b.mean[bg], b.m2[bg]
		} else {
			n := na + nb
			d := b.mean[bg] - a.mean[g]
			a.mean[g] += d * nb / n
			a.m2[g] += b.m2[bg] + d*d*na*nb/n
		}
		a.count[g] += b.count[bg]
	case plan.AggPercentileCont, plan.AggPercentileDisc:
		if len(b.lists[bg]) == 0 {
			return nil
		}
		if len(a.lists[g]) == 0 {
			a.pct[g] = b.pct[bg]
		}
		a.count[g] += b.count[bg]
		return a.appendList(g, b, bg)
	}
	return nil
}

// appendList appends group bg's list of b to group g's. An empty list
// takes b's array as it is; b's array is dropped either way (b is done
// with once merged).
func (a *aggState) appendList(g int32, b *aggState, bg int32) error {
	src := b.lists[bg]
	b.lists[bg] = nil
	if len(src) == 0 {
		return nil
	}
	if len(a.lists[g]) == 0 {
		a.listCap += int64(cap(src) - cap(a.lists[g]))
		a.lists[g] = src
		return nil
	}
	if err := a.growList(g, len(a.lists[g])+len(src)); err != nil {
		return err
	}
	a.lists[g] = append(a.lists[g], src...)
	return nil
}
