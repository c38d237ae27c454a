package arrowio

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/temporal"
	"github.com/quiverdb/quiver/vector"
)

// The common generic columns (ANY, and LIST, whose elements are VALUEs)
// hold scalars: their VALUE union is written here straight into its
// buffers, a type byte, an offset and the value a row, where arrow-go's
// union builder costs a builder call and a type assertion per value.
// A batch holding any other member (a time, a date-time, a duration, or
// a nested list, map or entity, which travel as JSON text) goes through
// the builders instead, value by value (appendValue): the fast path
// reports it did not apply and the caller starts over.

// unionScratch is a VALUE union's buffers, reused batch after batch.
type unionScratch struct {
	types   []int8
	offs    []int32
	nulls   int32
	bools   []byte // bitmap
	nbools  int32
	ints    []int64
	floats  []float64
	strOffs []int32
	strData []byte
	dates   []int32

	listOffs []int32 // a LIST column's offsets into the union
	valid    []byte  // a LIST column's validity
	empty    []arrow.ArrayData
}

func (u *unionScratch) reset() {
	u.types, u.offs, u.nulls = u.types[:0], u.offs[:0], 0
	u.bools, u.nbools = u.bools[:0], 0
	u.ints, u.floats, u.dates = u.ints[:0], u.floats[:0], u.dates[:0]
	u.strOffs, u.strData = append(u.strOffs[:0], 0), u.strData[:0]
}

// add appends one value; false when v is not a member written here.
func (u *unionScratch) add(v vector.Value) bool {
	switch x := v.(type) {
	case nil:
		u.types = append(u.types, int8(codeNull))
		u.offs = append(u.offs, u.nulls)
		u.nulls++
	case int64:
		u.types = append(u.types, int8(codeInt))
		u.offs = append(u.offs, int32(len(u.ints)))
		u.ints = append(u.ints, x)
	case float64:
		u.types = append(u.types, int8(codeFloat))
		u.offs = append(u.offs, int32(len(u.floats)))
		u.floats = append(u.floats, x)
	case string:
		if len(u.strData)+len(x) > 1<<31-1 {
			return false // the builders say how it failed
		}
		u.types = append(u.types, int8(codeString))
		u.offs = append(u.offs, int32(len(u.strOffs)-1))
		u.strData = append(u.strData, x...)
		u.strOffs = append(u.strOffs, int32(len(u.strData)))
	case bool:
		u.types = append(u.types, int8(codeBool))
		u.offs = append(u.offs, u.nbools)
		if u.nbools&7 == 0 {
			u.bools = append(u.bools, 0)
		}
		if x {
			u.bools[u.nbools>>3] |= 1 << (uint(u.nbools) & 7)
		}
		u.nbools++
	case temporal.Date:
		d, err := date32(x)
		if err != nil {
			return false
		}
		u.types = append(u.types, int8(codeDate))
		u.offs = append(u.offs, int32(len(u.dates)))
		u.dates = append(u.dates, d)
	default:
		return false
	}
	return true
}

