package export

import (
	"encoding/json"
	"fmt"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

// A Parquet file is written with arrow-go's low-level writer (the
// library the importer reads with), a row group per batch, Snappy
// compressed, dictionary-encoded where the writer finds it pays but for
// the key and endpoint columns. Those are REQUIRED INT64; property
// columns are OPTIONAL (a null is an absent property) with the physical
// and logical types the importer maps back to the same Quiver types
// (docs/import.md, "The Parquet format"):
//
//	INTEGER         INT64
//	FLOAT           DOUBLE
//	BOOLEAN         BOOLEAN
//	STRING          BYTE_ARRAY STRING
//	DATE            INT32 DATE
//	LOCAL TIME      INT64 TIME(NANOS, not adjusted to UTC)
//	LOCAL DATETIME  INT64 TIMESTAMP(NANOS or MICROS, not adjusted to UTC)
//	DATETIME (UTC)  INT64 TIMESTAMP(NANOS or MICROS, adjusted to UTC)
//	DATETIME (zone) BYTE_ARRAY STRING, its text (2020-01-02T03:04+01:00[Europe/Paris])
//	TIME            BYTE_ARRAY STRING, its text (12:00:00+02:00)
//	DURATION        BYTE_ARRAY STRING, exact text (P14M-3DT3600.000000001S)
//	LIST            an OPTIONAL group (LIST) of a repeated group "list" of
//	                an OPTIONAL "element" of one of the types above
//
// The three text columns are named in the file's metadata under TypesKey
// ({"column": "DATETIME"}), which the importer reads; other readers see
// strings. A column holding DATETIMEs in UTC and in other zones is all
// text.

type parquetSink struct {
	out  *output
	w    *file.Writer
	g    *group
	keys int
	i32  []int32
	ba   []parquet.ByteArray
}

func parquetNode(c *column) (schema.Node, error) {
	if c.kind == kindList {
		// The standard three-level LIST: an OPTIONAL group annotated
		// LIST, a repeated group "list", an OPTIONAL "element".
		elem, err := scalarNode("element", c, c.elem)
		if err != nil {
			return nil, err
		}
		mid, err := schema.NewGroupNode("list", parquet.Repetitions.Repeated, schema.FieldList{elem}, -1)
		if err != nil {
			return nil, err
		}
		return schema.NewGroupNodeLogical(c.name, parquet.Repetitions.Optional, schema.FieldList{mid}, schema.ListLogicalType{}, -1)
	}
	return scalarNode(c.name, c, c.kind)
}

// scalarNode is an OPTIONAL leaf of kind k named name.
func scalarNode(name string, c *column, k kind) (schema.Node, error) {
	opt := parquet.Repetitions.Optional
	unit := schema.TimeUnitNanos
	if c.micros {
		unit = schema.TimeUnitMicros
	}
	var lt schema.LogicalType = schema.NoLogicalType{}
	pt := parquet.Types.Int64
	switch k {
	case kindFloat:
		pt = parquet.Types.Double
	case kindBool:
		pt = parquet.Types.Boolean
	case kindString, kindZonedDateTime, kindTime, kindDuration, kindJSON:
		lt, pt = schema.StringLogicalType{}, parquet.Types.ByteArray
	case kindDate:
		lt, pt = schema.DateLogicalType{}, parquet.Types.Int32
	case kindLocalTime:
		lt = schema.NewTimeLogicalType(false, schema.TimeUnitNanos)
	case kindLocalDateTime:
		lt = schema.NewTimestampLogicalTypeForce(false, unit)
	case kindDateTime:
		lt = schema.NewTimestampLogicalTypeForce(true, unit)
	}
	return schema.NewPrimitiveNodeLogical(name, opt, lt, pt, -1, -1)
}

// parquetCodecs are the compressions COPY … TO offers.
var parquetCodecs = map[string]compress.Compression{
	"snappy": compress.Codecs.Snappy, "zstd": compress.Codecs.Zstd, "none": compress.Codecs.Uncompressed,
}

func newParquetSink(out *output, g *group, keyNames []string, codec compress.Compression) (*parquetSink, error) {
	req := parquet.Repetitions.Required
	var fields schema.FieldList
	for _, k := range keyNames {
		fields = append(fields, schema.NewInt64Node(k, req, -1))
	}
	for i := range g.cols {
		n, err := parquetNode(&g.cols[i])
		if err != nil {
			return nil, fmt.Errorf("column %s of %s: %w", g.cols[i].name, g.what(), err)
		}
		fields = append(fields, n)
	}
	sc, err := schema.NewGroupNode("schema", req, fields, -1)
	if err != nil {
		return nil, fmt.Errorf("the columns of %s: %w", g.what(), err)
	}
	opts := []parquet.WriterProperty{parquet.WithCompression(codec), parquet.WithCreatedBy("quiver")}
	for _, k := range keyNames {
		// Ids are nearly all distinct: a dictionary would only cost.
		opts = append(opts, parquet.WithDictionaryFor(k, false))
	}
	props := parquet.NewWriterProperties(opts...)
	w, err := file.NewParquetWriterWithError(out, sc, file.WithWriterProps(props))
	if err != nil {
		return nil, ioErr(err, out.dir)
	}
	types := map[string]string{}
	for _, c := range g.cols {
		if t := textType(c.kind); t != "" {
			types[c.name] = t
		} else if t := textType(c.elem); c.kind == kindList && t != "" {
			types[c.name] = t
		}
	}
	if len(types) > 0 {
		js, err := json.Marshal(types)
		if err != nil {
			return nil, err
		}
		if err := w.AppendKeyValueMetadata(TypesKey, string(js)); err != nil {
			return nil, ioErr(err, out.dir)
		}
	}
	return &parquetSink{out: out, w: w, g: g, keys: len(keyNames)}, nil
}

func (s *parquetSink) write(b *batch) error {
	rg, err := s.w.AppendRowGroupChecked()
	if err != nil {
		return ioErr(err, s.out.dir)
	}
	next := func() (file.ColumnChunkWriter, error) {
		cw, err := rg.NextColumn()
		if err != nil {
			return nil, ioErr(err, s.out.dir)
		}
		return cw, nil
	}
	for k := 0; k < s.keys; k++ {
		cw, err := next()
		if err != nil {
			return err
		}
		if _, err := cw.(*file.Int64ColumnChunkWriter).WriteBatch(b.keys[k], nil, nil); err != nil {
			return ioErr(err, s.out.dir)
		}
	}
	for i := range s.g.cols {
		cw, err := next()
		if err != nil {
			return err
		}
		cb := &b.cols[i]
		switch w := cw.(type) {
		case *file.Int64ColumnChunkWriter:
			_, err = w.WriteBatch(cb.i64, cb.def, cb.rep)
		case *file.Int32ColumnChunkWriter:
			s.i32 = s.i32[:0]
			for _, d := range cb.i64 {
				s.i32 = append(s.i32, int32(d)) // in range: kindOf checked
			}
			_, err = w.WriteBatch(s.i32, cb.def, cb.rep)
		case *file.Float64ColumnChunkWriter:
			_, err = w.WriteBatch(cb.f64, cb.def, cb.rep)
		case *file.BooleanColumnChunkWriter:
			_, err = w.WriteBatch(cb.b, cb.def, cb.rep)
		case *file.ByteArrayColumnChunkWriter:
			s.ba = s.ba[:0]
			for _, x := range cb.s {
				s.ba = append(s.ba, parquet.ByteArray(x))
			}
			_, err = w.WriteBatch(s.ba, cb.def, cb.rep)
		default:
			err = fmt.Errorf("no writer for %T", cw)
		}
		if err != nil {
			return ioErr(err, s.out.dir)
		}
	}
	if err := rg.Close(); err != nil {
		return ioErr(err, s.out.dir)
	}
	return s.out.err
}

func (s *parquetSink) close() error {
	if err := s.w.Close(); err != nil { // the footer; closes out's writer side only through Write
		return ioErr(err, s.out.dir)
	}
	return s.out.close()
}
