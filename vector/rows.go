package vector

// ForRows calls fn for each selected physical row (sel, or 0..n-1 when
// sel is nil). It is for slow paths only; kernels write their own loops.
func ForRows(sel []int32, n int, fn func(r int)) {
	if sel == nil {
		for r := 0; r < n; r++ {
			fn(r)
		}
		return
	}
	for _, r := range sel {
		fn(int(r))
	}
}

// Reuse returns out, its nulls cleared, when it already has type t, else a
// new vector of t: an operator's or evaluator's output vector, kept from
// batch to batch.
func Reuse(out *Vector, t Type) *Vector {
	if out != nil && out.Type == t {
		out.ResetNulls()
		return out
	}
	return New(t, Capacity)
}

// CopyRows copies rows idx of src into dst starting at row at, in typed
// loops. dst must have src's type.
func CopyRows(dst *Vector, at int, src *Vector, idx []int32) {
	switch src.Type {
	case Bool:
		d := dst.Bools[at : at+len(idx)]
		for k, r := range idx {
			d[k] = src.Bools[r]
		}
	case Int64:
		d := dst.I64[at : at+len(idx)]
		for k, r := range idx {
			d[k] = src.I64[r]
		}
	case Float64:
		d := dst.F64[at : at+len(idx)]
		for k, r := range idx {
			d[k] = src.F64[r]
		}
	case String:
		d := dst.Str[at : at+len(idx)]
		for k, r := range idx {
			d[k] = src.Str[r]
		}
	case Node, Rel:
		d := dst.IDs[at : at+len(idx)]
		for k, r := range idx {
			d[k] = src.IDs[r]
		}
	case Any:
		d := dst.Any[at : at+len(idx)]
		for k, r := range idx {
			d[k] = src.Any[r]
		}
	}
	if src.Valid != nil || src.Type == Null {
		for k, r := range idx {
			if src.IsNull(int(r)) {
				dst.SetNull(at + k)
			}
		}
	}
}
