package arrowio

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/vector"
)

// A LIST column whose element type the plan knows (engine.Column.Elem:
// a list literal of typed expressions, range(), split(), labels(),
// keys()) travels as a typed list, list<int64> say, where an unknown
// one is list<VALUE>: 12 bytes an element where the union takes 13, and
// a column a reader takes as it is. The plan's word is checked element
// by element: an element of another type is the engine's bug, and fails
// the answer rather than write a wrong value.

// typedElemType is the Arrow type of a typed list's elements, nil when
// elem is not an element type a list carries typed.
func typedElemType(elem string) arrow.DataType {
	switch elem {
	case "BOOLEAN":
		return arrow.FixedWidthTypes.Boolean
	case "INTEGER":
		return arrow.PrimitiveTypes.Int64
	case "FLOAT":
		return arrow.PrimitiveTypes.Float64
	case "STRING":
		return utf8Type
	}
	return nil
}

// listScratch is a typed list column's buffers, reused batch after batch.
type listScratch struct {
	offs    []int32
	valid   []byte // the lists' validity
	evalid  []byte // the elements' validity
	enulls  int
	n       int // elements so far
	i64     []int64
	f64     []float64
	bits    []byte
	strOffs []int32
	strData []byte
}

// typedList encodes a LIST column of elements of type elem.
func (s *listScratch) typedList(dt arrow.DataType, elem string, v *vector.Vector, b *vector.Batch, n int) (arrow.Array, error) {
	s.offs, s.valid = append(s.offs[:0], 0), append(s.valid[:0], make([]byte, (n+7)/8)...)
	s.evalid, s.enulls, s.n = s.evalid[:0], 0, 0
	s.i64, s.f64, s.bits = s.i64[:0], s.f64[:0], s.bits[:0]
	s.strOffs, s.strData = append(s.strOffs[:0], 0), s.strData[:0]
	nulls := 0
	for i := 0; i < n; i++ {
		switch l := v.Get(b.Row(i)).(type) {
		case nil:
			nulls++
		case []vector.Value:
			bitutil.SetBit(s.valid, i)
			for _, el := range l {
				if err := s.add(elem, el); err != nil {
					return nil, err
				}
			}
		default:
			return nil, mismatch(l, "LIST")
		}
		if s.n > 1<<31-1 || len(s.strData) > 1<<31-1 {
			return nil, engine.NewError(engine.CodeData, engine.CatData,
				"a batch of lists is over 2^31 elements or 2 GiB of strings, past what an Arrow list column holds")
		}
		s.offs = append(s.offs, int32(s.n))
	}
	var evalid *memory.Buffer
	if s.enulls > 0 {
		evalid = memory.NewBufferBytes(s.evalid)
	}
	var child arrow.ArrayData
	et := typedElemType(elem)
	switch elem {
	case "BOOLEAN":
		child = array.NewData(et, s.n, []*memory.Buffer{evalid, memory.NewBufferBytes(s.bits)}, nil, s.enulls, 0)
	case "INTEGER":
		child = array.NewData(et, s.n, []*memory.Buffer{evalid, memory.NewBufferBytes(arrow.GetBytes(s.i64))}, nil, s.enulls, 0)
	case "FLOAT":
		child = array.NewData(et, s.n, []*memory.Buffer{evalid, memory.NewBufferBytes(arrow.GetBytes(s.f64))}, nil, s.enulls, 0)
	default:
		child = array.NewData(et, s.n, []*memory.Buffer{evalid, memory.NewBufferBytes(arrow.GetBytes(s.strOffs)),
			memory.NewBufferBytes(s.strData)}, nil, s.enulls, 0)
	}
	defer child.Release()
	var validity *memory.Buffer
	if nulls > 0 {
		validity = memory.NewBufferBytes(s.valid)
	}
	d := array.NewData(dt, n, []*memory.Buffer{validity, memory.NewBufferBytes(arrow.GetBytes(s.offs))},
		[]arrow.ArrayData{child}, nulls, 0)
	defer d.Release()
	return array.MakeFromData(d), nil
}

// add appends one element: null, or a value of type elem.
func (s *listScratch) add(elem string, el vector.Value) error {
	if s.n&7 == 0 {
		s.evalid = append(s.evalid, 0)
		if elem == "BOOLEAN" {
			s.bits = append(s.bits, 0)
		}
	}
	switch x := el.(type) {
	case nil:
		s.enulls++
		switch elem {
		case "INTEGER":
			s.i64 = append(s.i64, 0)
		case "FLOAT":
			s.f64 = append(s.f64, 0)
		case "STRING":
			s.strOffs = append(s.strOffs, int32(len(s.strData)))
		}
		s.n++
		return nil
	case int64:
		if elem != "INTEGER" {
			return mismatch(el, "LIST of "+elem)
		}
		s.i64 = append(s.i64, x)
	case float64:
		if elem != "FLOAT" {
			return mismatch(el, "LIST of "+elem)
		}
		s.f64 = append(s.f64, x)
	case string:
		if elem != "STRING" {
			return mismatch(el, "LIST of "+elem)
		}
		s.strData = append(s.strData, x...)
		s.strOffs = append(s.strOffs, int32(len(s.strData)))
	case bool:
		if elem != "BOOLEAN" {
			return mismatch(el, "LIST of "+elem)
		}
		if x {
			bitutil.SetBit(s.bits, s.n)
		}
	default:
		return mismatch(el, "LIST of "+elem)
	}
	bitutil.SetBit(s.evalid, s.n)
	s.n++
	return nil
}
