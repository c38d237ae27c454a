package exec

import (
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/plan/physical"
	"github.com/quiverdb/quiver/vector"
)

// A hash join whose probe side is a pipeline over a node scan (the
// equi-join of one given node with every other: MATCH (a {id: 42}),
// (b:Person) WHERE b.age = a.age probes every Person) probes it on the
// statement's workers once the table is built: each worker cuts morsels
// of the scan, runs its own copy of the probe side and of the join's
// probe state, and reads the one table, which nothing writes once built
// (a map read by several goroutines, the built rows' columns copied
// from). The table is built once, on the statement's goroutine, and given
// back when the last worker is done. The joined batches reach the
// consumer as a gather's do, in whatever order they come.
//
// The probe side must not have been read yet: an adaptive join that read
// 64k rows of its Left to find it the larger side probes those rows
// itself, and the rest of Left with them, on the statement's goroutine.

// probeOnWorkers starts the probe side's workers when the physical pass
// chose that for the join and the guards that see the query hold.
func (h *hashJoin) probeOnWorkers() error {
	if !plan.Chose(h.p, plan.StrategyParallel) || h.c.worker != nil {
		return nil
	}
	if h.c.Parallelism <= 1 {
		h.c.fellBack(h.p, plan.StrategyParallel, "one worker allowed")
		return nil
	}
	if h.pending != nil {
		h.c.fellBack(h.p, plan.StrategyParallel, "probe side read while choosing the build side")
		return nil
	}
	probe := h.p.Left
	if h.buildFirst {
		probe = h.p.Right
	}
	if physical.ChainScan(probe) == nil {
		h.c.fellBack(h.p, plan.StrategyParallel, "probe side not a scan's pipeline")
		return nil
	}
	run, err := newParRun(h.c, h.p, probe)
	if err != nil || run == nil {
		return err
	}
	h.gather = &gatherOp{run: run, p: probe, held: -1, build: func(wc *Context) (Operator, error) {
		in, err := Build(wc, probe)
		if err != nil {
			return nil, err
		}
		w, err := newHashJoin(wc, h.p, in, nil)
		if err != nil {
			return nil, err
		}
		w.probeOf(h)
		return w, nil
	}}
	return nil
}

// probeOf makes w, a worker's join built over the probe side, probe the
// table of built, the statement's join: w shares its table and built
// rows, takes its sides as built chose them, and holds nothing of its
// own to give back.
func (w *hashJoin) probeOf(built *hashJoin) {
	if built.buildFirst {
		// w's left is the probe side, the plan's Right: its keys and
		// further equalities turn round as loadAdaptive turned built's.
		w.lkey, w.rkey = w.rkey, w.lkey
		w.lexpr, w.rexpr = w.rexpr, w.lexpr
		w.swapAlso()
		w.nl = w.nr
		w.buildFirst = true
	}
	w.adaptive = false
	w.loaded, w.probeChosen = true, true
	w.table, w.rcols, w.first = built.table, built.rcols, built.first
}

// buildOnRead builds p's operators when it is first read: a join that
// may probe on workers holds its sides this way, so that the side the
// workers probe is not also built, morsel source and all, on the
// statement's goroutine, and then never read.
type buildOnRead struct {
	c  *Context
	p  plan.Operator
	op Operator
}

func (b *buildOnRead) Next() (*vector.Batch, error) {
	if b.op == nil {
		op, err := Build(b.c, b.p)
		if err != nil {
			return nil, err
		}
		b.op = op
	}
	return b.op.Next()
}
