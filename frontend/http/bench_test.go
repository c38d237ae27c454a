package http

import (
	"context"
	"io"
	"log/slog"
	"strconv"
	"testing"

	"github.com/valyala/fasthttp"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/frontend/jsonio"
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
	e := &jsonio.Encoder{}
	buf := make([]byte, 0, 1<<20)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		buf, _ = e.AppendRows(buf[:0], batch, keys, true)
	}
	b.SetBytes(int64(len(buf)))
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batch.Len), "ns/row")
}

// BenchmarkCreateRequest is one auto-commit CREATE request through the
// handler, without the network, on a database in memory (no log): the
// CPU and allocations of the HTTP side and the engine around a commit.
func BenchmarkCreateRequest(b *testing.B) {
	db, err := engine.Open("", engine.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	s := New(Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, db)
	var ctx fasthttp.RequestCtx
	id := 0
	b.ReportAllocs()
	for b.Loop() {
		id++
		ctx.Request.Reset()
		ctx.Response.Reset()
		ctx.Request.Header.SetMethod(fasthttp.MethodPost)
		ctx.Request.SetRequestURI("/api/v1/query")
		ctx.Request.Header.SetContentType("application/json")
		ctx.Request.SetBodyString(`{"query":"CREATE (:W {id: $id, c: $c})","parameters":{"id":` + strconv.Itoa(id) + `,"c":"x"}}`)
		s.handle(&ctx)
		if ctx.Response.StatusCode() != 200 {
			b.Fatalf("status %d: %s", ctx.Response.StatusCode(), ctx.Response.Body())
		}
	}
}

// BenchmarkDecodeObject decodes the body of an auto-commit CREATE with
// parameters, as every JSON-taking endpoint does (fastjson, after the
// UTF-8 and syntax checks).
func BenchmarkDecodeObject(b *testing.B) {
	body := []byte(`{"query":"CREATE (:W {id: $id, c: $c})","parameters":{"id":123456,"c":"client-7"}}`)
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := jsonio.DecodeObject(body, "the request body", ""); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkPointRequest is one auto-commit point read through the
// handler, without the network: a short statement's fixed cost with the
// request decoding and the result encoding around it (compare with the
// engine's BenchmarkStatementPhases/point/5-whole for the HTTP share).
func BenchmarkPointRequest(b *testing.B) {
	defer vector.SetPoison(vector.SetPoison(false))
	db, err := engine.Open("", engine.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{"CREATE INDEX p_id FOR (p:P) ON (p.id)", "UNWIND range(0, 9999) AS i CREATE (:P {id: i, age: i % 80})"} {
		res, err := db.Query(context.Background(), q, nil)
		if err != nil {
			b.Fatal(err)
		}
		res.Close()
	}
	s := New(Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, db)
	benchQueryRequests(b, s, `{"query":"MATCH (p:P {id: $id}) RETURN p.age","parameters":{"id":42}}`, "", "")
}

// benchQueryRequests times POST /api/v1/query with body through the
// handler, with header set to value when header is not empty; each
// request must answer 200.
func benchQueryRequests(b *testing.B, s *Server, body, header, value string) {
	var ctx fasthttp.RequestCtx
	b.ReportAllocs()
	for b.Loop() {
		ctx.Request.Reset()
		ctx.Response.Reset()
		ctx.Request.Header.SetMethod(fasthttp.MethodPost)
		ctx.Request.SetRequestURI("/api/v1/query")
		ctx.Request.Header.SetContentType("application/json")
		if header != "" {
			ctx.Request.Header.Set(header, value)
		}
		ctx.Request.SetBodyString(body)
		s.handle(&ctx)
		if ctx.Response.StatusCode() != 200 {
			b.Fatalf("status %d: %s", ctx.Response.StatusCode(), ctx.Response.Body())
		}
	}
}
