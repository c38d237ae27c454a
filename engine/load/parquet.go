package load

// Parquet input: a file's schema gives the columns and their types (no
// header to parse, no inference), its row groups are read in parallel
// into the same typed column arrays the CSV parser fills, and from there
// a Parquet table is loaded exactly like a CSV one (nodeSet, relSet).
//
// The low-level reader of arrow-go (parquet/file) is used, not pqarrow:
// pqarrow imports Arrow Flight and with it gRPC and protobuf, which the
// server binary would then carry for nothing. The column chunk readers
// decode straight into typed slices, which is what the loader wants.

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/quiverdb/quiver/engine/progress"
	"github.com/quiverdb/quiver/temporal"
	"github.com/quiverdb/quiver/vector"
)

// isParquet reports whether path names a Parquet file (by its extension,
// as the CLI and COPY take it).
func IsParquet(path string) bool {
	return strings.HasSuffix(strings.ToLower(path), ".parquet")
}

// parquetParallelBytes is the file size from which chunks are read by
// several workers (tests lower it).
var parquetParallelBytes = 1 << 20

// pqCol is a Parquet leaf column as the loader reads it.
type pqCol struct {
	spec   colSpec
	phys   parquet.Type
	conv   pqConv
	maxDef int16
	// A LIST column (spec.kind kindList): its elements' kind, and the
	// definition level at which the list is present (parquet_list.go).
	elem    kind
	listDef int16
	// text is the Quiver type of a typed text column (parquet_text.go):
	// its strings (or its list's) are parsed as that.
	text string
}

// typeText makes c a typed text column of type typ ("" leaves it as it
// is): the column must hold strings, or lists of strings.
func (c *pqCol) typeText(file string, i int, typ string) error {
	if typ == "" {
		return nil
	}
	k := c.spec.kind
	if k == kindList {
		k = c.elem
	}
	if k != kindString || c.spec.role != roleProp {
		return &Error{File: file, Column: i + 1, Name: c.spec.name, Msg: fmt.Sprintf("the metadata %q names it %s, but it is not a property column of strings", typesKey, typ)}
	}
	c.text = typ
	kind := kindDateTime
	switch typ {
	case "TIME":
		kind = kindTime
	case "DURATION":
		kind = kindDuration
	}
	if c.spec.kind == kindList {
		c.elem = kind
	} else {
		c.spec.kind = kind
	}
	return nil
}

// pqConv is how a physical value becomes the column's kind.
type pqConv uint8

const (
	convPlain  pqConv = iota // same representation
	convUint32               // INT32 holding an unsigned integer
	convUint64               // INT64 holding an unsigned integer (checked against INT64's range)
	convBinary               // unannotated BYTE_ARRAY: checked to be UTF-8
	convMillis               // times and timestamps in milliseconds
	convMicros               // ... microseconds
	convNanos                // ... nanoseconds
	convInt96                // legacy INT96 timestamp (nanoseconds of day, Julian day)
)

// parquetNames lists the file's top-level column names (for COPY, which
// decides from them whether the file holds nodes or relationships).
func parquetNames(path string) (names []string, err error) {
	defer func() {
		if r := recover(); r != nil {
			names, err = nil, &Error{File: path, Msg: fmt.Sprintf("corrupt Parquet file (%v)", r)}
		}
	}()
	rd, err := file.OpenParquetFile(path, false)
	if err != nil {
		if _, serr := os.Stat(path); serr != nil {
			return nil, serr
		}
		return nil, &Error{File: path, Msg: fmt.Sprintf("not a Parquet file or corrupt (%v)", err)}
	}
	defer rd.Close()
	root := rd.MetaData().Schema.Root()
	for i := range root.NumFields() {
		names = append(names, root.Field(i).Name())
	}
	return names, nil
}

// parquetIsRelationshipFile is IsRelationshipFile for a Parquet file.
func parquetIsRelationshipFile(path string, o *Options) (bool, error) {
	names, err := parquetNames(path)
	if err != nil {
		return false, err
	}
	has := map[string]bool{}
	for _, n := range names {
		has[n] = true
	}
	return has[o.fromColumn()] && has[o.toColumn()] && !has[o.idColumn()], nil
}

