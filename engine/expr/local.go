package expr

import (
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// localBatch builds the inner batches over which the expressions of an
// inner scope (list comprehension, quantifier, reduce) are evaluated: one
// inner row per list element, carrying the outer row's columns in their
// own positions followed by the local variables. The elements of all the
// rows of an outer batch go through the inner expressions together, a
// batch of up to vector.Capacity elements at a time.
type localBatch struct {
	width int
	used  []int            // outer columns the inner expressions read
	owned []*vector.Vector // reused vectors per inner column
	b     vector.Batch
}

// newLocalBatch prepares inner batches for width outer columns and
// nlocals local ones. Only the outer columns inner reads are copied.
func newLocalBatch(width, nlocals int, inner ...plan.Expr) *localBatch {
	l := &localBatch{width: width, owned: make([]*vector.Vector, width+nlocals),
		b: vector.Batch{Cols: make([]*vector.Vector, width+nlocals)}}
	seen := make([]bool, width)
	complete := true
	for _, e := range inner {
		complete = plan.Walk(e, func(x plan.Expr) {
			if c, ok := x.(*plan.ColRef); ok && c.Idx < width {
				seen[c.Idx] = true
			}
		}) && complete
	}
	for i := range seen {
		// A sub-plan (pattern comprehension) reads outer columns through
		// its argument: copy them all.
		if seen[i] || !complete {
			l.used = append(l.used, i)
		}
	}
	for i := range l.b.Cols {
		l.b.Cols[i] = NullVector
	}
	return l
}

// fill makes the inner batch: inner row i is outer physical row idx[i]
// with local variable j set to locals[j][i].
func (l *localBatch) fill(outer *vector.Batch, idx []int32, locals ...[]vector.Value) *vector.Batch {
	for _, c := range l.used {
		src := outer.Cols[c]
		dst := vector.Reuse(l.owned[c], src.Type)
		l.owned[c] = dst
		vector.CopyRows(dst, 0, src, idx)
		l.b.Cols[c] = dst
	}
	for j, vals := range locals {
		k := l.width + j
		l.owned[k] = valuesVector(l.owned[k], vals)
		l.b.Cols[k] = l.owned[k]
	}
	l.b.Len, l.b.Sel = len(idx), nil
	return &l.b
}

// setValues sets local variable j of the current inner batch to vals.
func (l *localBatch) setValues(j int, vals []vector.Value) {
	k := l.width + j
	l.owned[k] = valuesVector(l.owned[k], vals)
	l.b.Cols[k] = l.owned[k]
}

// setVector sets local variable j of the current inner batch to v.
func (l *localBatch) setVector(j int, v *vector.Vector) { l.b.Cols[l.width+j] = v }

// valuesVector stores vals in a vector typed by their common type, so the
// inner expressions run their typed kernels, or in a generic one.
func valuesVector(out *vector.Vector, vals []vector.Value) *vector.Vector {
	t := vector.Null
	for _, v := range vals {
		if v == nil {
			continue
		}
		vt := vector.TypeOf(v)
		switch {
		case t == vector.Null:
			t = vt
		case t != vt:
			t = vector.Any
		}
	}
	switch t {
	case vector.Bool, vector.Int64, vector.Float64, vector.String, vector.Node, vector.Rel, vector.Null:
	default:
		t = vector.Any
	}
	out = vector.Reuse(out, t)
	if t == vector.Null {
		for i := range vals {
			out.SetNull(i)
		}
		return out
	}
	for i, v := range vals {
		out.Set(i, v)
	}
	return out
}
