package exec

import (
	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// count-codes on workers. The scanned ids are one range, so the morsels
// are ranges (morselSource.consecutive) and each worker counts the ids of
// the ranges it takes with a codesCounter of its own; the counts are
// added when all are done. W23 of the wider suite at L (CONTAINS and a
// range over ten million nodes) spent its time in one goroutine's
// selection of the codes' passing rows and the range test after it.

// workers returns the statement's workers for the count when the
// physical pass chose the parallel strategy for its Aggregate and the
// statement may use them, nil (noted in PROFILE) otherwise or when the
// scan is too short to share.
func (o *countCodes) workers() (*parRun, error) {
	if !plan.Chose(o.p, plan.StrategyParallel) {
		return nil, nil
	}
	if o.c.Parallelism <= 1 {
		o.c.fellBack(o.p, plan.StrategyParallel, "one worker allowed")
		return nil, nil
	}
	return newParRun(o.c, o.p, o.scan)
}

// countOnWorkers counts the card scanned nodes, whose key is k, on run's
// workers; clean is false when some worker met a value of another type.
func (o *countCodes) countOnWorkers(run *parRun, k catalog.KeyID, card uint64) (cnt int64, clean bool, err error) {
	type part struct {
		cnt   int64
		clean bool
	}
	parts := make([]part, run.n)
	run.start(func(w int, c *Context, _ func(*vector.Batch) bool) (*hashAggregate, error) {
		src := c.worker.src
		if !src.consecutive {
			return nil, bug("count-codes: the morsels of one range of ids are not ranges")
		}
		cc := o.counter(c, k)
		if !cc.bind(c, card) {
			return nil, bug("count-codes: a worker found no view the statement found")
		}
		p := part{clean: true}
		for {
			lo, hi := src.takeRange()
			if lo == hi {
				break
			}
			if err := c.CheckCancel(); err != nil {
				return nil, err
			}
			n, clean, err := cc.countIDs(lo, hi)
			if err != nil {
				return nil, err
			}
			if !clean {
				p.clean = false
				break
			}
			p.cnt += n
		}
		parts[w] = p // read after the worker's done message
		return nil, nil
	})
	if err := run.wait(); err != nil {
		return 0, false, err
	}
	clean = true
	for _, p := range parts {
		cnt += p.cnt
		clean = clean && p.clean
	}
	return cnt, clean, nil
}
