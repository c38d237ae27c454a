package exec

import (
	"github.com/RoaringBitmap/roaring/v2"

	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// labelScan computes plan.LabelScan: the nodes of a label expression,
// from the label bitmaps of the query's snapshot combined by the
// expression's operators (labelExprBitmap), then Capacity ids a batch as
// nodeScan yields them.
type labelScan struct {
	c      *Context
	p      *plan.LabelScan
	it     roaring.ManyIntIterable
	buf    []uint32
	out    *vector.Batch
	opened bool
}

func newLabelScan(c *Context, p *plan.LabelScan) *labelScan {
	return &labelScan{c: c, p: p, buf: c.pool().Uint32s(), out: c.pool().Batch(vector.Node)}
}

func (s *labelScan) Next() (*vector.Batch, error) {
	if !s.opened {
		// Resolved at the first pull, so a label made by an earlier write
		// of the statement is seen.
		s.opened = true
		bm, err := labelExprBitmap(s.c, s.p.Expr)
		if err != nil {
			return nil, err
		}
		s.it = bm.ManyIterator()
	}
	if err := s.c.CheckCancel(); err != nil {
		return nil, err
	}
	n := s.it.NextMany(s.buf)
	if n == 0 {
		return nil, nil
	}
	ids := s.out.Cols[0].IDs[:n]
	for i, id := range s.buf[:n] {
		ids[i] = uint64(id)
	}
	s.out.Len, s.out.Sel = n, nil
	s.c.Counters.RowsScanned += int64(n)
	s.c.Counters.DBHits += int64(n)
	return s.out, nil
}

// labelExprBitmap is the set of live nodes e holds for: a name's label
// bitmap (empty for a label the catalog does not know), the union of
// every label's for %, the live nodes less the operand's for !, and the
// intersection or union of the operands' for & and |. A bitmap it builds
// is charged to the query's memory; the caller must not modify the
// result, which may be the snapshot's own.
func labelExprBitmap(c *Context, e *plan.LabelExpr) (*roaring.Bitmap, error) {
	if err := c.CheckCancel(); err != nil {
		return nil, err
	}
	var bm *roaring.Bitmap
	switch e.Kind {
	case plan.LabelName:
		id, ok := c.Catalog.LookupLabel(e.Name)
		if !ok {
			return roaring.New(), nil
		}
		return c.Tx.LabelNodes(id), nil
	case plan.LabelAny:
		var all []*roaring.Bitmap
		for _, l := range c.Catalog.Labels() {
			all = append(all, c.Tx.LabelNodes(l))
		}
		bm = roaring.FastOr(all...)
	case plan.LabelNot:
		x, err := labelExprBitmap(c, e.Args[0])
		if err != nil {
			return nil, err
		}
		bm = roaring.AndNot(c.Tx.LiveNodes(), x)
	default:
		args := make([]*roaring.Bitmap, len(e.Args))
		for i, a := range e.Args {
			x, err := labelExprBitmap(c, a)
			if err != nil {
				return nil, err
			}
			args[i] = x
		}
		if e.Kind == plan.LabelAnd {
			bm = roaring.FastAnd(args...)
		} else {
			bm = roaring.FastOr(args...)
		}
	}
	if err := c.Mem.Charge(int64(bm.GetSizeInBytes())); err != nil {
		return nil, err
	}
	return bm, nil
}
