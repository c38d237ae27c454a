package export

import (
	"math"
	"path/filepath"
	"strings"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/storage/vfs"
	"github.com/quiverdb/quiver/jsonvalue"
	"github.com/quiverdb/quiver/temporal"
	"github.com/quiverdb/quiver/vector"
)

// COPY (<query>) TO '<file>' writes a query's rows into one Parquet or
// CSV file with the export's column writers (docs/export.md, "COPY …
// TO"). A column's type in the file comes from the result's column type
// where the plan fixes one (INTEGER, FLOAT, BOOLEAN, STRING, DATE,
// LOCALTIME, LOCALDATETIME, DATETIME, TIME, DURATION; NODE,
// RELATIONSHIP, PATH and MAP as JSON text). A column the plan leaves
// generic (ANY, LIST) takes its type from the values of the first row
// group, which is held until it is complete: one type of value, a list
// of one scalar type, or else JSON text, which holds anything. A later
// value that does not fit the type the first row group chose fails the
// statement (22000), naming the column; nothing is left behind.
//
// DATETIME is written as its text (with its offset and zone), the form
// the export gives a zoned DATETIME: one zone per Parquet column could
// not hold a column of several. LOCALDATETIME is a nanosecond timestamp:
// a value outside the years 1677–2262 is 22008, as in the Arrow answer.

// Rows is a query's result, a batch at a time (nil at the end).
type Rows interface {
	Next() (*vector.Batch, error)
}

// QueryColumn is a result column: its name and its type as the result
// reports it (engine.Column).
type QueryColumn struct{ Name, Type string }

// QueryOptions configure Query.
type QueryOptions struct {
	// Path is the file to write, already checked by Resolve. An existing
	// file is replaced once the new one is complete.
	Path string
	// Format is FormatParquet or FormatCSV.
	Format string
	// Header writes a CSV header of name:TYPE fields (the importer's).
	Header bool
	// Delimiter separates CSV fields; zero means a comma.
	Delimiter byte
	// Compression is a Parquet codec: "snappy" (zero value), "zstd" or
	// "none".
	Compression string
	// RowGroupRows is the rows held before they are written (a Parquet
	// row group); zero means DefaultBatchRows.
	RowGroupRows int
	FS           vfs.FS
	// Stop is polled at every batch; its error ends the statement.
	Stop func() error
	// Charge and Release account the rows held to the statement's memory
	// (nil: not accounted).
	Charge  func(n int64) error
	Release func(n int64)
}

// QuerySummary is what Query wrote.
type QuerySummary struct {
	Path  string
	Rows  int64
	Bytes int64
}

// Query writes the rows of rows into the file o.Path (see above). On any
// error the file is not written.
func Query(rows Rows, cols []QueryColumn, ents Entities, o QueryOptions) (QuerySummary, error) {
	sum := QuerySummary{Path: o.Path}
	q := &queryWriter{o: o, json: jsonvalue.Encoder{Ents: ents, SortProperties: true}}
	if q.o.RowGroupRows <= 0 {
		q.o.RowGroupRows = DefaultBatchRows
	}
	if q.o.Delimiter == 0 {
		q.o.Delimiter = ','
	}
	if q.o.Compression == "" {
		q.o.Compression = "snappy"
	}
	if q.o.Stop == nil {
		q.o.Stop = func() error { return nil }
	}
	fsys := o.FS
	if fsys == nil {
		fsys = vfs.Default
	}
	if fi, err := fsys.Stat(o.Path); err == nil && fi.IsDir() {
		return sum, errs.Data("COPY TO: %s is a folder", o.Path)
	}
	if fi, err := fsys.Stat(filepath.Dir(o.Path)); err != nil || !fi.IsDir() {
		return sum, errs.Data("COPY TO: the folder %s that would hold %s does not exist", filepath.Dir(o.Path), filepath.Base(o.Path))
	}
	f, err := CreateFile(fsys, o.Path)
	if err != nil {
		return sum, err
	}
	q.f = f
	defer q.releaseAll()
	if err := q.run(rows, cols); err != nil {
		f.Abort()
		return sum, err
	}
	if err := f.Commit(); err != nil {
		return sum, err
	}
	sum.Rows, sum.Bytes = q.rows, q.bytes
	return sum, nil
}