// parseParquet reads a whole Parquet file held in data. km resolves the
// from/to columns of a relationship file. A corrupt file is an error,
// never a panic: the reader's panics on malformed input are recovered.
func parseParquet(name string, data []byte, o *Options, rels bool, km *keyMap) (t *table, err error) {
	defer func() {
		if r := recover(); r != nil {
			t, err = nil, &Error{File: name, Msg: fmt.Sprintf("corrupt Parquet file (%v)", r)}
		}
	}()
	rd, err := file.NewParquetReader(bytes.NewReader(data))
	if err != nil {
		return nil, &Error{File: name, Msg: fmt.Sprintf("not a Parquet file or corrupt (%v)", err)}
	}
	defer rd.Close()
	texts, err := textTypes(name, rd.MetaData().KeyValueMetadata())
	if err != nil {
		return nil, err
	}
	cols, err := parquetColumns(name, rd.MetaData().Schema, o, rels, km)
	if err != nil {
		return nil, err
	}
	for i := range cols {
		if err := cols[i].typeText(name, i, texts[cols[i].spec.name]); err != nil {
			return nil, err
		}
	}
	t = &table{file: name, cols: make([]colSpec, len(cols))}
	for i, c := range cols {
		t.cols[i] = c.spec
	}
	// Row counts come from the footer, so the columns are allocated once
	// and every (row group, column) chunk fills its own window of them.
	total := 0
	for g := range rd.NumRowGroups() {
		n := rd.MetaData().RowGroups[g].NumRows
		// A corrupt footer must not make the loader allocate without
		// bound, so more than 4096 rows per byte of file is refused as
		// corrupt. Real files take far more room: node keys are unique,
		// and even delta-encoded ids 0..n-1 take a byte per ~100 rows.
		if n < 0 || n > int64(len(data))*4096+1<<16 || int64(total)+n > 1<<40 {
			return nil, &Error{File: name, Msg: fmt.Sprintf("corrupt Parquet file (row group %d claims %d rows)", g, n)}
		}
		t.groups = append(t.groups, int(n))
		total += int(n)
	}
	t.rows = total
	t.data = allocColumns(t.cols, total)
	for i, c := range cols {
		switch c.spec.kind {
		case kindDateTime, kindLocalDateTime, kindLocalTime, kindList, kindTime, kindDuration: // values of vector.Any
			t.data[i].str, t.data[i].any = nil, make([]vector.Value, total)
		}
		if c.maxDef > 0 {
			t.data[i].null = make([]bool, total)
		}
	}
	if err := t.readChunks(rd, cols, km, len(data), o.Progress); err != nil {
		return nil, err
	}
	for i := range t.data { // optional columns without a null need no flags
		if cd := &t.data[i]; cd.null != nil && !hasTrue(cd.null) {
			cd.null = nil
		}
	}
	return t, nil
}

func hasTrue(b []bool) bool {
	for _, x := range b {
		if x {
			return true
		}
	}
	return false
}