// data is the union's array data, of every value added since reset.
// The caller releases it.
func (u *unionScratch) data() arrow.ArrayData {
	if u.empty == nil {
		u.empty = make([]arrow.ArrayData, len(valueFields))
		for i, f := range valueFields {
			a := array.MakeArrayOfNull(memory.DefaultAllocator, f.Type, 0)
			u.empty[i] = a.Data()
			u.empty[i].Retain()
			a.Release()
		}
	}
	children := make([]arrow.ArrayData, len(valueFields))
	copy(children, u.empty)
	var made []arrow.ArrayData
	child := func(code arrow.UnionTypeCode, d arrow.ArrayData) {
		children[code] = d
		made = append(made, d)
	}
	if u.nulls > 0 {
		child(codeNull, array.NewData(arrow.Null, int(u.nulls), []*memory.Buffer{nil}, nil, int(u.nulls), 0))
	}
	if u.nbools > 0 {
		child(codeBool, array.NewData(arrow.FixedWidthTypes.Boolean, int(u.nbools), []*memory.Buffer{nil, memory.NewBufferBytes(u.bools)}, nil, 0, 0))
	}
	if len(u.ints) > 0 {
		child(codeInt, array.NewData(arrow.PrimitiveTypes.Int64, len(u.ints), []*memory.Buffer{nil, memory.NewBufferBytes(arrow.GetBytes(u.ints))}, nil, 0, 0))
	}
	if len(u.floats) > 0 {
		child(codeFloat, array.NewData(arrow.PrimitiveTypes.Float64, len(u.floats), []*memory.Buffer{nil, memory.NewBufferBytes(arrow.GetBytes(u.floats))}, nil, 0, 0))
	}
	if n := len(u.strOffs) - 1; n > 0 {
		child(codeString, array.NewData(utf8Type, n, []*memory.Buffer{nil,
			memory.NewBufferBytes(arrow.GetBytes(u.strOffs)), memory.NewBufferBytes(u.strData)}, nil, 0, 0))
	}
	if len(u.dates) > 0 {
		child(codeDate, array.NewData(arrow.FixedWidthTypes.Date32, len(u.dates), []*memory.Buffer{nil, memory.NewBufferBytes(arrow.GetBytes(u.dates))}, nil, 0, 0))
	}
	d := array.NewData(valueType, len(u.types), []*memory.Buffer{nil,
		memory.NewBufferBytes(arrow.GetBytes(u.types)), memory.NewBufferBytes(arrow.GetBytes(u.offs))}, children, 0, 0)
	for _, m := range made {
		m.Release() // d holds them
	}
	return d
}

// release frees the empty members kept for the next batches.
func (u *unionScratch) release() {
	for _, d := range u.empty {
		d.Release()
	}
	u.empty = nil
}

// anyColumn is an ANY column of scalars as a VALUE union; ok is false
// when a value needs the builders.
func (u *unionScratch) anyColumn(v *vector.Vector, b *vector.Batch, n int) (arrow.Array, bool) {
	u.reset()
	for i := 0; i < n; i++ {
		if !u.add(v.Get(b.Row(i))) {
			return nil, false
		}
	}
	d := u.data()
	defer d.Release()
	return array.MakeFromData(d), true
}

// listColumn is a LIST column whose elements are scalars, as
// list<VALUE>; ok is false when a value needs the builders, and err
// reports a value that is not a list (the engine's typing is wrong).
func (u *unionScratch) listColumn(dt arrow.DataType, v *vector.Vector, b *vector.Batch, n int) (arrow.Array, bool, error) {
	u.reset()
	offs := append(u.listOffs[:0], 0)
	bm := append(u.valid[:0], make([]byte, (n+7)/8)...)
	nulls := 0
	for i := 0; i < n; i++ {
		x := v.Get(b.Row(i))
		switch l := x.(type) {
		case nil:
			nulls++
		case []vector.Value:
			bm[i>>3] |= 1 << (uint(i) & 7)
			for _, el := range l {
				if !u.add(el) {
					u.listOffs, u.valid = offs, bm
					return nil, false, nil
				}
			}
		default:
			return nil, false, mismatch(x, "LIST")
		}
		if len(u.types) > 1<<31-1 {
			return nil, false, engine.NewError(engine.CodeData, engine.CatData,
				"a batch of lists holds over 2^31 elements, past what an Arrow list column holds")
		}
		offs = append(offs, int32(len(u.types)))
	}
	u.listOffs, u.valid = offs, bm
	var validity *memory.Buffer
	if nulls > 0 {
		validity = memory.NewBufferBytes(bm)
	}
	elems := u.data()
	defer elems.Release()
	d := array.NewData(dt, n, []*memory.Buffer{validity, memory.NewBufferBytes(arrow.GetBytes(offs))},
		[]arrow.ArrayData{elems}, nulls, 0)
	defer d.Release()
	return array.MakeFromData(d), true, nil
}
