package arrowio

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/frontend/jsonio"
	"github.com/quiverdb/quiver/vector"
)

// Encoder turns a result's batches into Arrow record batches of one
// schema. A column whose vector has its declared type takes a fast path
// over the typed slice; any other (generic values, entities, temporals,
// or a typed column whose vector came generic) is appended value by
// value through a builder, checked against the declared type.
type Encoder struct {
	mem    memory.Allocator
	cols   []engine.Column
	schema *arrow.Schema
	ents   engine.Entities
	bld    []array.Builder // per column, made on first use
	sizes  [][]int         // per column, its builders' lengths at the last batch (reserve.go)
	arrs   []arrow.Array
	enc    jsonio.Encoder
	labels []string
	buf    []byte // JSON text of properties and nested values
	keys   []string

	scratch []scratch // per column
}

// scratch is a column's memory on the fast paths, reused batch after
// batch: a record is written before the next batch is encoded.
type scratch struct {
	i32   []int32
	i64   []int64
	f64   []float64
	bits  []byte
	valid []byte
	offs  []int32
	data  []byte
	union unionScratch // LIST and ANY columns of scalars (union.go)
	list  listScratch  // typed LIST columns (lists.go)
}

// NewEncoder encodes batches of a result with columns cols; ents
// resolves the nodes and relationships they hold.
func NewEncoder(mem memory.Allocator, cols []engine.Column, ents engine.Entities) *Encoder {
	return &Encoder{mem: mem, cols: cols, schema: Schema(cols), ents: ents,
		bld: make([]array.Builder, len(cols)), arrs: make([]arrow.Array, len(cols)), sizes: make([][]int, len(cols)), scratch: make([]scratch, len(cols)), enc: jsonio.Encoder{Ents: ents}}
}

// Schema is the schema of every record the encoder makes.
func (e *Encoder) Schema() *arrow.Schema { return e.schema }

// Record encodes the rows of b. The record may share memory with b and
// with the encoder's scratch: write it, then release it, before the next
// call.
func (e *Encoder) Record(b *vector.Batch) (arrow.RecordBatch, error) {
	n := b.Rows()
	for i := range e.arrs {
		e.arrs[i] = nil
	}
	release := func() {
		for _, a := range e.arrs {
			if a != nil {
				a.Release()
			}
		}
	}
	for c, col := range e.cols {
		a, err := e.column(c, col.Type, b.Cols[c], b, n)
		if err != nil {
			release()
			return nil, err
		}
		e.arrs[c] = a
	}
	rec := array.NewRecordBatch(e.schema, e.arrs, int64(n))
	release() // the record holds its own references
	return rec, nil
}

// column encodes one column of b.
func (e *Encoder) column(c int, typ string, v *vector.Vector, b *vector.Batch, n int) (arrow.Array, error) {
	s := &e.scratch[c]
	switch {
	case typ == "INTEGER" && v.Type == vector.Int64:
		return fixed(s, arrow.PrimitiveTypes.Int64, v.I64, &s.i64, v, b, n), nil
	case typ == "FLOAT" && v.Type == vector.Float64:
		return fixed(s, arrow.PrimitiveTypes.Float64, v.F64, &s.f64, v, b, n), nil
	case typ == "BOOLEAN" && v.Type == vector.Bool:
		return s.bools(v, b, n), nil
	case typ == "STRING" && v.Type == vector.String:
		return s.strings(v, b, n)
	case typ == "NULL":
		return array.NewNull(n), nil
	case typ == "DATE" && v.Type == vector.Any:
		return generic(s, arrow.FixedWidthTypes.Date32, &s.i32, v, b, n, date32)
	case typ == "LOCALTIME" && v.Type == vector.Any:
		return generic(s, arrow.FixedWidthTypes.Time64ns, &s.i64, v, b, n, time64)
	case typ == "LOCALDATETIME" && v.Type == vector.Any:
		return generic(s, localDateTimeType, &s.i64, v, b, n, timestamp)
	case typ == "LIST" && typedElemType(e.cols[c].Elem) != nil:
		a, err := s.list.typedList(e.schema.Field(c).Type, e.cols[c].Elem, v, b, n)
		if err != nil {
			return nil, fmt.Errorf("column %q: %w", e.cols[c].Name, err)
		}
		return a, nil
	case typ == "LIST" && v.Type == vector.Any:
		a, ok, err := s.union.listColumn(e.schema.Field(c).Type, v, b, n)
		if err != nil {
			return nil, fmt.Errorf("column %q: %w", e.cols[c].Name, err)
		}
		if ok {
			return a, nil
		}
	case v.Type == vector.Any && ArrowType(typ) == valueType:
		if a, ok := s.union.anyColumn(v, b, n); ok {
			return a, nil
		}
	}
	bld := e.bld[c]
	if bld == nil {
		bld = array.NewBuilder(e.mem, e.schema.Field(c).Type)
		e.bld[c] = bld
	}
	reserve(bld, e.sizes[c])
	bld.Reserve(n)
	for i := 0; i < n; i++ {
		if err := e.appendAs(bld, typ, v.Get(b.Row(i))); err != nil {
			bld.Release()
			e.bld[c] = nil
			return nil, fmt.Errorf("column %q: %w", e.cols[c].Name, err)
		}
	}
	e.sizes[c] = lengths(bld, e.sizes[c][:0])
	return bld.NewArray(), nil
}

