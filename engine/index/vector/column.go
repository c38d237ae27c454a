package vectorindex

import (
	"github.com/RoaringBitmap/roaring/v2"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/storage"
)

// viewColumn is a label's nodes' vectors of one property at a
// transaction's snapshot, as a Column for the exact search: the
// property's storage.VectorView (dense FLOAT64 vectors, built once per
// version of the column and shared), cut into morsels of rows, each row
// kept when its node carries the label. A search copies nothing: Read
// hands out views of the view's arrays.
type viewColumn struct {
	v      *storage.VectorView
	labels *roaring.Bitmap
	rows   int
}

// newViewColumn checks, when strict, that no node of the label holds a
// value that is not a vector of the query's dimension (a 22000 error
// naming the lowest such node); otherwise such values are left out.
func newViewColumn(fn string, v *storage.VectorView, labels *roaring.Bitmap, rows int, strict bool) (*viewColumn, error) {
	for _, id := range v.Odd {
		if !strict {
			break
		}
		if labels.Contains(uint32(id)) {
			return nil, errs.Data("%s(): node %d does not hold a vector of dimension %d (a LIST of %d numbers)", fn, id, v.Dim, v.Dim)
		}
	}
	return &viewColumn{v: v, labels: labels, rows: rows}, nil
}

func (c *viewColumn) Dim() int { return c.v.Dim }

func (c *viewColumn) Morsels() int { return (len(c.v.IDs) + c.rows - 1) / c.rows }

func (c *viewColumn) Read(m int, b *Batch[float64]) error {
	lo := m * c.rows
	hi := min(lo+c.rows, len(c.v.IDs))
	d := c.v.Dim
	if len(b.IDs) == 0 && c.allLabelled(lo, hi) {
		// Every row of the morsel carries the label (the common case: a
		// property one label's nodes hold): hand out views.
		b.IDs, b.Vecs, b.view = c.v.IDs[lo:hi:hi], c.v.Vals[lo*d:hi*d:hi*d], true
		return nil
	}
	for i := lo; i < hi; i++ {
		if id := c.v.IDs[i]; c.labels.Contains(uint32(id)) {
			b.Add(id, c.v.Vals[i*d:(i+1)*d])
		}
	}
	return nil
}

// allLabelled reports whether every node of rows lo..hi-1 carries the
// label.
func (c *viewColumn) allLabelled(lo, hi int) bool {
	for _, id := range c.v.IDs[lo:hi] {
		if !c.labels.Contains(uint32(id)) {
			return false
		}
	}
	return true
}
