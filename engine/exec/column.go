package exec

import (
	"github.com/quiverdb/quiver/engine/expr"
	"github.com/quiverdb/quiver/engine/memory"
	"github.com/quiverdb/quiver/vector"
)

// column is a growable column of values, kept typed while every non-null
// value has one type and turned generic at the first value of another.
// Leading nulls wait for the first value to choose the type, so that a
// column's type depends on the values it holds and not on their order
// (a parallel aggregation emits its groups in another order than a
// serial one). Operators that hold rows across batches (aggregation keys,
// materialised inputs) store them here.
type column struct {
	v *vector.Vector // slices grow with append; Valid covers len rows
	n int
}

func (c *column) push(src *vector.Vector, r int) {
	t := src.Type
	null := src.IsNull(r)
	if c.v == nil {
		c.v = &vector.Vector{Type: t}
		if null {
			c.v.Type = vector.Null // only nulls so far: no type yet
		}
	}
	if c.v.Type == vector.Null && !null {
		c.typeNulls(t)
	}
	if !null && t != c.v.Type && c.v.Type != vector.Any {
		c.generalise()
	}
	v := c.v
	switch v.Type {
	case vector.Bool:
		v.Bools = append(v.Bools, !null && src.Bools[r])
	case vector.Int64:
		x := int64(0)
		if !null {
			x = src.I64[r]
		}
		v.I64 = append(v.I64, x)
	case vector.Float64:
		x := 0.0
		if !null {
			x = src.F64[r]
		}
		v.F64 = append(v.F64, x)
	case vector.String:
		x := ""
		if !null {
			x = src.Str[r]
		}
		v.Str = append(v.Str, x)
	case vector.Node, vector.Rel:
		x := uint64(0)
		if !null {
			x = src.IDs[r]
		}
		v.IDs = append(v.IDs, x)
	case vector.Null: // the validity bitmap alone holds the rows
	default:
		v.Any = append(v.Any, src.Get(r))
	}
	c.setNull(c.n, null)
	c.n++
}

// room makes room in c for n more rows of src's type before they are
// pushed, charging m for the growth (growHeld), and returns the bytes
// charged. A column without a type yet, or one that src's type turns
// generic, grows in push: the owner charges that after the rows are in
// (capBytes).
func (c *column) room(m *memory.Tracker, src *vector.Vector, n int) (int64, error) {
	v := c.v
	if v == nil || v.Type != src.Type {
		return 0, nil
	}
	need := c.n + n
	var grown int64
	var err error
	switch v.Type {
	case vector.Bool:
		v.Bools, grown, err = growHeld(m, v.Bools, need, 1)
	case vector.Int64:
		v.I64, grown, err = growHeld(m, v.I64, need, 8)
	case vector.Float64:
		v.F64, grown, err = growHeld(m, v.F64, need, 8)
	case vector.String:
		v.Str, grown, err = growHeld(m, v.Str, need, memory.StringBytes)
	case vector.Node, vector.Rel:
		v.IDs, grown, err = growHeld(m, v.IDs, need, 8)
	case vector.Any:
		v.Any, grown, err = growHeld(m, v.Any, need, memory.IfaceBytes)
	}
	return grown, err
}

// capBytes is what c's arrays take by capacity, filled or not.
func (c *column) capBytes() int64 {
	v := c.v
	if v == nil {
		return 0
	}
	return int64(cap(v.Bools)) + 8*int64(cap(v.I64)+cap(v.F64)+cap(v.IDs)+cap(v.Valid)) +
		memory.StringBytes*int64(cap(v.Str)) + memory.IfaceBytes*int64(cap(v.Any))
}

// typeNulls gives a column of nulls only the type t of its first value.
func (c *column) typeNulls(t vector.Type) {
	v := vector.New(t, c.n)
	v.Valid = c.v.Valid
	c.v = v
}

// pushValue appends a generic value.
func (c *column) pushValue(x vector.Value) {
	src := vector.New(vector.TypeOf(x), 1)
	if x != nil {
		src.Set(0, x)
	}
	c.push(src, 0)
}

func (c *column) setNull(i int, null bool) {
	if !null && c.v.Valid == nil {
		return
	}
	for len(c.v.Valid)*64 <= i {
		c.v.Valid = append(c.v.Valid, ^uint64(0))
	}
	if null {
		c.v.Valid.SetInvalid(i)
	}
}

// generalise turns the column into a generic one.
func (c *column) generalise() {
	vals := make([]vector.Value, c.n)
	for i := range vals {
		vals[i] = c.v.Get(i)
	}
	c.v = &vector.Vector{Type: vector.Any, Any: vals, Valid: c.v.Valid}
}

// get returns row i as a generic value.
func (c *column) get(i int) vector.Value { return c.v.Get(i) }

// emit copies rows [from, from+n) into out (which it may replace to match
// the column's type) and returns the vector to use.
func (c *column) emit(out *vector.Vector, from, n int) *vector.Vector {
	if c.v == nil {
		return expr.NullVector
	}
	if c.v.Type == vector.Null {
		c.v = &vector.Vector{Type: vector.Any, Any: make([]vector.Value, c.n), Valid: c.v.Valid}
	}
	out = vector.Reuse(out, c.v.Type)
	v := c.v
	switch v.Type {
	case vector.Bool:
		copy(out.Bools, v.Bools[from:from+n])
	case vector.Int64:
		copy(out.I64, v.I64[from:from+n])
	case vector.Float64:
		copy(out.F64, v.F64[from:from+n])
	case vector.String:
		copy(out.Str, v.Str[from:from+n])
	case vector.Node, vector.Rel:
		copy(out.IDs, v.IDs[from:from+n])
	case vector.Any:
		copy(out.Any, v.Any[from:from+n])
	}
	if v.Valid != nil {
		for i := 0; i < n; i++ {
			if v.IsNull(from + i) {
				out.SetNull(i)
			}
		}
	}
	return out
}