// fixed is an INTEGER or FLOAT column: the vector's slice itself when
// no selection reorders it, else the selected rows gathered.
func fixed[T int64 | float64](e *scratch, dt arrow.DataType, vals []T, scratch *[]T, v *vector.Vector, b *vector.Batch, n int) arrow.Array {
	if b.Sel != nil {
		g := (*scratch)[:0]
		for _, r := range b.Sel {
			g = append(g, vals[r])
		}
		*scratch, vals = g, g
	}
	validity, nulls := e.validity(v, b, n)
	data := array.NewData(dt, n, []*memory.Buffer{validity, memory.NewBufferBytes(arrow.GetBytes(vals[:n]))}, nil, nulls, 0)
	defer data.Release()
	return array.MakeFromData(data)
}

// generic is a DATE, LOCALTIME or LOCALDATETIME column, whose values
// the engine holds in a generic vector: each converted straight into
// the Arrow array's values (a builder's growth cost twice as much).
func generic[T int32 | int64](s *scratch, dt arrow.DataType, vals *[]T, v *vector.Vector, b *vector.Batch, n int,
	conv func(vector.Value) (T, error)) (arrow.Array, error) {
	out := (*vals)[:0]
	bm := append(s.valid[:0], make([]byte, (n+7)/8)...)
	nulls := 0
	for i := 0; i < n; i++ {
		x := v.Get(b.Row(i))
		if x == nil {
			out = append(out, 0)
			nulls++
			continue
		}
		t, err := conv(x)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
		bm[i>>3] |= 1 << (uint(i) & 7)
	}
	*vals, s.valid = out, bm
	var validity *memory.Buffer
	if nulls > 0 {
		validity = memory.NewBufferBytes(bm)
	}
	data := array.NewData(dt, n, []*memory.Buffer{validity, memory.NewBufferBytes(arrow.GetBytes(out))}, nil, nulls, 0)
	defer data.Release()
	return array.MakeFromData(data), nil
}

// validity is the Arrow validity bitmap of the batch's rows of v: the
// vector's own words when no selection reorders them (Quiver's bitmap
// is Arrow's layout), nil when no row is null.
func (e *scratch) validity(v *vector.Vector, b *vector.Batch, n int) (*memory.Buffer, int) {
	if v.Valid == nil {
		return nil, 0
	}
	if b.Sel == nil {
		nulls := v.Valid.CountNulls(n)
		if nulls == 0 {
			return nil, 0
		}
		words := v.Valid[:(n+63)/64]
		return memory.NewBufferBytes(arrow.GetBytes(words)), nulls
	}
	bm := e.valid[:0]
	bm = append(bm, make([]byte, (n+7)/8)...)
	nulls := 0
	for i, r := range b.Sel {
		if v.Valid.IsValid(int(r)) {
			bm[i>>3] |= 1 << (uint(i) & 7)
		} else {
			nulls++
		}
	}
	e.valid = bm
	if nulls == 0 {
		return nil, 0
	}
	return memory.NewBufferBytes(bm), nulls
}

// bools packs a BOOLEAN column into a bitmap.
func (e *scratch) bools(v *vector.Vector, b *vector.Batch, n int) arrow.Array {
	bm := e.bits[:0]
	bm = append(bm, make([]byte, (n+7)/8)...)
	for i := 0; i < n; i++ {
		if v.Bools[b.Row(i)] {
			bm[i>>3] |= 1 << (uint(i) & 7)
		}
	}
	e.bits = bm
	validity, nulls := e.validity(v, b, n)
	data := array.NewData(arrow.FixedWidthTypes.Boolean, n, []*memory.Buffer{validity, memory.NewBufferBytes(bm)}, nil, nulls, 0)
	defer data.Release()
	return array.MakeFromData(data)
}

// strings copies a STRING column into utf8 offsets and data.
func (e *scratch) strings(v *vector.Vector, b *vector.Batch, n int) (arrow.Array, error) {
	offs, data := append(e.offs[:0], 0), e.data[:0]
	for i := 0; i < n; i++ {
		r := b.Row(i)
		if v.Valid.IsValid(r) {
			data = append(data, v.Str[r]...)
		}
		if len(data) > 1<<31-1 {
			return nil, engine.NewError(engine.CodeData, engine.CatData,
				"a batch of strings is over 2 GiB, past what an Arrow utf8 column holds")
		}
		offs = append(offs, int32(len(data)))
	}
	e.offs, e.data = offs, data
	validity, nulls := e.validity(v, b, n)
	d := array.NewData(utf8Type, n, []*memory.Buffer{validity,
		memory.NewBufferBytes(arrow.GetBytes(offs)), memory.NewBufferBytes(data)}, nil, nulls, 0)
	defer d.Release()
	return array.MakeFromData(d), nil
}

// Release frees the encoder's builders.
func (e *Encoder) Release() {
	for i, b := range e.bld {
		if b != nil {
			b.Release()
			e.bld[i] = nil
		}
	}
	for i := range e.scratch {
		e.scratch[i].union.release()
	}
}