type queryWriter struct {
	o    QueryOptions
	f    *File
	json jsonvalue.Encoder
	g    *group
	s    sink
	b    *batch
	// pending holds the first row group's values column by column while
	// a generic column's type is still open.
	pending [][]vector.Value
	held    int64 // bytes charged for the rows held
	rows    int64
	bytes   int64
	buf     []byte
}

func (q *queryWriter) run(rows Rows, cols []QueryColumn) error {
	q.g = &group{desc: "the query's rows"}
	open := false
	for _, c := range cols {
		k := declaredKind(c.Type)
		if k == 0 {
			open = true
		}
		q.g.cols = append(q.g.cols, column{name: c.Name, kind: k})
	}
	if open {
		q.pending = make([][]vector.Value, len(cols))
	} else if err := q.start(); err != nil {
		return err
	}
	for {
		if err := q.o.Stop(); err != nil {
			return err
		}
		vb, err := rows.Next()
		if err != nil {
			return err
		}
		if vb == nil {
			break
		}
		if q.pending != nil {
			err = q.hold(vb)
		} else {
			err = q.add(vb)
		}
		if err != nil {
			return err
		}
	}
	if q.pending != nil {
		if err := q.settle(); err != nil {
			return err
		}
	}
	if err := q.flush(); err != nil {
		return err
	}
	if err := q.s.close(); err != nil {
		return err
	}
	q.bytes = q.f.written()
	return nil
}

// declaredKind is the file type of a result column's type; 0 when the
// first row group decides it.
func declaredKind(t string) kind {
	switch t {
	case "INTEGER":
		return kindInt
	case "FLOAT":
		return kindFloat
	case "BOOLEAN":
		return kindBool
	case "STRING":
		return kindString
	case "DATE":
		return kindDate
	case "LOCALTIME":
		return kindLocalTime
	case "LOCALDATETIME":
		return kindLocalDateTime
	case "DATETIME":
		return kindZonedDateTime
	case "TIME":
		return kindTime
	case "DURATION":
		return kindDuration
	case "NODE", "RELATIONSHIP", "PATH", "MAP":
		return kindJSON
	}
	// ANY, LIST, and NULL: a generic column whose first batch held only
	// nulls reports NULL (engine.resultColumns), whatever comes next.
	return 0
}

// start opens the file's writer once every column has its type.
func (q *queryWriter) start() error {
	var err error
	if q.o.Format == FormatCSV {
		q.s, err = newCSVSink(q.f.output, q.g, nil, csvOptions{delim: q.o.Delimiter, header: q.o.Header, breaks: true})
	} else {
		q.s, err = newParquetSink(q.f.output, q.g, nil, parquetCodecs[q.o.Compression])
	}
	if err != nil {
		return err
	}
	q.b = newBatch(q.g)
	return nil
}

// hold keeps the rows of the first row group as values, and settles the
// columns' types once it holds ROW_GROUP_SIZE rows (never more, so that
// the types do not depend on the engine's batch size); the rest of the
// batch goes on as usual.
func (q *queryWriter) hold(vb *vector.Batch) error {
	n := vb.Rows()
	var bytes int64
	for r := 0; r < n; r++ {
		row := vb.Row(r)
		for i := range q.pending {
			x := held(vb.Cols[i].Get(row))
			q.pending[i] = append(q.pending[i], x)
			bytes += valueBytes(x)
		}
		if len(q.pending[0]) < q.o.RowGroupRows {
			continue
		}
		if err := q.charge(bytes); err != nil {
			return err
		}
		if err := q.settle(); err != nil {
			return err
		}
		for r++; r < n; r++ {
			row := vb.Row(r)
			for i := range q.g.cols {
				if err := q.addValue(i, vb.Cols[i].Get(row)); err != nil {
					return err
				}
			}
			if err := q.endRow(); err != nil {
				return err
			}
		}
		return nil
	}
	return q.charge(bytes)
}

