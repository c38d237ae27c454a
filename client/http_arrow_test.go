package client_test

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/quiverdb/quiver/client"
)

// QueryArrow against a real server: typed columns, compression, an
// error before the stream, a failure while it streams, a transaction.
func TestHTTPQueryArrow(t *testing.T) {
	c := client.NewHTTP(testServer(t, 0))
	ctx := httpCtx(t)
	for _, codec := range []string{"", "lz4", "zstd"} {
		rd, err := c.QueryArrow(ctx, "UNWIND range(1, $n) AS i RETURN i, toString(i) AS s, i / 2.0 AS f, date({year: 2024, month: 1, day: 1 + i % 28}) AS d",
			map[string]any{"n": 100000}, client.WithArrowCompression(codec))
		if err != nil {
			t.Fatal(err)
		}
		if f := rd.Schema().Fields(); len(f) != 4 || f[0].Name != "i" || f[3].Type.Name() != "date32" {
			t.Fatalf("schema %v", rd.Schema())
		}
		var rows, sum int64
		for rd.Next() {
			rec := rd.RecordBatch()
			for _, v := range rec.Column(0).(*array.Int64).Int64Values() {
				sum += v
			}
			rows += rec.NumRows()
		}
		if err := rd.Err(); err != nil || rows != 100000 || sum != 100000*100001/2 {
			t.Errorf("%q: %d rows, sum %d, %v", codec, rows, sum, err)
		}
		rd.Release()
	}

	_, err := c.QueryArrow(ctx, "RETURN 1 +", nil)
	asError(t, "syntax error", err, 400, "42000")
	_, err = c.QueryArrow(ctx, "RETURN 1", nil, client.WithArrowCompression("brotli"))
	asError(t, "unknown codec", err, 400, "22023")

	rd, err := c.QueryArrow(ctx, "UNWIND range(1, 60000) AS i RETURN 'row ' + toString(i) AS s, 100 / (59990 - i) AS d", nil)
	if err != nil {
		t.Fatal(err)
	}
	rows := 0
	for rd.Next() {
		rows += int(rd.RecordBatch().NumRows())
	}
	asError(t, "failure while streaming", rd.Err(), 200, "22012")
	rd.Release()
	if rows == 0 {
		t.Error("no rows before the failure")
	}

	tx, err := c.Begin(ctx, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Query(ctx, "CREATE (:T {x: 1})", nil); err != nil {
		t.Fatal(err)
	}
	rd, err = tx.QueryArrow(ctx, "MATCH (t:T) RETURN t.x AS x", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !rd.Next() || rd.RecordBatch().Column(0).(*array.Int64).Value(0) != 1 {
		t.Errorf("the transaction's write is not in its Arrow answer")
	}
	rd.Release()
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
}
