package expr

import "github.com/quiverdb/quiver/vector"

// placeColumns is the dense CASE's place when every branch is a constant
// of out's type (or null) or an input column of out's type, as in CASE x
// % 3 WHEN 0 THEN 100 WHEN 1 THEN y ELSE x END. Neither kind can fail,
// so neither needs the rows of its branch apart: the constants are placed
// by table over the whole batch, and each column branch is then selected
// into out on its rows, a row at a time without a branch, its nulls a
// word at a time. It reports whether the branches were of those kinds.
func (e *caseEval) placeColumns(out *vector.Vector, b *vector.Batch, idx []uint8) bool {
	k := len(e.whens) + 1
	vals := e.constVals[:0]
	cols := e.cols[:0]
	for w := range k {
		branch := e.els
		if w < len(e.whens) {
			branch = e.thens[w]
		}
		switch x := branch.(type) {
		case *constEval:
			if x.t != out.Type && x.t != vector.Null {
				return false
			}
			vals, cols = append(vals, x.val), append(cols, nil)
		case colEval:
			c := b.Cols[x]
			if c.Type != out.Type {
				return false
			}
			vals, cols = append(vals, nil), append(cols, c)
		default:
			return false
		}
	}
	e.constVals, e.cols = vals, cols
	switch out.Type {
	case vector.Int64:
		placeTable(out.I64, idx, vals)
	case vector.Float64:
		placeTable(out.F64, idx, vals)
	case vector.String:
		placeTable(out.Str, idx, vals)
	case vector.Bool:
		placeTable(out.Bools, idx, vals)
	default:
		return false
	}
	for w, c := range cols {
		switch {
		case c == nil && vals[w] != nil:
			// a constant, placed
		case c == nil:
			nullWhere(out, idx, uint8(w), nil)
		case out.Type == vector.Int64:
			selectInts(out, c, idx, uint8(w))
		case out.Type == vector.Float64:
			selectRows(out, out.F64, c.F64, c.Valid, idx, uint8(w))
		case out.Type == vector.String:
			selectRows(out, out.Str, c.Str, c.Valid, idx, uint8(w))
		default:
			selectRows(out, out.Bools, c.Bools, c.Valid, idx, uint8(w))
		}
	}
	return true
}

// selectRows sets dst[i] to src[i] where idx[i] is w, and makes those
// rows of out null where src is: both candidates are loaded and one kept
// by the comparison's index, which a branch predictor does not meet.
func selectRows[T float64 | string | bool](out *vector.Vector, dst, src []T, valid vector.Validity, idx []uint8, w uint8) {
	dst = dst[:len(idx)]
	src = src[:len(idx)]
	var ow vector.Validity
	if valid != nil {
		ow = validWords(out, len(idx))
	}
	for base := 0; base < len(idx); base += 64 {
		end := min(base+64, len(idx))
		var m uint64 // the rows of branch w
		for i := base; i < end; i++ {
			t := b2i(idx[i] == w) & 1
			pick := [2]T{dst[i], src[i]}
			dst[i] = pick[t]
			m |= uint64(t) << uint(i-base)
		}
		if valid != nil {
			ow[base>>6] &= ^m | valid[base>>6]
		}
	}
}

// selectInts is selectRows for INTEGER, by a mask.
func selectInts(out, c *vector.Vector, idx []uint8, w uint8) {
	dst, src := out.I64[:len(idx)], c.I64[:len(idx)]
	if c.Valid == nil {
		for i, x := range idx {
			d := dst[i]
			dst[i] = d ^ (d^src[i])&-int64(b2i(x == w))
		}
		return
	}
	ow := validWords(out, len(idx))
	for base := 0; base < len(idx); base += 64 {
		end := min(base+64, len(idx))
		var m uint64
		for i := base; i < end; i++ {
			t := b2i(idx[i] == w)
			x := dst[i]
			dst[i] = x ^ (x^src[i])&-int64(t)
			m |= uint64(t) << uint(i-base)
		}
		ow[base>>6] &= ^m | c.Valid[base>>6]
	}
}

// nullWhere makes out's rows where idx[i] is w null where src is (all of
// them when src is nil: a null constant), a validity word at a time.
func nullWhere(out *vector.Vector, idx []uint8, w uint8, src vector.Validity) {
	ow := validWords(out, len(idx))
	for word := range ow {
		base := word * 64
		end := min(base+64, len(idx))
		var m uint64 // the rows of branch w
		for i := base; i < end; i++ {
			m |= uint64(b2i(idx[i] == w)) << uint(i-base)
		}
		keep := ^m
		if src != nil {
			keep |= src[word]
		}
		ow[word] &= keep
	}
}
