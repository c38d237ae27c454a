package storage

import (
	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/vector"
)

// VectorView is a property column whose values are vectors (LISTs of
// numbers, one dimension) laid out densely for nearest-neighbour search:
// the ids holding a vector of Dim elements, ascending, and their elements
// end to end as FLOAT64 (an INTEGER element widened), so a search scores
// a range of Vals with typed loops instead of unboxing a LIST per node.
// FLOAT64 keeps the values exactly as stored: a search's scores are
// those of vector.similarity.* on the same property.
//
//	IDs   id₀        id₁        …   (ascending)
//	Vals  [Dim]f64   [Dim]f64   …   (Vals[i*Dim:(i+1)*Dim] is IDs[i]'s)
//	Odd   ids whose value is not a vector of Dim numbers (ascending)
//
// Chunks whose lists are stored flat (chunk_vector.go) are copied row by
// row; boxed ones (open groups, lists holding INTEGERs) are unboxed. The
// view is derived from one version of the column, cached
// beside its IntView and FloatView, shared by every transaction reading
// that version, and dropped on a write, exactly as those are. A column
// is expected to hold one dimension; a view of another dimension than
// the cached one is built for its caller alone.
type VectorView struct {
	Dim  int
	IDs  []uint64
	Vals []float64
	Odd  []uint64
}

// Bytes is the view's size, for the memory a search charges.
func (v *VectorView) Bytes() int64 {
	return int64(len(v.IDs)+len(v.Odd))*8 + int64(len(v.Vals))*8
}

// vectorView returns c's vector view of dimension dim (nil when c has no
// values).
func (c *column) vectorView(dim int) *VectorView {
	if c == nil || dim <= 0 {
		return nil
	}
	if v := c.cache.vview.Load(); v != nil && v.Dim == dim {
		return v
	}
	v := buildVectorView(c, dim)
	// Cached only when dim is the column's dimension (most values fit):
	// a query of a wrong dimension must not evict the useful view.
	if old := c.cache.vview.Load(); (old == nil || old.Dim != dim) && len(v.IDs) >= len(v.Odd) {
		c.cache.vview.CompareAndSwap(old, v)
	}
	return v
}

// buildVectorView reads every value of c in id order, once per version.
func buildVectorView(c *column, dim int) *VectorView {
	// Sized for the flat chunks' vectors of dim (known to be vectors, so
	// the size is what the view will hold); boxed chunks append.
	n := 0
	for _, ch := range c.groups.all() {
		if ch.dim == dim {
			n += int(ch.counts[vector.Any])
		}
	}
	v := &VectorView{Dim: dim, IDs: make([]uint64, 0, n), Vals: make([]float64, 0, n*dim)}
	for li, l := range c.groups.leaves {
		if l == nil {
			continue
		}
		for gi, ch := range &l.ch {
			if ch == nil {
				continue
			}
			start := uint64(li<<leafShift+gi) << groupShift
			if ch.dim > 0 {
				v.addFlat(ch, start)
				continue
			}
			for r := range GroupSize {
				x := ch.get(r)
				if x == nil {
					continue
				}
				id := start + uint64(r)
				if !v.add(id, x) {
					v.Odd = append(v.Odd, id)
				}
			}
		}
	}
	return v
}

// addFlat appends the rows of the flat chunk ch of ids from start: its
// vectors when of v.Dim elements, the rest as odd (side values are never
// lists).
func (v *VectorView) addFlat(ch *chunk, start uint64) {
	for r := range GroupSize {
		if !ch.has(r) {
			continue
		}
		id := start + uint64(r)
		if ch.dim == v.Dim && bitAt(ch.valid, r) {
			v.Vals = append(v.Vals, ch.vecRow(r)...)
			v.IDs = append(v.IDs, id)
		} else {
			v.Odd = append(v.Odd, id)
		}
	}
}

// add appends id's value when it is a vector of v.Dim numbers.
func (v *VectorView) add(id uint64, x vector.Value) bool {
	l, ok := x.([]vector.Value)
	if !ok || len(l) != v.Dim {
		return false
	}
	at := len(v.Vals)
	for _, e := range l {
		switch n := e.(type) {
		case float64:
			v.Vals = append(v.Vals, n)
		case int64:
			v.Vals = append(v.Vals, float64(n))
		default:
			v.Vals = v.Vals[:at]
			return false
		}
	}
	v.IDs = append(v.IDs, id)
	return true
}

// NodeVectorView is node property k as a vector view of dimension dim
// (nil when no node has k).
func (s *Snapshot) NodeVectorView(k catalog.KeyID, dim int) *VectorView {
	return s.nodeCol(k).vectorView(dim)
}

// NodeVectorView: see Snapshot.NodeVectorView.
func (tx *Tx) NodeVectorView(k catalog.KeyID, dim int) *VectorView {
	tx.reads.mark(readNodeKey, uint32(k))
	return tx.view().NodeVectorView(k, dim)
}
