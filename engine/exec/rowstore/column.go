// Package rowstore holds what operators keep across batches: growable
// columns of rows (a buffer's, a join's side, aggregation keys and
// results), a sort's rows in chunks, arrays grown by capacity and
// charged to the statement before they are allocated, and large integer
// arrays of aggregation state pooled across queries.
package rowstore

import (
	"slices"

	"github.com/quiverdb/quiver/engine/memory"
	"github.com/quiverdb/quiver/vector"
)

// Column is a growable column of values, kept typed while every non-null
// value has one type and turned generic at the first value of another.
// Leading nulls wait for the first value to choose the type, so that a
// column's type depends on the values it holds and not on their order
// (a parallel aggregation emits its groups in another order than a
// serial one). Operators that hold rows across batches (aggregation keys,
// materialised inputs) store them here.
type Column struct {
	V *vector.Vector // slices grow with append; Valid covers len rows
	N int            // the rows
}

// Push appends row r of src.
func (c *Column) Push(src *vector.Vector, r int) {
	t := src.Type
	null := src.IsNull(r)
	if c.V == nil {
		c.V = &vector.Vector{Type: t}
		if null {
			c.V.Type = vector.Null // only nulls so far: no type yet
		}
	}
	if c.V.Type == vector.Null && !null {
		c.typeNulls(t)
	}
	if !null && t != c.V.Type && c.V.Type != vector.Any {
		c.generalise()
	}
	v := c.V
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
		v.F64 = append(doubled(v.F64), x)
	case vector.String:
		x := ""
		if !null {
			x = src.Str[r]
		}
		v.Str = append(doubled(v.Str), x)
	case vector.Node, vector.Rel:
		x := uint64(0)
		if !null {
			x = src.IDs[r]
		}
		v.IDs = append(doubled(v.IDs), x)
	case vector.Null: // the validity bitmap alone holds the rows
	default:
		v.Any = append(doubled(v.Any), src.Get(r))
	}
	c.setNull(c.N, null)
	c.N++
}

// Room makes room in c for n more rows of src's type before they are
// pushed, charging m for the growth (GrowHeld), and returns the bytes
// charged. A column without a type yet, or one that src's type turns
// generic, grows in Push: the owner charges that after the rows are in
// (CapBytes).
func (c *Column) Room(m *memory.Tracker, src *vector.Vector, n int) (int64, error) {
	v := c.V
	if v == nil || v.Type != src.Type {
		return 0, nil
	}
	need := c.N + n
	var grown int64
	var err error
	switch v.Type {
	case vector.Bool:
		v.Bools, grown, err = GrowHeld(m, v.Bools, need, 1)
	case vector.Int64:
		v.I64, grown, err = GrowHeld(m, v.I64, need, 8)
	case vector.Float64:
		v.F64, grown, err = GrowHeld(m, v.F64, need, 8)
	case vector.String:
		v.Str, grown, err = GrowHeld(m, v.Str, need, memory.StringBytes)
	case vector.Node, vector.Rel:
		v.IDs, grown, err = GrowHeld(m, v.IDs, need, 8)
	case vector.Any:
		v.Any, grown, err = GrowHeld(m, v.Any, need, memory.IfaceBytes)
	}
	return grown, err
}

// CapBytes is what c's arrays take by capacity, filled or not.
func (c *Column) CapBytes() int64 {
	v := c.V
	if v == nil {
		return 0
	}
	return int64(cap(v.Bools)) + 8*int64(cap(v.I64)+cap(v.F64)+cap(v.IDs)+cap(v.Valid)) +
		memory.StringBytes*int64(cap(v.Str)) + memory.IfaceBytes*int64(cap(v.Any))
}

// doubled is s with room for one more element, its capacity doubled when
// full: append grows a large slice by a quarter, so a column of a million
// rows pushed one by one was copied about five times over (with a write
// barrier per string or value copied); doubling copies it about once.
func doubled[T any](s []T) []T {
	if len(s) < cap(s) {
		return s
	}
	return slices.Grow(s, max(len(s), 16))
}

// PushInt appends a (non-null) integer key: a typed append while the
// column holds integers, the generic push otherwise.
func (c *Column) PushInt(x int64) {
	if c.V == nil {
		c.V = &vector.Vector{Type: vector.Int64}
	}
	if c.V.Type != vector.Int64 {
		c.Push(&vector.Vector{Type: vector.Int64, I64: []int64{x}}, 0)
		return
	}
	if len(c.V.I64) == cap(c.V.I64) {
		// Doubling, from the pool: append grows large slices by a
		// quarter, copying the keys of 1M groups about five times over.
		c.V.I64 = GrowInts(c.V.I64, max(2*len(c.V.I64), 1024))[:len(c.V.I64)]
	}
	c.V.I64 = append(c.V.I64, x)
	c.setNull(c.N, false)
	c.N++
}

// nullVector is what an empty column emits: all null, shared, never
// written (as engine/expr's NullVector).
var nullVector = vector.New(vector.Null, vector.Capacity)

// typeNulls gives a column of nulls only the type t of its first value.
func (c *Column) typeNulls(t vector.Type) {
	v := vector.New(t, c.N)
	v.Valid = c.V.Valid
	c.V = v
}

// PushValue appends a generic value.
func (c *Column) PushValue(x vector.Value) {
	src := vector.New(vector.TypeOf(x), 1)
	if x != nil {
		src.Set(0, x)
	}
	c.Push(src, 0)
}

func (c *Column) setNull(i int, null bool) {
	if !null && c.V.Valid == nil {
		return
	}
	for len(c.V.Valid)*64 <= i {
		c.V.Valid = append(c.V.Valid, ^uint64(0))
	}
	if null {
		c.V.Valid.SetInvalid(i)
	}
}

// generalise turns the column into a generic one.
func (c *Column) generalise() {
	vals := make([]vector.Value, c.N)
	for i := range vals {
		vals[i] = c.V.Get(i)
	}
	c.V = &vector.Vector{Type: vector.Any, Any: vals, Valid: c.V.Valid}
}

// get returns row i as a generic value.
func (c *Column) get(i int) vector.Value { return c.V.Get(i) }

// Emit copies rows [from, from+n) into out (which it may replace to match
// the column's type) and returns the vector to use.
func (c *Column) Emit(out *vector.Vector, from, n int) *vector.Vector {
	return c.EmitWith(nil, out, from, n)
}

// EmitWith is Emit taking a replacement vector from the statement's pool.
func (c *Column) EmitWith(pool *vector.Pool, out *vector.Vector, from, n int) *vector.Vector {
	if c.V == nil {
		return nullVector
	}
	if c.V.Type == vector.Null {
		c.V = &vector.Vector{Type: vector.Any, Any: make([]vector.Value, c.N), Valid: c.V.Valid}
	}
	out = pool.Reuse(out, c.V.Type)
	v := c.V
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
