package exec

import (
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// oneCount is what the operators answering a count(*) in one row
// (count-codes, count-range) share: the statement, the Aggregate they
// stand for, the general operators once they fell back, and the row.
type oneCount struct {
	c    *Context
	p    *plan.Aggregate
	cols int
	gen  Operator // the general operators, once the count could not be answered
	done bool
	out  *vector.Batch
}

// next is such an operator's Next: count answers the count, or says why it
// cannot, and then the general operators for strategy answer instead
// (they answer the same).
func (o *oneCount) next(strategy string, count func() (cnt int64, why string, err error)) (*vector.Batch, error) {
	if o.gen != nil {
		return o.gen.Next()
	}
	if o.done {
		return nil, nil
	}
	if err := o.c.CheckCancel(); err != nil {
		return nil, err
	}
	cnt, why, err := count()
	if err != nil {
		return nil, err
	}
	if why != "" {
		gen, err := generalFor(o.c, o.p, strategy, why)
		if err != nil {
			return nil, err
		}
		o.gen = gen
		return gen.Next()
	}
	o.done = true
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

// rangeViews are the integer views of a count's range terms and the
// scratch it tests node ids on them with.
type rangeViews struct {
	terms []rangeTerm
	views []*storage.IntView
	ids   *vector.Vector
	bufs  [2][]int32
}

// bind looks up each term's view over card nodes; false when a term's key
// or view is missing.
func (r *rangeViews) bind(c *Context, card uint64) bool {
	if r.views == nil {
		r.views = make([]*storage.IntView, len(r.terms))
	}
	for i, t := range r.terms {
		k, ok := c.Catalog.LookupKey(t.key)
		if ok {
			r.views[i] = c.Tx.NodeIntView(k, int(card))
		}
		if !ok || r.views[i] == nil {
			return false
		}
	}
	return true
}

// scratch makes the id vector and selection buffers on first use.
func (r *rangeViews) scratch() {
	if r.ids == nil {
		r.ids = vector.New(vector.Node, vector.Capacity)
		for i := range r.bufs {
			r.bufs[i] = make([]int32, 0, vector.Capacity)
		}
	}
}

// passing counts the first n ids of r.ids that pass every term.
func (r *rangeViews) passing(n int) int64 {
	var sel []int32
	for i, t := range r.terms {
		sel = r.views[i].SelectRange(r.bufs[i&1][:0], r.ids, sel, n, t.lo, t.hi)
		if len(sel) == 0 {
			break
		}
	}
	return int64(len(sel))
}
