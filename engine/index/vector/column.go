package vectorindex

import (
	"github.com/RoaringBitmap/roaring/v2"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// propColumn is a label's nodes' vectors of one property key at a
// transaction's snapshot, as a Column for the exact search: morsel m is
// the label bitmap's members m·rows … (m+1)·rows-1, gathered a vector
// batch at a time. A node without the property (or with null) is not a
// candidate; one whose value is not a LIST of numbers, or of another
// dimension than the query, is a 22000 error naming the node.
//
// The gather boxes each value as a LIST (storage keeps list properties
// as generic values today); a typed fixed-width column of vectors would
// let Read copy a range instead (docs/search.md, "Storage").
type propColumn struct {
	tx   *storage.Tx
	key  catalog.KeyID
	ids  *roaring.Bitmap
	dim  int
	rows int
	fn   string
}

func (c *propColumn) Dim() int { return c.dim }

func (c *propColumn) Morsels() int {
	return int((c.ids.GetCardinality() + uint64(c.rows) - 1) / uint64(c.rows))
}

func (c *propColumn) Read(m int, b *Batch[float64]) error {
	first, err := c.ids.Select(uint32(m * c.rows))
	if err != nil {
		return errs.Internal("vector search: morsel %d: %v", m, err)
	}
	it := c.ids.Iterator()
	it.AdvanceIfNeeded(first)
	ids := vector.New(vector.Node, vector.Capacity)
	out := vector.New(vector.Any, vector.Capacity)
	for left := c.rows; left > 0 && it.HasNext(); {
		n := 0
		for n < min(left, vector.Capacity) && it.HasNext() {
			ids.IDs[n] = uint64(it.Next())
			n++
		}
		left -= n
		out.ResetNulls()
		c.tx.GatherNodeProp(c.key, ids, nil, n, out)
		for i := range n {
			if out.IsNull(i) || out.Any[i] == nil {
				continue
			}
			if err := c.add(b, ids.IDs[i], out.Any[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

// add appends one node's vector, checked.
func (c *propColumn) add(b *Batch[float64], id uint64, v vector.Value) error {
	l, ok := v.([]vector.Value)
	if !ok {
		return errs.Data("%s(): node %d holds a %T, not a vector (a LIST of numbers)", c.fn, id, v)
	}
	if len(l) != c.dim {
		return errs.Data("%s(): vector dimensions differ: the query has %d, node %d holds %d", c.fn, c.dim, id, len(l))
	}
	b.IDs = append(b.IDs, id)
	for i, e := range l {
		switch x := e.(type) {
		case float64:
			b.Vecs = append(b.Vecs, x)
		case int64:
			b.Vecs = append(b.Vecs, float64(x))
		default:
			return errs.Data("%s(): vector element %d of node %d is not a number", c.fn, i, id)
		}
	}
	return nil
}
