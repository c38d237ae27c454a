package vector

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// ArrowType is the Arrow type a vector of type t converts to. Node and
// relationship ids become Uint64; generic values have no Arrow type.
func ArrowType(t Type) (arrow.DataType, error) {
	switch t {
	case Null:
		return arrow.Null, nil
	case Bool:
		return arrow.FixedWidthTypes.Boolean, nil
	case Int64:
		return arrow.PrimitiveTypes.Int64, nil
	case Float64:
		return arrow.PrimitiveTypes.Float64, nil
	case String:
		return arrow.BinaryTypes.String, nil
	case Node, Rel:
		return arrow.PrimitiveTypes.Uint64, nil
	}
	return nil, fmt.Errorf("vector: no Arrow type for %s", t)
}

// ToArrow copies the first n rows of v into a new Arrow array. The caller
// releases it.
func ToArrow(mem memory.Allocator, v *Vector, n int) (arrow.Array, error) {
	switch v.Type {
	case Null:
		return array.NewNull(n), nil
	case Bool:
		b := array.NewBooleanBuilder(mem)
		defer b.Release()
		b.AppendValues(v.Bools[:n], validBools(v.Valid, n))
		return b.NewArray(), nil
	case Int64:
		b := array.NewInt64Builder(mem)
		defer b.Release()
		b.AppendValues(v.I64[:n], validBools(v.Valid, n))
		return b.NewArray(), nil
	case Float64:
		b := array.NewFloat64Builder(mem)
		defer b.Release()
		b.AppendValues(v.F64[:n], validBools(v.Valid, n))
		return b.NewArray(), nil
	case String:
		b := array.NewStringBuilder(mem)
		defer b.Release()
		b.AppendValues(v.Str[:n], validBools(v.Valid, n))
		return b.NewArray(), nil
	case Node, Rel:
		b := array.NewUint64Builder(mem)
		defer b.Release()
		b.AppendValues(v.IDs[:n], validBools(v.Valid, n))
		return b.NewArray(), nil
	}
	return nil, fmt.Errorf("vector: cannot convert %s to Arrow", v.Type)
}

// validBools expands a validity bitmap for the Arrow builders; nil means all
// valid, which the builders accept as is.
func validBools(v Validity, n int) []bool {
	if v == nil {
		return nil
	}
	out := make([]bool, n)
	for i := range out {
		out[i] = v.IsValid(i)
	}
	return out
}

// FromArrow copies an Arrow array into a new vector. Uint64 arrays become
// Node vectors unless asRel is set. Unsupported Arrow types are an error,
// not a panic: the array may come from a user's file.
func FromArrow(arr arrow.Array, asRel bool) (*Vector, error) {
	n := arr.Len()
	var v *Vector
	switch a := arr.(type) {
	case *array.Null:
		return New(Null, n), nil
	case *array.Boolean:
		v = New(Bool, n)
		for i := 0; i < n; i++ {
			v.Bools[i] = a.Value(i)
		}
	case *array.Int64:
		v = &Vector{Type: Int64, I64: append([]int64(nil), a.Int64Values()...)}
	case *array.Float64:
		v = &Vector{Type: Float64, F64: append([]float64(nil), a.Float64Values()...)}
	case *array.String:
		v = New(String, n)
		for i := 0; i < n; i++ {
			v.Str[i] = a.Value(i)
		}
	case *array.Uint64:
		t := Node
		if asRel {
			t = Rel
		}
		v = &Vector{Type: t, IDs: append([]uint64(nil), a.Uint64Values()...)}
	default:
		return nil, fmt.Errorf("vector: unsupported Arrow type %s", arr.DataType())
	}
	if arr.NullN() > 0 {
		v.Valid = NewValidity(n)
		for i := 0; i < n; i++ {
			if arr.IsNull(i) {
				v.Valid.SetInvalid(i)
			}
		}
	}
	return v, nil
}
