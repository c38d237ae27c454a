package expr

import "github.com/quiverdb/quiver/vector"

// Typed copies and null propagation for kernels. Nulls are combined a
// validity word (64 rows) at a time rather than row by row: a kernel
// computes its rows densely, and whatever it leaves in the unselected
// rows of its output, valid or null, is never read.

// copySelected copies rows sel of v into the same rows of out, which has
// v's type, in a typed loop.
func copySelected(out, v *vector.Vector, sel []int32) {
	switch v.Type {
	case vector.Bool:
		for _, r := range sel {
			out.Bools[r] = v.Bools[r]
		}
	case vector.Int64:
		for _, r := range sel {
			out.I64[r] = v.I64[r]
		}
	case vector.Float64:
		for _, r := range sel {
			out.F64[r] = v.F64[r]
		}
	case vector.String:
		for _, r := range sel {
			out.Str[r] = v.Str[r]
		}
	case vector.Node, vector.Rel:
		for _, r := range sel {
			out.IDs[r] = v.IDs[r]
		}
	case vector.Any:
		for _, r := range sel {
			out.Any[r] = v.Any[r]
		}
	}
	if v.Valid != nil {
		for _, r := range sel {
			if !v.Valid.IsValid(int(r)) {
				out.SetNull(int(r))
			}
		}
	}
}

// validWords makes sure out has a validity bitmap covering n rows and
// returns its first words, one per 64 rows.
func validWords(out *vector.Vector, n int) vector.Validity {
	if out.Valid == nil {
		out.Valid = vector.NewValidity(out.Len())
	}
	return out.Valid[:(n+63)/64]
}

// andNullWords makes out null on the first n rows wherever x is null, a
// word at a time; out's typed slice is left alone. Only an Any output
// needs its null rows cleared (SetNull), which copyNulls does.
func andNullWords(out, x *vector.Vector, n int) {
	if x.Valid == nil {
		return
	}
	ow, xw := validWords(out, n), x.Valid
	for i := range ow {
		ow[i] &= xw[i]
	}
}
