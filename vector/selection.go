package vector

// Identity fills sel with 0..n-1 and returns it; operators start from it
// when they need an explicit selection for a dense batch.
func Identity(sel []int32, n int) []int32 {
	sel = sel[:0]
	for i := 0; i < n; i++ {
		sel = append(sel, int32(i))
	}
	return sel
}

// SelectTrue appends to dst the rows of b (logical order) whose value in the
// Bool vector pred is true and not null: a filter's output selection.
// Dense and sparse inputs get separate loops so the common dense case
// carries no indirection.
func SelectTrue(dst []int32, b *Batch, pred *Vector) []int32 {
	dst = dst[:0]
	vals, valid := pred.Bools, pred.Valid
	if b.Sel == nil {
		vals = vals[:b.Len]
		if valid == nil {
			for i, ok := range vals {
				if ok {
					dst = append(dst, int32(i))
				}
			}
			return dst
		}
		for i, ok := range vals {
			if ok && valid.IsValid(i) {
				dst = append(dst, int32(i))
			}
		}
		return dst
	}
	for _, r := range b.Sel {
		if vals[r] && valid.IsValid(int(r)) {
			dst = append(dst, r)
		}
	}
	return dst
}
