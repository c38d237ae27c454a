package exec

import (
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/storage"
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
	c     *Context
	p     *plan.Aggregate
	scan  *plan.NodeScan
	terms []rangeTerm
	cols  int
	gen   Operator // the general operators, once a view was missing
	done  bool
	out   *vector.Batch
	ids   *vector.Vector
	buf   []uint32
	bufs  [2][]int32
	views []*storage.IntView
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
	return &countRange{c: c, p: a, scan: scan, terms: terms, cols: len(a.Columns()),
		views: make([]*storage.IntView, len(terms))}
}

func (o *countRange) Next() (*vector.Batch, error) {
	if o.gen != nil {
		return o.gen.Next()
	}
	if o.done {
		return nil, nil
	}
	if err := o.c.CheckCancel(); err != nil {
		return nil, err
	}
	bm := scanBitmap(o.c, o.scan)
	card := bm.GetCardinality()
	for i, t := range o.terms {
		k, ok := o.c.Catalog.LookupKey(t.key)
		if ok {
			o.views[i] = o.c.Tx.NodeIntView(k, int(card))
		}
		if !ok || o.views[i] == nil || o.c.Deleted.HasNodes() {
			why := noView
			if o.c.Deleted.HasNodes() {
				why = "the statement deleted nodes"
			}
			gen, err := generalFor(o.c, o.p, plan.StrategyCountRange, why)
			if err != nil {
				return nil, err
			}
			o.gen = gen
			return gen.Next()
		}
	}
	o.done = true
	var cnt int64
	switch {
	case card == 0:
	case len(o.terms) == 1 && uint64(bm.Maximum())+1 == card:
		t := o.terms[0]
		cnt = o.views[0].CountRange(0, card, t.lo, t.hi)
	default:
		var err error
		if cnt, err = o.countBatches(bm.ManyIterator()); err != nil {
			return nil, err
		}
	}
	o.c.Counters.RowsScanned += int64(card)
	o.c.Counters.DBHits += int64(card) * int64(1+len(o.terms))
	return countBatch(&o.out, o.cols, cnt), nil
}

// generalFor notes for PROFILE that strategy fell back on p, for why,
// and builds p's general operators in its place. They are built only
// then, so their scan reads the same state the strategy would have.
func generalFor(c *Context, p plan.Operator, strategy, why string) (Operator, error) {
	c.fellBack(p, strategy, why)
	return buildUnprofiled(c, p)
}

// countBatch is *out (made on first use, cols INTEGER columns) holding
// one row: cnt in its first column, the Aggregate's count.
func countBatch(out **vector.Batch, cols int, cnt int64) *vector.Batch {
	if *out == nil {
		*out = vector.NewBatch(vector.Int64)
		for len((*out).Cols) < cols {
			(*out).Cols = append((*out).Cols, vector.New(vector.Int64, vector.Capacity))
		}
	}
	b := *out
	b.Cols[0].ResetNulls()
	b.Cols[0].I64[0] = cnt
	b.Len, b.Sel = 1, nil
	return b
}

// countBatches counts the ids of it that pass every term, a batch of ids
// at a time.
func (o *countRange) countBatches(it interface{ NextMany([]uint32) int }) (int64, error) {
	if o.ids == nil {
		o.ids = vector.New(vector.Node, vector.Capacity)
		o.buf = make([]uint32, vector.Capacity)
		for i := range o.bufs {
			o.bufs[i] = make([]int32, 0, vector.Capacity)
		}
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
		var sel []int32
		for i, t := range o.terms {
			sel = o.views[i].SelectRange(o.bufs[i&1][:0], o.ids, sel, n, t.lo, t.hi)
			if len(sel) == 0 {
				break
			}
		}
		cnt += int64(len(sel))
	}
}
