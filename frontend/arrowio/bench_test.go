package arrowio

import (
	"fmt"
	"io"
	"testing"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/frontend/jsonio"
	"github.com/quiverdb/quiver/temporal"
	"github.com/quiverdb/quiver/vector"
)

// A batch of the benchmark's five columns (bench/arrowhttp.go): INTEGER,
// FLOAT, STRING typed; DATE and LIST (of INTEGER, as the plan types
// the benchmark's list literal) generic vectors.
func wideBatch() ([]engine.Column, *vector.Batch) {
	n := vector.Capacity
	b := vector.NewBatch(vector.Int64, vector.Float64, vector.String, vector.Any, vector.Any)
	b.Len = n
	for i := 0; i < n; i++ {
		b.Cols[0].I64[i] = int64(i)
		b.Cols[1].F64[i] = float64(i) / 2
		b.Cols[2].Str[i] = fmt.Sprint("name-", i)
		b.Cols[3].Any[i] = temporal.Date{Days: int64(10000 + i)}
		b.Cols[4].Any[i] = []vector.Value{int64(i), int64(i + 1), int64(i + 2)}
	}
	cols := []engine.Column{{Name: "id", Type: "INTEGER"}, {Name: "score", Type: "FLOAT"}, {Name: "name", Type: "STRING"},
		{Name: "day", Type: "DATE"}, {Name: "tags", Type: "LIST", Elem: "INTEGER"}}
	return cols, b
}

func BenchmarkWriteBatch(b *testing.B) {
	cols, batch := wideBatch()
	w := NewWriter(io.Discard, cols, nil, CodecNone)
	b.ReportAllocs()
	for b.Loop() {
		if err := w.Write(batch); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkJSONBatch is the same batch through the JSON encoder.
func BenchmarkJSONBatch(b *testing.B) {
	cols, batch := wideBatch()
	_, keys := jsonio.AppendFields(nil, cols)
	enc := &jsonio.Encoder{}
	var buf []byte
	b.ReportAllocs()
	for b.Loop() {
		buf, _ = enc.AppendRows(buf[:0], batch, keys, true)
	}
}
