package expr

import "github.com/quiverdb/quiver/vector"

// caseBranches bounds the branches of a dense CASE: its WHENs and the
// ELSE.
const caseBranches = denseCaseWhens + 1

// placeColumns is the dense CASE's place when every branch is a constant
// of out's type (or null) or an input column of out's type, as in CASE x
// % 3 WHEN 0 THEN 100 WHEN 1 THEN y ELSE x END. Neither kind can fail,
// so neither needs the rows of its branch apart: each row is gathered
// from its branch's vector in one pass over the batch, a constant's
// being a vector filled with it once (constVector), and the nulls are
// gathered a validity word at a time. It reports whether the branches
// were of those kinds.
func (e *caseEval) placeColumns(out *vector.Vector, b *vector.Batch, idx []uint8) bool {
	srcs, k, nulls, ok := e.branchColumns(out, b, len(idx))
	if !ok {
		return false
	}
	switch out.Type {
	case vector.Int64:
		gatherRows(out, out.I64, &srcs, k, func(v *vector.Vector) []int64 { return v.I64 }, idx, nulls)
	case vector.Float64:
		gatherRows(out, out.F64, &srcs, k, func(v *vector.Vector) []float64 { return v.F64 }, idx, nulls)
	case vector.String:
		gatherRows(out, out.Str, &srcs, k, func(v *vector.Vector) []string { return v.Str }, idx, nulls)
	case vector.Bool:
		gatherRows(out, out.Bools, &srcs, k, func(v *vector.Vector) []bool { return v.Bools }, idx, nulls)
	default:
		return false
	}
	return true
}

// branchColumns is the vectors of the branches (the WHENs' THENs, then
// the ELSE) when each is a constant of out's type (or null) or an input
// column of out's type, their number, and whether any has nulls; false
// when a branch is of another kind.
func (e *caseEval) branchColumns(out *vector.Vector, b *vector.Batch, n int) (srcs [caseBranches]*vector.Vector, k int, nulls, ok bool) {
	k = len(e.whens) + 1
	if k > caseBranches {
		return srcs, k, false, false
	}
	for w := range k {
		branch := e.els
		if w < len(e.whens) {
			branch = e.thens[w]
		}
		var c *vector.Vector
		switch x := branch.(type) {
		case *constEval:
			if x.t != out.Type && x.t != vector.Null {
				return srcs, k, false, false
			}
			c = e.constVector(w, out.Type, x.val, n)
		case colEval:
			if c = b.Cols[x]; c.Type != out.Type {
				return srcs, k, false, false
			}
		default:
			return srcs, k, false, false
		}
		srcs[w] = c
		nulls = nulls || c.Valid != nil
	}
	return srcs, k, nulls, true
}

// constVector is constant branch w's value x as a vector of typ with at
// least n rows, all null for a null x; filled once and kept.
func (e *caseEval) constVector(w int, typ vector.Type, x vector.Value, n int) *vector.Vector {
	if len(e.fills) <= w {
		e.fills = append(e.fills, make([]*vector.Vector, w+1-len(e.fills))...)
	}
	v := e.fills[w]
	if v != nil && v.Type == typ && v.Len() >= n {
		return v
	}
	rows := max(n, vector.Capacity)
	v = vector.New(typ, rows)
	e.slot().t.charge(vectorBytes(typ, rows))
	if x == nil {
		v.Valid = make(vector.Validity, (rows+63)/64) // all null
	} else {
		fillConst(v, x, rows)
	}
	e.fills[w] = v
	return v
}

// gatherRows sets each row i of dst to row i of branch idx[i]'s vector,
// and, when a branch has nulls, makes the row null where its branch's
// is.
func gatherRows[T int64 | float64 | string | bool](out *vector.Vector, dst []T, srcs *[caseBranches]*vector.Vector, k int,
	data func(*vector.Vector) []T, idx []uint8, nulls bool) {
	var cols [caseBranches][]T
	for w := range k {
		cols[w] = data(srcs[w])[:len(idx)]
	}
	dst = dst[:len(idx)]
	if !nulls {
		for i, w := range idx {
			dst[i] = cols[w][i]
		}
		return
	}
	ow := validWords(out, len(idx))
	var words [caseBranches]uint64 // each branch's validity over the 64 rows
	for base := 0; base < len(idx); base += 64 {
		end := min(base+64, len(idx))
		for w := range k {
			words[w] = ^uint64(0)
			if v := srcs[w].Valid; v != nil {
				words[w] = v[base>>6]
			}
		}
		var m uint64
		for i := base; i < end; i++ {
			w := idx[i]
			dst[i] = cols[w][i]
			m |= words[w] & (1 << uint(i-base))
		}
		ow[base>>6] &= m
	}
}
