package exec

import (
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// countRange answers `MATCH (n:L) WHERE <integer ranges on n> RETURN
// count(*)` — an Aggregate of count(*) alone over a range filter (see
// rangeFilter) over a node scan — straight from the columns' dense views:
// no id batches, no selection vectors, no aggregate state. When the
// scanned set is every id from 0 up (a bulk-loaded label covering all
// nodes) and one property is compared, the count is one pass over the
// view's encoded values (IntView.CountRange); otherwise the scan's ids
// are tested a batch at a time. A column without a view falls back to the
// general operators, which answer the same.
type countRange struct {
	oneCount
	scan *plan.NodeScan
	rangeViews
	buf []uint32
}

// newCountRange returns the operator for p when the physical pass chose
// count-range for it, else nil; nil too, and a note for PROFILE, when a
// bound is a parameter whose value is not an integer. A worker never
// builds it: the count needs no workers.
func newCountRange(c *Context, p plan.Operator) *countRange {
	if c.worker != nil || !plan.Chose(p, plan.StrategyCountRange) {
		return nil
	}
	// The pass saw the shape; the checks only keep a plan built by hand
	// from panicking.
	a, f, scan, ok := plan.CountOfFilteredScan(p)
	if !ok {
		return nil
	}
	terms, ok := rangeTerms(c, f.Pred, a, plan.StrategyCountRange)
	if !ok {
		return nil
	}
	return &countRange{oneCount: oneCount{c: c, p: a, cols: len(a.Columns())}, scan: scan, rangeViews: rangeViews{terms: terms}}
}

func (o *countRange) Next() (*vector.Batch, error) {
	return o.next(plan.StrategyCountRange, o.count)
}

// count counts the scanned nodes that pass every term; why says what
// sends the count to the general operators instead ("" when none did).
func (o *countRange) count() (cnt int64, why string, err error) {
	if o.c.Deleted.HasNodes() {
		return 0, "the statement deleted nodes", nil
	}
	bm := scanBitmap(o.c, o.scan)
	card := bm.GetCardinality()
	if !o.bind(o.c, card) {
		return 0, noView, nil
	}
	switch {
	case card == 0:
	case len(o.terms) == 1 && uint64(bm.Maximum())+1 == card:
		t := o.terms[0]
		cnt = o.views[0].CountRange(0, card, t.lo, t.hi)
	default:
		if cnt, err = o.countBatches(bm.ManyIterator()); err != nil {
			return 0, "", err
		}
	}
	o.c.Counters.RowsScanned += int64(card)
	o.c.Counters.DBHits += int64(card) * int64(1+len(o.terms))
	return cnt, "", nil
}

// countBatches counts the ids of it that pass every term, a batch of ids
// at a time.
func (o *countRange) countBatches(it interface{ NextMany([]uint32) int }) (int64, error) {
	o.scratch()
	if o.buf == nil {
		o.buf = make([]uint32, vector.Capacity)
	}
	var cnt int64
	for batches := 0; ; batches++ {
		if batches&63 == 63 {
			if err := o.c.CheckCancel(); err != nil {
				return 0, err
			}
		}
		n := it.NextMany(o.buf)
		if n == 0 {
			return cnt, nil
		}
		ids := o.ids.IDs[:n]
		for i, id := range o.buf[:n] {
			ids[i] = uint64(id)
		}
		cnt += o.passing(n)
	}
}