// parquetColumns maps the file's schema to the loader's columns: names,
// kinds and roles (key, from, to), with the checks the CSV header gets.
func parquetColumns(name string, sch *schema.Schema, o *Options, rels bool, km *keyMap) ([]pqCol, error) {
	root := sch.Root()
	lists := map[int]int16{}          // the LIST fields, by position, and their lists' definition level
	for i := range root.NumFields() { // a group is a struct, list or map
		f := root.Field(i)
		if f.Type() != schema.Group {
			continue
		}
		if def, ok := listLeaf(f); ok {
			lists[i] = def
			continue
		}
		return nil, &Error{File: name, Column: i + 1, Name: f.Name(), Msg: "nested column (a LIST of lists, MAP or STRUCT) is not supported: properties are scalars or lists of scalars"}
	}
	names := make([]string, sch.NumColumns())
	cols := make([]pqCol, sch.NumColumns())
	for i := range cols {
		c := sch.Column(i)
		listDef, list := lists[i] // every field above has one leaf: leaf i is field i
		colName := c.Name()
		if list {
			colName = root.Field(i).Name()
		}
		names[i] = colName
		if c.MaxRepetitionLevel() > 0 && !list {
			return nil, &Error{File: name, Column: i + 1, Name: c.Name(), Msg: "repeated column is not supported: properties are scalars"}
		}
		k, conv, ok := parquetKind(c)
		if !ok {
			return nil, &Error{File: name, Column: i + 1, Name: colName, Msg: fmt.Sprintf("unsupported Parquet type %s (%s): supported are integers, FLOAT, DOUBLE, BOOLEAN, strings, DATE, TIME and TIMESTAMP, and LISTs of them", c.LogicalType(), c.PhysicalType())}
		}
		cols[i] = pqCol{spec: colSpec{name: colName, kind: k}, phys: c.PhysicalType(), conv: conv, maxDef: c.MaxDefinitionLevel()}
		if list {
			cols[i].spec.kind, cols[i].elem, cols[i].listDef = kindList, k, listDef
		}
	}
	need := []string{o.idColumn()}
	if rels {
		need = []string{o.fromColumn(), o.toColumn()}
	}
	for _, n := range need {
		if !slices.Contains(names, n) {
			return nil, &Error{File: name, Msg: fmt.Sprintf("no %q column among the columns %s", n, strings.Join(names, ", "))}
		}
	}
	seen := map[string]bool{}
	for i, n := range names {
		if n == "" || seen[n] {
			return nil, &Error{File: name, Column: i + 1, Name: n, Msg: "column name empty or used twice"}
		}
		seen[n] = true
	}
	for i := range cols {
		c := &cols[i]
		switch n := c.spec.name; {
		case !rels && n == o.idColumn():
			c.spec.role = roleKey
		case rels && n == o.fromColumn():
			c.spec.role = roleFrom
		case rels && n == o.toColumn():
			c.spec.role = roleTo
		}
		fail := func(msg string) error { return &Error{File: name, Column: i + 1, Name: c.spec.name, Msg: msg} }
		switch c.spec.role {
		case roleKey:
			if c.spec.kind != kindInt && c.spec.kind != kindString {
				return nil, fail(fmt.Sprintf("a key column is INT64 or STRING, not %s", c.spec.kind))
			}
		case roleFrom, roleTo:
			if km == nil {
				return nil, &Error{File: name, Msg: "relationships refer to node keys, but no nodes were loaded"}
			}
			if c.spec.kind != km.kind {
				return nil, fail(fmt.Sprintf("node keys are %s, this column is %s", km.kind, c.spec.kind))
			}
		}
	}
	return cols, nil
}

// parquetKind maps a leaf column's physical and logical type to a kind.
func parquetKind(c *schema.Column) (kind, pqConv, bool) {
	lt := c.LogicalType()
	unit := func(u schema.TimeUnitType) pqConv {
		switch u {
		case schema.TimeUnitMillis:
			return convMillis
		case schema.TimeUnitMicros:
			return convMicros
		}
		return convNanos
	}
	switch c.PhysicalType() {
	case parquet.Types.Boolean:
		if lt.IsNone() {
			return kindBool, convPlain, true
		}
	case parquet.Types.Int32:
		switch l := lt.(type) {
		case schema.NoLogicalType:
			return kindInt, convPlain, true
		case schema.IntLogicalType:
			if !l.IsSigned() {
				return kindInt, convUint32, true
			}
			return kindInt, convPlain, true
		case schema.DateLogicalType:
			return kindDate, convPlain, true
		case schema.TimeLogicalType:
			return kindLocalTime, unit(l.TimeUnit()), true
		}
	case parquet.Types.Int64:
		switch l := lt.(type) {
		case schema.NoLogicalType:
			return kindInt, convPlain, true
		case schema.IntLogicalType:
			if !l.IsSigned() {
				return kindInt, convUint64, true
			}
			return kindInt, convPlain, true
		case schema.TimestampLogicalType:
			if l.IsAdjustedToUTC() {
				return kindDateTime, unit(l.TimeUnit()), true
			}
			return kindLocalDateTime, unit(l.TimeUnit()), true
		case schema.TimeLogicalType:
			return kindLocalTime, unit(l.TimeUnit()), true
		}
	case parquet.Types.Int96:
		if lt.IsNone() {
			return kindDateTime, convInt96, true
		}
	case parquet.Types.Float, parquet.Types.Double:
		if lt.IsNone() {
			return kindFloat, convPlain, true
		}
	case parquet.Types.ByteArray:
		switch lt.(type) {
		case schema.StringLogicalType, schema.EnumLogicalType, schema.JSONLogicalType:
			return kindString, convPlain, true
		case schema.NoLogicalType:
			return kindString, convBinary, true
		}
	}
	return 0, 0, false
}