// settle types the open columns from the held rows, then writes them.
func (q *queryWriter) settle() error {
	for i := range q.g.cols {
		c := &q.g.cols[i]
		if c.kind == 0 {
			c.kind, c.elem = inferKind(q.pending[i])
			if c.kind == kindList && q.o.Format == FormatCSV {
				c.kind, c.elem = kindJSON, 0 // CSV has no lists: their JSON text
			}
		}
	}
	if err := q.start(); err != nil {
		return err
	}
	pending := q.pending
	q.pending = nil
	rows := 0
	if len(pending) > 0 {
		rows = len(pending[0])
	}
	for r := 0; r < rows; r++ {
		for i := range pending {
			if err := q.addValue(i, pending[i][r]); err != nil {
				return err
			}
		}
		if err := q.endRow(); err != nil {
			return err
		}
	}
	return nil
}

// add converts a batch into the row group, the typed vectors of the
// plain types without boxing.
func (q *queryWriter) add(vb *vector.Batch) error {
	n := vb.Rows()
	var bytes int64
	for i := range q.g.cols {
		c := &q.g.cols[i]
		v := vb.Cols[i]
		cb := &q.b.cols[i]
		switch {
		case v.Type == vector.Int64 && c.kind == kindInt:
			for r := 0; r < n; r++ {
				row := vb.Row(r)
				if v.IsNull(row) {
					cb.def = append(cb.def, 0)
					continue
				}
				cb.def, cb.i64 = append(cb.def, 1), append(cb.i64, v.I64[row])
			}
			bytes += int64(n) * 10
		case v.Type == vector.Float64 && c.kind == kindFloat:
			for r := 0; r < n; r++ {
				row := vb.Row(r)
				if v.IsNull(row) {
					cb.def = append(cb.def, 0)
					continue
				}
				cb.def, cb.f64 = append(cb.def, 1), append(cb.f64, v.F64[row])
			}
			bytes += int64(n) * 10
		case v.Type == vector.String && c.kind == kindString:
			for r := 0; r < n; r++ {
				row := vb.Row(r)
				if v.IsNull(row) {
					cb.def = append(cb.def, 0)
					continue
				}
				cb.def, cb.s = append(cb.def, 1), append(cb.s, v.Str[row])
				bytes += int64(len(v.Str[row])) + 18
			}
		default:
			for r := 0; r < n; r++ {
				x := v.Get(vb.Row(r))
				bytes += valueBytes(x)
				if err := q.addValue(i, x); err != nil {
					return err
				}
			}
		}
	}
	q.b.rows += n
	if err := q.charge(bytes); err != nil {
		return err
	}
	if q.b.rows >= q.o.RowGroupRows {
		return q.flush()
	}
	return nil
}

// addValue appends a value to column i, checking that it fits the
// column's type.
func (q *queryWriter) addValue(i int, x vector.Value) error {
	c := &q.g.cols[i]
	if x != nil {
		if c.kind == kindJSON {
			q.buf = q.json.AppendValue(q.buf[:0], x, 0)
			x = string(q.buf)
		} else if err := fits(c, x); err != nil {
			return err
		}
	}
	q.b.add(i, c, x)
	return nil
}

// endRow counts a row added value by value, flushing a full row group.
func (q *queryWriter) endRow() error {
	q.b.rows++
	if q.b.rows >= q.o.RowGroupRows {
		return q.flush()
	}
	return nil
}

func (q *queryWriter) flush() error {
	if q.b == nil || q.b.rows == 0 {
		return nil
	}
	if err := q.s.write(q.b); err != nil {
		return err
	}
	q.rows += int64(q.b.rows)
	q.b.reset()
	q.releaseAll()
	return nil
}

func (q *queryWriter) charge(n int64) error {
	if q.o.Charge == nil {
		return nil
	}
	q.held += n
	return q.o.Charge(n)
}

func (q *queryWriter) releaseAll() {
	if q.o.Release != nil && q.held > 0 {
		q.o.Release(q.held)
	}
	q.held = 0
}

// queryKind is the file type of one value; kindJSON when the files have
// none.
func queryKind(v vector.Value) kind {
	k, why := kindOf(v)
	switch {
	case why != "":
		return kindJSON
	case k == kindDateTime:
		return kindZonedDateTime
	}
	return k
}

