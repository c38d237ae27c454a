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

// SetEntryBytes is what one entry of a Go map from a string key to a
// small value (a set's struct{}, a group's number) takes in the map's
// tables: a 24-byte slot (the key's header, the value padded) and its
// control byte, in a table that may be only 7/16 full (a table splits
// in two when it is 7/8 full). The key's bytes are counted apart
// (KeyAllocBytes). Measured: 4 million 13-byte keys of a
// map[string]struct{} held 71 bytes an entry, 16 of them the key's.
const SetEntryBytes = (24 + 1) * 16 / 7

// ListEntryBytes is SetEntryBytes for a map from a string key to a
// slice (a hash join's table: a key's rows): a 40-byte slot (the key's
// header and the slice's) and its control byte, in a table that may be
// only 7/16 full. The slice's array is counted apart.
const ListEntryBytes = (16 + 24 + 1) * 16 / 7

// KeyAllocBytes is what the allocator takes for a string of n bytes
// made from a map key: its size class (the next multiple of 16 up to
// 256 bytes, and within an eighth above; the tiny allocator packs
// keys under 16 bytes).
func KeyAllocBytes(n int) int64 {
	switch {
	case n < 16:
		return int64(n)
	case n <= 256:
		return int64(n+15) &^ 15
	}
	return int64(n + n/8)
}

// SlotBytes is the width of one element of the array a vector of type
// t keeps its values in: what each row of room costs, filled or not.
func SlotBytes(t vector.Type) int64 {
	switch t {
	case vector.Bool:
		return 1
	case vector.String:
		return StringBytes
	case vector.Any:
		return IfaceBytes
	case vector.Null:
		return 0
	}
	return 8
}

// PayloadBytes estimates what rows (sel, n) of v hold beyond their
// slots: the bytes of strings, and for generic values the boxes and
// contents their interfaces point to (VectorBytes less SlotBytes a row).
// An operator that keeps rows in arrays it charges by capacity charges
// this for the rows it copies in. Fixed-width types hold nothing more,
// and cost no loop.
func PayloadBytes(v *vector.Vector, sel []int32, n int) int64 {
	var total int64
	switch v.Type {
	case vector.String:
		var bytes int
		if sel == nil {
			for _, s := range v.Str[:n] {
				bytes += len(s)
			}
		} else {
			for _, r := range sel {
				bytes += len(v.Str[r])
			}
		}
		total = int64(bytes)
	case vector.Any:
		vector.ForRows(sel, n, func(i int) {
			s, _ := valueSize(v.Any[i], 0)
			total += s - IfaceBytes
		})
	}
	return total
}

// RowPayloadBytes is PayloadBytes of row r of v alone.
func RowPayloadBytes(v *vector.Vector, r int) int64 {
	switch v.Type {
	case vector.String:
		return int64(len(v.Str[r]))
	case vector.Any:
		s, _ := valueSize(v.Any[r], 0)
		return s - IfaceBytes
	}
	return 0
}
