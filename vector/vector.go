package vector

// Vector is one column of a batch. Exactly one typed slice is in use,
// chosen by Type; the others stay nil. Slices are allocated with Capacity
// rows and reused across batches; the row count lives in the Batch.
type Vector struct {
	Type  Type
	Bools []bool
	I64   []int64
	F64   []float64
	Str   []string
	IDs   []uint64 // node or relationship ids
	Any   []Value
	// Valid marks null rows; nil means no row is null.
	Valid Validity
}

// New returns a vector of type t with room for n rows.
func New(t Type, n int) *Vector {
	v := &Vector{Type: t}
	switch t {
	case Bool:
		v.Bools = make([]bool, n)
	case Int64:
		v.I64 = make([]int64, n)
	case Float64:
		v.F64 = make([]float64, n)
	case String:
		v.Str = make([]string, n)
	case Node, Rel:
		v.IDs = make([]uint64, n)
	case Any:
		v.Any = make([]Value, n)
	case Null:
		v.Valid = make(Validity, (n+63)/64) // all null
	}
	return v
}

// Len is the number of rows the vector has room for.
func (v *Vector) Len() int {
	switch v.Type {
	case Bool:
		return len(v.Bools)
	case Int64:
		return len(v.I64)
	case Float64:
		return len(v.F64)
	case String:
		return len(v.Str)
	case Node, Rel:
		return len(v.IDs)
	case Any:
		return len(v.Any)
	}
	return len(v.Valid) * 64
}

// IsNull reports whether row i is null.
func (v *Vector) IsNull(i int) bool { return !v.Valid.IsValid(i) }

// SetNull marks row i null, creating the validity bitmap on first use.
func (v *Vector) SetNull(i int) {
	if v.Valid == nil {
		v.Valid = NewValidity(v.Len())
	}
	v.Valid.SetInvalid(i)
	if v.Type == Any {
		v.Any[i] = nil // drop the reference so it can be collected
	}
}

// SetValid marks row i valid; a no-op when the vector has no nulls.
func (v *Vector) SetValid(i int) {
	if v.Valid != nil {
		v.Valid.SetValid(i)
	}
}

// ResetNulls makes every row valid again, keeping the allocation for reuse.
func (v *Vector) ResetNulls() {
	if v.Type == Null {
		return
	}
	for i := range v.Valid {
		v.Valid[i] = ^uint64(0)
	}
}

// HasNulls reports whether any of the first n rows is null.
func (v *Vector) HasNulls(n int) bool {
	return v.Type == Null || v.Valid.CountNulls(n) > 0
}

// Get returns row i as a generic Value (nil when null). It is the slow
// path: for result encoding of rare types and for tests, never for kernels.
func (v *Vector) Get(i int) Value {
	if v.IsNull(i) {
		return nil
	}
	switch v.Type {
	case Bool:
		return v.Bools[i]
	case Int64:
		return v.I64[i]
	case Float64:
		return v.F64[i]
	case String:
		return v.Str[i]
	case Node:
		return NodeRef(v.IDs[i])
	case Rel:
		return RelRef(v.IDs[i])
	case Any:
		return v.Any[i]
	}
	return nil
}

// Set stores a generic value in row i. A value whose dynamic type does not
// match the vector's Type is a programming error except for nil, which
// marks the row null; callers that do not know the type use an Any vector.
func (v *Vector) Set(i int, val Value) {
	if val == nil {
		v.SetNull(i)
		return
	}
	v.SetValid(i)
	switch v.Type {
	case Bool:
		v.Bools[i] = val.(bool)
	case Int64:
		v.I64[i] = val.(int64)
	case Float64:
		v.F64[i] = val.(float64)
	case String:
		v.Str[i] = val.(string)
	case Node:
		v.IDs[i] = uint64(val.(NodeRef))
	case Rel:
		v.IDs[i] = uint64(val.(RelRef))
	case Any:
		v.Any[i] = val
	default:
		panic("BUG: vector: Set on a vector of type " + v.Type.String())
	}
}

// CopyRow copies row src of from into row dst of v. Both must have the same
// Type.
func (v *Vector) CopyRow(dst int, from *Vector, src int) {
	if from.IsNull(src) {
		v.SetNull(dst)
		return
	}
	v.SetValid(dst)
	switch v.Type {
	case Bool:
		v.Bools[dst] = from.Bools[src]
	case Int64:
		v.I64[dst] = from.I64[src]
	case Float64:
		v.F64[dst] = from.F64[src]
	case String:
		v.Str[dst] = from.Str[src]
	case Node, Rel:
		v.IDs[dst] = from.IDs[src]
	case Any:
		v.Any[dst] = from.Any[src]
	}
}
