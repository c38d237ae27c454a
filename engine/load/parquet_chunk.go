package load

import (
	"encoding/binary"
	"fmt"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"

	"github.com/quiverdb/quiver/temporal"
)

// pqBatch is how many values one ReadBatch call decodes.
const pqBatch = 4096

// batchReader is a typed column chunk reader of arrow-go.
type batchReader[T any] interface {
	ReadBatch(batchSize int64, values []T, defLvls, repLvls []int16) (int64, int, error)
}

// readBatch reads up to want rows (of a chunk of n, row of them read) into
// vals and defs, and checks what the reader claims: at least one level,
// no more levels than asked, no more values than levels.
func readBatch[T any](r batchReader[T], want int, vals []T, defs []int16, row, n int) (levels, nv int, msg string) {
	l, nv, err := r.ReadBatch(int64(want), vals, defs, nil)
	if err != nil {
		return 0, 0, fmt.Sprintf("corrupt column chunk (%v)", err)
	}
	if l <= 0 || int(l) > want || nv > int(l) {
		return 0, 0, fmt.Sprintf("corrupt column chunk: it ends after %d of its row group's %d rows", row, n)
	}
	return int(l), nv, ""
}

// scan reads the n rows of a column chunk in batches and hands each row
// to put (its value) or null; batch, when set, first sees each batch's
// non-null values. It returns the row (0-based in the chunk) and message
// of the first failure, or "".
func scan[T any](r batchReader[T], n int, maxDef int16, batch func([]T), put func(row int, v T) string, null func(row int) string) (int, string) {
	vals := make([]T, min(pqBatch, n))
	var defs []int16
	if maxDef > 0 {
		defs = make([]int16, len(vals))
	}
	for row := 0; row < n; {
		want := min(len(vals), n-row)
		levels, nv, msg := readBatch(r, want, vals, defs, row, n)
		if msg != "" {
			return row, msg
		}
		if batch != nil {
			batch(vals[:nv])
		}
		if defs == nil {
			for k := range int(levels) {
				if msg := put(row+k, vals[k]); msg != "" {
					return row + k, msg
				}
			}
		} else {
			j := 0
			for k := range int(levels) {
				var msg string
				if defs[k] < maxDef {
					msg = null(row + k)
				} else if j < nv {
					msg = put(row+k, vals[j])
					j++
				} else {
					msg = "corrupt column chunk: fewer values than definition levels say"
				}
				if msg != "" {
					return row + k, msg
				}
			}
		}
		row += int(levels)
	}
	return 0, ""
}

// readChunk reads column col of row group g, whose rows start at row off
// of the file, into cd's window off.. . Errors carry the file's 1-based
// row in Line; the caller adds file, row group and column.
func (t *table) readChunk(rd *file.Reader, g, col, off int, c *pqCol, cd *colData, km *keyMap) (e *Error) {
	defer func() {
		if r := recover(); r != nil {
			e = &Error{Line: off + 1, Msg: fmt.Sprintf("corrupt column chunk (%v)", r)}
		}
	}()
	n := t.groups[g]
	if n == 0 {
		return nil
	}
	cr, err := rd.RowGroup(g).Column(col)
	if err != nil {
		return &Error{Line: off + 1, Msg: fmt.Sprintf("corrupt column chunk (%v)", err)}
	}
	if cr.Type() != c.phys {
		return &Error{Line: off + 1, Msg: "corrupt column chunk: physical type differs from the schema's"}
	}
	d := &chunkDest{c: c, cd: cd, km: km, off: off, endpoint: c.spec.role == roleFrom || c.spec.role == roleTo}
	var row int
	var msg string
	if c.spec.kind == kindList {
		if row, msg = d.scanList(cr, n); msg != "" {
			return &Error{Line: off + row + 1, Msg: msg}
		}
		return nil
	}
	switch r := cr.(type) {
	case *file.BooleanColumnChunkReader:
		row, msg = scanDirect(r, n, c.maxDef, cd.b[off:off+n], cd.null, off)
	case *file.Int32ColumnChunkReader:
		unsigned := c.conv == convUint32
		row, msg = scan(r, n, c.maxDef, nil, func(i int, v int32) string {
			if unsigned {
				return d.ints(i, int64(uint32(v)), true)
			}
			return d.ints(i, int64(v), true)
		}, d.null)
	case *file.Int64ColumnChunkReader:
		unsigned := c.conv == convUint64
		if d.endpoint && !unsigned {
			row, msg = scanEndpoints(r, n, c.maxDef, km, cd.ids[off:off+n])
			break
		}
		if c.spec.role == roleProp && c.spec.kind == kindInt && !unsigned {
			row, msg = scanDirect(r, n, c.maxDef, cd.i64[off:off+n], cd.null, off)
			break
		}
		row, msg = scan(r, n, c.maxDef, nil, func(i int, v int64) string { return d.ints(i, v, !unsigned || v >= 0) }, d.null)
	case *file.Int96ColumnChunkReader:
		row, msg = scan(r, n, c.maxDef, nil, d.int96, d.null)
	case *file.Float32ColumnChunkReader:
		row, msg = scan(r, n, c.maxDef, nil, func(i int, v float32) string { cd.f64[off+i] = float64(v); return "" }, d.null)
	case *file.Float64ColumnChunkReader:
		row, msg = scanDirect(r, n, c.maxDef, cd.f64[off:off+n], cd.null, off)
	case *file.ByteArrayColumnChunkReader:
		row, msg = d.scanByteArrays(r, n)
	default:
		return &Error{Line: off + 1, Msg: fmt.Sprintf("unsupported physical type %s", cr.Type())}
	}
	if msg != "" {
		return &Error{Line: off + row + 1, Msg: msg}
	}
	return nil
}