// inferKind is the type of a generic column from the first row group's
// values: their one type, a LIST of one scalar type, or JSON text.
func inferKind(vals []vector.Value) (k, elem kind) {
	for _, v := range vals {
		if v == nil {
			continue
		}
		kd := queryKind(v)
		if kd == kindList {
			var ok bool
			if elem, ok = listElem(v.([]vector.Value), elem); !ok {
				return kindJSON, 0
			}
		}
		if k == 0 {
			k = kd
		} else if k != kd {
			return kindJSON, 0
		}
	}
	if k == 0 || k == kindList && elem == 0 {
		return kindJSON, 0 // nothing but nulls (or empty lists) yet: text holds what comes
	}
	return k, elem
}

// listElem merges the kinds of a list's elements into elem; false when
// they are not scalars of one kind.
func listElem(l []vector.Value, elem kind) (kind, bool) {
	for _, e := range l {
		if e == nil {
			continue
		}
		ek := queryKind(e)
		if ek == kindList || ek == kindJSON {
			return 0, false
		}
		if elem == 0 {
			elem = ek
		} else if elem != ek {
			return 0, false
		}
	}
	return elem, true
}

// nanosLimit is the seconds since 1970 a nanosecond timestamp reaches.
const nanosLimit = math.MaxInt64/1_000_000_000 - 1

// fits checks a present value against its column's type.
func fits(c *column, x vector.Value) error {
	k := queryKind(x)
	if k == kindList && c.kind == kindList {
		if e, ok := listElem(x.([]vector.Value), c.elem); !ok || e != c.elem && e != 0 {
			return mismatch(c, "a LIST of other elements")
		}
		for _, e := range x.([]vector.Value) {
			if err := inRange(c, e); err != nil {
				return err
			}
		}
		return nil
	}
	if k != c.kind {
		return mismatch(c, "a "+k.String())
	}
	return inRange(c, x)
}

// inRange refuses what the column's Parquet type cannot hold.
func inRange(c *column, x vector.Value) error {
	switch v := x.(type) {
	case temporal.LocalDateTime:
		if v.Sec < -nanosLimit || v.Sec > nanosLimit {
			return errs.DataCode(errs.CodeDatetimeOverflow, "COPY TO: column %s: the LOCAL DATETIME %s is outside the years 1677–2262 that a nanosecond timestamp holds", c.name, v)
		}
	case temporal.Date:
		if v.Days < math.MinInt32 || v.Days > math.MaxInt32 {
			return errs.DataCode(errs.CodeDatetimeOverflow, "COPY TO: column %s: the DATE %s is outside the range of a Parquet DATE", c.name, v)
		}
	}
	return nil
}

func mismatch(c *column, what string) error {
	t := c.kind.String()
	if c.kind == kindList {
		t = "LIST of " + c.elem.String()
	}
	return errs.Data("COPY TO: column %s holds %s, but the file's column is %s, the type its first row group gave it; convert the column in the query (toString(), or a single type) or write a larger ROW_GROUP_SIZE", c.name, what, strings.ToUpper(t))
}

// valueBytes estimates the memory a held value takes.
func valueBytes(v vector.Value) int64 {
	switch x := v.(type) {
	case nil, bool, int64, float64:
		return 16
	case string:
		return 16 + int64(len(x))
	case []vector.Value:
		n := int64(24)
		for _, e := range x {
			n += valueBytes(e)
		}
		return n
	case map[string]vector.Value:
		n := int64(48)
		for k, e := range x {
			n += 16 + int64(len(k)) + valueBytes(e)
		}
		return n
	}
	return 48
}

// held is a copy of v that outlives its batch: the engine may reuse a
// list's or a map's backing array for the next batch (a batch is valid
// until the next one is read).
func held(v vector.Value) vector.Value {
	switch x := v.(type) {
	case []vector.Value:
		out := make([]vector.Value, len(x))
		for i, e := range x {
			out[i] = held(e)
		}
		return out
	case map[string]vector.Value:
		out := make(map[string]vector.Value, len(x))
		for k, e := range x {
			out[k] = held(e)
		}
		return out
	case vector.Path:
		return vector.Path{Nodes: append([]uint64(nil), x.Nodes...), Rels: append([]uint64(nil), x.Rels...)}
	}
	return v
}
