package http

import (
	"bufio"
	"log/slog"
	"strconv"
	"strings"

	"github.com/valyala/fasthttp"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/frontend/arrowio"
)

// Results as Arrow IPC streams (docs/arrow.md). A query answers with an
// Arrow stream when its Accept header prefers
// application/vnd.apache.arrow.stream to JSON; its compression parameter
// asks for LZ4 or ZSTD body compression:
//
//	Accept: application/vnd.apache.arrow.stream; compression=zstd
//
// The stream is built as the JSON body is (stream.go): up to streamAfter
// bytes in memory, so that a query failing early answers with its status
// and JSON error body exactly as a JSON request would; past that the
// response is committed and flushed every streamChunk bytes, one record
// batch at a time. An error after that ends the stream with
// arrowio.AppendFailure's truncated message, which every Arrow reader
// fails on.

// resultFormat is what a query request asked its rows to be.
type resultFormat struct {
	arrow bool
	codec arrowio.Codec
}

// negotiate reads the Accept header: JSON unless the Arrow stream type
// is acceptable with at least JSON's quality. A header that accepts
// neither is a 406, an unknown compression a 400, both in the error
// shape (before the query runs).
func negotiate(ctx *fasthttp.RequestCtx) (resultFormat, *apiError) {
	accept := strings.TrimSpace(string(ctx.Request.Header.Peek("Accept")))
	if accept == "" {
		return resultFormat{}, nil
	}
	jsonQ, arrowQ := -1.0, -1.0
	var codec string
	for _, r := range strings.Split(accept, ",") {
		typ, params, _ := strings.Cut(r, ";")
		typ = strings.ToLower(strings.TrimSpace(typ))
		q, comp := 1.0, ""
		for _, p := range strings.Split(params, ";") {
			k, v, _ := strings.Cut(p, "=")
			switch strings.ToLower(strings.TrimSpace(k)) {
			case "q":
				if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
					q = f
				}
			case "compression":
				comp = strings.ToLower(strings.Trim(strings.TrimSpace(v), `"`))
			}
		}
		switch typ {
		case "application/json", "application/*", "*/*":
			jsonQ = max(jsonQ, q)
		case arrowio.MediaType:
			if q > arrowQ {
				arrowQ, codec = q, comp
			}
		}
	}
	switch {
	case arrowQ > 0 && arrowQ >= jsonQ:
		c, ok := arrowio.ParseCodec(codec)
		if !ok {
			return resultFormat{}, &apiError{status: 400, code: codeInvalidParam, category: engine.CatData,
				message: "unknown Arrow compression " + strconv.Quote(codec) + ": use lz4, zstd or none"}
		}
		return resultFormat{arrow: true, codec: c}, nil
	case jsonQ > 0:
		return resultFormat{}, nil
	}
	return resultFormat{}, &apiError{status: 406, code: engine.CodeData, category: engine.CatData,
		message: "the Accept header accepts no format of this endpoint: application/json or " + arrowio.MediaType}
}

// codeInvalidParam is "invalid parameter value"; package engine does not
// name it.
const codeInvalidParam = "22023"

// arrowSink collects the stream's bytes in a pooled buffer.
type arrowSink struct{ b []byte }

func (s *arrowSink) Write(p []byte) (int, error) {
	s.b = append(s.b, p...)
	return len(p), nil
}

// arrowAnswer writes one result as an Arrow stream.
type arrowAnswer struct {
	res  *engine.Result
	w    *arrowio.Writer
	sink arrowSink
	bp   *[]byte
	done bool
}

// answerArrow answers a query's result with an Arrow stream; it ends
// the query.
func (s *Server) answerArrow(ctx *fasthttp.RequestCtx, q *runningQuery, res *engine.Result, query string, codec arrowio.Codec) {
	bp := s.bufs.Get().(*[]byte)
	a := &arrowAnswer{res: res, bp: bp, sink: arrowSink{b: (*bp)[:0]}}
	a.w = arrowio.NewWriter(&a.sink, res.Columns(), res.Entities(), codec)
	done, err := a.fill(streamAfter)
	if err != nil || done {
		res.Close()
		q.end(err)
		if err != nil {
			a.w.Abandon()
			s.releaseBuf(a.bp, a.sink.b)
			s.queryError(ctx, err, query)
			return
		}
		ctx.SetContentType(arrowio.MediaType)
		ctx.SetBody(a.sink.b)
		s.releaseBuf(a.bp, a.sink.b)
		return
	}
	ctx.SetContentType(arrowio.MediaType)
	log := q.log
	setStreamBody(ctx, func(bw *bufio.Writer) {
		err := s.streamArrow(bw, a, log)
		res.Close()
		s.releaseBuf(a.bp, a.sink.b)
		q.end(err)
	})
}

// fill encodes batches until the buffer holds limit bytes or the result
// ends (done, the stream closed).
func (a *arrowAnswer) fill(limit int) (done bool, err error) {
	for len(a.sink.b) < limit {
		batch, err := a.res.Next()
		if err != nil {
			return false, err
		}
		if batch == nil {
			if err := a.w.Close(); err != nil {
				a.res.Fail(err)
				return false, err
			}
			return true, nil
		}
		if err := a.w.Write(batch); err != nil {
			// A value Arrow cannot hold fails the statement, as a
			// failing row would (a transaction is then failed too).
			a.res.Fail(err)
			return false, err
		}
	}
	return false, nil
}

// streamArrow writes the committed stream: the buffer so far, then
// chunk after chunk; an error ends it with the failure message.
func (s *Server) streamArrow(bw *bufio.Writer, a *arrowAnswer, log *slog.Logger) error {
	for {
		if _, err := bw.Write(a.sink.b); err != nil {
			a.w.Abandon()
			return err
		}
		if err := bw.Flush(); err != nil {
			a.w.Abandon()
			return err
		}
		if a.done {
			return nil
		}
		a.sink.b = a.sink.b[:0]
		done, err := a.fill(streamChunk)
		if err != nil {
			a.w.Abandon()
			e, known := fromEngine(err, "")
			if known {
				log.Info("query failed while its Arrow stream was written", "code", e.code, "error", err)
			} else {
				log.Error("query failed while its Arrow stream was written", "error", err)
			}
			body := append(appendErrorObject([]byte(`{"error":`), e), '}')
			a.sink.b = arrowio.AppendFailure(a.sink.b[:0], body)
			if _, werr := bw.Write(a.sink.b); werr == nil {
				_ = bw.Flush()
			}
			return err
		}
		a.done = done
	}
}