// chunkDest is where readChunk puts a column chunk's values: column c's
// window of cd from row off, or for an endpoint column the node ids its
// keys resolve to through km. Its methods take a value of the chunk's row
// r and return a message for a value that cannot be taken.
type chunkDest struct {
	c        *pqCol
	cd       *colData
	km       *keyMap
	off      int
	endpoint bool
}

// null takes a null: a property's, or a missing node key.
func (d *chunkDest) null(r int) string {
	if d.c.spec.role != roleProp {
		return "missing node key"
	}
	d.cd.null[d.off+r] = true
	return ""
}

// ints takes integer values (already converted to int64, ok false when
// an unsigned value is past INT64's range) to their column.
func (d *chunkDest) ints(r int, x int64, ok bool) string {
	if d.endpoint {
		if !ok {
			return fmt.Sprintf("unknown node key %d", uint64(x))
		}
		return resolveInt(d.km, x, d.cd.ids, d.off+r)
	}
	switch d.c.spec.kind {
	case kindInt:
		if !ok {
			return fmt.Sprintf("%d is past INT64's range", uint64(x))
		}
		d.cd.i64[d.off+r] = x
	case kindDate:
		d.cd.any[d.off+r] = temporal.Date{Days: x}
	default:
		sec, nanos, msg := timeUnits(x, d.c.conv, d.c.spec.kind)
		if msg != "" {
			return msg
		}
		d.cd.any[d.off+r] = temporalValue(d.c.spec.kind, sec, nanos)
	}
	return ""
}

// int96 takes a legacy INT96 timestamp: nanoseconds of the day, then the
// Julian day.
func (d *chunkDest) int96(r int, v parquet.Int96) string {
	nanos := binary.LittleEndian.Uint64(v[:8])
	day := int64(binary.LittleEndian.Uint32(v[8:])) - 2_440_588 // Julian day of 1970-01-01
	if nanos >= uint64(temporal.NanosPerDay) {
		return "corrupt INT96 timestamp (nanoseconds past the day)"
	}
	sec := day*temporal.SecondsPerDay + int64(nanos)/temporal.NanosPerSecond
	d.cd.any[d.off+r] = temporal.DateTime{Sec: sec, Nanos: int32(int64(nanos) % temporal.NanosPerSecond)}
	return ""
}

// scanByteArrays reads a BYTE_ARRAY chunk of n rows: strings, or the
// string keys of an endpoint column. A batch's strings are copied into
// one allocation, not one each: fewer objects to allocate and for the
// collector to scan.
func (d *chunkDest) scanByteArrays(r *file.ByteArrayColumnChunkReader, n int) (int, string) {
	if typ := d.c.text; typ != "" {
		return scan(r, n, d.c.maxDef, nil, func(i int, v parquet.ByteArray) string {
			x, msg := parseText(typ, string(v))
			d.cd.any[d.off+i] = x
			return msg
		}, d.null)
	}
	check := d.c.conv == convBinary
	var arena string
	batch := func(vals []parquet.ByteArray) {
		if d.endpoint {
			return
		}
		size := 0
		for _, v := range vals {
			size += len(v)
		}
		b := make([]byte, 0, size)
		for _, v := range vals {
			b = append(b, v...)
		}
		arena = unsafeString(b)
	}
	return scan(r, n, d.c.maxDef, batch, func(i int, v parquet.ByteArray) string {
		if check && !utf8.Valid(v) {
			return "not UTF-8 text (a BYTE_ARRAY column without annotation is read as STRING)"
		}
		if d.endpoint {
			id, ok := d.km.strs[unsafeString(v)]
			if !ok {
				return fmt.Sprintf("unknown node key %q", v)
			}
			if id == ambiguousKey {
				return fmt.Sprintf("the node key %q names several nodes", v)
			}
			setID(d.cd.ids, d.off+i, id)
			return ""
		}
		d.cd.str[d.off+i], arena = arena[:len(v)], arena[len(v):]
		return ""
	}, d.null)
}

