package exec

import (
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/temporal"
	"github.com/quiverdb/quiver/vector"
)

// Estimated sizes of values (amd64): what the memory accountant charges.
const (
	ifaceBytes  = 16 // an interface value: type word and data word
	boxedBytes  = 8  // a scalar boxed behind an interface
	sliceBytes  = 24 // a slice header
	stringBytes = 16 // a string header
)

// tooDeep is the error of a value nesting deeper than vector.MaxValueDepth.
func tooDeep() error {
	return errs.Data("a list or map nests deeper than %d levels", vector.MaxValueDepth)
}

// batchBytes estimates the bytes of b's selected rows once copied.
func batchBytes(b *vector.Batch) int64 {
	var total int64
	sel, n := rows(b)
	for _, v := range b.Cols {
		s, _ := vectorBytes(v, sel, n)
		total += s
	}
	return total
}

// vectorBytes estimates the bytes of rows (sel, n) of v, and reports a
// value nesting deeper than vector.MaxValueDepth.
func vectorBytes(v *vector.Vector, sel []int32, n int) (int64, bool) {
	rows := int64(n)
	if sel != nil {
		rows = int64(len(sel))
	}
	switch v.Type {
	case vector.Bool:
		return rows, true
	case vector.String:
		total := stringBytes * rows
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

// valueBytes estimates a generic value's size.
func valueBytes(x vector.Value) int64 {
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
		return ifaceBytes, true
	case string:
		return ifaceBytes + stringBytes + int64(len(x)), true
	case []vector.Value:
		size = ifaceBytes + sliceBytes + int64(cap(x))*ifaceBytes
		for _, e := range x {
			switch e.(type) {
			case []vector.Value, map[string]vector.Value, string, vector.Path:
				s, fine := valueSize(e, d+1)
				if !fine {
					return size, false
				}
				size += s - ifaceBytes // the slot is counted in cap above
			case nil, bool:
			default:
				size += boxedBytes
			}
		}
		return size, true
	case map[string]vector.Value:
		size = ifaceBytes + 48
		for k, e := range x {
			s, fine := valueSize(e, d+1)
			if !fine {
				return size, false
			}
			size += mapEntryBytes + int64(len(k)) + s
		}
		return size, true
	case vector.Path:
		return ifaceBytes + 2*sliceBytes + 8*int64(len(x.Nodes)+len(x.Rels)), true
	case temporal.DateTime, temporal.Time, temporal.LocalDateTime, temporal.Duration:
		return ifaceBytes + 32, true
	}
	return ifaceBytes + boxedBytes, true
}
