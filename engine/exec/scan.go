package exec

import (
	"github.com/RoaringBitmap/roaring/v2"

	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// nodeScan yields the live nodes carrying all of its labels, Capacity ids
// per batch, straight from the label bitmaps (their intersection when
// several labels are required).
type nodeScan struct {
	c      *Context
	p      *plan.NodeScan
	it     roaring.ManyIntIterable
	buf    []uint32
	out    *vector.Batch
	opened bool
}

func newNodeScan(c *Context, p *plan.NodeScan) *nodeScan {
	return &nodeScan{c: c, p: p, buf: c.pool().Uint32s(), out: c.pool().Batch(vector.Node)}
}

// open resolves the labels when the first batch is pulled, so a label made
// by an earlier write of the statement is seen.
func (s *nodeScan) open() {
	s.opened = true
	s.it = scanBitmap(s.c, s.p).ManyIterator()
}

// scanBitmap is the set of nodes p scans: the live nodes, or those with
// all of its labels. The caller must not modify it.
func scanBitmap(c *Context, p *plan.NodeScan) *roaring.Bitmap {
	var bm *roaring.Bitmap
	if len(p.Labels) == 0 {
		bm = c.Tx.LiveNodes()
	}
	for _, name := range p.Labels {
		id, ok := c.Catalog.LookupLabel(name)
		if !ok {
			return roaring.New()
		}
		lb := c.Tx.LabelNodes(id)
		if bm == nil {
			bm = lb
		} else {
			bm = roaring.And(bm, lb)
		}
	}
	return bm
}

func (s *nodeScan) Next() (*vector.Batch, error) {
	if !s.opened {
		s.open()
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