// scanDirect reads a chunk of property values that need no conversion
// (INT64, DOUBLE, BOOLEAN) straight into their column's window dst: a
// batch is decoded in place, and when it has nulls its values, packed at
// the front, are moved to their rows from the back. null is the column's
// null flags (from row off of the file), nil for a REQUIRED column.
func scanDirect[T any](r batchReader[T], n int, maxDef int16, dst []T, null []bool, off int) (int, string) {
	var defs []int16
	if maxDef > 0 {
		defs = make([]int16, min(pqBatch, n))
	}
	for row := 0; row < n; {
		want := min(pqBatch, n-row)
		levels, nv, msg := readBatch(r, want, dst[row:row+want], defs, row, n)
		if msg != "" {
			return row, msg
		}
		if nv < int(levels) {
			var zero T
			j := nv - 1
			for k := int(levels) - 1; k >= 0; k-- {
				if defs[k] < maxDef {
					dst[row+k] = zero
					null[off+row+k] = true
				} else if j >= 0 {
					dst[row+k] = dst[row+j]
					j--
				} else {
					return row + k, "corrupt column chunk: fewer values than definition levels say"
				}
			}
		}
		row += int(levels)
	}
	return 0, ""
}

// ambiguousKey is the id COPY's key maps give a key that several nodes
// carry: an error where a relationship names it.
const ambiguousKey = ^uint64(0)

// setID stores a resolved node id, whatever the width of the id column.
func setID[E ~uint32 | ~uint64](ids []E, i int, id uint64) { ids[i] = E(id) }

// resolveInt resolves an integer node key into ids[i], or says why not.
func resolveInt[E ~uint32 | ~uint64](km *keyMap, x int64, ids []E, i int) string {
	if km.dense != nil {
		id, ok := km.lookupInt(x)
		if !ok {
			return fmt.Sprintf("unknown node key %d", x)
		}
		ids[i] = E(id)
		return ""
	}
	id, ok := km.ints[x]
	switch {
	case !ok:
		return fmt.Sprintf("unknown node key %d", x)
	case id == ambiguousKey:
		return fmt.Sprintf("the node key %d names several nodes", x)
	}
	ids[i] = E(id)
	return ""
}

// scanEndpoints resolves a chunk of INT64 node keys into ids, a batch at
// a time in a loop with no call per value, so that the lookups' cache
// misses (the keys of a relationship file are in no order) overlap: the
// lookup is most of the cost of reading a relationship file.
func scanEndpoints[E ~uint32 | ~uint64](r *file.Int64ColumnChunkReader, n int, maxDef int16, km *keyMap, ids []E) (int, string) {
	vals := make([]int64, min(pqBatch, n))
	var defs []int16
	if maxDef > 0 {
		defs = make([]int16, len(vals))
	}
	for row := 0; row < n; {
		want := min(len(vals), n-row)
		levels, nv, msg := readBatch(r, want, vals, defs, row, n)
		if msg != "" {
			return row, msg
		}
		if nv < int(levels) {
			for k := range int(levels) {
				if defs[k] < maxDef {
					return row + k, "missing node key"
				}
			}
		}
		dst := ids[row : row+nv]
		if km.dense != nil {
			for k, x := range vals[:nv] {
				id, ok := km.lookupInt(x)
				if !ok {
					return row + k, fmt.Sprintf("unknown node key %d", x)
				}
				dst[k] = E(id)
			}
		} else {
			for k, x := range vals[:nv] {
				if msg := resolveInt(km, x, dst, k); msg != "" {
					return row + k, msg
				}
			}
		}
		row += nv
	}
	return 0, ""
}

// timeUnits splits a time or timestamp in the column's unit into seconds
// and nanoseconds (floored, so instants before 1970 keep nanos >= 0). A
// time of day must lie within the day.
func timeUnits(x int64, conv pqConv, k kind) (sec, nanos int64, msg string) {
	per := int64(1_000)
	switch conv {
	case convMicros:
		per = 1_000_000
	case convNanos:
		per = 1_000_000_000
	}
	sec = x / per
	if x%per < 0 {
		sec--
	}
	nanos = (x - sec*per) * (temporal.NanosPerSecond / per)
	if k == kindLocalTime && (sec < 0 || sec >= temporal.SecondsPerDay) {
		return 0, 0, fmt.Sprintf("time of day %d is outside the day", x)
	}
	return sec, nanos, ""
}
