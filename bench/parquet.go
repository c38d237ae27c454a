package bench

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

// Parquet file names inside a data set directory (beside the CSVs, which
// Kùzu reads in every run).
const (
	PersonsParquet = "persons.parquet"
	KnowsParquet   = "knows.parquet"
)

// parquetRowGroup is the rows of a row group, as Arrow and Spark write
// them by default (about a million; tests make it smaller).
var parquetRowGroup = 1 << 20

// WriteParquet writes persons.parquet and knows.parquet into dir: the
// columns of the CSVs (REQUIRED, INT64 and STRING), Snappy-compressed,
// dictionary-encoded where the writer finds it pays.
func (g *Graph) WriteParquet(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	req := parquet.Repetitions.Required
	str := func(name string) schema.Node {
		return schema.MustPrimitive(schema.NewPrimitiveNodeLogical(name, req, schema.StringLogicalType{}, parquet.Types.ByteArray, -1, -1))
	}
	persons := schema.MustGroup(schema.NewGroupNode("schema", req, schema.FieldList{
		schema.NewInt64Node("id", req, -1), str("name"), schema.NewInt64Node("age", req, -1), str("city"),
	}, -1))
	err := writeParquetFile(filepath.Join(dir, PersonsParquet), persons, len(g.Persons), func(lo, hi int) []any {
		ps := g.Persons[lo:hi]
		ids, ages := make([]int64, len(ps)), make([]int64, len(ps))
		names, cities := make([]parquet.ByteArray, len(ps)), make([]parquet.ByteArray, len(ps))
		for i, p := range ps {
			ids[i], ages[i] = p.ID, p.Age
			names[i], cities[i] = parquet.ByteArray(p.Name), parquet.ByteArray(p.City)
		}
		return []any{ids, names, ages, cities}
	})
	if err != nil {
		return err
	}
	knows := schema.MustGroup(schema.NewGroupNode("schema", req, schema.FieldList{
		schema.NewInt64Node("from", req, -1), schema.NewInt64Node("to", req, -1), schema.NewInt64Node("since", req, -1),
	}, -1))
	return writeParquetFile(filepath.Join(dir, KnowsParquet), knows, len(g.Knows), func(lo, hi int) []any {
		ks := g.Knows[lo:hi]
		from, to, since := make([]int64, len(ks)), make([]int64, len(ks)), make([]int64, len(ks))
		for i, k := range ks {
			from[i], to[i], since[i] = k.From, k.To, k.Since
		}
		return []any{from, to, since}
	})
}

// writeParquetFile writes rows rows of schema sc, a row group at a time:
// cols gives rows lo..hi, one slice ([]int64 or []parquet.ByteArray) per
// column.
func writeParquetFile(path string, sc *schema.GroupNode, rows int, cols func(lo, hi int) []any) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close() // on errors; the writer's Close closes it too
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Snappy))
	w, err := file.NewParquetWriterWithError(f, sc, file.WithWriterProps(props))
	if err != nil {
		return err
	}
	for lo := 0; lo < rows; lo += parquetRowGroup {
		rg, err := w.AppendRowGroupChecked()
		if err != nil {
			return err
		}
		for _, vals := range cols(lo, min(lo+parquetRowGroup, rows)) {
			cw, err := rg.NextColumn()
			if err != nil {
				return err
			}
			switch w := cw.(type) {
			case *file.Int64ColumnChunkWriter:
				_, err = w.WriteBatch(vals.([]int64), nil, nil)
			case *file.ByteArrayColumnChunkWriter:
				_, err = w.WriteBatch(vals.([]parquet.ByteArray), nil, nil)
			default:
				err = fmt.Errorf("bench: no Parquet writer for %T", cw)
			}
			if err != nil {
				return err
			}
		}
		if err := rg.Close(); err != nil {
			return err
		}
	}
	return w.Close() // the footer
}