// readChunks reads every (row group, column) chunk into t.data, several
// at once: chunks are independent and each knows its rows' window. The
// error reported is the first in row order, then column order, as a
// sequential read would find.
//
// prog is told each chunk's compressed size (from the footer) once it is
// decoded, each row group's rows once its last chunk is, and the rest of
// the file's bytes (footer, a corrupt footer's excess) at the end, so
// that the bytes told add up to the file's size.
func (t *table) readChunks(rd *file.Reader, cols []pqCol, km *keyMap, size int, prog *progress.Tracker) error {
	type task struct {
		group, col, off int
		bytes           int64
	}
	var tasks []task
	off := 0
	told := int64(0)
	left := make([]atomic.Int32, len(t.groups)) // each row group's chunks still to decode
	for g, n := range t.groups {
		left[g].Store(int32(len(cols)))
		for c := range cols {
			var b int64
			if cc, err := rd.MetaData().RowGroup(g).ColumnChunk(c); err == nil {
				b = min(max(cc.TotalCompressedSize(), 0), int64(size)-told)
			}
			told += b
			tasks = append(tasks, task{g, c, off, b})
		}
		off += n
	}
	defer prog.Add(int64(size)-told, 0)
	workers := min(runtime.GOMAXPROCS(0), len(tasks))
	if size < parquetParallelBytes {
		workers = min(workers, 1)
	}
	errs := make([]*Error, len(tasks))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(tasks) {
					return
				}
				tk := tasks[i]
				e := t.readChunk(rd, tk.group, tk.col, tk.off, &cols[tk.col], &t.data[tk.col], km)
				if e != nil {
					e.File, e.Rows, e.RowGroup = t.file, true, tk.group
					e.Column, e.Name = tk.col+1, cols[tk.col].spec.name
				}
				errs[i] = e
				prog.Add(tk.bytes, 0)
				if left[tk.group].Add(-1) == 0 {
					prog.Add(0, int64(t.groups[tk.group]))
				}
			}
		}()
	}
	wg.Wait()
	var first *Error
	for _, e := range errs {
		if e != nil && (first == nil || e.Line < first.Line || e.Line == first.Line && e.Column < first.Column) {
			first = e
		}
	}
	if first != nil {
		return first
	}
	return nil
}

// locate turns an error that names a CSV line of t (header line 1, data
// from line 2: what nodeSet's key checks report) into a Parquet row and
// row group. CSV tables' errors are returned as they are.
func (t *table) locate(err error) error {
	e, ok := err.(*Error)
	if !ok || t.groups == nil || e.Rows {
		return err
	}
	e.Rows = true
	if e.Line < 2 {
		e.Line = 0
		return e
	}
	e.Line-- // 1-based data row
	row := e.Line - 1
	for g, n := range t.groups {
		if row < n {
			e.RowGroup = g
			break
		}
		row -= n
	}
	return e
}

// date, time and timestamp values of the temporal kinds.
func temporalValue(k kind, sec, nanos int64) vector.Value {
	switch k {
	case kindDateTime:
		return temporal.DateTime{Sec: sec, Nanos: int32(nanos)}
	case kindLocalDateTime:
		return temporal.LocalDateTime{Sec: sec, Nanos: int32(nanos)}
	}
	return temporal.LocalTime{Nanos: sec*temporal.NanosPerSecond + nanos}
}
