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
	// next..end are the ids still to scan when they are one range (a
	// bulk-loaded label): counted out, not read from the bitmap.
	consecutive bool
	next, end   uint64
}

func newNodeScan(c *Context, p *plan.NodeScan) *nodeScan {
	return &nodeScan{c: c, p: p, buf: c.pool().Uint32s(), out: c.pool().Batch(vector.Node)}
}

// open resolves the labels when the first batch is pulled, so a label made
// by an earlier write of the statement is seen.
func (s *nodeScan) open() {
	s.opened = true
	bm := scanBitmap(s.c, s.p)
	if lo, hi, ok := idRange(bm); ok {
		s.consecutive, s.next, s.end = true, lo, hi
		return
	}
	s.it = bm.ManyIterator()
}

// idRange is lo..hi-1 when bm holds exactly those ids, and ok then.
func idRange(bm *roaring.Bitmap) (lo, hi uint64, ok bool) {
	n := bm.GetCardinality()
	if n == 0 {
		return 0, 0, false
	}
	lo, hi = uint64(bm.Minimum()), uint64(bm.Maximum())+1
	return lo, hi, hi-lo == n
}

// countOut fills ids with lo, lo+1, ….
func countOut(ids []uint64, lo uint64) {
	for i := range ids {
		ids[i] = lo + uint64(i)
	}
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
	var n int
	if s.consecutive {
		n = int(min(s.end-s.next, vector.Capacity))
		countOut(s.out.Cols[0].IDs[:n], s.next)
		s.next += uint64(n)
	} else {
		n = s.it.NextMany(s.buf)
		ids := s.out.Cols[0].IDs[:n]
		for i, id := range s.buf[:n] {
			ids[i] = uint64(id)
		}
	}
	if n == 0 {
		return nil, nil
	}
	s.out.Len, s.out.Sel = n, nil
	s.c.Counters.RowsScanned += int64(n)
	s.c.Counters.DBHits += int64(n)
	return s.out, nil
}
