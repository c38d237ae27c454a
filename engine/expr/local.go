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
// batch of up to vector.Capacity elements at a time. The batch and its
// vectors are the evaluator's slot's (localState): evaluators at one
// place of a tree share them.
type localBatch struct {
	width, nlocals int
	used           []int // outer columns the inner expressions read
}

// localState is the inner batch of a localBatch and its vectors, reused.
type localState struct {
	owned []*vector.Vector // per inner column
	cols  []*vector.Vector
	b     vector.Batch
}

// newLocalBatch prepares inner batches for width outer columns and
// nlocals local ones. Only the outer columns inner reads are copied.
func newLocalBatch(width, nlocals int, inner ...plan.Expr) *localBatch {
	l := &localBatch{width: width, nlocals: nlocals}
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
	return l
}

// batch makes st's inner batch l's shape; columns the inner expressions
// do not read hold NullVector or an earlier user's vector, never read.
func (l *localBatch) batch(st *localState) *vector.Batch {
	k := l.width + l.nlocals
	for len(st.cols) < k {
		st.cols = append(st.cols, NullVector)
		st.owned = append(st.owned, nil)
	}
	st.b.Cols = st.cols[:k]
	return &st.b
}

// fill makes the inner batch: inner row i is outer physical row idx[i]
// with local variable j set to locals[j][i].
func (l *localBatch) fill(st *localState, outer *vector.Batch, idx []int32, locals ...[]vector.Value) *vector.Batch {
	b := l.batch(st)
	for _, c := range l.used {
		src := outer.Cols[c]
		dst := vector.Reuse(st.owned[c], src.Type)
		st.owned[c] = dst
		vector.CopyRows(dst, 0, src, idx)
		b.Cols[c] = dst
	}
	for j, vals := range locals {
		l.setValues(st, j, vals)
	}
	b.Len, b.Sel = len(idx), nil
	return b
}

// setValues sets local variable j of the current inner batch to vals.
func (l *localBatch) setValues(st *localState, j int, vals []vector.Value) {
	k := l.width + j
	st.owned[k] = valuesVector(st.owned[k], vals)
	st.b.Cols[k] = st.owned[k]
}

// setVector sets local variable j of the current inner batch to v.
func (l *localBatch) setVector(st *localState, j int, v *vector.Vector) { st.b.Cols[l.width+j] = v }

// bytes is what st's vectors and arrays hold.
func (st *localState) bytes() int64 {
	n := int64(16 * cap(st.cols))
	for _, v := range st.owned {
		if v != nil {
			n += vectorBytes(v.Type, v.Len())
		}
	}
	return n
}

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
