package memory

import (
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/temporal"
	"github.com/quiverdb/quiver/vector"
)

// Estimated sizes of values (amd64): what the memory accountant charges.
const (
	IfaceBytes  = 16 // an interface value: type word and data word
	BoxedBytes  = 8  // a scalar boxed behind an interface
	SliceBytes  = 24 // a slice header
	StringBytes = 16 // a string header
)

// TooDeep is the error of a value nesting deeper than vector.MaxValueDepth.
func TooDeep() error {
	return errs.Data("a list or map nests deeper than %d levels", vector.MaxValueDepth)
}

// BatchBytes estimates the bytes of b's selected rows once copied.
func BatchBytes(b *vector.Batch) int64 {
	var total int64
	sel, n := b.Sel, b.Len
	for _, v := range b.Cols {
		s, _ := VectorBytes(v, sel, n)
		total += s
	}
	return total
}

// VectorBytes estimates the bytes of rows (sel, n) of v, and reports a
// value nesting deeper than vector.MaxValueDepth.
func VectorBytes(v *vector.Vector, sel []int32, n int) (int64, bool) {
	rows := int64(n)
	if sel != nil {
		rows = int64(len(sel))
	}
	switch v.Type {
	case vector.Bool:
		return rows, true
	case vector.String:
		total := StringBytes * rows
		vector.ForRows(sel, n, func(i int) { total += int64(len(v.Str[i])) })
		return total, true
	case vector.Any:
		var total int64
		ok := true
		vector.ForRows(sel, n, func(i int) {
			s, fine := valueSize(v.Any[i], 0)
			total += s
			ok = ok && fine
		})
		return total, ok
	}
	return 8 * rows, true
}

// ValueBytes estimates a generic value's size.
func ValueBytes(x vector.Value) int64 {
	s, _ := valueSize(x, 0)
	return s
}

// valueSize estimates x's size at nesting depth d; ok is false when x
// nests deeper than vector.MaxValueDepth (the walk stops there).
func valueSize(x vector.Value, d int) (size int64, ok bool) {
	if d > vector.MaxValueDepth {
		return 0, false
	}
	switch x := x.(type) {
	case nil, bool:
		return IfaceBytes, true
	case string:
		return IfaceBytes + StringBytes + int64(len(x)), true
	case []vector.Value:
		size = IfaceBytes + SliceBytes + int64(cap(x))*IfaceBytes
		for _, e := range x {
			switch e.(type) {
			case []vector.Value, map[string]vector.Value, string, vector.Path:
				s, fine := valueSize(e, d+1)
				if !fine {
					return size, false
				}
				size += s - IfaceBytes // the slot is counted in cap above
			case nil, bool:
			default:
				size += BoxedBytes
			}
		}
		return size, true
	case map[string]vector.Value:
		size = IfaceBytes + 48
		for k, e := range x {
			s, fine := valueSize(e, d+1)
			if !fine {
				return size, false
			}
			size += MapEntryBytes + int64(len(k)) + s
		}
		return size, true
	case vector.Path:
		return IfaceBytes + 2*SliceBytes + 8*int64(len(x.Nodes)+len(x.Rels)), true
	case temporal.DateTime, temporal.Time, temporal.LocalDateTime, temporal.Duration:
		return IfaceBytes + 32, true
	}
	return IfaceBytes + BoxedBytes, true
}
