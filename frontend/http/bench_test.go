package http

import (
	"strconv"
	"testing"

	"github.com/quiverdb/quiver/vector"
)

// BenchmarkEncodeRows measures the JSON encoding of result rows straight
// from typed vectors (the hot path of every HTTP answer): one batch of
// INTEGER, FLOAT and STRING columns, written as row objects.
func BenchmarkEncodeRows(b *testing.B) {
	batch := vector.NewBatch(vector.Int64, vector.Float64, vector.String)
	batch.Len = vector.Capacity
	for i := 0; i < batch.Len; i++ {
		batch.Cols[0].I64[i] = int64(i) * 7919
		batch.Cols[1].F64[i] = float64(i) / 3
		batch.Cols[2].Str[i] = "City" + strconv.Itoa(i%200)
	}
	keys := [][]byte{[]byte(`"a.id":`), []byte(`"avg":`), []byte(`"city":`)}
	e := &encoder{}
	buf := make([]byte, 0, 1<<20)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		buf, _ = e.appendRows(buf[:0], batch, keys, true)
	}
	b.SetBytes(int64(len(buf)))
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batch.Len), "ns/row")
}
