package load

// LIST columns: a Parquet LIST of scalars (the standard three-level
// layout: an OPTIONAL or REQUIRED group annotated LIST holding a repeated
// group `list` of one scalar `element`, as Arrow, pandas, Spark and
// `quiver export` write it) is a LIST property whose elements have the
// Quiver type of the element's Parquet type (the table of
// docs/import.md). A null list is no property, an empty list is [], and
// a null element is a null in the list. Lists of lists, maps and structs
// stay refused: an element is a scalar.

import (
	"fmt"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/quiverdb/quiver/temporal"
	"github.com/quiverdb/quiver/vector"
)

// listLeaf reports whether the top-level field f is a three-level LIST of
// one scalar element, and the definition level at which the list itself
// is present (0 for a REQUIRED list, 1 for an OPTIONAL one).
func listLeaf(f schema.Node) (int16, bool) {
	g, ok := f.(*schema.GroupNode)
	if !ok || g.RepetitionType() == parquet.Repetitions.Repeated {
		return 0, false
	}
	if _, isList := g.LogicalType().(*schema.ListLogicalType); !isList && g.ConvertedType() != schema.ConvertedTypes.List {
		return 0, false
	}
	if g.NumFields() != 1 {
		return 0, false
	}
	mid, ok := g.Field(0).(*schema.GroupNode)
	if !ok || mid.RepetitionType() != parquet.Repetitions.Repeated || mid.NumFields() != 1 {
		return 0, false
	}
	if _, scalar := mid.Field(0).(*schema.PrimitiveNode); !scalar || mid.Field(0).RepetitionType() == parquet.Repetitions.Repeated {
		return 0, false
	}
	if g.RepetitionType() == parquet.Repetitions.Optional {
		return 1, true
	}
	return 0, true
}

// scanList reads a LIST column chunk of n rows into the column's window:
// a []vector.Value per row, or a null.
func (d *chunkDest) scanList(cr file.ColumnChunkReader, n int) (int, string) {
	c := d.c
	switch r := cr.(type) {
	case *file.BooleanColumnChunkReader:
		return readList(r, n, d, func(v bool) (vector.Value, string) { return v, "" })
	case *file.Int32ColumnChunkReader:
		return readList(r, n, d, func(v int32) (vector.Value, string) {
			if c.conv == convUint32 {
				return d.elemInt(int64(uint32(v)), true)
			}
			return d.elemInt(int64(v), true)
		})
	case *file.Int64ColumnChunkReader:
		return readList(r, n, d, func(v int64) (vector.Value, string) { return d.elemInt(v, c.conv != convUint64 || v >= 0) })
	case *file.Float32ColumnChunkReader:
		return readList(r, n, d, func(v float32) (vector.Value, string) { return float64(v), "" })
	case *file.Float64ColumnChunkReader:
		return readList(r, n, d, func(v float64) (vector.Value, string) { return v, "" })
	case *file.ByteArrayColumnChunkReader:
		return readList(r, n, d, func(v parquet.ByteArray) (vector.Value, string) {
			if c.conv == convBinary && !utf8.Valid(v) {
				return nil, "not UTF-8 text (a BYTE_ARRAY column without annotation is read as STRING)"
			}
			if c.text != "" {
				return parseText(c.text, string(v))
			}
			return string(v), ""
		})
	case *file.Int96ColumnChunkReader:
		return readList(r, n, d, func(v parquet.Int96) (vector.Value, string) {
			var tmp [1]vector.Value
			dd := chunkDest{c: c, cd: &colData{any: tmp[:]}}
			if msg := dd.int96(0, v); msg != "" {
				return nil, msg
			}
			return tmp[0], ""
		})
	}
	return 0, fmt.Sprintf("unsupported physical type %s", cr.Type())
}

// elemInt is an integer-backed element of the list's element kind.
func (d *chunkDest) elemInt(x int64, ok bool) (vector.Value, string) {
	switch d.c.elem {
	case kindInt:
		if !ok {
			return nil, fmt.Sprintf("%d is past INT64's range", uint64(x))
		}
		return x, ""
	case kindDate:
		return temporal.Date{Days: x}, ""
	}
	sec, nanos, msg := timeUnits(x, d.c.conv, d.c.elem)
	if msg != "" {
		return nil, msg
	}
	return temporalValue(d.c.elem, sec, nanos), ""
}

// levelReader is a typed column chunk reader with its repetition levels.
type levelReader[T any] interface {
	batchReader[T]
	HasNext() bool
}

// readList assembles rows from a chunk's values and levels: repetition
// level 0 starts a row; a definition level below the list's is a null
// list, at it an empty list, below the element's a null element.
func readList[T any](r levelReader[T], n int, d *chunkDest, conv func(T) (vector.Value, string)) (int, string) {
	c, cd, off := d.c, d.cd, d.off
	vals := make([]T, pqBatch)
	defs, reps := make([]int16, pqBatch), make([]int16, pqBatch)
	row := -1
	var cur []vector.Value
	flush := func() {
		if row >= 0 && cur != nil {
			cd.any[off+row] = cur
		}
		cur = nil
	}
	for r.HasNext() {
		l, nv, err := r.ReadBatch(pqBatch, vals, defs, reps)
		if err != nil || l <= 0 || nv > int(l) {
			return max(row, 0), fmt.Sprintf("corrupt column chunk (%v)", err)
		}
		j := 0
		for k := range int(l) {
			if reps[k] == 0 {
				flush()
				if row++; row >= n {
					return n - 1, "corrupt column chunk: more lists than its row group's rows"
				}
			} else if row < 0 || cur == nil {
				return max(row, 0), "corrupt column chunk: a list continues where none began"
			}
			switch def := defs[k]; {
			case def < c.listDef:
				cd.null[off+row] = true
			case def == c.listDef:
				cur = []vector.Value{}
			case def < c.maxDef:
				cur = append(cur, nil)
			default:
				if j >= nv {
					return row, "corrupt column chunk: fewer values than definition levels say"
				}
				v, msg := conv(vals[j])
				j++
				if msg != "" {
					return row, msg
				}
				cur = append(cur, v)
			}
		}
	}
	flush()
	if row != n-1 {
		return max(row, 0), fmt.Sprintf("corrupt column chunk: it ends after %d of its row group's %d rows", row+1, n)
	}
	return 0, ""
}
